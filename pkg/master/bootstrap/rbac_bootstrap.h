#pragma once
// Upstream's post-start hook rbac/bootstrap-roles: the bootstrap RBAC policy
// (rbac_policy.h) created and reconciled at every start (rbac_reconcile.h): what is missing
// is created, what lacks rules, aggregation selectors, subjects, labels or annotations gets
// them unless annotated rbac.authorization.kubernetes.io/autoupdate: "false", and a binding
// whose roleRef differs is deleted and created again. Before that, as upstream, the rules
// of an admin, edit or view role from before aggregation are copied to its
// system:aggregate-to-* role, and the subjects of a system:discovery binding to a missing
// system:public-info-viewer binding.
//
// One pass lists the four resources once, computes every change in memory and writes only
// the objects that change, all at once (the storage commits them together). A pass with a
// failure is tried again every second, for 30 s; then the hook fails, as upstream's, and
// the server stops. Its health check poststarthook/rbac/bootstrap-roles fails until a pass
// succeeds.
//
// The hook runs on a strand of its own (its state: the snapshot and the writes under way);
// the writes themselves run on the I/O threads. The stores are thread-safe.

#include <memory>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"

namespace master::bootstrap {

struct RBACStores {
  std::shared_ptr<registry::Store> cluster_roles;
  std::shared_ptr<registry::Store> cluster_role_bindings;
  std::shared_ptr<registry::Store> roles;
  std::shared_ptr<registry::Store> role_bindings;
  std::shared_ptr<registry::Store> namespaces;  // kube-system and kube-public made if missing
};

genericserver::PostStartHookFunc RBACBootstrapRoles(RBACStores stores);

}  // namespace master::bootstrap
