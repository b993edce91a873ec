#include "pkg/genericserver/apimachinery/patch/merge_patch.h"

#include <nlohmann/json.hpp>

namespace apimachinery::patch {
namespace {

using json = nlohmann::json;

// v4's pruneNulls: drops null members of objects, recursing into objects and arrays (whose
// null elements stay).
void PruneNulls(json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        PruneNulls(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (json& e : v) PruneNulls(e);
  }
}

// v4's mergeDocs: `patch` is an object merged into the object `doc`.
void MergeObjects(json& doc, const json& patch) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it->is_null()) {
      doc.erase(it.key());
      continue;
    }
    auto cur = doc.find(it.key());
    if (cur == doc.end() || cur->is_null() || !cur->is_object()) {
      // Nothing to merge into: the patch value, without its nulls.
      json value = *it;
      PruneNulls(value);
      doc[it.key()] = std::move(value);
    } else if (it->is_object()) {
      MergeObjects(*cur, *it);
    } else {
      *cur = *it;  // an object replaced by a non-object: taken as is
    }
  }
}

}  // namespace

nlohmann::json MergePatchValue(const nlohmann::json& target, const nlohmann::json& patch) {
  if (!patch.is_object()) return patch;
  json doc = target.is_object() ? target : json::object();
  MergeObjects(doc, patch);
  return doc;
}

std::expected<nlohmann::json, PatchError> ApplyMergePatch(const nlohmann::json& original,
                                                          const nlohmann::json& patch) {
  if (patch.is_null()) {
    return std::unexpected(PatchError{PatchErrorKind::kBadRequest, "Invalid JSON Patch"});
  }
  if (!patch.is_object()) {
    std::string word = patch.is_array()     ? "array"
                       : patch.is_string()  ? "string"
                       : patch.is_boolean() ? "bool"
                                            : "number";
    return std::unexpected(PatchError{PatchErrorKind::kBadRequest,
                                      "error decoding patch: json: cannot unmarshal " + word +
                                          " into Go value of type map[string]interface {}"});
  }
  return MergePatchValue(original, patch);
}

}  // namespace apimachinery::patch
