#pragma once
// Internal to strategic_merge_patch.cc and strategic_merge_list.cc: the map half calls the
// list half and back. Named after upstream's functions (strategicpatch/patch.go).

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/patch/go_format.h"
#include "pkg/genericserver/apimachinery/patch/patch_error.h"
#include "pkg/genericserver/apimachinery/patch/patch_schema.h"

namespace apimachinery::patch::smp {

inline constexpr std::string_view kDirectiveMarker = "$patch";
inline constexpr std::string_view kRetainKeysDirective = "$retainKeys";
inline constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
inline constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

template <typename T>
using Result = std::expected<T, PatchError>;

inline std::unexpected<PatchError> Fail(PatchErrorKind kind, std::string message) {
  return std::unexpected(PatchError{kind, std::move(message)});
}
inline std::unexpected<PatchError> Internal(std::string message) {
  return Fail(PatchErrorKind::kInternal, std::move(message));
}

// mergepatch.ErrNoMergeKey and ErrBadArgType texts.
std::string NoMergeKey(const nlohmann::json& item, std::string_view merge_key);
std::string BadArgType(std::string_view expected, const nlohmann::json& actual);

// The value to store for a value taken from the patch as is: upstream's
// discardNullValuesFromPatch and removeDirectives, plus the parallel-list directive keys.
// nullopt when `value` itself is a map carrying $patch (upstream then drops the key).
std::optional<nlohmann::json> Sanitize(nlohmann::json value);

// mergeMap: `patch` (an object) merged into `original` (an object, or null for {}).
Result<nlohmann::json> MergeMap(nlohmann::json original, nlohmann::json patch,
                                const PatchSchema& schema);

// mergeSlice: two arrays merged by `merge_key` (maps) or as a union (primitives);
// `is_delete_list`: `patch` is a $deleteFromPrimitiveList list.
Result<nlohmann::json> MergeSlice(nlohmann::json original, nlohmann::json patch,
                                  const PatchSchema& item_schema, const std::string& merge_key,
                                  bool is_delete_list);

// sliceElementType: the kind all items of both arrays share.
Result<GoKind> SliceElementKind(const nlohmann::json& a, const nlohmann::json& b);

// partitionPrimitivesByPresentInList / partitionMapsByPresentInList: the items of `merged`
// present in `by` (first) and the others (second), each in their order in `merged`.
Result<std::pair<nlohmann::json, nlohmann::json>> Partition(const nlohmann::json& merged,
                                                            const nlohmann::json& by,
                                                            const std::string& merge_key);

// normalizeElementOrder: `patch_items` sorted by `patch_order`, `server_only` by
// `server_order`, then interleaved keeping the server's relative order where it knows both.
Result<nlohmann::json> NormalizeElementOrder(nlohmann::json patch_items, nlohmann::json server_only,
                                             const nlohmann::json& patch_order,
                                             const nlohmann::json& server_order,
                                             const std::string& merge_key, GoKind kind);

// mergeKeyValueEqual: whether two items have the same merge key value (the items themselves
// for primitives).
Result<bool> MergeKeyValueEqual(const nlohmann::json& left, const nlohmann::json& right,
                                const std::string& merge_key);

}  // namespace apimachinery::patch::smp
