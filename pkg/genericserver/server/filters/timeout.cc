#include "pkg/genericserver/server/filters/timeout.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/responses.h"

namespace genericserver::filters {
namespace {

namespace net = boost::asio;

// Forwards to the real writer until the deadline passed; then swallows everything.
class GuardedWriter final : public ResponseWriter {
 public:
  explicit GuardedWriter(ResponseWriter& out) : out_(out) {}
  void Expire() { expired_ = true; }

  Awaitable<void> Respond(Response r) override {
    if (!expired_) co_await out_.Respond(std::move(r));
  }
  Awaitable<bool> StartStream(int status, Headers headers) override {
    if (expired_) co_return false;
    co_return co_await out_.StartStream(status, std::move(headers));
  }
  Awaitable<bool> WriteChunk(std::string_view data) override {
    if (expired_) co_return false;
    co_return co_await out_.WriteChunk(data);
  }
  Awaitable<void> FinishStream() override {
    if (!expired_) co_await out_.FinishStream();
  }
  void OnClientGone(std::function<void()> gone) override {
    if (!expired_) out_.OnClientGone(std::move(gone));
  }
  bool Started() const override { return expired_ || out_.Started(); }
  int StatusCode() const override { return out_.StatusCode(); }
  Headers& ExtraHeaders() override { return out_.ExtraHeaders(); }

 private:
  ResponseWriter& out_;
  bool expired_ = false;
};

// Shared with the spawned handler's completion callback, which may outlive this frame's
// interest in it but never the frame itself (the filter waits for completion).
struct Race {
  explicit Race(const net::any_io_executor& ex) : timer(ex) {}
  net::steady_timer timer;
  bool done = false;
  std::exception_ptr error;
};

class Timeout final : public Handler {
 public:
  Timeout(HandlerPtr next, util::Duration timeout) : next_(std::move(next)), timeout_(timeout) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    if (endpoints::IsLongRunning(ctx.info)) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    util::Duration timeout = timeout_;
    if (auto param = ctx.request.query.Get("timeout")) {
      auto requested = util::ParseDuration(*param);
      if (!requested) {
        co_await WriteStatus(
            out, apimachinery::NewBadRequest("invalid timeout specified in the request URL - " +
                                             requested.error()));
        co_return;
      }
      if (requested->count() > 0 && *requested < timeout) timeout = *requested;
    }
    ctx.deadline = ctx.received + timeout;

    // The handler runs as its own coroutine on this connection's executor (a strand),
    // so the timer, the flag and the writer are only ever touched from one thread.
    auto ex = co_await net::this_coro::executor;
    auto race = std::make_shared<Race>(ex);
    GuardedWriter guarded(out);
    net::co_spawn(
        ex, [&]() -> Awaitable<void> { co_await next_->Serve(ctx, guarded); },
        [race](std::exception_ptr e) {
          race->done = true;
          race->error = e;
          race->timer.cancel();
        });
    boost::system::error_code ec;
    race->timer.expires_at(ctx.deadline);
    co_await race->timer.async_wait(net::redirect_error(net::use_awaitable, ec));
    if (!race->done) {
      guarded.Expire();
      if (!out.Started()) {
        co_await WriteStatus(out, apimachinery::NewTimeoutError(
                                      "request did not complete within the allotted timeout", 0));
      }
      while (!race->done) {
        race->timer.expires_at(std::chrono::steady_clock::time_point::max());
        co_await race->timer.async_wait(net::redirect_error(net::use_awaitable, ec));
      }
    }
    if (race->error) std::rethrow_exception(race->error);
  }

 private:
  HandlerPtr next_;
  util::Duration timeout_;
};

}  // namespace

HandlerPtr WithTimeout(HandlerPtr next, util::Duration request_timeout) {
  return std::make_unique<Timeout>(std::move(next), request_timeout);
}

}  // namespace genericserver::filters
