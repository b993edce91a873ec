#pragma once
// Privilege-escalation prevention for the RBAC resources, as upstream's policy-based RBAC
// storage: a Role or ClusterRole may be written only by someone who holds every permission
// it grants (or may "escalate" it), a binding only by someone who holds every permission
// of the role it binds (or may "bind" that role). Members of system:masters and the
// server's own writes (no user) are exempt; so are updates that change nothing but what
// garbage collection uses (ownerReferences, finalizers). Refusals are upstream's 403s,
// listing the missing permissions.
//
// Stateless beyond the authorizer and the policy, both thread-safe: any thread.

#include <memory>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/authz/rbac/policy_index.h"
#include "pkg/genericserver/registry/store.h"

namespace master::resources {

// `next` with the escalation check of roles, clusterroles, rolebindings and
// clusterrolebindings (other resources pass) after its mutating phase: upstream checks the
// object admission has mutated, before it is validated.
registry::Admission PreventRBACEscalation(authz::AuthorizerPtr authorizer,
                                          std::shared_ptr<const authz::rbac::PolicyIndex> policy,
                                          registry::Admission next);

}  // namespace master::resources
