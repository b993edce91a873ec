#pragma once
// resourcequota-controller (upstream's pkg/controller/resourcequota): keeps every
// ResourceQuota's status.hard equal to its spec.hard and status.used equal to what its
// namespace uses of each resource of spec.hard, within the quota's scopes (usage.h and the
// evaluators: pods.h, services.h, persistent_volume_claims.h, object_count.h).
//  - A quota added, or whose spec.hard changed, is queued: on the priority queue when its
//    status lacks spec.hard or a usage the controller can measure, else on the primary
//    queue; --concurrent-resource-quota-syncs workers serve each queue.
//  - Every quota is queued again every --resource-quota-sync-period (0: never).
//  - Replenishment: an object of a tracked kind added, deleted, or updated in a way that
//    matters (update_filter.h) queues the quotas of its namespace whose status.hard names a
//    resource of that kind. Adds count here because no quota admission charges creates.
//  - The objects are read from shared informers made when a quota first needs the kind:
//    full objects for the core kinds, metadata-only for other `count/<resource>.<group>`
//    resources, found through discovery (namespaced resources that support create, list,
//    watch and delete; upstream's ignored resources left out), refreshed at most every
//    30 s while a quota names a resource it does not know.
//  - A sync computes the status (quota_status.h) and PUTs it to /status only when it
//    changed; failures retry with the queue's backoff.
//
// Threads: the informers' handlers run on the informers' strands and post to the
// controller's strand; the registry, the monitors, both queues and every sync run on that
// one strand (syncs interleave only at their awaits; one quota is never synced twice at
// once).

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::resourcequota {

std::expected<InitResult, std::string> StartResourceQuotaController(ControllerContext& ctx);

}  // namespace controller::resourcequota
