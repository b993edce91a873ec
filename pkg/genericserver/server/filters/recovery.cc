#include "pkg/genericserver/server/filters/recovery.h"

#include <exception>

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"

namespace genericserver::filters {
namespace {

class Recovery final : public Handler {
 public:
  explicit Recovery(HandlerPtr next) : next_(std::move(next)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    std::string what;
    try {
      co_await next_->Serve(ctx, out);
      co_return;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "unknown exception";
    }
    KLOG_ERROR << "recovered from an exception serving " << ctx.request.method << " "
               << ctx.request.path << ": " << what;
    if (out.Started()) throw std::runtime_error("response already started: " + what);
    co_await WriteStatus(out, apimachinery::NewInternalError(
                                  "This request caused apiserver to panic. Look in the logs for "
                                  "details."));
  }

 private:
  HandlerPtr next_;
};

}  // namespace

HandlerPtr WithPanicRecovery(HandlerPtr next) {
  return std::make_unique<Recovery>(std::move(next));
}

}  // namespace genericserver::filters
