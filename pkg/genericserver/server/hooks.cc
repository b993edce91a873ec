#include "pkg/genericserver/server/hooks.h"

#include <chrono>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace genericserver {

Awaitable<std::expected<void, std::string>> PostStartHook::Run() {
  auto result = co_await fn_();
  if (result) done_ = true;
  co_return result;
}

HealthCheck PostStartHook::Check() const {
  return {"poststarthook/" + name_, [this]() -> std::expected<void, std::string> {
            if (done_) return {};
            return std::unexpected("not finished");
          }};
}

Awaitable<std::expected<void, std::string>> Done() { co_return std::expected<void, std::string>(); }

PostStartHookFunc WaitFor(std::function<bool()> condition) {
  return [condition = std::move(condition)]() -> Awaitable<std::expected<void, std::string>> {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    while (!condition()) {
      timer.expires_after(std::chrono::milliseconds(10));
      boost::system::error_code ec;
      co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
    co_return std::expected<void, std::string>();
  };
}

}  // namespace genericserver
