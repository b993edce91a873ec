#pragma once
// The node tree of one YAML document, as go-yaml's parser builds it before decoding: scalars
// keep their text and tag, aliases point at their anchored node. Built from yaml-cpp's event
// parser (yaml-cpp stays out of this header). Internal to apimachinery/yaml.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace apimachinery::yaml::internal {

enum class NodeKind { kScalar, kMapping, kSequence, kAlias };

struct Node {
  NodeKind kind = NodeKind::kScalar;
  // Scalars: "" when plain without a tag, "!" when quoted (or a block scalar) without a tag,
  // otherwise the full tag ("tag:yaml.org,2002:str", "!foo").
  std::string tag;
  std::string text;  // scalar text
  int line = 0;      // 0-based line of the node
  // Mappings: key, value, key, value, ...; sequences: the items.
  std::vector<int> children;
  int target = -1;     // aliases: the anchored node
  std::string anchor;  // aliases: the anchor name they refer to
};

struct NodeTree {
  std::vector<Node> nodes;
  int root = -1;  // -1 for an empty document (null)
};

// Parses a YAML (or JSON) body that must hold a single document. Further documents that are
// empty ("---" at the end, comments) are accepted; one with content is an error. Errors are
// go-yaml's messages without the "yaml: " prefix ("line 3: mapping values are not allowed in
// this context").
std::expected<NodeTree, std::string> ParseSingleDocument(std::string_view yaml);

}  // namespace apimachinery::yaml::internal
