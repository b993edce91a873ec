#pragma once
// The JSON types of an object against its kind's OpenAPI schema, reported as upstream's
// decoding into the Go type reports the first mismatch.

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::schema {

// std::nullopt when every value has a type the schema allows; else the message of the
// first mismatch, e.g. "json: cannot unmarshal number into Go struct field
// ConfigMap.data of type string". Time and MicroTime values that decode are rewritten as
// upstream re-encodes them (GoTimeCanonical): a decoded object reads as a stored one.
std::optional<std::string> CheckTypes(nlohmann::json& object, const nlohmann::json& components,
                                      const std::string& root);

}  // namespace apimachinery::schema
