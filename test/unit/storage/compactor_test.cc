#include <catch2/catch.hpp>

#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "pkg/genericserver/storage/compactor.h"
#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "test/unit/storage/harness.h"

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST_CASE("compaction target keeps the window and the minimum of revisions") {
  storage::CompactorOptions o;
  o.window = 5min;
  o.min_revisions = 1000;
  const auto now = Clock::now();
  std::deque<std::pair<Clock::time_point, int64_t>> samples = {
      {now - 10min, 100}, {now - 6min, 5000}, {now - 4min, 9000}, {now, 12000}};
  CHECK(storage::CompactionTarget(samples, now, 12000, o) == 5000);          // the window decides
  CHECK(storage::CompactionTarget(samples, now, 5500, o) == 4500);           // the minimum decides
  CHECK(storage::CompactionTarget({{now - 1min, 10}}, now, 20000, o) == 0);  // nothing old yet
}

TEST_CASE("the compactor compacts old history on its schedule") {
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });
  auto store = std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry");
  auto first = storagetest::Run(store->Create("/c/ns/a", storagetest::ConfigMap("a", "0")));
  REQUIRE(first);
  storage::CompactorOptions o;
  o.interval = 10ms;
  o.window = 30ms;
  o.min_revisions = 5;
  storage::Compactor compactor(store, o, io);
  compactor.Start();
  for (int i = 0; i < 20; ++i) {
    REQUIRE(storagetest::Run(store->Create("/c/ns/x" + std::to_string(i), "{}")));
  }
  for (int i = 0; i < 300 && compactor.Compacted() == 0; ++i) std::this_thread::sleep_for(5ms);
  const int64_t compacted = compactor.Compacted();
  CHECK(compacted > 0);
  CHECK(compacted <= *storagetest::Run(store->CurrentRevision()) - 5);
  storage::WatchOptions old;
  old.resource_version = std::to_string((*first)->revision);
  auto w = storagetest::Run(store->Watch("/c/", old));
  REQUIRE_FALSE(w);
  CHECK(w.error().code == storage::ErrorCode::kTooOldResourceVersion);
  compactor.Stop();
  work.reset();
  io.stop();
  runner.join();
}
