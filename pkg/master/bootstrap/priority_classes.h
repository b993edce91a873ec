#pragma once
// The two system priority classes every cluster has, system-node-critical (2000001000)
// and system-cluster-critical (2000000000), created after start-up when missing.

#include <memory>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"

namespace master::bootstrap {

genericserver::PostStartHookFunc SystemPriorityClasses(
    std::shared_ptr<registry::Store> priority_classes);

}  // namespace master::bootstrap
