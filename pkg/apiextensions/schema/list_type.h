#pragma once
// x-kubernetes-list-type "set" and "map" invariants, as apiextensions-apiserver's
// pkg/apiserver/schema/listtype.ValidateListSetsAndMaps checks them (part of
// ValidateCustomResource; exposed for code that needs the same list semantics, e.g. CEL's
// list-map handling or strategic merges).
//
//  - set: the second occurrence of each repeated item is a Duplicate value at its index
//    ("spec.tags[2]: Duplicate value: \"a\""); scalars compare with their Go type (1 and 1.0
//    differ), objects and arrays by their JSON encoding (where 1 and 1.0 are the same).
//  - map: every item must be an object (or null), else one
//    `Invalid value: ...: must be an object for an array of list-type map` for the first
//    offender; items whose x-kubernetes-list-map-keys values repeat are Duplicate values
//    printed as the map of those keys (`map[string]interface {}{"name":"a"}`; an item without
//    the key counts as the empty map).
// Arrays are found through properties, additionalProperties and items, as upstream walks them.

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

FieldErrors ValidateListSetsAndMaps(const nlohmann::json& schema, const nlohmann::json& object);

}  // namespace apiextensions::schema
