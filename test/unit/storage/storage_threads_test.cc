// The in-process backends and the watch cache driven from an io_context run by four
// threads: writers and watchers on the bare io_context and on strands, reads at the
// revisions just written, watchers stopped from another thread. Every write must be
// acknowledged and every watcher must see every event once, in order. Tagged [threads]:
// run them under ThreadSanitizer too (docs/architecture.md).
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <boost/asio/detached.hpp>

#include "pkg/genericserver/storage/interface.h"
#include "test/unit/storage/harness.h"

using namespace storagetest;
using storage::ObjectPtr;
using storage::WatchEvent;

namespace {

constexpr int kIoThreads = 4;
constexpr int kWriters = 8, kUpdates = 10, kWatchers = 6, kStoppedWatchers = 2;
constexpr int kEventsPerWriter = kUpdates + 2;  // create, updates, delete

storage::UpdateFunc SetValue(std::string value) {
  return [value](const ObjectPtr& current)
             -> Awaitable<std::expected<std::string, storage::StorageError>> {
    auto j = Parse(current);
    j["data"]["value"] = value;
    co_return j.dump();
  };
}

std::string ValueOf(const ObjectPtr& o) { return Parse(o)["data"]["value"]; }
std::string NameOf(const ObjectPtr& o) { return Parse(o)["metadata"]["name"]; }

template <class F>
void Spawn(boost::asio::io_context& io, int i, F fn) {
  if (i % 2) {
    boost::asio::co_spawn(boost::asio::make_strand(io), std::move(fn), boost::asio::detached);
  } else {
    boost::asio::co_spawn(io.get_executor(), std::move(fn), boost::asio::detached);
  }
}

// What the writers had acknowledged, and what went wrong.
struct Ledger {
  std::mutex mu;
  std::set<int64_t> revisions;  // of creates and updates
  std::vector<std::string> failures;
  std::atomic<int> acknowledged{0};
  std::atomic<bool> failed{false};

  void Fail(std::string what) {
    failed = true;
    std::lock_guard lock(mu);
    failures.push_back(std::move(what));
  }
  void Ack(int64_t revision) {
    ++acknowledged;
    std::lock_guard lock(mu);
    revisions.insert(revision);
  }
};

// One writer: creates its key, updates it kUpdates times (reading each update back at the
// revision it got, and listing once), then deletes it.
Awaitable<void> Write(std::shared_ptr<storage::Interface> s, int writer, Ledger* ledger) {
  const std::string name = "w" + std::to_string(writer);
  const std::string key = "/configmaps/ns/" + name;
  auto created = co_await s->Create(key, ConfigMap(name, "0"));
  if (!created) {
    ledger->Fail("create " + name + ": " + created.error().message);
    co_return;
  }
  ledger->Ack((*created)->revision);
  storage::Preconditions none;
  for (int j = 1; j <= kUpdates; ++j) {
    auto updated =
        co_await s->GuaranteedUpdate(key, none, false, SetValue(std::to_string(j)), nullptr);
    if (!updated) {
      ledger->Fail("update " + name + ": " + updated.error().message);
      co_return;
    }
    ledger->Ack((*updated)->revision);
    // Not older than the update: only this writer writes the key, so it is the update.
    storage::GetOptions at;
    at.resource_version = std::to_string((*updated)->revision);
    auto got = co_await s->Get(key, at);
    if (!got || ValueOf(*got) != std::to_string(j)) {
      ledger->Fail("get " + name + " at " + at.resource_version + ": " +
                   (got ? ValueOf(*got) : got.error().message));
    }
    if (j == kUpdates / 2) {
      storage::ListOptions list_at;
      list_at.resource_version = at.resource_version;
      auto list = co_await s->GetList("/configmaps/ns/", list_at);
      bool found = false;
      for (const ObjectPtr& o : list ? list->items : std::vector<ObjectPtr>{}) {
        found = found || (NameOf(o) == name && ValueOf(o) == std::to_string(j));
      }
      if (!found) ledger->Fail("list at " + at.resource_version + " misses " + name);
    }
  }
  auto deleted = co_await s->Delete(key, none, nullptr, nullptr);
  if (!deleted) {
    ledger->Fail("delete " + name + ": " + deleted.error().message);
    co_return;
  }
  ++ledger->acknowledged;
}

// Collects events until `want` arrived or the watch ended.
Awaitable<void> Watch(storage::Watcher* w, size_t want, std::vector<WatchEvent>* out) {
  while (out->size() < want) {
    auto e = co_await w->Next();
    if (!e) break;
    out->push_back(std::move(*e));
  }
}

// Each key's events in order: ADDED "0", MODIFIED "1".."kUpdates", DELETED; revisions
// strictly increasing. With `complete`, every writer's events, and the revisions of the
// puts are exactly the acknowledged ones.
void CheckEvents(const std::vector<WatchEvent>& events, bool complete,
                 const std::set<int64_t>& acknowledged) {
  std::map<std::string, int> next;  // key -> events seen
  std::set<int64_t> puts;
  int64_t last = 0;
  for (const WatchEvent& e : events) {
    REQUIRE(e.type != WatchEvent::Type::kError);
    CHECK(e.object->revision > last);
    last = e.object->revision;
    const std::string name = NameOf(e.object);
    const int n = next[name]++;
    if (n == 0) {
      CHECK(e.type == WatchEvent::Type::kAdded);
    } else if (n <= kUpdates) {
      CHECK(e.type == WatchEvent::Type::kModified);
    } else {
      CHECK(e.type == WatchEvent::Type::kDeleted);
    }
    if (e.type != WatchEvent::Type::kDeleted) {
      CHECK(ValueOf(e.object) == std::to_string(n));
      puts.insert(e.object->revision);
    }
  }
  if (!complete) return;
  CHECK(next.size() == kWriters);
  for (const auto& [name, n] : next) CHECK(n == kEventsPerWriter);
  CHECK(puts == acknowledged);
}

}  // namespace

TEST_CASE("storage under threads: every write acknowledged, every event seen once and in order",
          "[threads]") {
  const std::string backend =
      GENERATE(as<std::string>{}, "memory", "sqlite", "cacher-memory", "cacher-sqlite");
  INFO("backend: " << backend);
  auto s = FindBackend(backend).make();
  auto seed = Run(s->Create("/configmaps/seed/x", ConfigMap("x", "seed")));
  REQUIRE(seed);

  std::vector<storage::WatcherPtr> watchers;
  for (int i = 0; i < kWatchers + kStoppedWatchers; ++i) {
    storage::WatchOptions from_seed;
    from_seed.resource_version = std::to_string((*seed)->revision);
    auto w = Run(s->Watch("/configmaps/ns/", from_seed));
    REQUIRE(w);
    watchers.push_back(std::move(*w));
  }

  boost::asio::io_context io;
  Ledger ledger;
  const size_t all = kWriters * kEventsPerWriter;
  std::vector<std::vector<WatchEvent>> seen(watchers.size());
  for (size_t i = 0; i < watchers.size(); ++i) {
    Spawn(io, static_cast<int>(i),
          [w = watchers[i].get(), out = &seen[i], all] { return Watch(w, all, out); });
  }
  for (int i = 0; i < kWriters; ++i) {
    Spawn(io, i + 1, [s, i, &ledger] { return Write(s, i, &ledger); });
  }
  // Some watchers are stopped from a plain thread while the writes go on.
  std::thread stopper([&] {
    while (ledger.acknowledged < kWriters * 2 && !ledger.failed) {
      std::this_thread::yield();
    }
    for (int i = kWatchers; i < kWatchers + kStoppedWatchers; ++i) watchers[i]->Stop();
  });
  const bool finished = RunThreads(io, kIoThreads, std::chrono::seconds(60));
  stopper.join();
  REQUIRE(finished);
  INFO("failures: " << (ledger.failures.empty() ? "" : ledger.failures.front()));
  CHECK(ledger.failures.empty());
  CHECK(ledger.acknowledged == kWriters * (kUpdates + 2));
  CHECK(ledger.revisions.size() == kWriters * (kUpdates + 1));
  for (int i = 0; i < kWatchers + kStoppedWatchers; ++i) {
    INFO("watcher " << i);
    const bool complete = i < kWatchers;
    if (complete) CHECK(seen[i].size() == all);
    CheckEvents(seen[i], complete, ledger.revisions);
  }
}
