#pragma once
// Decodes a node tree into JSON as sigs.k8s.io/yaml's YAMLToJSON does: go-yaml v2 unmarshals
// into interface{} (aliases expanded, "<<" merges applied, a repeated key overwrites), the keys
// become strings (1 -> "1", true -> "true", 1.5 -> "1.5") and the value is what encoding/json
// writes, read back (so 1.0 becomes the integer 1). Internal to apimachinery/yaml.

#include <expected>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/yaml/node_tree.h"

namespace apimachinery::yaml::internal {

// Errors carry upstream's full text: "yaml: unknown anchor 'a' referenced",
// "json: unsupported value: NaN", "Unsupported map key of type: ...". With strict, repeated
// keys fail as go-yaml's UnmarshalStrict does:
// "yaml: unmarshal errors:\n  line 3: key \"a\" already set in map".
std::expected<nlohmann::json, std::string> DecodeTree(const NodeTree& tree, bool strict);

}  // namespace apimachinery::yaml::internal
