#pragma once
// A wake-up call for one waiting coroutine, made from any thread: an auto-reset event.
// What AsyncQueue and the watch cache's readers wait on.
//
// Contract:
//  - Notify(): any thread, any number of times, concurrently with everything.
//  - Wait(): one coroutine at a time, on ANY executor: a strand, a one-thread io_context,
//    or a bare io_context run by several threads. A Notify() between the caller's check
//    of its condition and the start of the wait is not lost: Wait() then returns at once.
//    The caller re-checks its condition after every return (wake-ups may be spurious).
//  - Every access to the waiting coroutine's timer (setting its expiry, starting the
//    wait, moving the expiry to the past to wake it) happens under mu_, so the timer is
//    never touched by two threads at once, whatever runs the consumer.
//  - The timer lives in Wait()'s frame. Notify() reaches it only while the wait is in
//    progress (it is unregistered under mu_ before it is destroyed), so it is always
//    destroyed on the consumer's side, never by a notifier, and nothing here refers to
//    the consumer's executor (or keeps its io_context alive) once the wait ended.
//  - The Wakeup must outlive any Wait() in progress.

#include <chrono>
#include <mutex>

#include "pkg/genericserver/server/awaitable.h"

namespace storage {

class Wakeup {
 public:
  Wakeup() = default;
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  // Wakes the Wait() in progress, or makes the next one return at once.
  void Notify();

  // Returns true once Notify() was called since the previous Wait() returned, false at
  // the deadline.
  Awaitable<bool> Wait(std::chrono::steady_clock::time_point deadline =
                           std::chrono::steady_clock::time_point::max());

 private:
  struct Waiting;

  std::mutex mu_;
  bool notified_ = false;       // guarded by mu_
  Waiting* waiting_ = nullptr;  // guarded by mu_: the wait in progress, if any
};

}  // namespace storage
