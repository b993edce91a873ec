#include "pkg/genericserver/server/filters/request_info.h"

#include "pkg/genericserver/server/responses.h"

namespace genericserver::filters {
namespace {

class RequestInfoFilter final : public Handler {
 public:
  RequestInfoFilter(HandlerPtr next, std::shared_ptr<const endpoints::RequestInfoResolver> r)
      : next_(std::move(next)), resolver_(std::move(r)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    auto info = resolver_->Resolve(ctx.request);
    if (!info) {
      co_await WriteStatus(
          out, apimachinery::NewInternalError("failed to create RequestInfo: " + info.error()));
      co_return;
    }
    ctx.info = std::move(*info);
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  std::shared_ptr<const endpoints::RequestInfoResolver> resolver_;
};

}  // namespace

HandlerPtr WithRequestInfo(HandlerPtr next,
                           std::shared_ptr<const endpoints::RequestInfoResolver> resolver) {
  return std::make_unique<RequestInfoFilter>(std::move(next), std::move(resolver));
}

}  // namespace genericserver::filters
