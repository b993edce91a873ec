#pragma once
#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Sets ctx.user, or answers 401 Unauthorized. The Authorization header is removed
// once it served its purpose so that nothing further down (proxies) sees it.
HandlerPtr WithAuthentication(HandlerPtr next, authn::AuthenticatorPtr authenticator);
}  // namespace genericserver::filters
