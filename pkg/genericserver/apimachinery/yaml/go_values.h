#pragma once
// How the Go values go-yaml decodes become JSON (encoding/json's number spelling, read back)
// and how fmt's %#v prints them in upstream's error messages. Internal to apimachinery/yaml.

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::yaml::internal {

// The JSON value encoding/json writes for a float64, as a JSON reader sees it: integral values
// below 1e21 are written without a fraction and so become integers ("1.0" -> 1). NaN and the
// infinities have no JSON form: std::nullopt.
std::optional<nlohmann::json> JSONNumber(double v);

// "json: unsupported value: NaN" (or +Inf, -Inf).
std::string UnsupportedValueError(double v);

// fmt's %#v of a decoded value: "\"a\"", "1", "[]interface {}{\"a\", 1}",
// "map[interface {}]interface {}{\"a\":1}"; nil is "<nil>" at the top and
// "interface {}(nil)" inside collections.
std::string GoSyntax(const nlohmann::json& v, bool top = true);

}  // namespace apimachinery::yaml::internal
