#include "pkg/genericserver/apimachinery/yaml/decode.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/go_map_key.h"
#include "pkg/genericserver/apimachinery/yaml/go_values.h"
#include "pkg/genericserver/apimachinery/yaml/resolve.h"
#include "pkg/genericserver/apimachinery/yaml/utf8.h"
#include "pkg/util/base64.h"
#include "pkg/util/strings.h"

namespace apimachinery::yaml::internal {

namespace {

using Json = nlohmann::json;

// Deeper than yaml-cpp lets a document nest; only aliases inside aliases get here.
constexpr int kMaxDepth = 1000;

// The entries of one mapping as go-yaml builds its map: a repeated key overwrites.
struct MapBuilder {
  GoKeyIndex index;
  std::vector<GoMapKey> keys;
  std::vector<Json> values;

  // Returns false when the key is already there (the old value stays when keep_existing).
  bool Set(GoMapKey key, Json value, bool keep_existing) {
    const auto [position, added] = index.Insert(key);
    if (!added) {
      if (!keep_existing) values[position] = std::move(value);
      return false;
    }
    keys.push_back(std::move(key));
    values.push_back(std::move(value));
    return true;
  }
};

// go-yaml's limit on how much of a document may come from alias expansion.
double AllowedAliasRatio(long decode_count) {
  constexpr long kLow = 400000;
  constexpr long kHigh = 4000000;
  if (decode_count <= kLow) return 0.99;
  if (decode_count >= kHigh) return 0.10;
  return 0.99 - 0.89 * (static_cast<double>(decode_count - kLow) / (kHigh - kLow));
}

class Decoder {
 public:
  Decoder(const NodeTree& tree, bool strict)
      : nodes_(tree.nodes), strict_(strict), active_(tree.nodes.size(), false) {}

  std::expected<Json, std::string> Run(int root) {
    Json out;
    if (!Visit() || (root >= 0 && !Value(root, out, 0))) return std::unexpected(*fatal_);
    if (!type_errors_.empty()) {
      return std::unexpected("yaml: unmarshal errors:\n  " + util::Join(type_errors_, "\n  "));
    }
    if (convert_error_) return std::unexpected(*convert_error_);
    if (marshal_error_) return std::unexpected(*marshal_error_);
    return out;
  }

 private:
  bool Fail(std::string message) {
    fatal_ = "yaml: " + std::move(message);
    return false;
  }

  // One decode step (go-yaml's d.unmarshal), counted against excessive aliasing.
  bool Visit() {
    ++decode_count_;
    if (alias_depth_ > 0) ++alias_count_;
    if (alias_count_ > 100 && decode_count_ > 1000 &&
        static_cast<double>(alias_count_) / static_cast<double>(decode_count_) >
            AllowedAliasRatio(decode_count_)) {
      return Fail("document contains excessive aliasing");
    }
    return true;
  }

  bool EnterAlias(int alias) {
    if (active_[alias]) return Fail("anchor '" + nodes_[alias].anchor + "' value contains itself");
    active_[alias] = true;
    ++alias_depth_;
    return true;
  }

  void LeaveAlias(int alias) {
    active_[alias] = false;
    --alias_depth_;
  }

  bool Value(int index, Json& out, int depth) {
    if (depth > kMaxDepth) return Fail("exceeded max depth of " + std::to_string(kMaxDepth));
    if (!Visit()) return false;
    const Node& n = nodes_[index];
    switch (n.kind) {
      case NodeKind::kAlias: {
        if (n.target < 0) return Fail("unknown anchor '" + n.anchor + "' referenced");
        if (!EnterAlias(index)) return false;
        const bool ok = Value(n.target, out, depth + 1);
        LeaveAlias(index);
        return ok;
      }
      case NodeKind::kScalar:
        return Scalar(n, out);
      case NodeKind::kSequence:
      case NodeKind::kMapping:
        return Collection(index, out, depth);
    }
    return true;
  }

  bool Collection(int index, Json& out, int depth) {
    const Node& n = nodes_[index];
    if (n.kind == NodeKind::kSequence) {
      out = Json::array();
      for (const int child : n.children) {
        Json item;
        if (!Value(child, item, depth + 1)) return false;
        out.push_back(std::move(item));
      }
      return true;
    }
    MapBuilder map;
    if (!Mapping(index, map, depth)) return false;
    out = Json::object();
    for (std::size_t i = 0; i < map.keys.size(); ++i) {
      auto name = JSONMemberName(map.keys[i]);
      if (!name && !convert_error_) {
        convert_error_ = name.error() + ", value: " + GoSyntax(map.values[i]);
      }
      out[name.value_or(std::string())] = std::move(map.values[i]);
    }
    return true;
  }

  // Decodes a mapping's entries into map (also the target of "<<" merges).
  bool Mapping(int index, MapBuilder& map, int depth) {
    const Node& n = nodes_[index];
    for (std::size_t i = 0; i + 1 < n.children.size(); i += 2) {
      const Node& k = nodes_[n.children[i]];
      if (k.kind == NodeKind::kScalar && k.text == "<<" &&
          (k.tag.empty() || k.tag == std::string(kYAMLTagPrefix) + "merge")) {
        if (!Merge(n.children[i + 1], map, depth + 1)) return false;
        continue;
      }
      GoMapKey key;
      Json value;
      if (!KeyValue(n.children[i], key, depth + 1)) return false;
      if (!Value(n.children[i + 1], value, depth + 1)) return false;
      std::string syntax = strict_ ? GoKeySyntax(key) : std::string();
      if (!map.Set(std::move(key), std::move(value), strict_) && strict_) {
        type_errors_.push_back("line " + std::to_string(nodes_[n.children[i + 1]].line + 1) +
                               ": key " + syntax + " already set in map");
      }
    }
    return true;
  }

  bool Merge(int index, MapBuilder& map, int depth) {
    const auto want_map = [this] {
      return Fail("map merge requires map or sequence of maps as the value");
    };
    const auto is_map = [this](int i) {
      const Node& n = nodes_[i];
      return n.kind == NodeKind::kMapping || (n.kind == NodeKind::kAlias && n.target >= 0 &&
                                              nodes_[n.target].kind == NodeKind::kMapping);
    };
    const Node& n = nodes_[index];
    if (n.kind == NodeKind::kSequence) {
      // Earlier maps take precedence, so merge from the last one.
      for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
        if (!is_map(*it)) return want_map();
        if (!MergeOne(*it, map, depth)) return false;
      }
      return true;
    }
    if (!is_map(index)) return want_map();
    return MergeOne(index, map, depth);
  }

  bool MergeOne(int index, MapBuilder& map, int depth) {
    if (!Visit()) return false;
    const Node& n = nodes_[index];
    if (n.kind == NodeKind::kMapping) return Mapping(index, map, depth);
    if (!EnterAlias(index)) return false;
    const bool ok = Visit() && Mapping(n.target, map, depth + 1);
    LeaveAlias(index);
    return ok;
  }

  bool KeyValue(int index, GoMapKey& key, int depth) {
    if (depth > kMaxDepth) return Fail("exceeded max depth of " + std::to_string(kMaxDepth));
    if (!Visit()) return false;
    const Node& n = nodes_[index];
    if (n.kind == NodeKind::kAlias) {
      if (n.target < 0) return Fail("unknown anchor '" + n.anchor + "' referenced");
      if (!EnterAlias(index)) return false;
      const bool ok = KeyValue(n.target, key, depth + 1);
      LeaveAlias(index);
      return ok;
    }
    if (n.kind != NodeKind::kScalar) {
      Json v;
      if (!Collection(index, v, depth)) return false;
      return Fail("invalid map key: " + GoSyntax(v));
    }
    if (n.tag == "!") {
      key.type = GoMapKey::Type::kString;
      key.text = ScalarText(n.text);
      return true;
    }
    const auto r = Resolve(n.tag, n.text);
    if (!r) return Fail(r.error());
    switch (r->kind) {
      case ScalarKind::kNull:
        key.type = GoMapKey::Type::kNil;
        break;
      case ScalarKind::kBool:
        key.type = GoMapKey::Type::kBool;
        key.boolean = r->boolean;
        break;
      case ScalarKind::kInt:
        key.type = GoMapKey::Type::kInt;
        key.integer = r->integer;
        break;
      case ScalarKind::kUint:
        key.type = GoMapKey::Type::kUint;
        key.unsigned_integer = r->unsigned_integer;
        break;
      case ScalarKind::kFloat:
        key.type = GoMapKey::Type::kFloat;
        key.floating = r->floating;
        break;
      case ScalarKind::kBinary:
        key.type = GoMapKey::Type::kString;
        return Binary(n, key.text);
      case ScalarKind::kString:
      case ScalarKind::kTimestamp:
        key.type = GoMapKey::Type::kString;
        key.text = ScalarText(n.text);
        break;
    }
    return true;
  }

  // !!binary: base64 text (line breaks ignored, as Go's decoder does) to its bytes.
  bool Binary(const Node& n, std::string& out) {
    std::string base64;
    for (const char c : n.text) {
      if (c != '\n' && c != '\r') base64.push_back(c);
    }
    const auto data = util::Base64Decode(base64);
    if (!data) return Fail("!!binary value contains invalid base64 data");
    out = SanitizeUTF8(*data);
    return true;
  }

  bool Scalar(const Node& n, Json& out) {
    if (n.tag == "!") {  // quoted, or explicitly non-specific: a string
      out = ScalarText(n.text);
      return true;
    }
    const auto r = Resolve(n.tag, n.text);
    if (!r) return Fail(r.error());
    switch (r->kind) {
      case ScalarKind::kNull:
        out = nullptr;
        break;
      case ScalarKind::kBool:
        out = r->boolean;
        break;
      case ScalarKind::kInt:
        out = r->integer;
        break;
      case ScalarKind::kUint:
        out = r->unsigned_integer;
        break;
      case ScalarKind::kFloat:
        if (auto number = JSONNumber(r->floating)) {
          out = std::move(*number);
        } else {
          if (!marshal_error_) marshal_error_ = UnsupportedValueError(r->floating);
          out = nullptr;
        }
        break;
      case ScalarKind::kBinary: {
        std::string data;
        if (!Binary(n, data)) return false;
        out = std::move(data);
        break;
      }
      case ScalarKind::kString:
      case ScalarKind::kTimestamp:
        out = ScalarText(n.text);
        break;
    }
    return true;
  }

  const std::vector<Node>& nodes_;
  const bool strict_;
  std::vector<bool> active_;  // aliases being expanded
  long decode_count_ = 0;
  long alias_count_ = 0;
  int alias_depth_ = 0;
  std::optional<std::string> fatal_;
  std::vector<std::string> type_errors_;
  std::optional<std::string> convert_error_;
  std::optional<std::string> marshal_error_;
};

}  // namespace

std::expected<nlohmann::json, std::string> DecodeTree(const NodeTree& tree, bool strict) {
  Decoder decoder(tree, strict);
  return decoder.Run(tree.root);
}

}  // namespace apimachinery::yaml::internal
