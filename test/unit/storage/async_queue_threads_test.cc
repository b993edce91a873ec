// AsyncQueue and Wakeup with producers on plain threads and consumers on an io_context run
// by four threads, bare and on strands: nothing lost, reordered or left waiting. Tagged
// [threads]: run them under ThreadSanitizer too (docs/architecture.md).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include "pkg/genericserver/storage/async_queue.h"
#include "pkg/genericserver/storage/wakeup.h"
#include "test/unit/storage/harness.h"

using storage::AsyncQueue;

namespace {

constexpr int kIoThreads = 4;
constexpr auto kLimit = std::chrono::seconds(60);  // a hang, not a slow machine

struct Item {
  int producer;
  int seq;
};

// Pops until the queue ends; each producer's items must come in order, none twice.
Awaitable<void> Consume(std::shared_ptr<AsyncQueue<Item>> queue, int producers,
                        std::atomic<int>* failures, std::atomic<int>* total) {
  std::vector<int> next(producers, 0);
  for (;;) {
    auto item = co_await queue->Pop();
    if (!item) break;
    if (item->seq != next[item->producer]) ++*failures;
    next[item->producer] = item->seq + 1;
    ++*total;
  }
}

// Spawns fn() on a strand of io when i is odd, on the bare (multi-threaded) io otherwise.
template <class F>
void Spawn(boost::asio::io_context& io, int i, F fn) {
  if (i % 2) {
    boost::asio::co_spawn(boost::asio::make_strand(io), std::move(fn), boost::asio::detached);
  } else {
    boost::asio::co_spawn(io.get_executor(), std::move(fn), boost::asio::detached);
  }
}

}  // namespace

TEST_CASE("AsyncQueue: consumers on a bare multi-threaded io_context and on strands lose nothing",
          "[threads]") {
  constexpr int kQueues = 16, kProducers = 4, kItems = 500;
  boost::asio::io_context io;
  std::vector<std::shared_ptr<AsyncQueue<Item>>> queues;
  std::atomic<int> failures{0}, total{0};
  for (int q = 0; q < kQueues; ++q) {
    queues.push_back(std::make_shared<AsyncQueue<Item>>(kProducers * kItems));
    auto queue = queues.back();
    Spawn(io, q,
          [queue, &failures, &total] { return Consume(queue, kProducers, &failures, &total); });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int seq = 0; seq < kItems; ++seq) {
        for (auto& queue : queues) {
          if (!queue->Push({p, seq})) ++failures;  // no CHECK here: Catch is not thread-safe
        }
        // Let the consumers drain and wait again: every wait is a chance to lose a wake-up.
        if (seq % 16 == 0) std::this_thread::yield();
      }
    });
  }
  std::thread closer([&] {
    for (auto& t : producers) t.join();
    for (auto& queue : queues) queue->Close();
  });
  const bool finished = storagetest::RunThreads(io, kIoThreads, kLimit);
  closer.join();
  REQUIRE(finished);
  CHECK(failures == 0);
  CHECK(total == kQueues * kProducers * kItems);
}

TEST_CASE("AsyncQueue: a close racing with the start of a wait always ends it", "[threads]") {
  // Each round, a consumer starts waiting while another thread closes its queue: the
  // wake-up can come before the wait starts, during its start, or after.
  constexpr int kRounds = 2000;
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::atomic<int> ended{0};
  std::vector<std::shared_ptr<AsyncQueue<int>>> queues;
  for (int i = 0; i < kRounds; ++i) queues.push_back(std::make_shared<AsyncQueue<int>>(4));
  std::thread closer([&] {
    for (int i = 0; i < kRounds; ++i) {
      auto queue = queues[i];
      Spawn(io, i, [queue, &ended]() -> Awaitable<void> {
        auto item = co_await queue->Pop();
        if (!item) ++ended;
      });
      if (i % 3 == 0) std::this_thread::yield();
      queue->Close();
    }
    work.reset();
  });
  const bool finished = storagetest::RunThreads(io, kIoThreads, kLimit);
  closer.join();
  REQUIRE(finished);
  CHECK(ended == kRounds);
}

TEST_CASE("AsyncQueue: overflow, Close and CloseNow from producers while the consumer waits",
          "[threads]") {
  constexpr int kRounds = 150, kCapacity = 8;
  enum Mode { kOverflow, kClose, kCloseNow };
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::atomic<int> failures{0};
  std::vector<std::thread> producers;
  for (int round = 0; round < kRounds; ++round) {
    auto queue = std::make_shared<AsyncQueue<int>>(kCapacity);
    auto accepted = std::make_shared<std::atomic<int>>(0);
    auto done = std::make_shared<std::atomic<bool>>(false);
    const Mode mode = static_cast<Mode>(round % 3);
    Spawn(io, round, [queue, accepted, done, mode, &failures]() -> Awaitable<void> {
      int next = 0;
      for (;;) {
        auto item = co_await queue->Pop();
        if (!item) break;
        if (*item != next) ++failures;  // a prefix, in order
        ++next;
      }
      // An overflow or a Close keeps what was queued: the consumer gets every accepted
      // item. CloseNow drops the rest: at most those.
      while (!done->load()) std::this_thread::yield();
      if (mode == kCloseNow ? next > accepted->load() : next != accepted->load()) ++failures;
    });
    producers.emplace_back([queue, accepted, done, mode] {
      // kOverflow pushes until the queue is cut off (Close as a last resort, should the
      // consumer keep up for that long).
      const int pushes = mode == kOverflow ? 100000 : 4 * kCapacity;
      for (int i = 0; i < pushes; ++i) {
        if (!queue->Push(i)) break;
        ++*accepted;
        if (mode != kOverflow && i % 4 == 0) std::this_thread::yield();
      }
      if (mode == kCloseNow) {
        queue->CloseNow();
      } else {
        queue->Close();
      }
      *done = true;
    });
  }
  std::thread release([&] {
    for (auto& t : producers) t.join();
    work.reset();
  });
  const bool finished = storagetest::RunThreads(io, kIoThreads, kLimit);
  release.join();
  REQUIRE(finished);
  CHECK(failures == 0);
}

TEST_CASE("Wakeup: notifications from other threads are never lost, deadlines hold", "[threads]") {
  constexpr int kWaiters = 8, kRounds = 300;
  boost::asio::io_context io;
  std::atomic<int> failures{0};
  struct Shared {
    storage::Wakeup wakeup;
    std::atomic<int> notified{0};  // rounds the notifier has notified
    std::atomic<int> seen{0};      // rounds the waiter has seen
  };
  std::vector<std::shared_ptr<Shared>> shared;
  for (int i = 0; i < kWaiters; ++i) {
    shared.push_back(std::make_shared<Shared>());
    auto s = shared.back();
    Spawn(io, i, [s, &failures]() -> Awaitable<void> {
      while (s->seen < kRounds) {
        // Each notified round is seen: the waiter waits only while nothing is pending.
        if (s->notified > s->seen) {
          ++s->seen;
          continue;
        }
        co_await s->wakeup.Wait();
      }
      // With nothing pending, a deadline ends the wait.
      if (co_await s->wakeup.Wait(std::chrono::steady_clock::now() +
                                  std::chrono::milliseconds(5))) {
        // A last notification may still be pending once; after it, none.
        if (co_await s->wakeup.Wait(std::chrono::steady_clock::now() +
                                    std::chrono::milliseconds(5))) {
          ++failures;
        }
      }
    });
  }
  std::thread notifier([&] {
    for (int round = 0; round < kRounds; ++round) {
      for (auto& s : shared) {
        ++s->notified;
        s->wakeup.Notify();
      }
      if (round % 8 == 0) std::this_thread::yield();
    }
  });
  const bool finished = storagetest::RunThreads(io, kIoThreads, kLimit);
  notifier.join();
  REQUIRE(finished);
  CHECK(failures == 0);
  for (auto& s : shared) CHECK(s->seen == kRounds);
}
