#pragma once
// A queue with many producers on any thread and one consumer coroutine. Bounded: a
// push past the capacity closes the queue with `overflowed()` set, so a consumer that
// cannot keep up is cut off instead of growing memory without bound.
// Include from .cc files only (it pulls in Asio timers).

#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace storage {

template <class T>
class AsyncQueue : public std::enable_shared_from_this<AsyncQueue<T>> {
 public:
  explicit AsyncQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue is closed (or just overflowed and closed).
  bool Push(T item) {
    std::unique_lock lock(mu_);
    if (closed_) return false;
    if (items_.size() >= capacity_) {
      overflowed_ = true;
      closed_ = true;
      Wake(lock);
      return false;
    }
    items_.push_back(std::move(item));
    Wake(lock);
    return true;
  }

  // No more pushes; the consumer gets what is queued, then std::nullopt.
  void Close() {
    std::unique_lock lock(mu_);
    closed_ = true;
    Wake(lock);
  }

  // Also drops what is queued.
  void CloseNow() {
    std::unique_lock lock(mu_);
    closed_ = true;
    items_.clear();
    Wake(lock);
  }

  bool overflowed() const {
    std::lock_guard lock(mu_);
    return overflowed_;
  }

  // The next item, or std::nullopt once closed and drained. One consumer at a time,
  // running on a strand (or a one-thread io_context): the wake-up is posted to the
  // consumer's executor and must not run between the check and the wait below.
  Awaitable<std::optional<T>> Pop() {
    auto self = this->shared_from_this();  // producers may drop their references meanwhile
    auto executor = co_await boost::asio::this_coro::executor;
    for (;;) {
      // A timer per wait, known to producers only weakly: the queue never keeps the
      // consumer's executor (and so its io_context) referenced after the wait.
      auto timer = std::make_shared<boost::asio::steady_timer>(executor);
      {
        std::lock_guard lock(mu_);
        if (!items_.empty()) {
          T item = std::move(items_.front());
          items_.pop_front();
          co_return item;
        }
        if (closed_) co_return std::nullopt;
        timer->expires_at(std::chrono::steady_clock::time_point::max());
        waiting_ = timer;
      }
      boost::system::error_code ec;
      co_await timer->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }

 private:
  // The timer belongs to the consumer's executor: cancel it there, never from here.
  void Wake(std::unique_lock<std::mutex>& lock) {
    auto timer = waiting_.lock();
    waiting_.reset();
    lock.unlock();
    if (timer) boost::asio::post(timer->get_executor(), [timer] { timer->cancel(); });
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<T> items_;
  bool closed_ = false;
  bool overflowed_ = false;
  std::weak_ptr<boost::asio::steady_timer> waiting_;
};

}  // namespace storage
