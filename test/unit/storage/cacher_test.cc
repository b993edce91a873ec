// What only the watch cache does: its window, cutting off slow watchers, serving reads
// from memory, bookmarks, and one shared copy of every event.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>

#include "pkg/genericserver/storage/cacher/cacher.h"
#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "test/unit/storage/harness.h"

using namespace storagetest;
using storage::ErrorCode;
using storage::WatchEvent;

namespace {

// Counts the reads that reach the storage behind the cache.
class Counting final : public storage::Interface {
 public:
  explicit Counting(std::shared_ptr<storage::Interface> s) : s_(std::move(s)) {}
  std::atomic<int> gets{0}, lists{0};
  Awaitable<storage::Result<storage::ObjectPtr>> Create(std::string k, std::string j) override {
    return s_->Create(std::move(k), std::move(j));
  }
  Awaitable<storage::Result<storage::ObjectPtr>> Delete(std::string k, storage::Preconditions p,
                                                        storage::ValidateDeletion v,
                                                        storage::ObjectPtr c) override {
    return s_->Delete(std::move(k), std::move(p), std::move(v), std::move(c));
  }
  Awaitable<storage::Result<storage::ObjectPtr>> Get(std::string k,
                                                     storage::GetOptions o) override {
    ++gets;
    return s_->Get(std::move(k), std::move(o));
  }
  Awaitable<storage::Result<storage::ListResult>> GetList(std::string k,
                                                          storage::ListOptions o) override {
    ++lists;
    return s_->GetList(std::move(k), std::move(o));
  }
  Awaitable<storage::Result<storage::ObjectPtr>> GuaranteedUpdate(std::string k,
                                                                  storage::Preconditions p, bool i,
                                                                  storage::UpdateFunc f,
                                                                  storage::ObjectPtr c) override {
    return s_->GuaranteedUpdate(std::move(k), std::move(p), i, std::move(f), std::move(c));
  }
  Awaitable<storage::Result<storage::WatcherPtr>> Watch(std::string k,
                                                        storage::WatchOptions o) override {
    return s_->Watch(std::move(k), std::move(o));
  }
  Awaitable<storage::Result<int64_t>> CurrentRevision() override { return s_->CurrentRevision(); }
  Awaitable<storage::Result<void>> Compact(int64_t r) override { return s_->Compact(r); }
  Awaitable<storage::Result<storage::Stats>> GetStats(std::string k) override {
    return s_->GetStats(std::move(k));
  }

 private:
  std::shared_ptr<storage::Interface> s_;
};

struct Fixture {
  explicit Fixture(storage::CacherOptions options) {
    counting = std::make_shared<Counting>(
        std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry"));
    options.resource_prefix = "/configmaps/";
    cacher = std::make_shared<storage::Cacher>(counting, options, io);
    thread = std::thread([this] { io.run(); });
    cacher->Start();
    for (int i = 0; i < 500 && !cacher->Ready(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    REQUIRE(cacher->Ready());
  }
  ~Fixture() {
    cacher->Stop();
    work.reset();
    io.stop();
    thread.join();
  }
  boost::asio::io_context io;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work{
      io.get_executor()};
  std::thread thread;
  std::shared_ptr<Counting> counting;
  std::shared_ptr<storage::Cacher> cacher;
};

storage::ObjectPtr Create(storage::Interface& s, const std::string& name) {
  auto r = Run(s.Create("/configmaps/ns/" + name, ConfigMap(name, "v")));
  REQUIRE(r);
  return *r;
}

std::vector<WatchEvent> Drain(storage::Watcher& w, size_t max) {
  return Run([&]() -> Awaitable<std::vector<WatchEvent>> {
    std::vector<WatchEvent> out;
    while (out.size() < max) {
      auto e = co_await w.Next();
      if (!e) break;
      out.push_back(std::move(*e));
    }
    co_return out;
  }());
}

}  // namespace

TEST_CASE("cacher: a watch is served from the window, older ones are too old") {
  storage::CacherOptions options;
  options.history_capacity = 5;
  Fixture f(options);
  auto first = Create(*f.cacher, "a0");
  std::vector<storage::ObjectPtr> made;
  for (int i = 1; i <= 9; ++i) made.push_back(Create(*f.cacher, "a" + std::to_string(i)));
  // Consistent read: the cache has caught up with all ten.
  REQUIRE(Run(f.cacher->GetList("/configmaps/", {}))->items.size() == 10);

  storage::WatchOptions old;
  old.resource_version = std::to_string(first->revision);
  auto too_old = Run(f.cacher->Watch("/configmaps/", old));
  REQUIRE_FALSE(too_old);
  CHECK(too_old.error().code == ErrorCode::kTooOldResourceVersion);

  storage::WatchOptions recent;
  recent.resource_version = std::to_string(made[5]->revision);  // a6: a7..a9 follow
  auto w = Run(f.cacher->Watch("/configmaps/", recent));
  REQUIRE(w);
  auto events = Drain(**w, 3);
  REQUIRE(events.size() == 3);
  CHECK(events[0].object->revision == made[6]->revision);
  CHECK(events[2].object->revision == made[8]->revision);
}

TEST_CASE("cacher: a watcher that does not keep up is cut off") {
  storage::CacherOptions options;
  options.watcher_buffer = 3;
  Fixture f(options);
  storage::WatchOptions now;
  now.resource_version = std::to_string(*Run(f.cacher->CurrentRevision()));
  auto slow = Run(f.cacher->Watch("/configmaps/", now));
  REQUIRE(slow);
  for (int i = 0; i < 10; ++i) Create(*f.cacher, "b" + std::to_string(i));
  REQUIRE(Run(f.cacher->GetList("/configmaps/", {}))->items.size() == 10);
  auto events = Drain(**slow, 100);  // ends by itself
  CHECK(events.size() == 3);
}

TEST_CASE("cacher: reads at 0, at N and consistent ones come from memory") {
  storage::CacherOptions options;
  options.freshness_timeout = std::chrono::milliseconds(200);
  Fixture f(options);
  auto a = Create(*f.cacher, "a");
  const int gets = f.counting->gets, lists = f.counting->lists;
  REQUIRE(Run(f.cacher->Get("/configmaps/ns/a", {})));
  storage::GetOptions at_a;
  at_a.resource_version = std::to_string(a->revision);
  REQUIRE(Run(f.cacher->Get("/configmaps/ns/a", at_a)));
  storage::GetOptions any;
  any.resource_version = "0";
  REQUIRE(Run(f.cacher->Get("/configmaps/ns/a", any)));
  REQUIRE(Run(f.cacher->GetList("/configmaps/ns/", {}))->items.size() == 1);
  CHECK(f.counting->gets == gets);
  CHECK(f.counting->lists == lists);

  // Pages and continuations are the storage's.
  storage::ListOptions page;
  page.limit = 1;
  REQUIRE(Run(f.cacher->GetList("/configmaps/ns/", page)));
  CHECK(f.counting->lists == lists + 1);

  storage::GetOptions future;
  future.resource_version = std::to_string(a->revision + 100);
  auto r = Run(f.cacher->Get("/configmaps/ns/a", future));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kTooLargeResourceVersion);
}

TEST_CASE("cacher: watchers get periodic bookmarks and share each event's bytes") {
  storage::CacherOptions options;
  options.bookmark_interval = std::chrono::milliseconds(50);
  Fixture f(options);
  storage::WatchOptions opts;
  opts.resource_version = std::to_string(*Run(f.cacher->CurrentRevision()));
  opts.allow_bookmarks = true;
  auto w1 = Run(f.cacher->Watch("/configmaps/", opts));
  auto w2 = Run(f.cacher->Watch("/configmaps/ns/", opts));
  REQUIRE(w1);
  REQUIRE(w2);
  auto c = Create(*f.cacher, "c");
  auto e1 = Drain(**w1, 2);
  auto e2 = Drain(**w2, 1);
  REQUIRE(e1.size() == 2);
  REQUIRE(e2.size() == 1);
  CHECK(e1[0].type == WatchEvent::Type::kAdded);
  CHECK(e1[0].object == e2[0].object);  // one object, one encoding, for every watcher
  CHECK(e1[1].type == WatchEvent::Type::kBookmark);
  CHECK(e1[1].object->revision == c->revision);
}
