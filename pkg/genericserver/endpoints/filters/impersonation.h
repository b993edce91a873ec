#pragma once
#include <memory>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Impersonation, as upstream: a request with Impersonate-User (and optionally
// Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>) is served as that user once
// the authenticated one is allowed the "impersonate" verb on each of them (users, groups,
// serviceaccounts for a system:serviceaccount:<ns>:<name> user, uids and
// userextras/<key> of authentication.k8s.io); otherwise 403 naming the first refused.
// The impersonated user gets system:authenticated (system:unauthenticated for
// system:anonymous), a service account without groups its service-account groups. The
// headers are removed. Between authentication and the in-flight limit; stateless.
HandlerPtr WithImpersonation(HandlerPtr next, authz::AuthorizerPtr authorizer);
}  // namespace genericserver::filters
