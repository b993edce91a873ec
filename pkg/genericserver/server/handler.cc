#include "pkg/genericserver/server/handler.h"

namespace genericserver {
namespace {
class FuncHandler final : public Handler {
 public:
  explicit FuncHandler(HandlerFunc fn) : fn_(std::move(fn)) {}
  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    co_await fn_(ctx, out);
  }

 private:
  HandlerFunc fn_;
};
}  // namespace

HandlerPtr MakeHandler(HandlerFunc fn) { return std::make_unique<FuncHandler>(std::move(fn)); }

}  // namespace genericserver
