#pragma once
// The groups /apis and aggregated discovery list: the chain's own (built-in and CRD
// groups) and the groups of available remote APIServices, with the resources their
// servers last listed, in upstream's order (groupPriorityMinimum, then name; versions by
// versionPriority, then Kubernetes' version order). An unavailable remote group-version is
// listed as upstream lists it: in /apis, and as "Stale" without resources in aggregated
// discovery, so one broken extension server does not break discovery of the rest.

#include <vector>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/genericserver/endpoints/discovery.h"

namespace aggregator {

// `chain`: the chain's groups, the legacy core group ("") included or not; it is left out.
std::vector<endpoints::APIGroupInfo> MergedGroups(std::vector<endpoints::APIGroupInfo> chain,
                                                  const APIServiceTable& table);

}  // namespace aggregator
