#include "pkg/genericserver/storage/wakeup.h"

#include <cassert>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace storage {

// The wait in progress: registered with the Wakeup for exactly its lifetime.
struct Wakeup::Waiting {
  Waiting(Wakeup& w, const boost::asio::any_io_executor& executor,
          std::chrono::steady_clock::time_point deadline)
      : wakeup(w), timer(executor) {
    std::lock_guard lock(wakeup.mu_);
    assert(wakeup.waiting_ == nullptr && "Wakeup::Wait: one waiter at a time");
    // A Notify() that came after the caller's check but before this is not lost.
    timer.expires_at(wakeup.notified_ ? std::chrono::steady_clock::time_point() : deadline);
    wakeup.waiting_ = this;
  }
  // Unregistered before the timer goes: no notifier can reach a destroyed timer, and the
  // timer is destroyed here, on the consumer's side.
  ~Waiting() {
    std::lock_guard lock(wakeup.mu_);
    wakeup.waiting_ = nullptr;
  }
  Waiting(const Waiting&) = delete;
  Waiting& operator=(const Waiting&) = delete;

  Wakeup& wakeup;
  boost::asio::steady_timer timer;
};

namespace {

// Starts the timer's wait under mu, where Notify() moves its expiry: the two never touch
// the timer at once. Completes (on the coroutine's executor) at the expiry or when a
// notifier moved the expiry, which cancels a wait in progress.
Awaitable<void> AsyncWait(boost::asio::steady_timer& timer, std::mutex& mu) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void()>(
      [&timer, &mu](auto handler) {
        auto executor = boost::asio::get_associated_executor(handler, timer.get_executor());
        std::lock_guard lock(mu);
        timer.async_wait(boost::asio::bind_executor(
            executor, [handler = std::move(handler)](const boost::system::error_code&) mutable {
              std::move(handler)();
            }));
      },
      boost::asio::use_awaitable);
}

}  // namespace

void Wakeup::Notify() {
  std::lock_guard lock(mu_);
  notified_ = true;
  // The past, not cancel(): a cancel before the wait started would be lost, an expiry in
  // the past is not. (Moving the expiry also cancels a wait in progress.)
  if (waiting_) waiting_->timer.expires_at(std::chrono::steady_clock::time_point());
}

Awaitable<bool> Wakeup::Wait(std::chrono::steady_clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (std::exchange(notified_, false)) co_return true;
  }
  auto executor = co_await boost::asio::this_coro::executor;
  Waiting waiting(*this, executor, deadline);
  co_await AsyncWait(waiting.timer, mu_);
  std::lock_guard lock(mu_);
  co_return std::exchange(notified_, false);
}

}  // namespace storage
