#pragma once
// A queue with many producers on any thread and one consumer coroutine. Bounded: a
// push past the capacity closes the queue with `overflowed()` set, so a consumer that
// cannot keep up is cut off instead of growing memory without bound.
//
// Thread-safety: Push, Close, CloseNow, overflowed and size from any thread, at any
// time. Pop from one coroutine at a time, on any executor: a strand, a one-thread
// io_context or a bare io_context run by several threads (the wake-up is a Wakeup,
// wakeup.h: nothing is lost, the consumer's timer is only touched under a mutex, and
// the queue refers to the consumer's executor only while a Pop waits).

#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/storage/wakeup.h"

namespace storage {

template <class T>
class AsyncQueue : public std::enable_shared_from_this<AsyncQueue<T>> {
 public:
  explicit AsyncQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue is closed (or just overflowed and closed).
  bool Push(T item) {
    bool accepted = false;
    {
      std::lock_guard lock(mu_);
      if (closed_) return false;
      if (items_.size() >= capacity_) {
        overflowed_ = true;
        closed_ = true;
      } else {
        items_.push_back(std::move(item));
        accepted = true;
      }
    }
    wakeup_.Notify();
    return accepted;
  }

  // No more pushes; the consumer gets what is queued, then std::nullopt.
  void Close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    wakeup_.Notify();
  }

  // Also drops what is queued.
  void CloseNow() {
    std::deque<T> dropped;  // destroyed outside the lock
    {
      std::lock_guard lock(mu_);
      closed_ = true;
      dropped.swap(items_);
    }
    wakeup_.Notify();
  }

  bool overflowed() const {
    std::lock_guard lock(mu_);
    return overflowed_;
  }

  // The next item, or std::nullopt once closed and drained. One consumer at a time.
  Awaitable<std::optional<T>> Pop() {
    auto self = this->shared_from_this();  // producers may drop their references meanwhile
    for (;;) {
      {
        std::lock_guard lock(mu_);
        if (!items_.empty()) {
          T item = std::move(items_.front());
          items_.pop_front();
          co_return item;
        }
        if (closed_) co_return std::nullopt;
      }
      // A push after the check above wakes this wait, even before it starts.
      co_await wakeup_.Wait();
    }
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<T> items_;
  bool closed_ = false;
  bool overflowed_ = false;
  Wakeup wakeup_;
};

}  // namespace storage
