#pragma once
// Auditing, as upstream's WithAudit and WithFailedAuthenticationAudit: after authentication
// the policy decides the request's level from the user and the RequestInfo; at any level
// but None, the request's event goes to the backend at each stage the policy keeps:
// RequestReceived at once, ResponseStarted when a long-running request (a watch) starts
// its response, ResponseComplete when the handler returned, Panic when it threw. While the
// request is served, RequestContext::audit points at its audit::Context for the filters and
// handlers below (authorization's decision and reason, impersonation, request objects).
// The response's Status and, at RequestResponse, its object are read from what the handler
// wrote (JSON, YAML or protobuf), so handlers need not know about auditing.

#include <memory>

#include "pkg/genericserver/audit/backend.h"
#include "pkg/genericserver/audit/policy.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {

HandlerPtr WithAudit(HandlerPtr next, std::shared_ptr<const audit::Policy> policy,
                     audit::BackendPtr backend);
// Wraps the handler that answers 401: such requests are audited (with no user) in one
// ResponseStarted event.
HandlerPtr WithFailedAuthenticationAudit(HandlerPtr failed,
                                         std::shared_ptr<const audit::Policy> policy,
                                         audit::BackendPtr backend);

}  // namespace genericserver::filters
