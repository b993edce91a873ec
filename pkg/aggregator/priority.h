#pragma once
// Upstream's priorities of the built-in group-versions, as their Local APIServices carry them.
// They order /apis and aggregated discovery (see discovery.h): kubectl's REST mapping prefers
// the earlier group when resource names collide, so the order is part of the API.

#include <string_view>

namespace aggregator {

// The groupPriorityMinimum upstream registers for a built-in group; 1000 (a CRD's) otherwise.
int GroupPriority(std::string_view group);

// The versionPriority upstream registers for a built-in group-version: its table's value,
// else 15 for a GA version and 9 for others.
int VersionPriority(std::string_view group, std::string_view version);

}  // namespace aggregator
