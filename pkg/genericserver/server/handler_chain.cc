#include "pkg/genericserver/server/handler_chain.h"

#include "pkg/genericserver/endpoints/filters/audit.h"
#include "pkg/genericserver/endpoints/filters/authentication.h"
#include "pkg/genericserver/endpoints/filters/authorization.h"
#include "pkg/genericserver/endpoints/filters/impersonation.h"
#include "pkg/genericserver/server/filters/body_limit.h"
#include "pkg/genericserver/server/filters/max_in_flight.h"
#include "pkg/genericserver/server/filters/recovery.h"
#include "pkg/genericserver/server/filters/request_info.h"
#include "pkg/genericserver/server/filters/request_log.h"
#include "pkg/genericserver/server/filters/timeout.h"

namespace genericserver {
namespace {
class Borrowed final : public Handler {
 public:
  explicit Borrowed(Handler& h) : h_(h) {}
  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    co_await h_.Serve(ctx, out);
  }

 private:
  Handler& h_;
};
}  // namespace

// Built from the inside out; a request meets the filters bottom to top.
HandlerPtr BuildHandlerChain(Handler& director, const CompletedConfig& completed) {
  const Config& c = completed.Get();
  HandlerPtr h = std::make_unique<Borrowed>(director);
  // Where upstream's handlers read the body: only for users allowed to send it.
  h = filters::WithRequestBodyLimit(std::move(h), c.secure_serving.limits.max_request_body_bytes);
  // Last: decides on the user and the RequestInfo that the filters above established.
  h = filters::WithAuthorization(std::move(h), c.authorizer);
  // After authentication: system:masters are served even past the limit.
  h = filters::WithMaxInFlightLimit(std::move(h), c.max_requests_in_flight,
                                    c.max_mutating_requests_in_flight, c.metrics);
  // Between authentication and the limit, as upstream: the impersonated user is the one
  // limited and authorized.
  h = filters::WithImpersonation(std::move(h), c.authorizer);
  // After authentication, before impersonation: the policy judges the authenticated user,
  // the event names both.
  h = filters::WithAudit(std::move(h), c.audit_policy, c.audit_backend);
  h = filters::WithAuthentication(std::move(h), c.authenticator, c.request_header,
                                  filters::WithFailedAuthenticationAudit(
                                      filters::Unauthorized(), c.audit_policy, c.audit_backend));
  // Outside authentication so that a slow authenticator is bounded by the deadline too.
  h = filters::WithTimeout(std::move(h), c.request_timeout);
  // Counts and logs every answer below, 401s, 429s and 504s included.
  h = filters::WithRequestLog(std::move(h), c.metrics);
  // Pure parsing of the request line; metrics, timeouts, limits and authorization all
  // read it.
  h = filters::WithRequestInfo(std::move(h), c.request_info_resolver);
  // Outermost: nothing below can take the process down.
  return filters::WithPanicRecovery(std::move(h));
}

}  // namespace genericserver
