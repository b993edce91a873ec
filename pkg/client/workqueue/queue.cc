#include "pkg/client/workqueue/queue.h"

#include <cassert>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace workqueue {

namespace asio = boost::asio;

std::shared_ptr<Queue> Queue::New(Strand strand, RateLimiterPtr limiter) {
  return std::shared_ptr<Queue>(new Queue(std::move(strand), std::move(limiter)));
}

Queue::Queue(Strand strand, RateLimiterPtr limiter)
    : strand_(std::move(strand)), limiter_(std::move(limiter)), delay_timer_(strand_) {}

void Queue::AssertOnStrand() const { assert(strand_.running_in_this_thread()); }

void Queue::Add(const std::string& key) {
  AssertOnStrand();
  if (shutting_down_ || !dirty_.insert(key).second) return;
  if (processing_.contains(key)) return;  // queued again at Done
  queue_.push_back(key);
  WakeOne();
}

void Queue::WakeOne() {
  if (waiting_.empty()) return;
  waiting_.front()->cancel();
  waiting_.pop_front();
}

Awaitable<std::optional<std::string>> Queue::Get() {
  AssertOnStrand();
  auto self = shared_from_this();
  while (queue_.empty() && !shutting_down_) {
    asio::steady_timer wait(strand_, asio::steady_timer::time_point::max());
    // Woken by Add or ShutDown, which take the timer off waiting_; the guard takes it off
    // too if the frame is destroyed while waiting (its io_context going away).
    waiting_.push_back(&wait);
    struct Unregister {
      std::deque<asio::steady_timer*>& waiting;
      asio::steady_timer* timer;
      ~Unregister() { std::erase(waiting, timer); }
    } unregister{waiting_, &wait};
    boost::system::error_code ec;
    co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    AssertOnStrand();
  }
  if (queue_.empty()) co_return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  co_return key;
}

void Queue::Done(const std::string& key) {
  AssertOnStrand();
  processing_.erase(key);
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    WakeOne();
  }
}

void Queue::ShutDown() {
  AssertOnStrand();
  shutting_down_ = true;
  for (auto* w : waiting_) w->cancel();
  waiting_.clear();
  delayed_.clear();
  due_.clear();
  delay_timer_.cancel();
}

bool Queue::ShuttingDown() const {
  AssertOnStrand();
  return shutting_down_;
}

size_t Queue::Len() const {
  AssertOnStrand();
  return queue_.size();
}

void Queue::AddAfter(const std::string& key, Clock::duration delay) {
  AssertOnStrand();
  if (shutting_down_) return;
  if (delay <= Clock::duration::zero()) {
    Add(key);
    return;
  }
  const Clock::time_point at = Clock::now() + delay;
  auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= at) return;  // already due earlier
    auto range = delayed_.equal_range(it->second);
    for (auto d = range.first; d != range.second; ++d) {
      if (d->second == key) {
        delayed_.erase(d);
        break;
      }
    }
    it->second = at;
  } else {
    due_.emplace(key, at);
  }
  delayed_.emplace(at, key);
  ArmDelayTimer();
}

void Queue::ArmDelayTimer() {
  if (delayed_.empty()) return;
  const Clock::time_point next = delayed_.begin()->first;
  if (delay_timer_armed_ && delay_timer_expiry_ <= next) return;
  // Re-arming cancels the wait in progress; its handler sees operation_aborted and leaves.
  delay_timer_armed_ = true;
  delay_timer_expiry_ = next;
  delay_timer_.expires_at(next);
  delay_timer_.async_wait([self = shared_from_this(), next](boost::system::error_code ec) {
    if (ec || self->delay_timer_expiry_ != next) return;
    self->delay_timer_armed_ = false;
    self->ReleaseDue();
  });
}

void Queue::ReleaseDue() {
  AssertOnStrand();
  const Clock::time_point now = Clock::now();
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    std::string key = std::move(delayed_.begin()->second);
    delayed_.erase(delayed_.begin());
    due_.erase(key);
    Add(key);
  }
  ArmDelayTimer();
}

void Queue::AddRateLimited(const std::string& key) {
  AssertOnStrand();
  AddAfter(key, limiter_->When(key, Clock::now()));
}

void Queue::Forget(const std::string& key) {
  AssertOnStrand();
  limiter_->Forget(key);
}

int Queue::NumRequeues(const std::string& key) const {
  AssertOnStrand();
  return limiter_->NumRequeues(key);
}

}  // namespace workqueue
