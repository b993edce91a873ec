#pragma once
// The order of API groups in /apis and aggregated discovery: upstream's groupPriorityMinimum
// of each built-in group (higher first), then the group name. kubectl's REST mapping prefers
// the earlier group when resource names collide, so the order is part of the API.

#include <string_view>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"

namespace aggregator {

// The groupPriorityMinimum upstream registers for a built-in group; 1000 (a CRD's) otherwise.
int GroupPriority(std::string_view group);

// Sorts groups by priority, highest first, then by name.
void SortByPriority(std::vector<endpoints::APIGroupInfo>& groups);

}  // namespace aggregator
