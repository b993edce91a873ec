#pragma once
// LimitRanger admission, for pods as they are created (upstream's plugin of that name): the
// Container items of the namespace's LimitRanges give every container and init container
// that sets none their `default` limits and `defaultRequest` requests (noted in the
// kubernetes.io/limit-ranger annotation), then refuse (403) a container below `min`, above
// `max` or beyond `maxLimitRequestRatio`, in upstream's words. Pod and PersistentVolumeClaim
// items are not enforced yet.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

// Reads the LimitRanges from `stores`.
::admission::PluginPtr NewLimitRanger(std::shared_ptr<const ::admission::Stores> stores);

}  // namespace plugin::admission
