// PruneCustomResource: upstream's unstructuredSchemaCoercer.apply for a custom resource of the
// CRD's kind (apiextensions-apiserver pkg/apiserver/customresource_handler.go) — root metadata
// coerced, unknown fields pruned (pkg/apiserver/schema/pruning), non-nullable nulls without a
// default dropped (pkg/apiserver/schema/defaulting/prunenulls.go), embedded resources coerced
// (pkg/apiserver/schema/objectmeta).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/nulls.h"
#include "pkg/apiextensions/schema/object_meta.h"
#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;

bool IsMetaField(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

// pruning.prune / skipPrune with ReturnPruned. `path` is the parent's path, restored on return.
class Pruner {
 public:
  std::vector<std::string> pruned;

  void Prune(json& x, const json* s, std::string& path, bool embedded) {
    if (s && node::PreserveUnknownFields(s)) {
      SkipPrune(x, s, path, embedded);
      return;
    }
    const size_t mark = path.size();
    if (x.is_object()) {
      if (!s) {
        for (auto it = x.begin(); it != x.end(); it = x.erase(it)) {
          pruned.push_back(Key(path, it.key()));
          path.resize(mark);
        }
        return;
      }
      const node::Additional additional = node::AdditionalProperties(s);
      for (auto it = x.begin(); it != x.end();) {
        if (embedded && IsMetaField(it.key())) {
          ++it;
          continue;
        }
        const bool at_root = path.empty();
        Key(path, it.key());
        if (const json* prop = node::Property(s, it.key())) {
          Prune(it.value(), prop, path, node::EmbeddedResource(prop));
          ++it;
        } else if (additional.present) {
          Prune(it.value(), additional.schema, path, node::EmbeddedResource(additional.schema));
          ++it;
        } else {
          // Unknown apiVersion, kind and metadata directly under the root are dropped silently.
          if (!IsMetaField(it.key()) || !at_root) pruned.push_back(path);
          it = x.erase(it);
        }
        path.resize(mark);
      }
    } else if (x.is_array()) {
      const json* items = s ? node::Items(s) : nullptr;
      for (size_t i = 0; i < x.size(); ++i) {
        Index(path, i);
        Prune(x[i], items, path, node::EmbeddedResource(items));
        path.resize(mark);
      }
    }
  }

 private:
  static const std::string& Key(std::string& path, const std::string& key) {
    if (!path.empty()) path += '.';
    path += key;
    return path;
  }
  static void Index(std::string& path, size_t i) {
    path += '[';
    path += std::to_string(i);
    path += ']';
  }

  void SkipPrune(json& x, const json* s, std::string& path, bool embedded) {
    const size_t mark = path.size();
    if (x.is_object()) {
      const node::Additional additional = node::AdditionalProperties(s);
      for (auto it = x.begin(); it != x.end(); ++it) {
        if (embedded && IsMetaField(it.key())) continue;
        Key(path, it.key());
        if (const json* prop = node::Property(s, it.key())) {
          Prune(it.value(), prop, path, node::EmbeddedResource(prop));
        } else if (additional.present) {
          Prune(it.value(), additional.schema, path, node::EmbeddedResource(additional.schema));
        }
        path.resize(mark);
      }
    } else if (x.is_array()) {
      const json* items = node::Items(s);
      for (size_t i = 0; i < x.size(); ++i) {
        Index(path, i);
        Prune(x[i], items, path, node::EmbeddedResource(items));
        path.resize(mark);
      }
    }
  }
};

}  // namespace

std::vector<std::string> PruneCustomResource(json& object, const json& schema) {
  std::vector<std::string> paths;
  if (!object.is_object()) return paths;
  const json* root = schema.is_object() ? &schema : nullptr;
  static const json kEmpty = json::object();

  // The root's metadata: decoded into ObjectMeta and written back.
  if (auto meta = object.find("metadata"); meta != object.end()) {
    paths = CoerceObjectMeta(*meta, "metadata");
  }

  // Unknown fields; the root is treated as an embedded resource (TypeMeta and ObjectMeta kept).
  Pruner pruner;
  std::string path;
  pruner.Prune(object, root ? root : &kEmpty, path, true);
  for (std::string& p : pruner.pruned) paths.push_back(std::move(p));

  DropNonNullableNulls(object, schema);

  for (std::string& p : CoerceEmbeddedResources(object, schema)) paths.push_back(std::move(p));
  return paths;
}

}  // namespace apiextensions::schema
