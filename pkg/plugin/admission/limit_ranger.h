#pragma once
// LimitRanger admission (upstream's plugin of that name), for pods as they are created and
// claims as they are created or updated: the Container items of the namespace's
// LimitRanges give every container and init container that sets none their `default`
// limits and `defaultRequest` requests (noted in the kubernetes.io/limit-ranger
// annotation), then refuse (403) a container below `min`, above `max` or beyond
// `maxLimitRequestRatio`; Pod items bound the pod's totals (its containers', at least each
// init container's, and the overhead) the same way; PersistentVolumeClaim items a claim's
// storage (`max` against its request), all in upstream's words.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

// Reads the LimitRanges from `stores`.
::admission::PluginPtr NewLimitRanger(std::shared_ptr<const ::admission::Stores> stores);

}  // namespace plugin::admission
