#pragma once
// The RBAC authorization mode: a request is allowed when a rule of a role bound to the
// user (by name, group or service account) allows it; otherwise no opinion, with the
// roles that could not be found as the reason. Decides from the PolicyIndex alone, never
// from storage; thread-safe as the index is.

#include <memory>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/authz/rbac/policy_index.h"

namespace authz::rbac {

AuthorizerPtr NewRBACAuthorizer(std::shared_ptr<const PolicyIndex> index);

}  // namespace authz::rbac
