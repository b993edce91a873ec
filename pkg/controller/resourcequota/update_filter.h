#pragma once
// Which updates of a tracked object recalculate the quotas of its namespace (upstream's
// install.DefaultUpdateFilter, widened because no quota admission plugin charges updates
// here):
//  - pods: one that stops (or starts) being charged, as upstream, or whose usage or scope
//    matching (Terminating, BestEffort, cross-namespace affinity) changed;
//  - services: one whose quota type (NodePort, LoadBalancer, other) changed, as upstream,
//    or whose usage (node ports) changed;
//  - persistentvolumeclaims: every update (upstream's RequiresQuotaReplenish compares two
//    fresh pointers, so every update passes there too);
//  - anything else: none (only adds and deletes count).
// Pure.

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

bool RequiresReplenishment(const GroupResource& gr, const nlohmann::json& old_object,
                           const nlohmann::json& object, TimePoint now);

}  // namespace controller::resourcequota
