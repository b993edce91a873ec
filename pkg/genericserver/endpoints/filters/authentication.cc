#include "pkg/genericserver/endpoints/filters/authentication.h"

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"

namespace genericserver::filters {
namespace {

class Authentication final : public Handler {
 public:
  Authentication(HandlerPtr next, authn::AuthenticatorPtr a,
                 std::shared_ptr<const authn::RequestHeaderConfig> request_header,
                 HandlerPtr failed)
      : next_(std::move(next)),
        authenticator_(std::move(a)),
        request_header_(std::move(request_header)),
        failed_(failed ? std::move(failed) : Unauthorized()) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    authn::AuthenticateResult result = co_await authenticator_->AuthenticateAsync(ctx.request);
    if (!result || !*result) {
      if (!result) KLOG_V(2) << "Unable to authenticate the request: " << result.error();
      co_await failed_->Serve(ctx, out);
      co_return;
    }
    ctx.user = std::move(**result);
    ctx.request.headers.Remove("Authorization");
    authn::ClearAuthenticationHeaders(ctx.request.headers, standard_);
    if (request_header_) authn::ClearAuthenticationHeaders(ctx.request.headers, *request_header_);
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  authn::AuthenticatorPtr authenticator_;
  std::shared_ptr<const authn::RequestHeaderConfig> request_header_;
  HandlerPtr failed_;
  const authn::RequestHeaderConfig standard_ = authn::StandardRequestHeaders();
};

class UnauthorizedHandler final : public Handler {
 public:
  Awaitable<void> Serve(RequestContext&, ResponseWriter& out) override {
    co_await WriteStatus(out, apimachinery::NewUnauthorized("Unauthorized"));
  }
};

}  // namespace

HandlerPtr Unauthorized() { return std::make_unique<UnauthorizedHandler>(); }

HandlerPtr WithAuthentication(HandlerPtr next, authn::AuthenticatorPtr authenticator,
                              std::shared_ptr<const authn::RequestHeaderConfig> request_header,
                              HandlerPtr failed) {
  return std::make_unique<Authentication>(std::move(next), std::move(authenticator),
                                          std::move(request_header), std::move(failed));
}

}  // namespace genericserver::filters
