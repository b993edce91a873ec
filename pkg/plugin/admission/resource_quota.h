#pragma once
// ResourceQuota admission (upstream's plugin of that name), over the controller manager's
// quota evaluators (pods: count, cpu, memory, ephemeral storage, hugepages and extended
// resources, requests and limits, scopes Terminating, NotTerminating, BestEffort,
// NotBestEffort, PriorityClass, CrossNamespacePodAffinity; services and their kinds;
// claims and their storage, per class too; `count/<resource>[.<group>]` for every other
// resource). A create of a namespaced object (an update too for claims and services, for
// what grows) is charged to each ResourceQuota of its namespace whose scopes it matches
// and whose status.hard names what it uses: refused (403) when the quota's status.used
// would exceed it ("exceeded quota: <name>, requested: ..., used: ..., limited: ...", the
// exceeded resources only), does not know its usage yet ("status unknown for quota: ..."),
// or when a pod leaves out a compute resource the quota tracks ("failed quota: <name>:
// must specify limits.cpu for: app"); otherwise status.used is raised before the object is
// stored (the controller manager's resourcequota controller keeps it right afterwards,
// deletions included). A quota the controller has not yet given a status.hard limits
// nothing, as upstream's. Dry runs are checked, not charged.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

// Reads and charges the ResourceQuotas of `stores`.
::admission::PluginPtr NewResourceQuota(std::shared_ptr<const ::admission::Stores> stores);

}  // namespace plugin::admission
