// The cacher's Interface: reads and watches from the cache, writes to the storage.
#include "pkg/genericserver/storage/cacher/cacher.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "pkg/genericserver/storage/cacher/cacher_state.h"
#include "pkg/genericserver/storage/store.h"

namespace storage {
namespace {

class CacherWatch final : public Watcher {
 public:
  explicit CacherWatch(std::shared_ptr<CacheWatcher> w) : w_(std::move(w)) {}
  ~CacherWatch() override { w_->queue->CloseNow(); }
  Awaitable<std::optional<WatchEvent>> Next() override {
    auto queue = w_->queue;
    co_return co_await queue->Pop();
  }
  void Stop() override { w_->queue->CloseNow(); }

 private:
  std::shared_ptr<CacheWatcher> w_;
};

StorageError TooLargeRV(int64_t requested, int64_t current) {
  return {ErrorCode::kTooLargeResourceVersion, "",
          "Too large resource version: " + std::to_string(requested) +
              ", current: " + std::to_string(current),
          current, nullptr};
}

}  // namespace

Cacher::Cacher(std::shared_ptr<Interface> storage, CacherOptions options,
               boost::asio::io_context& io)
    : storage_(storage), state_(std::make_shared<State>(storage, std::move(options), io)) {}

Cacher::~Cacher() { Stop(); }

void Cacher::Start() {
  boost::asio::co_spawn(state_->strand, state_->Reflect(), boost::asio::detached);
  boost::asio::co_spawn(state_->strand, state_->BookmarkLoop(), boost::asio::detached);
}

void Cacher::Stop() {
  std::lock_guard lock(state_->mu);
  if (state_->stopped) return;
  state_->stopped = true;
  if (state_->upstream) state_->upstream->Stop();
  for (auto& sleeper : state_->sleepers) sleeper->Notify();
  for (auto& w : state_->watchers) w->queue->Close();
  state_->watchers.clear();
  state_->WakeWaiters();
}

bool Cacher::Ready() const {
  std::lock_guard lock(state_->mu);
  return state_->ready;
}

Awaitable<Result<ObjectPtr>> Cacher::Create(std::string key, std::string json) {
  co_return co_await storage_->Create(std::move(key), std::move(json));
}

Awaitable<Result<ObjectPtr>> Cacher::Delete(std::string key, Preconditions preconditions,
                                            ValidateDeletion validate, ObjectPtr cached_existing) {
  if (!cached_existing) {
    std::lock_guard lock(state_->mu);
    if (auto it = state_->objects.find(key); state_->ready && it != state_->objects.end()) {
      cached_existing = it->second;  // a hint: the storage re-reads if it is stale
    }
  }
  co_return co_await storage_->Delete(std::move(key), std::move(preconditions), std::move(validate),
                                      std::move(cached_existing));
}

Awaitable<Result<ObjectPtr>> Cacher::GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                      bool ignore_not_found, UpdateFunc try_update,
                                                      ObjectPtr cached_existing) {
  if (!cached_existing) {
    std::lock_guard lock(state_->mu);
    if (auto it = state_->objects.find(key); state_->ready && it != state_->objects.end()) {
      cached_existing = it->second;
    }
  }
  co_return co_await storage_->GuaranteedUpdate(std::move(key), std::move(preconditions),
                                                ignore_not_found, std::move(try_update),
                                                std::move(cached_existing));
}

Awaitable<Result<ObjectPtr>> Cacher::Get(std::string key, GetOptions options) {
  auto requested = ParseResourceVersion(options.resource_version);
  if (!requested) co_return std::unexpected(requested.error());
  if (!Ready()) co_return co_await storage_->Get(std::move(key), std::move(options));
  if (options.resource_version.empty()) {
    if (!co_await state_->MakeConsistent()) {
      co_return co_await storage_->Get(std::move(key), std::move(options));
    }
  } else if (*requested > 0) {
    auto deadline = std::chrono::steady_clock::now() + state_->options.freshness_timeout;
    if (!co_await state_->WaitFresh(*requested, deadline)) {
      std::lock_guard lock(state_->mu);
      co_return std::unexpected(TooLargeRV(*requested, state_->revision));
    }
  }
  std::lock_guard lock(state_->mu);
  auto it = state_->objects.find(key);
  if (it == state_->objects.end()) co_return std::unexpected(NotFoundError(key));
  co_return it->second;
}

Awaitable<Result<ListResult>> Cacher::GetList(std::string key_prefix, ListOptions options) {
  auto requested = ParseResourceVersion(options.resource_version);
  if (!requested) co_return std::unexpected(requested.error());
  const bool consistent = options.resource_version.empty();
  // What only the storage can answer: continuations, exact past states, and pages of a
  // consistent or exact list.
  const bool to_storage =
      !options.continue_token.empty() || options.match == ResourceVersionMatch::kExact ||
      (options.limit > 0 &&
       (consistent || (*requested > 0 && options.match == ResourceVersionMatch::kUnset)));
  if (to_storage || !Ready()) {
    co_return co_await storage_->GetList(std::move(key_prefix), std::move(options));
  }
  if (consistent) {
    if (!co_await state_->MakeConsistent()) {
      co_return co_await storage_->GetList(std::move(key_prefix), std::move(options));
    }
  } else if (*requested > 0) {
    auto deadline = std::chrono::steady_clock::now() + state_->options.freshness_timeout;
    if (!co_await state_->WaitFresh(*requested, deadline)) {
      std::lock_guard lock(state_->mu);
      co_return std::unexpected(TooLargeRV(*requested, state_->revision));
    }
  }
  if (key_prefix.empty() || key_prefix.back() != '/') key_prefix += '/';
  ListResult out;
  std::lock_guard lock(state_->mu);
  out.revision = state_->revision;
  // From the cache the whole list comes at once: a limit with "0" is ignored, as upstream.
  for (auto it = state_->objects.lower_bound(key_prefix);
       it != state_->objects.end() && it->first.starts_with(key_prefix); ++it) {
    if (options.predicate.Matches(*it->second)) out.items.push_back(it->second);
  }
  co_return out;
}

std::optional<ListResult> Cacher::CachedList(const std::string& key_prefix) const {
  if (!Ready()) return std::nullopt;
  std::string prefix = key_prefix;
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  ListResult out;
  std::lock_guard lock(state_->mu);
  out.revision = state_->revision;
  for (auto it = state_->objects.lower_bound(prefix);
       it != state_->objects.end() && it->first.starts_with(prefix); ++it) {
    out.items.push_back(it->second);
  }
  return out;
}

std::optional<ObjectPtr> Cacher::CachedGet(const std::string& key) const {
  if (!Ready()) return std::nullopt;
  std::lock_guard lock(state_->mu);
  auto it = state_->objects.find(key);
  return it == state_->objects.end() ? ObjectPtr() : it->second;
}

Awaitable<Result<WatcherPtr>> Cacher::Watch(std::string key, WatchOptions options) {
  auto requested = ParseResourceVersion(options.resource_version);
  if (!requested) co_return std::unexpected(requested.error());
  State& s = *state_;
  auto deadline = std::chrono::steady_clock::now() + s.options.freshness_timeout;
  if (!co_await s.WaitFresh(0, deadline)) {
    co_return co_await storage_->Watch(std::move(key), std::move(options));  // not ready
  }
  if (options.resource_version.empty() && !co_await s.MakeConsistent()) {
    co_return co_await storage_->Watch(std::move(key), std::move(options));
  }
  auto w = std::make_shared<CacheWatcher>();
  w->key = key;
  w->recursive = options.recursive;
  if (w->recursive && (w->key.empty() || w->key.back() != '/')) w->key += '/';
  w->predicate = options.predicate;
  w->allow_bookmarks = options.allow_bookmarks;

  std::lock_guard lock(s.mu);
  std::vector<WatchEvent> initial;
  std::vector<const CachedEvent*> replay;
  if (*requested == 0) {
    // The current objects as ADDED events, then changes after the cache's revision.
    for (auto it = s.objects.lower_bound(w->key); it != s.objects.end() && w->Covers(it->first);
         ++it) {
      if (w->predicate.Matches(*it->second)) {
        initial.push_back({WatchEvent::Type::kAdded, it->second, std::nullopt});
      }
    }
    if (options.send_initial_events && options.allow_bookmarks) {
      initial.push_back(
          {WatchEvent::Type::kBookmark, BookmarkObject(s.revision, true), std::nullopt});
    }
    w->start = s.revision;
    w->last_bookmark = s.revision;
  } else if (*requested >= s.oldest) {
    w->start = *requested;
    for (const CachedEvent& e : s.history) {
      if (e.revision > *requested) replay.push_back(&e);
    }
  } else {
    co_return std::unexpected(TooOldError(*requested, s.oldest + 1));
  }
  w->queue = std::make_shared<AsyncQueue<WatchEvent>>(initial.size() + replay.size() +
                                                      s.options.watcher_buffer);
  for (WatchEvent& e : initial) w->queue->Push(std::move(e));
  // Replay with the events' own revisions; Deliver skips those at or below start.
  const int64_t start = w->start;
  w->start = 0;
  for (const CachedEvent* e : replay) w->Deliver(*e);
  w->start = std::max(start, s.revision);
  s.watchers.push_back(w);
  co_return std::make_unique<CacherWatch>(w);
}

Awaitable<Result<int64_t>> Cacher::CurrentRevision() {
  co_return co_await storage_->CurrentRevision();
}

Awaitable<Result<void>> Cacher::Compact(int64_t revision) {
  co_return co_await storage_->Compact(revision);
}

Awaitable<Result<Stats>> Cacher::GetStats(std::string key_prefix) {
  co_return co_await storage_->GetStats(std::move(key_prefix));
}

}  // namespace storage
