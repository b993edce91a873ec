#pragma once
#include <memory>

#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/genericserver/authn/request_header.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Sets ctx.user, or hands the request to `failed` (null: Unauthorized()). Credentials are removed
// once they served their purpose so that nothing further down (proxies) sees them: the
// Authorization header, the standard front-proxy headers (X-Remote-User, X-Remote-Uid,
// X-Remote-Group, X-Remote-Extra-*) and those of request_header (may be null), as upstream does.
HandlerPtr WithAuthentication(
    HandlerPtr next, authn::AuthenticatorPtr authenticator,
    std::shared_ptr<const authn::RequestHeaderConfig> request_header = nullptr,
    HandlerPtr failed = nullptr);
// Answers 401 Unauthorized.
HandlerPtr Unauthorized();
}  // namespace genericserver::filters
