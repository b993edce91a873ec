#pragma once
// The pieces of kube-openapi's validation that openapi.cc's Validator is built from (internal
// to apiextensions/schema): its errors and results, what a schema node declares, and how
// enum values compare and print.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::schema::openapi {

namespace v = apimachinery::validation;
using nlohmann::json;

inline constexpr const char* kIn = " in body";

// One kube-openapi error: its message (Error(), which Result.AddErrors deduplicates on) and
// the field error kubeOpenAPIResultToFieldErrors makes of it.
struct Error {
  std::string message;
  v::FieldError field;
};

struct Result {
  std::vector<Error> errors;
  int64_t matches = 0;  // kube-openapi's MatchCount

  bool Valid() const { return errors.empty(); }
  void Merge(Result&& other) {
    for (Error& e : other.errors) errors.push_back(std::move(e));
    matches += other.matches;
  }
  void Add(Error e) { errors.push_back(std::move(e)); }
};

// The field path kubeOpenAPIResultToFieldErrors derives from err.Name.
std::string FieldPath(const std::string& name);

Error Invalid(const std::string& name, std::string message, const json& value);

Error InvalidInt(const std::string& name, std::string message, int64_t value);

// errors.InvalidType with a string value: "<name> in body must be of type <type>: <%q value>".
Error InvalidType(const std::string& name, const std::string& type_name, const std::string& value);

// Errors that are not *errors.Validation upstream (allOf/anyOf/oneOf/not): field.Invalid at the
// validator's root path (nil for custom resources) with value "".
Error Composite(std::string message);

// swag.IsFloat64AJSONInteger, including its behaviour for negative values on amd64 (uint64(f)
// of a negative float is far away, so only exact integers pass).
bool IsFloat64AJSONInteger(double f);

struct NodeInfo {
  std::vector<std::string> types;
  bool nullable = false;
  std::string format;       // kept (supported) format as written in the schema, else ""
  std::string format_name;  // its registry name
};

NodeInfo Info(const json& s);

bool Contains(const std::vector<std::string>& types, std::string_view t);

std::string Join(const std::vector<std::string>& types);

std::optional<double> NumberKeyword(const json& s, const char* key);

std::optional<int64_t> Integer(const json& s, const char* key);

bool EnumMatches(const json& data, const json& allowed);

bool DeepEqual(const json& a, const json& b);

// fmt's %v of the []interface{} of enum values (only used in the deduplicated message).
std::string EnumList(const json& values);

}  // namespace apiextensions::schema::openapi
