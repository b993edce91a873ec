#pragma once
// Conversions between YAML and JSON with the semantics of sigs.k8s.io/yaml, which the
// Kubernetes API server uses for application/yaml bodies (YAMLToJSON) and responses
// (JSONToYAML). Both follow go-yaml v2: YAML 1.1 scalars (yes/no/on/off are booleans, 0x1F
// and 010 are integers, ~ is null) and go-yaml's output style.

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::yaml {

// Converts one YAML document (JSON is YAML too) to JSON, as YAMLToJSON does: quoted scalars
// stay strings, anchors and aliases are expanded, "<<" merges are applied, a repeated key
// takes the later value, non-string keys become strings (1 -> "1", yes -> "true").
//
// A body with a second document is refused (an empty one, like a trailing "---", is not).
// Errors are upstream's messages, which the API server returns inside a 400 Status:
// "yaml: line 3: mapping values are not allowed in this context",
// "yaml: did not find expected key", "yaml: unknown anchor 'base' referenced",
// "json: unsupported value: NaN". An empty body converts to null.
std::expected<nlohmann::json, std::string> YAMLToJSON(std::string_view yaml);

// As YAMLToJSON, but a key repeated within one mapping is an error, as YAMLToJSONStrict
// reports it (the API server's strict field validation):
// "yaml: unmarshal errors:\n  line 3: key \"a\" already set in map".
std::expected<nlohmann::json, std::string> YAMLToJSONStrict(std::string_view yaml);

// Writes JSON as YAML as JSONToYAML does (what "kubectl get -o yaml" shows): keys sorted in
// go-yaml's order, two-space indentation, sequences ("- ") at their parent key's indentation,
// strings quoted when they would read back as something else ("true", "123", "", "null",
// timestamps), strings with line breaks as literal blocks ("|", "|-"), long strings folded at
// 80 columns, {} and [] for empty objects and arrays. Always ends with a line break.
std::string JSONToYAML(const nlohmann::json& json);

// Writes JSON as go-yaml v3 marshals the node tree of its text with every node's style cleared,
// which is what gnostic's compiler.Marshal stores in the `yaml` field of an OpenAPI v2 `Any`:
// keys in the JSON's order, four-space indentation with sequences indented under their key,
// no folding, strings double-quoted only when YAML 1.2 would read them as something else
// (so "yes" and "on" stay plain), numbers as the JSON spells them. Ends with a line break.
std::string JSONToYAMLNodeV3(const nlohmann::json& json);

}  // namespace apimachinery::yaml
