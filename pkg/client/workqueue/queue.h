#pragma once
// A controller's work queue, with client-go's rate-limiting workqueue semantics:
//  - a key added while it already waits is queued once (Add dedupes);
//  - a key handed out by Get is processing until Done: it is not handed to another worker
//    meanwhile, and an Add of it meanwhile queues it again at Done;
//  - AddAfter queues a key once its delay passed (the earliest of several delays wins),
//    AddRateLimited after the limiter's delay for it; Forget resets its failures;
//  - after ShutDown, Add is ignored; Get hands out what is still queued, then nullopt.
//
// Threads: a Queue belongs to one strand. Every member is called on it (asserted), Get's
// coroutine runs on it, and the delay timer and the workers' waits are on it, so the state
// needs no lock. Event handlers on other executors post their Add to the strand.
// Lifetime: made by New as a shared_ptr; its timers hold it until ShutDown ends them.

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "pkg/client/workqueue/rate_limiter.h"
#include "pkg/genericserver/server/awaitable.h"

namespace workqueue {

using Strand = boost::asio::strand<boost::asio::any_io_executor>;

class Queue : public std::enable_shared_from_this<Queue> {
 public:
  static std::shared_ptr<Queue> New(Strand strand,
                                    RateLimiterPtr limiter = DefaultControllerRateLimiter());
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  void Add(const std::string& key);
  void AddAfter(const std::string& key, Clock::duration delay);
  void AddRateLimited(const std::string& key);
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key) const;

  // The next queued key, waiting for one; std::nullopt once shut down and empty.
  Awaitable<std::optional<std::string>> Get();
  // The worker finished `key` (successfully or not: failures call AddRateLimited first).
  void Done(const std::string& key);

  void ShutDown();
  bool ShuttingDown() const;
  // Keys queued (not those processing or waiting out a delay).
  size_t Len() const;
  const Strand& strand() const { return strand_; }

 private:
  Queue(Strand strand, RateLimiterPtr limiter);
  void AssertOnStrand() const;
  void WakeOne();
  void ArmDelayTimer();
  void ReleaseDue();

  Strand strand_;
  RateLimiterPtr limiter_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued, or to be queued again at Done
  std::set<std::string> processing_;  // handed out by Get, not yet Done
  bool shutting_down_ = false;
  // Workers waiting in Get, each on its own timer (on the strand); Add cancels one.
  std::deque<boost::asio::steady_timer*> waiting_;
  // Delayed keys by the time they are due, and each key's due time (one entry per key).
  std::multimap<Clock::time_point, std::string> delayed_;
  std::map<std::string, Clock::time_point> due_;
  boost::asio::steady_timer delay_timer_;
  bool delay_timer_armed_ = false;
  Clock::time_point delay_timer_expiry_{};
};

}  // namespace workqueue
