// The map half of the strategic merge patch and its entry point (upstream's mergeMap,
// applyRetainKeysDirective and mergePatchIntoOriginal).

#include "pkg/genericserver/apimachinery/patch/strategic_merge_patch.h"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/strategic_merge_internal.h"

namespace apimachinery::patch {
namespace smp {
namespace {

using json = nlohmann::json;

std::unexpected<PatchError> BadRequest(std::string message) {
  return Fail(PatchErrorKind::kBadRequest, std::move(message));
}

std::string FieldNotFound(const PatchSchema& schema, const std::string& field) {
  return "unable to find api field in struct " + schema.Name() + " for the json field " +
         json(field).dump();
}

// extractKey: the field a "<prefix>/<field>" directive key names.
std::optional<std::string> FieldOfDirective(const std::string& key, std::string_view prefix) {
  size_t slash = key.find('/');
  if (slash == std::string::npos || std::string_view(key).substr(0, slash) != prefix) {
    return std::nullopt;
  }
  return key.substr(slash + 1);
}

bool IsParallelListKey(const std::string& key) {
  return key.starts_with(kDeleteFromPrimitiveListPrefix) || key.starts_with(kSetElementOrderPrefix);
}

// applyRetainKeysDirective: drops the original's keys the $retainKeys list does not name,
// after checking that the patch sets only listed keys.
Result<void> ApplyRetainKeys(json& original, json& patch) {
  auto it = patch.find(kRetainKeysDirective);
  if (it == patch.end()) return {};
  json keys = std::move(*it);
  patch.erase(it);
  const std::string bad = "invalid patch format of retainKeys";
  if (!keys.is_array()) return BadRequest(bad);
  auto listed = [&](const std::string& key) {
    return std::find(keys.begin(), keys.end(), json(key)) != keys.end();
  };
  for (auto field = patch.begin(); field != patch.end(); ++field) {
    if (field->is_null() || IsParallelListKey(field.key())) continue;
    if (!listed(field.key())) return BadRequest(bad);
  }
  for (auto field = original.begin(); field != original.end();) {
    field = listed(field.key()) ? std::next(field) : original.erase(field);
  }
  return {};
}

// validatePatchWithSetOrderList: the patch list's items (deletions and directives aside)
// must appear in the $setElementOrder list, in the same relative order.
Result<void> ValidateSetOrder(const json& patch_list, const json& order,
                              const std::string& merge_key) {
  if (order.empty() || patch_list.empty()) return {};
  std::vector<const json*> items;
  for (const json& item : patch_list) {
    if (!merge_key.empty()) {
      if (!item.is_object()) return Internal(BadArgType("map[string]interface {}", item));
      auto directive = item.find(kDirectiveMarker);
      if (directive != item.end() && *directive == "delete") continue;
    }
    items.push_back(&item);
  }
  size_t p = 0, o = 0;
  while (p < items.size() && o < order.size()) {
    if (items[p]->is_object() && items[p]->contains(kDirectiveMarker)) {
      ++p;
      continue;
    }
    auto equal = MergeKeyValueEqual(*items[p], order[o], merge_key);
    if (!equal) return std::unexpected(equal.error());
    if (*equal) ++p;
    ++o;
  }
  if (p < items.size() && o >= order.size()) {
    return Internal("The order in patch list:\n" + GoValue(patch_list) + "\n doesn't match " +
                    std::string(kSetElementOrderPrefix) + " list:\n" + GoValue(order) + "\n");
  }
  return {};
}

// mergePatchIntoOriginal: merges each list named by a $setElementOrder directive and orders
// it by the directive; the list is then gone from `patch`.
Result<void> MergeOrderedLists(json& original, json& patch, const PatchSchema& schema) {
  std::vector<std::string> directives;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.key().starts_with(kSetElementOrderPrefix)) directives.push_back(it.key());
  }
  for (const std::string& directive : directives) {
    json order = std::move(patch[directive]);
    patch.erase(directive);
    if (!order.is_array()) return Internal(BadArgType("[]interface {}", order));
    auto field = FieldOfDirective(directive, kSetElementOrderPrefix);
    if (!field) return BadRequest("invalid patch format of setElementOrder list");
    auto in_original = original.find(*field);
    auto in_patch = patch.find(*field);
    const bool found_original = in_original != original.end();
    const bool found_patch = in_patch != patch.end();
    json original_list = json::array(), patch_list = json::array();
    if (found_original) {
      if (!in_original->is_array()) return Internal(BadArgType("[]interface {}", *in_original));
      original_list = *in_original;
    }
    if (found_patch) {
      if (!in_patch->is_array()) return Internal(BadArgType("[]interface {}", *in_patch));
      patch_list = *in_patch;
    }
    auto info = schema.Field(*field);
    if (!info) return Internal(FieldNotFound(schema, *field));
    if (auto valid = ValidateSetOrder(patch_list, order, info->merge_key); !valid) {
      return valid;
    }
    json merged;
    if (found_original && !found_patch) {
      merged = original_list;
    } else if (!found_original && found_patch) {
      merged = Sanitize(patch_list).value_or(json::array());
    } else if (found_original && found_patch) {
      if (info->strategy == PatchStrategy::kMerge) {
        auto result = MergeSlice(original_list, patch_list, *info->schema, info->merge_key, false);
        if (!result) return std::unexpected(result.error());
        merged = std::move(*result);
      } else {
        merged = Sanitize(patch_list).value_or(json::array());
      }
    } else {
      continue;
    }
    auto parts = Partition(merged, order, info->merge_key);
    if (!parts) return std::unexpected(parts.error());
    auto kind = SliceElementKind(original_list, patch_list);
    if (!kind) return std::unexpected(kind.error());
    auto ordered = NormalizeElementOrder(std::move(parts->first), std::move(parts->second), order,
                                         original_list, info->merge_key, *kind);
    if (!ordered) return std::unexpected(ordered.error());
    original[*field] = std::move(*ordered);
    patch.erase(*field);
  }
  return {};
}

// Stores the patch's value for `key` as is (sanitized), or drops the key.
void TakePatchValue(json& original, const std::string& key, const json& value) {
  if (auto kept = Sanitize(value)) {
    original[key] = std::move(*kept);
  } else {
    original.erase(key);
  }
}

}  // namespace

std::string NoMergeKey(const json& item, std::string_view merge_key) {
  return "map: " + GoValue(item) +
         " does not contain declared merge key: " + std::string(merge_key);
}

std::string BadArgType(std::string_view expected, const json& actual) {
  return "expected a " + std::string(expected) + ", but received a " + GoTypeName(actual);
}

std::optional<json> Sanitize(json value) {
  if (value.is_object()) {
    if (value.contains(kDirectiveMarker)) return std::nullopt;
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null() || it.key() == kRetainKeysDirective || IsParallelListKey(it.key())) {
        it = value.erase(it);
      } else if (auto kept = Sanitize(std::move(*it))) {
        *it = std::move(*kept);
        ++it;
      } else {
        it = value.erase(it);
      }
    }
  } else if (value.is_array()) {
    json out = json::array();
    for (json& item : value) {
      if (auto kept = Sanitize(std::move(item))) out.push_back(std::move(*kept));
    }
    return out;
  }
  return value;
}

Result<json> MergeMap(json original, json patch, const PatchSchema& schema) {
  if (auto directive = patch.find(kDirectiveMarker); directive != patch.end()) {
    if (*directive == "replace") {
      patch.erase(directive);
      return Sanitize(std::move(patch)).value_or(json::object());
    }
    if (*directive == "delete") return json::object();
    return Internal("unknown patch type: " + GoString(*directive) + " in map: " + GoValue(patch));
  }
  if (!original.is_object()) original = json::object();
  if (auto retained = ApplyRetainKeys(original, patch); !retained) {
    return std::unexpected(retained.error());
  }
  if (auto ordered = MergeOrderedLists(original, patch, schema); !ordered) {
    return std::unexpected(ordered.error());
  }
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    std::string key = it.key();
    const json& value = *it;
    bool is_delete_list = false;
    if (key.starts_with(kDeleteFromPrimitiveListPrefix)) {
      auto field = FieldOfDirective(key, kDeleteFromPrimitiveListPrefix);
      if (!field) return BadRequest("invalid patch format of primitive list");
      key = *field;
      is_delete_list = true;
    }
    if (value.is_null()) {
      original.erase(key);
      continue;
    }
    auto current = original.find(key);
    if (current == original.end() || GoKindOf(*current) != GoKindOf(value)) {
      if (!is_delete_list) TakePatchValue(original, key, value);
      continue;
    }
    GoKind kind = GoKindOf(value);
    if (kind != GoKind::kMap && kind != GoKind::kSlice) {
      *current = value;
      continue;
    }
    auto info = schema.Field(key);
    if (!info) return Internal(FieldNotFound(schema, key));
    Result<json> merged;
    if (kind == GoKind::kMap && info->strategy != PatchStrategy::kReplace) {
      merged = MergeMap(std::move(*current), value, *info->schema);
    } else if (kind == GoKind::kSlice &&
               (info->strategy == PatchStrategy::kMerge || is_delete_list)) {
      merged =
          MergeSlice(std::move(*current), value, *info->schema, info->merge_key, is_delete_list);
    } else {
      TakePatchValue(original, key, value);
      continue;
    }
    if (!merged) return merged;
    original[key] = std::move(*merged);
  }
  return original;
}

}  // namespace smp

std::expected<nlohmann::json, PatchError> ApplyStrategicMergePatch(const nlohmann::json& original,
                                                                   const nlohmann::json& patch,
                                                                   const PatchSchema& schema) {
  if (patch.is_null()) return original;
  if (!patch.is_object()) {
    std::string word = patch.is_array()     ? "array"
                       : patch.is_string()  ? "string"
                       : patch.is_boolean() ? "bool"
                                            : "number";
    return smp::Fail(
        PatchErrorKind::kBadRequest,
        "json: cannot unmarshal " + word + " into Go value of type map[string]interface {}");
  }
  return smp::MergeMap(original, patch, schema);
}

}  // namespace apimachinery::patch
