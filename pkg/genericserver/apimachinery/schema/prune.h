#pragma once
// Fields a kind's schema does not know: found, reported and dropped, as upstream's typed
// decoding drops them (and reports them for fieldValidation).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::schema {

// The schema node a node refers to: through "$ref" ("#/components/schemas/X") and a
// single-element "allOf" wrapper. Null when a reference does not resolve.
const nlohmann::json* Resolve(const nlohmann::json& node, const nlohmann::json& components);

// Removes from object every field that the schema `root` (a name in components) does not
// allow, and returns their paths as upstream prints them: "spec.foo",
// "spec.containers[0].bar", "foo" at the top level. Free-form parts (no properties,
// additionalProperties: true, x-kubernetes-preserve-unknown-fields) keep everything.
std::vector<std::string> PruneUnknownFields(nlohmann::json& object,
                                            const nlohmann::json& components,
                                            const std::string& root);

// Keys that appear twice in one JSON object of the text, as paths ("metadata.name").
// Malformed text: none found (the parser reports it elsewhere).
std::vector<std::string> DuplicateFields(std::string_view json_text);

}  // namespace apimachinery::schema
