#pragma once
// The JSONPath dialect of kubectl and client-go (k8s.io/client-go/util/jsonpath) as CRD
// additionalPrinterColumns use it: ".spec.replicas",
// ".status.conditions[?(@.type==\"Ready\")].status",
// "[0]", "[1:3]", "[*]", ".*", "..name", "['a.b']". Without the surrounding braces.

#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace apiextensions::jsonpath {

struct Step;

class Path {
 public:
  // The parsed path, or why it does not parse.
  static std::expected<Path, std::string> Parse(std::string_view text);
  // Every value the path selects, in document order; missing keys select nothing.
  std::vector<nlohmann::json> Find(const nlohmann::json& root) const;

 private:
  std::vector<std::shared_ptr<const Step>> steps_;
};

// A value as client-go's PrintResults prints one: strings as they are, numbers and booleans
// as Go's fmt prints them, null as "null", objects and arrays as compact JSON.
std::string PrintValue(const nlohmann::json& value);

}  // namespace apiextensions::jsonpath
