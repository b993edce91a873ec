#pragma once
// The watch cache: one per resource prefix, in front of the storage, implementing the
// same Interface. A reflector lists the prefix and then follows the storage's watch,
// keeping the current objects and a window of recent events (kept once, shared by
// every watcher, their JSON encoded once).
//
//  - Watches are served from the cache: from any resourceVersion still in the window
//    (older: kTooOldResourceVersion, 410 "too old resource version"), or "0"/"" with
//    the current objects first. A watcher that falls too far behind is cut off.
//  - Gets and lists at "0" (any) and "N" (not older than N, waiting briefly for the cache
//    to get there) are served from memory; consistent ones ("") too once the cache has
//    caught up with the storage's current revision, else from the storage.
//  - Paginated, continued and exact reads, and every write, go to the storage.

#include <memory>
#include <string>

#include "pkg/genericserver/storage/interface.h"
#include "pkg/util/duration.h"

namespace boost::asio {
class io_context;
}

namespace storage {

struct CacherOptions {
  std::string resource_prefix;  // relative, ending with '/': "/configmaps/"
  // Recent events kept for watches that start in the past: at least this long...
  util::Duration history_window = std::chrono::seconds(75);
  // ...and at most this many.
  size_t history_capacity = 10000;
  // Events queued for one watcher beyond its initial events before it is cut off.
  size_t watcher_buffer = 10000;
  // How often watchers that allow bookmarks get one.
  util::Duration bookmark_interval = std::chrono::seconds(60);
  // How long a read may wait for the cache to reach the revision it needs.
  util::Duration freshness_timeout = std::chrono::seconds(3);
};

class Cacher final : public Interface {
 public:
  // The reflector runs on io (which must keep running while the cacher lives). Call
  // Stop() before io stops.
  Cacher(std::shared_ptr<Interface> storage, CacherOptions options, boost::asio::io_context& io);
  ~Cacher() override;

  void Start();
  void Stop();
  // The cache has its initial list.
  bool Ready() const;

  Awaitable<Result<ObjectPtr>> Create(std::string key, std::string json) override;
  Awaitable<Result<ObjectPtr>> Delete(std::string key, Preconditions preconditions,
                                      ValidateDeletion validate,
                                      ObjectPtr cached_existing) override;
  Awaitable<Result<ObjectPtr>> Get(std::string key, GetOptions options) override;
  Awaitable<Result<ListResult>> GetList(std::string key_prefix, ListOptions options) override;
  std::optional<ListResult> CachedList(const std::string& key_prefix) const override;
  std::optional<ObjectPtr> CachedGet(const std::string& key) const override;
  Awaitable<Result<ObjectPtr>> GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                bool ignore_not_found, UpdateFunc try_update,
                                                ObjectPtr cached_existing) override;
  Awaitable<Result<WatcherPtr>> Watch(std::string key, WatchOptions options) override;
  Awaitable<Result<int64_t>> CurrentRevision() override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  Awaitable<Result<Stats>> GetStats(std::string key_prefix) override;

  struct State;

 private:
  std::shared_ptr<Interface> storage_;
  std::shared_ptr<State> state_;
};

}  // namespace storage
