#pragma once
// The cacher's shared state: what the reflector (cacher_reflector.cc) fills and the
// readers and watchers (cacher.cc) use. Internal to the cacher. Everything below `mu`
// is guarded by it; the reflector and bookmark loops run on `strand`. Readers that wait
// for the cache (WaitFresh) run on their callers' executors, whatever those are: they
// wait on a Wakeup of their own, which the reflector notifies under `mu`.

#include <utility>  // before Asio

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "pkg/genericserver/storage/async_queue.h"
#include "pkg/genericserver/storage/cacher/cacher.h"
#include "pkg/genericserver/storage/wakeup.h"

namespace storage {

struct CachedEvent {
  WatchEvent::Type type;
  ObjectPtr object;    // the new state; for a deletion, the last state at the deletion's rv
  ObjectPtr previous;  // the state before a put (null for a creation or a deletion)
  int64_t revision = 0;
  std::chrono::steady_clock::time_point at;
};

struct CacheWatcher {
  std::string key;  // a prefix when recursive
  bool recursive = true;
  SelectionPredicate predicate;
  bool allow_bookmarks = false;
  int64_t start = 0;  // events at or below it were already covered
  int64_t last_bookmark = 0;
  std::shared_ptr<AsyncQueue<WatchEvent>> queue;

  bool Covers(const std::string& k) const { return recursive ? k.starts_with(key) : k == key; }
  // False when the watcher is gone (stopped, or cut off for falling behind).
  bool Deliver(const CachedEvent& e);
};

struct Cacher::State : std::enable_shared_from_this<Cacher::State> {
  State(std::shared_ptr<Interface> s, CacherOptions o, boost::asio::io_context& io)
      : storage(std::move(s)), options(std::move(o)), strand(boost::asio::make_strand(io)) {}

  // Reflector (cacher_reflector.cc).
  Awaitable<void> Reflect();
  Awaitable<void> BookmarkLoop();
  // Returns after d, or at once when the cacher stops.
  Awaitable<void> Sleep(util::Duration d);
  void Reset(const ListResult& list);  // under mu
  void Apply(const WatchEvent& e);     // under mu
  void Advance(int64_t revision);      // under mu
  void WakeWaiters();                  // under mu: the waiters the state satisfies now

  // Waits until the cache is ready and at revision or later, or until deadline.
  Awaitable<bool> WaitFresh(int64_t revision, std::chrono::steady_clock::time_point deadline);
  // Brings the cache to the storage's current revision if it can (asking for progress);
  // false when it cannot in time and the caller should read the storage instead.
  Awaitable<bool> MakeConsistent();

  const std::shared_ptr<Interface> storage;
  const CacherOptions options;
  boost::asio::strand<boost::asio::io_context::executor_type> strand;

  mutable std::mutex mu;
  bool ready = false;
  bool stopped = false;
  int64_t revision = 0;  // the cache holds every change up to here
  int64_t oldest = 0;    // a watch from N >= oldest can be served from the history
  std::map<std::string, ObjectPtr, std::less<>> objects;  // relative key -> newest
  std::deque<CachedEvent> history;
  std::vector<std::shared_ptr<CacheWatcher>> watchers;
  // Each WaitFresh in progress, registered for as long as it waits.
  struct Waiter {
    int64_t revision;
    std::shared_ptr<Wakeup> wakeup;
  };
  std::vector<Waiter> waiters;
  Watcher* upstream = nullptr;  // the reflector's storage watch, while it runs
  // The Sleep()s in progress (the reflector's backoff, the bookmark interval): Stop()
  // ends them.
  std::vector<std::shared_ptr<Wakeup>> sleepers;
};

}  // namespace storage
