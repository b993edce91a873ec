#pragma once
// How long a controller waits before it retries a key, as client-go's workqueue rate
// limiters decide: per-key exponential backoff, an overall token bucket, and the larger of
// several. A limiter belongs to one Queue and is used only on that queue's strand; it is
// not safe to share between threads. Time is passed in, so tests need no clock.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace workqueue {

using Clock = std::chrono::steady_clock;

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // The delay before `key` may be processed again, counting this as one more failure.
  virtual Clock::duration When(const std::string& key, Clock::time_point now) = 0;
  // Stops tracking `key` (it succeeded): its next failure starts from the base delay.
  virtual void Forget(const std::string& key) = 0;
  // How many failures of `key` are counted.
  virtual int NumRequeues(const std::string& key) const = 0;
};
using RateLimiterPtr = std::unique_ptr<RateLimiter>;

// base * 2^failures, at most max (client-go's ItemExponentialFailureRateLimiter).
RateLimiterPtr ItemExponentialFailureRateLimiter(Clock::duration base, Clock::duration max);

// A token bucket shared by every key: `burst` tokens, refilled at `qps` per second; a key
// that finds none waits for the next one it reserved (golang.org/x/time/rate's Reserve,
// client-go's BucketRateLimiter). Counts no failures.
RateLimiterPtr BucketRateLimiter(double qps, int burst);

// The longest delay of all (client-go's MaxOfRateLimiter); failures are the most any counts.
RateLimiterPtr MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters);

// client-go's DefaultControllerRateLimiter: exponential from 5 ms to 1000 s per key, and an
// overall bucket of 10 qps with a burst of 100.
RateLimiterPtr DefaultControllerRateLimiter();

}  // namespace workqueue
