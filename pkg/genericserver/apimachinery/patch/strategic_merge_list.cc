// The list half of the strategic merge patch: merging lists and ordering the result
// (upstream's mergeSlice, normalizeElementOrder and their helpers).

#include <algorithm>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/strategic_merge_internal.h"

namespace apimachinery::patch::smp {
namespace {

using json = nlohmann::json;

const json kNull = nullptr;

// The value an item is matched by: its merge key's value for maps, itself for primitives.
const json& MatchValue(const json& item, const std::string& merge_key, GoKind kind) {
  if (kind != GoKind::kMap) return item;
  if (!item.is_object()) return kNull;
  auto it = item.find(merge_key);
  return it == item.end() ? kNull : *it;
}

// index(): the position of `value` in `list`, or -1.
long Index(const json& list, const json& value, const std::string& merge_key, GoKind kind) {
  const json& wanted = MatchValue(value, merge_key, kind);
  for (size_t i = 0; i < list.size(); ++i) {
    if (MatchValue(list[i], merge_key, kind) == wanted) return static_cast<long>(i);
  }
  return -1;
}

bool IsDeleteItem(const json& item) {
  auto it = item.find(kDirectiveMarker);
  return it != item.end() && *it == "delete";
}

// normalizeSliceOrder: `to_sort` sorted by the positions of its items in `order` (items not
// there keep their relative order, last), $patch: delete items at the end.
Result<json> NormalizeSliceOrder(json to_sort, const json& order, const std::string& merge_key,
                                 GoKind kind) {
  json to_delete = json::array();
  if (kind == GoKind::kMap) {
    for (const json* list : {static_cast<const json*>(&to_sort), &order}) {
      for (const json& item : *list) {
        if (!item.is_object()) return Internal(BadArgType("map[string]interface {}", item));
        if (!item.contains(merge_key)) return Internal(NoMergeKey(item, merge_key));
      }
    }
    json kept = json::array();
    for (json& item : to_sort) (IsDeleteItem(item) ? to_delete : kept).push_back(std::move(item));
    to_sort = std::move(kept);
  }
  std::vector<std::pair<long, json>> keyed;
  for (json& item : to_sort) {
    long i = Index(order, item, merge_key, kind);
    keyed.emplace_back(i < 0 ? std::numeric_limits<long>::max() : i, std::move(item));
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  json out = json::array();
  for (auto& [index, item] : keyed) out.push_back(std::move(item));
  for (json& item : to_delete) out.push_back(std::move(item));
  return out;
}

// mergeSortedSlice: takes the server's item first only when the server knows both items and
// orders it first.
json MergeSorted(const json& left, const json& right, const json& server_order,
                 const std::string& merge_key, GoKind kind) {
  json out = json::array();
  size_t i = 0, j = 0;
  while (i < left.size() && j < right.size()) {
    long li = Index(server_order, left[i], merge_key, kind);
    long ri = Index(server_order, right[j], merge_key, kind);
    if (li >= 0 && ri >= 0 && li < ri) {
      out.push_back(left[i++]);
    } else {
      out.push_back(right[j++]);
    }
  }
  for (; i < left.size(); ++i) out.push_back(left[i]);
  for (; j < right.size(); ++j) out.push_back(right[j]);
  return out;
}

// findMapInSliceBasedOnKeyValue: the first map of `list` whose `key` equals `value`.
Result<std::optional<size_t>> FindByKey(const json& list, const std::string& key,
                                        const json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return Internal("value for key " + std::to_string(i) + " is not a map.");
    }
    auto it = list[i].find(key);
    if (it != list[i].end() && *it == value) return i;
  }
  return std::nullopt;
}

// mergeSliceWithSpecialElements: applies the $patch items of `patch`; returns the new
// original and the patch without them.
Result<std::pair<json, json>> ApplySpecialElements(json original, const json& patch,
                                                   const std::string& merge_key) {
  json rest = json::array();
  bool replace = false;
  for (const json& item : patch) {
    auto directive = item.find(kDirectiveMarker);
    if (directive == item.end()) {
      rest.push_back(item);
    } else if (*directive == "delete") {
      auto value = item.find(merge_key);
      if (value == item.end()) return Internal(NoMergeKey(item, merge_key));
      for (;;) {
        auto found = FindByKey(original, merge_key, *value);
        if (!found) return std::unexpected(found.error());
        if (!*found) break;
        original.erase(original.begin() + static_cast<long>(**found));
      }
    } else if (*directive == "replace") {
      replace = true;  // the other $patch items are still checked
    } else if (*directive == "merge") {
      return Internal("merging lists cannot yet be specified in the patch");
    } else {
      return Internal("unknown patch type: " + GoString(*directive) + " in map: " + GoValue(item));
    }
  }
  if (replace) return std::pair(std::move(rest), json::array());
  return std::pair(std::move(original), std::move(rest));
}

// mergeSliceWithoutSpecialElements: items with a known merge key value merge into the
// original's item, the others are appended.
Result<json> MergeItems(json original, const json& patch, const std::string& merge_key,
                        const PatchSchema& item_schema) {
  for (const json& item : patch) {
    auto value = item.find(merge_key);
    if (value == item.end()) return Internal(NoMergeKey(item, merge_key));
    auto found = FindByKey(original, merge_key, *value);
    if (!found) return std::unexpected(found.error());
    if (*found) {
      auto merged = MergeMap(std::move(original[**found]), item, item_schema);
      if (!merged) return merged;
      original[**found] = std::move(*merged);
    } else if (auto added = Sanitize(item)) {
      original.push_back(std::move(*added));
    }
  }
  return original;
}

bool Contains(const json& list, const json& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

Result<GoKind> SliceElementKind(const json& a, const json& b) {
  std::optional<GoKind> kind;
  for (const json* list : {&a, &b}) {
    for (const json& item : *list) {
      GoKind k = GoKindOf(item);
      if (!kind) {
        kind = k;
        if (k == GoKind::kSlice) {
          return Fail(PatchErrorKind::kInvalid, "lists of lists are not supported");
        }
      } else if (k != *kind) {
        return Internal("list element types are not identical: " + GoValue(json::array({a, b})));
      }
    }
  }
  if (!kind) return Internal("no elements in any of the given slices");
  return *kind;
}

Result<std::pair<json, json>> Partition(const json& merged, const json& by,
                                        const std::string& merge_key) {
  json in = json::array(), out = json::array();
  for (const json& item : merged) {
    bool found = false;
    if (merge_key.empty()) {
      found = Contains(by, item);
    } else {
      if (!item.is_object()) return Internal(BadArgType("map[string]interface {}", item));
      auto value = item.find(merge_key);
      if (value == item.end()) return Internal(NoMergeKey(item, merge_key));
      auto at = FindByKey(by, merge_key, *value);
      if (!at) return std::unexpected(at.error());
      found = at->has_value();
    }
    (found ? in : out).push_back(item);
  }
  return std::pair(std::move(in), std::move(out));
}

Result<json> NormalizeElementOrder(json patch_items, json server_only, const json& patch_order,
                                   const json& server_order, const std::string& merge_key,
                                   GoKind kind) {
  auto patch_sorted = NormalizeSliceOrder(std::move(patch_items), patch_order, merge_key, kind);
  if (!patch_sorted) return patch_sorted;
  auto server_sorted = NormalizeSliceOrder(std::move(server_only), server_order, merge_key, kind);
  if (!server_sorted) return server_sorted;
  return MergeSorted(*server_sorted, *patch_sorted, server_order, merge_key, kind);
}

Result<bool> MergeKeyValueEqual(const json& left, const json& right, const std::string& merge_key) {
  if (merge_key.empty()) return left == right;
  for (const json* item : {&left, &right}) {
    if (!item->is_object()) return Internal(BadArgType("map[string]interface {}", *item));
  }
  auto l = left.find(merge_key);
  if (l == left.end()) return Internal(NoMergeKey(left, merge_key));
  auto r = right.find(merge_key);
  if (r == right.end()) return Internal(NoMergeKey(right, merge_key));
  return *l == *r;
}

Result<json> MergeSlice(json original, json patch, const PatchSchema& item_schema,
                        const std::string& merge_key, bool is_delete_list) {
  if (original.empty() && patch.empty()) return original;
  auto kind = SliceElementKind(original, patch);
  if (!kind) return std::unexpected(kind.error());
  json merged = json::array();
  if (*kind != GoKind::kMap) {
    if (is_delete_list) {
      for (json& item : original) {
        if (!Contains(patch, item)) merged.push_back(std::move(item));
      }
      return merged;
    }
    for (const json* list : {&original, &patch}) {
      for (const json& item : *list) {
        if (!Contains(merged, item)) merged.push_back(item);
      }
    }
  } else {
    // Upstream names the Go kind of the item type here, "struct" for every built-in type.
    if (merge_key.empty()) return Internal("cannot merge lists without merge key for struct");
    auto split = ApplySpecialElements(std::move(original), patch, merge_key);
    if (!split) return std::unexpected(split.error());
    original = std::move(split->first);
    patch = std::move(split->second);
    auto items = MergeItems(original, patch, merge_key, item_schema);
    if (!items) return items;
    merged = std::move(*items);
  }
  auto parts = Partition(merged, patch, merge_key);
  if (!parts) return std::unexpected(parts.error());
  return NormalizeElementOrder(std::move(parts->first), std::move(parts->second), patch, original,
                               merge_key, *kind);
}

}  // namespace apimachinery::patch::smp
