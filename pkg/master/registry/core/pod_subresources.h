#pragma once
// The pod subresources beyond status: binding (the scheduler's assignment to a node),
// eviction (a deletion that respects disruption budgets) and ephemeralcontainers (what
// `kubectl debug` adds to a running pod); the legacy `bindings` collection is declared in
// resources.h.

#include <memory>

#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/registry/store.h"

namespace master::resources {

registry::Subresource PodBinding();
// `disruption_budgets` is the policy/v1 PodDisruptionBudget store evictions consult.
registry::Subresource PodEviction(std::shared_ptr<registry::Store> disruption_budgets);
registry::Subresource PodEphemeralContainers();

}  // namespace master::resources
