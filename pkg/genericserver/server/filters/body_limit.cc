#include "pkg/genericserver/server/filters/body_limit.h"

#include "pkg/genericserver/server/responses.h"

namespace genericserver::filters {
namespace {

class BodyLimit final : public Handler {
 public:
  BodyLimit(HandlerPtr next, size_t max_bytes) : next_(std::move(next)), max_bytes_(max_bytes) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    if (ctx.request.body_too_large) {
      co_await WriteStatus(
          out, apimachinery::NewRequestEntityTooLarge("limit is " + std::to_string(max_bytes_)));
      co_return;
    }
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  size_t max_bytes_;
};

}  // namespace

HandlerPtr WithRequestBodyLimit(HandlerPtr next, size_t max_bytes) {
  return std::make_unique<BodyLimit>(std::move(next), max_bytes);
}

}  // namespace genericserver::filters
