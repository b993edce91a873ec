#include "pkg/genericserver/endpoints/filters/authorization.h"

#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace genericserver::filters {
namespace {

class Authorization final : public Handler {
 public:
  Authorization(HandlerPtr next, authz::AuthorizerPtr a)
      : next_(std::move(next)), authorizer_(std::move(a)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    static const authn::UserInfo kNobody;
    authz::Attributes attributes{ctx.user ? *ctx.user : kNobody, ctx.info};
    authz::AuthorizationResult r = co_await authorizer_->Authorize(attributes);
    const bool allowed = r.decision == authz::Decision::kAllow;
    if (ctx.audit) {
      ctx.audit->AddAnnotation(audit::kDecisionAnnotation, allowed ? "allow" : "forbid");
      ctx.audit->AddAnnotation(audit::kReasonAnnotation, r.reason);
    }
    if (allowed) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    if (!r.error.empty()) {
      // As upstream: an authorizer that failed (and nobody allowed) is a 500, in plain text.
      if (ctx.audit) ctx.audit->AddAnnotation(audit::kReasonAnnotation, "internal error");
      KLOG_ERROR << "authorization of " << util::Quote(ctx.request.path) << ": " << r.error;
      co_await WriteText(
          out, 500,
          "Internal Server Error: " + util::Quote(ctx.request.target) + ": " + r.error + "\n");
      co_return;
    }
    apimachinery::Status refused = authz::Forbidden(attributes, r.reason);
    KLOG_V(4) << "Forbidden: " << util::Quote(ctx.request.path)
              << ", Reason: " << util::Quote(refused.message);
    co_await WriteStatus(out, refused);
  }

 private:
  HandlerPtr next_;
  authz::AuthorizerPtr authorizer_;
};

}  // namespace

HandlerPtr WithAuthorization(HandlerPtr next, authz::AuthorizerPtr authorizer) {
  return std::make_unique<Authorization>(std::move(next), std::move(authorizer));
}

}  // namespace genericserver::filters
