#pragma once
// Nulls in custom resources: upstream's defaulting.PruneNonNullableNullsWithoutDefaults, which
// the custom resource decoder runs right after pruning (PruneCustomResource includes it).

#include <nlohmann/json_fwd.hpp>

namespace apiextensions::schema {

// Removes every null whose schema (a property's, or additionalProperties') is neither nullable
// nor has a default; nulls with a default are left for ApplyDefaults to replace. Array items are
// never removed.
void DropNonNullableNulls(nlohmann::json& object, const nlohmann::json& schema);

}  // namespace apiextensions::schema
