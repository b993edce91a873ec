#pragma once
// Strategic merge patch (application/strategic-merge-patch+json) as upstream's apiserver
// applies it to built-in kinds (strategicpatch.StrategicMergeMapPatch, server side:
// parallel lists merged, unmatched nulls ignored). Field strategies and merge keys come from
// a PatchSchema. Handled:
//  - maps merge recursively; null deletes a key; `"$patch": "delete"` empties a map,
//    `"$patch": "replace"` replaces it with the rest of the patch map;
//  - lists with strategy "merge" and a merge key merge item by item (containers by name,
//    ports by containerPort, ...); list items `{"$patch": "delete", <key>: v}` remove the
//    items with that key, an item `{"$patch": "replace"}` replaces the list with the
//    patch's other items; lists of primitives with strategy "merge" are unions
//    (finalizers), `$deleteFromPrimitiveList/<field>: [...]` removes values from them;
//  - other lists are replaced;
//  - `$setElementOrder/<field>: [...]` orders the merged list: listed items in that order,
//    the server's other items kept in their place relative to them;
//  - `$retainKeys: [...]` drops every key of the original map not listed.
// Values taken from the patch as they are (new keys, new list items, replaced values) lose
// their null members and their directives ($patch maps, $retainKeys, $setElementOrder/...,
// $deleteFromPrimitiveList/...), as upstream's result does once decoded into the Go type.
// A new key whose value is a map carrying `$patch` (even "replace") is not added, as upstream.

#include <expected>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/patch/patch_error.h"
#include "pkg/genericserver/apimachinery/patch/patch_schema.h"

namespace apimachinery::patch {

// Applies `patch` (the decoded request body) to `original` (the stored object) and returns
// the result; neither argument is modified. A null patch changes nothing. Errors carry
// upstream's texts and kinds (handlers/patch.go's interpretStrategicMergePatchError):
//  - kBadRequest: a patch that is not an object ("json: cannot unmarshal array into Go value
//    of type map[string]interface {}"), "invalid patch format of retainKeys", "invalid patch
//    format of primitive list", "invalid patch format of setElementOrder list";
//  - kInvalid (422): "lists of lists are not supported";
//  - kInternal (500): e.g. "map: map[image:x] does not contain declared merge key: name",
//    "unknown patch type: foo in map: map[$patch:foo]", "merging lists cannot yet be
//    specified in the patch", "unable to find api field in struct PodSpec for the json
//    field \"x\"", "list element types are not identical: [[a] [map[b:c]]]".
std::expected<nlohmann::json, PatchError> ApplyStrategicMergePatch(const nlohmann::json& original,
                                                                   const nlohmann::json& patch,
                                                                   const PatchSchema& schema);

}  // namespace apimachinery::patch
