#include "pkg/client/workqueue/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace workqueue {

namespace {

class ItemExponentialFailure final : public RateLimiter {
 public:
  ItemExponentialFailure(Clock::duration base, Clock::duration max) : base_(base), max_(max) {}

  Clock::duration When(const std::string& key, Clock::time_point) override {
    const int failures = failures_[key]++;
    // In doubles, as upstream computes it, so that a large count saturates at max.
    const double delay =
        std::chrono::duration<double, Clock::period>(base_).count() * std::pow(2.0, failures);
    if (!(delay < std::chrono::duration<double, Clock::period>(max_).count())) return max_;
    return Clock::duration(static_cast<Clock::rep>(delay));
  }
  void Forget(const std::string& key) override { failures_.erase(key); }
  int NumRequeues(const std::string& key) const override {
    auto it = failures_.find(key);
    return it == failures_.end() ? 0 : it->second;
  }

 private:
  const Clock::duration base_;
  const Clock::duration max_;
  std::map<std::string, int> failures_;
};

class Bucket final : public RateLimiter {
 public:
  Bucket(double qps, int burst) : qps_(qps), burst_(burst), tokens_(burst) {}

  Clock::duration When(const std::string&, Clock::time_point now) override {
    if (started_) {
      const double elapsed = std::chrono::duration<double>(now - last_).count();
      if (elapsed > 0) tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
    }
    started_ = true;
    last_ = std::max(last_, now);
    tokens_ -= 1;
    if (tokens_ >= 0) return Clock::duration::zero();
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(-tokens_ / qps_));
  }
  void Forget(const std::string&) override {}
  int NumRequeues(const std::string&) const override { return 0; }

 private:
  const double qps_;
  const int burst_;
  double tokens_;  // may go below zero: tokens reserved ahead
  bool started_ = false;
  Clock::time_point last_{};
};

class MaxOf final : public RateLimiter {
 public:
  explicit MaxOf(std::vector<RateLimiterPtr> limiters) : limiters_(std::move(limiters)) {}

  Clock::duration When(const std::string& key, Clock::time_point now) override {
    Clock::duration longest = Clock::duration::zero();
    for (auto& l : limiters_) longest = std::max(longest, l->When(key, now));
    return longest;
  }
  void Forget(const std::string& key) override {
    for (auto& l : limiters_) l->Forget(key);
  }
  int NumRequeues(const std::string& key) const override {
    int most = 0;
    for (const auto& l : limiters_) most = std::max(most, l->NumRequeues(key));
    return most;
  }

 private:
  std::vector<RateLimiterPtr> limiters_;
};

}  // namespace

RateLimiterPtr ItemExponentialFailureRateLimiter(Clock::duration base, Clock::duration max) {
  return std::make_unique<ItemExponentialFailure>(base, max);
}

RateLimiterPtr BucketRateLimiter(double qps, int burst) {
  return std::make_unique<Bucket>(qps, burst);
}

RateLimiterPtr MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters) {
  return std::make_unique<MaxOf>(std::move(limiters));
}

RateLimiterPtr DefaultControllerRateLimiter() {
  std::vector<RateLimiterPtr> limiters;
  limiters.push_back(
      ItemExponentialFailureRateLimiter(std::chrono::milliseconds(5), std::chrono::seconds(1000)));
  limiters.push_back(BucketRateLimiter(10, 100));
  return MaxOfRateLimiter(std::move(limiters));
}

}  // namespace workqueue
