// additionalPrinterColumns: name, type, format and a simple JSON path.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

// Upstream lists the sets sorted.
constexpr std::string_view kTypes[] = {"boolean", "date", "integer", "number", "string"};
constexpr std::string_view kFormats[] = {"byte",  "date",  "date-time", "double",
                                         "float", "int32", "int64",     "password"};

template <size_t N>
bool Has(const std::string_view (&set)[N], std::string_view value) {
  for (std::string_view s : set) {
    if (s == value) return true;
  }
  return false;
}

template <size_t N>
std::string MustBeOneOf(const std::string_view (&set)[N]) {
  std::string out = "must be one of ";
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += ",";
    out += set[i];
  }
  return out;
}

}  // namespace

FieldErrors ValidateSimpleJSONPath(const std::string& value, const std::string& path) {
  FieldErrors errors;
  if (value.empty()) {
    errors.push_back(v::FieldInvalid(path, value, "must not be empty"));
  } else if (value[0] != '.') {
    errors.push_back(v::FieldInvalid(path, value, "must be a simple json path starting with ."));
  }
  // (upstream's third case, a path without dot-separated parts, cannot happen)
  return errors;
}

void ValidateColumn(const json& column, const std::string& path, FieldErrors& errors) {
  if (Str(&column, "name").empty()) errors.push_back(v::FieldRequired(Child(path, "name"), ""));

  const std::string type = Str(&column, "type");
  if (type.empty()) {
    errors.push_back(v::FieldRequired(Child(path, "type"), MustBeOneOf(kTypes)));
  } else if (!Has(kTypes, type)) {
    errors.push_back(v::FieldInvalid(Child(path, "type"), type, MustBeOneOf(kTypes)));
  }

  const std::string format = Str(&column, "format");
  if (!format.empty() && !Has(kFormats, format)) {
    errors.push_back(v::FieldInvalid(Child(path, "format"), format, MustBeOneOf(kFormats)));
  }

  // Upstream names the field by its Go name here.
  const std::string json_path = Str(&column, "jsonPath");
  if (json_path.empty()) {
    errors.push_back(v::FieldRequired(Child(path, "JSONPath"), ""));
  } else {
    for (FieldError& e : ValidateSimpleJSONPath(json_path, Child(path, "JSONPath"))) {
      errors.push_back(std::move(e));
    }
  }
}

}  // namespace apiextensions::validation::internal
