#pragma once
#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Lets the request through when the authorizer allows what ctx.info describes for
// ctx.user; otherwise answers 403 Forbidden with the upstream wording.
HandlerPtr WithAuthorization(HandlerPtr next, authz::AuthorizerPtr authorizer);
}  // namespace genericserver::filters
