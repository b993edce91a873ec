#include "pkg/genericserver/server/filters/max_in_flight.h"

#include <atomic>

#include "pkg/genericserver/server/responses.h"

namespace genericserver::filters {
namespace {

class MaxInFlight final : public Handler {
 public:
  MaxInFlight(HandlerPtr next, int read_only, int mutating, std::shared_ptr<Metrics> metrics)
      : next_(std::move(next)),
        read_only_limit_(read_only),
        mutating_limit_(mutating),
        metrics_(std::move(metrics)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    if (endpoints::IsLongRunning(ctx.info)) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    const bool mutating = !endpoints::IsReadOnly(ctx.info);
    const int limit = mutating ? mutating_limit_ : read_only_limit_;
    if (limit <= 0) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    std::atomic<int>& count = mutating ? mutating_ : read_only_;
    if (count.fetch_add(1) >= limit) {
      count.fetch_sub(1);
      if (ctx.user && ctx.user->InGroup(authn::kSystemPrivilegedGroup)) {
        co_await next_->Serve(ctx, out);
      } else {
        co_await WriteStatus(
            out, apimachinery::NewTooManyRequests("Too many requests, please try again later.", 1));
      }
      co_return;
    }
    // Released on every exit, exceptions included.
    struct Slot {
      std::atomic<int>& count;
      Metrics& metrics;
      bool mutating;
      ~Slot() {
        count.fetch_sub(1);
        metrics.AddInFlight(mutating, -1);
      }
    } slot{count, *metrics_, mutating};
    metrics_->AddInFlight(mutating, 1);
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  const int read_only_limit_;
  const int mutating_limit_;
  std::shared_ptr<Metrics> metrics_;
  std::atomic<int> read_only_{0};
  std::atomic<int> mutating_{0};
};

}  // namespace

HandlerPtr WithMaxInFlightLimit(HandlerPtr next, int read_only, int mutating,
                                std::shared_ptr<Metrics> metrics) {
  return std::make_unique<MaxInFlight>(std::move(next), read_only, mutating, std::move(metrics));
}

}  // namespace genericserver::filters
