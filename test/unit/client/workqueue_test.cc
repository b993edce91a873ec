// The work queue and its rate limiters (pkg/client/workqueue): client-go's semantics of
// dedupe, one worker per key, delays and backoff. Tagged [threads] where an io_context run
// by several threads drives the queue: run those under ThreadSanitizer too.
#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/client/workqueue/queue.h"
#include "pkg/client/workqueue/rate_limiter.h"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using workqueue::Clock;
using workqueue::Queue;

namespace {

workqueue::Strand NewStrand(asio::io_context& ioc) {
  return workqueue::Strand(asio::any_io_executor(ioc.get_executor()));
}

// Runs body on the queue's strand until it returns, with a limit against hangs.
template <class F>
void RunOn(asio::io_context& ioc, const workqueue::Strand& strand, F body) {
  bool finished = false;
  asio::co_spawn(
      strand,
      [&]() -> Awaitable<void> {
        co_await body();
        finished = true;
      },
      [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
      });
  ioc.run_for(30s);
  REQUIRE(finished);
}

Awaitable<void> Sleep(Clock::duration d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

}  // namespace

TEST_CASE("rate limiter: per-key exponential backoff from the base to the maximum",
          "[client][workqueue]") {
  auto limiter = workqueue::ItemExponentialFailureRateLimiter(5ms, 1000s);
  const auto now = Clock::now();
  CHECK(limiter->When("a", now) == 5ms);
  CHECK(limiter->When("a", now) == 10ms);
  CHECK(limiter->When("a", now) == 20ms);
  CHECK(limiter->When("b", now) == 5ms);  // per key
  CHECK(limiter->NumRequeues("a") == 3);
  limiter->Forget("a");
  CHECK(limiter->NumRequeues("a") == 0);
  CHECK(limiter->When("a", now) == 5ms);
  // 5 ms * 2^17 = 655 s, * 2^18 = 1310 s: capped; a thousand failures stay capped.
  for (int i = 0; i < 17; ++i) limiter->When("c", now);
  CHECK(limiter->When("c", now) == 655360ms);
  CHECK(limiter->When("c", now) == 1000s);
  for (int i = 0; i < 1000; ++i) limiter->When("c", now);
  CHECK(limiter->When("c", now) == 1000s);
}

TEST_CASE("rate limiter: the token bucket gives the burst at once, then qps",
          "[client][workqueue]") {
  auto limiter = workqueue::BucketRateLimiter(10, 100);
  const auto now = Clock::now();
  for (int i = 0; i < 100; ++i) REQUIRE(limiter->When("k" + std::to_string(i), now) == 0ms);
  CHECK(limiter->When("x", now) == 100ms);  // reserved ahead: one token per 100 ms
  CHECK(limiter->When("y", now) == 200ms);
  CHECK(limiter->NumRequeues("x") == 0);
  // A second later ten tokens came back, of which two were reserved.
  const auto later = now + 1s;
  for (int i = 0; i < 8; ++i) REQUIRE(limiter->When("z", later) == 0ms);
  CHECK(limiter->When("z", later) == 100ms);
  // The bucket never holds more than the burst.
  const auto much_later = now + 1h;
  for (int i = 0; i < 100; ++i) REQUIRE(limiter->When("w", much_later) == 0ms);
  CHECK(limiter->When("w", much_later) == 100ms);
}

TEST_CASE("rate limiter: the default controller limiter is the larger of both",
          "[client][workqueue]") {
  auto limiter = workqueue::DefaultControllerRateLimiter();
  const auto now = Clock::now();
  CHECK(limiter->When("a", now) == 5ms);
  CHECK(limiter->When("a", now) == 10ms);
  CHECK(limiter->NumRequeues("a") == 2);
  // 98 tokens left: the 99th key after them waits for the bucket, not its own backoff.
  for (int i = 0; i < 98; ++i) REQUIRE(limiter->When("k" + std::to_string(i), now) == 5ms);
  CHECK(limiter->When("late", now) == 100ms);
  limiter->Forget("a");
  CHECK(limiter->NumRequeues("a") == 0);
}

TEST_CASE(
    "workqueue: a key added twice is queued once; one added while processing is "
    "queued again at Done",
    "[client][workqueue]") {
  asio::io_context ioc;
  auto strand = NewStrand(ioc);
  auto queue = Queue::New(strand);
  RunOn(ioc, strand, [&]() -> Awaitable<void> {
    queue->Add("a");
    queue->Add("b");
    queue->Add("a");
    CHECK(queue->Len() == 2);
    auto first = co_await queue->Get();
    REQUIRE(first == "a");
    queue->Add("a");  // processing: not handed out again until Done
    queue->Add("a");
    CHECK(queue->Len() == 1);
    auto second = co_await queue->Get();
    CHECK(second == "b");
    CHECK(queue->Len() == 0);
    queue->Done("b");
    queue->Done("a");
    CHECK(queue->Len() == 1);
    auto third = co_await queue->Get();
    CHECK(third == "a");
    queue->Done("a");
    CHECK(queue->Len() == 0);
  });
}

TEST_CASE("workqueue: ShutDown wakes waiting workers; what is queued is still handed out",
          "[client][workqueue]") {
  asio::io_context ioc;
  auto strand = NewStrand(ioc);
  auto queue = Queue::New(strand);
  int ended = 0;
  for (int i = 0; i < 3; ++i) {
    asio::co_spawn(
        strand,
        [&]() -> Awaitable<void> {
          auto key = co_await queue->Get();
          CHECK(!key);
          ++ended;
        },
        asio::detached);
  }
  RunOn(ioc, strand, [&]() -> Awaitable<void> {
    co_await Sleep(10ms);  // the three workers wait
    queue->ShutDown();
    co_await Sleep(0ms);
  });
  CHECK(ended == 3);

  asio::io_context ioc2;
  auto strand2 = NewStrand(ioc2);
  auto drained = Queue::New(strand2);
  RunOn(ioc2, strand2, [&]() -> Awaitable<void> {
    drained->Add("x");
    drained->ShutDown();
    drained->Add("y");  // ignored
    CHECK(drained->ShuttingDown());
    auto queued = co_await drained->Get();
    CHECK(queued == std::optional<std::string>("x"));
    auto end = co_await drained->Get();
    CHECK(end == std::nullopt);
  });
}

TEST_CASE("workqueue: AddAfter queues a key once its earliest delay passed",
          "[client][workqueue]") {
  asio::io_context ioc;
  auto strand = NewStrand(ioc);
  auto queue = Queue::New(strand);
  RunOn(ioc, strand, [&]() -> Awaitable<void> {
    const auto start = Clock::now();
    queue->AddAfter("late", 200ms);
    queue->AddAfter("soon", 50ms);
    queue->AddAfter("soon", 5s);    // a later delay does not postpone it
    queue->AddAfter("late", 20ms);  // an earlier one brings it forward
    CHECK(queue->Len() == 0);
    auto first = co_await queue->Get();
    CHECK(first == "late");
    CHECK(Clock::now() - start >= 20ms);
    auto second = co_await queue->Get();
    CHECK(second == "soon");
    CHECK(Clock::now() - start >= 50ms);
    queue->Done("late");
    queue->Done("soon");
    // Each came once: nothing is left in the delay set.
    queue->AddAfter("zero", 0ms);
    CHECK(queue->Len() == 1);
    auto zero = co_await queue->Get();
    CHECK(zero == std::optional<std::string>("zero"));
    queue->Done("zero");
    co_await Sleep(100ms);
    CHECK(queue->Len() == 0);
  });
}

TEST_CASE("workqueue: AddRateLimited backs off per key until Forget", "[client][workqueue]") {
  asio::io_context ioc;
  auto strand = NewStrand(ioc);
  auto queue = Queue::New(strand, workqueue::ItemExponentialFailureRateLimiter(20ms, 1000s));
  RunOn(ioc, strand, [&]() -> Awaitable<void> {
    std::vector<Clock::duration> waited;
    for (int i = 0; i < 3; ++i) {
      const auto start = Clock::now();
      queue->AddRateLimited("k");
      auto key = co_await queue->Get();
      REQUIRE(key == "k");
      waited.push_back(Clock::now() - start);
      queue->Done("k");
    }
    CHECK(waited[0] >= 20ms);
    CHECK(waited[1] >= 40ms);
    CHECK(waited[2] >= 80ms);
    CHECK(queue->NumRequeues("k") == 3);
    queue->Forget("k");
    CHECK(queue->NumRequeues("k") == 0);
  });
}

TEST_CASE(
    "workqueue: workers on an io_context of four threads never process a key twice "
    "at once, and every added key is processed after its last Add",
    "[client][workqueue][threads]") {
  constexpr int kThreads = 4;
  constexpr int kWorkers = 8;
  constexpr int kKeys = 5;
  constexpr int kAdds = 2000;
  asio::io_context ioc;
  auto strand = NewStrand(ioc);
  auto queue = Queue::New(strand);
  // On the strand: keys being processed, adds not yet followed by a processing start.
  std::set<std::string> active;
  std::map<std::string, int> pending;
  int overlaps = 0;
  int processed = 0;
  std::atomic<int> workers_left = kWorkers;

  for (int w = 0; w < kWorkers; ++w) {
    asio::co_spawn(
        strand,
        [&]() -> Awaitable<void> {
          while (auto key = co_await queue->Get()) {
            if (!active.insert(*key).second) ++overlaps;
            pending[*key] = 0;
            co_await Sleep(std::chrono::microseconds(50));  // a sync that waits on the API
            active.erase(*key);
            ++processed;
            queue->Done(*key);
          }
          --workers_left;
        },
        asio::detached);
  }
  // Producers on other threads post their Adds to the strand, as event handlers do.
  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAdds; ++i) {
        std::string key = "k" + std::to_string((i + p) % kKeys);
        asio::post(strand, [&, key] {
          ++pending[key];
          queue->Add(key);
        });
      }
    });
  }
  std::vector<std::thread> threads;
  auto guard = asio::make_work_guard(ioc);
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&] { ioc.run(); });
  for (auto& p : producers) p.join();
  // Wait until every key's last Add was followed by a processing run, then shut down.
  const auto deadline = Clock::now() + 30s;
  std::atomic<bool> idle = false;
  while (!idle && Clock::now() < deadline) {
    std::promise<bool> done;
    asio::post(strand, [&] {
      bool all = active.empty() && queue->Len() == 0;
      for (const auto& [k, n] : pending) all = all && n == 0;
      done.set_value(all);
    });
    idle = done.get_future().get();
    if (!idle) std::this_thread::sleep_for(1ms);
  }
  asio::post(strand, [&] { queue->ShutDown(); });
  guard.reset();
  for (auto& t : threads) t.join();
  CHECK(idle);
  CHECK(overlaps == 0);
  CHECK(workers_left == 0);
  CHECK(processed >= kKeys);
  CHECK(processed <= 2 * kAdds);
}
