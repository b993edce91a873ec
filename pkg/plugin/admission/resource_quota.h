#pragma once
// ResourceQuota admission (upstream's plugin of that name), for object counts so far: a
// create of a namespaced object is charged to each ResourceQuota of its namespace whose
// spec.hard limits `count/<resource>[.<group>]` (or the plain name of the core kinds upstream
// counts so: pods, services, configmaps, secrets, ...): refused (403) when the quota's
// status.used would exceed it ("exceeded quota: <name>, requested: ..., used: ..., limited:
// ...") or does not know its usage yet ("status unknown for quota: ..."), otherwise
// status.used is raised before the object is stored (the controller manager's resourcequota
// controller keeps it right afterwards, deletions included). Dry runs are checked, not
// charged. Compute resources (requests.cpu, ...) are not charged yet.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

// Reads and charges the ResourceQuotas of `stores`.
::admission::PluginPtr NewResourceQuota(std::shared_ptr<const ::admission::Stores> stores);

}  // namespace plugin::admission
