#include "pkg/genericserver/endpoints/filters/authentication.h"

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"

namespace genericserver::filters {
namespace {

class Authentication final : public Handler {
 public:
  Authentication(HandlerPtr next, authn::AuthenticatorPtr a)
      : next_(std::move(next)), authenticator_(std::move(a)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    authn::AuthenticateResult result = authenticator_->Authenticate(ctx.request);
    if (!result || !*result) {
      if (!result) KLOG_V(2) << "Unable to authenticate the request: " << result.error();
      co_await WriteStatus(out, apimachinery::NewUnauthorized("Unauthorized"));
      co_return;
    }
    ctx.user = std::move(**result);
    ctx.request.headers.Remove("Authorization");
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  authn::AuthenticatorPtr authenticator_;
};

}  // namespace

HandlerPtr WithAuthentication(HandlerPtr next, authn::AuthenticatorPtr authenticator) {
  return std::make_unique<Authentication>(std::move(next), std::move(authenticator));
}

}  // namespace genericserver::filters
