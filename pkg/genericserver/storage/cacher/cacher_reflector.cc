// The cacher's reflector: list, then follow the storage's watch; relist after any gap.
#include "pkg/genericserver/storage/cacher/cacher_state.h"

#include "pkg/genericserver/storage/store.h"
#include "pkg/util/log.h"

namespace storage {

bool CacheWatcher::Deliver(const CachedEvent& e) {
  if (e.revision <= start || !Covers(e.object->key)) return true;
  std::optional<WatchEvent> out = e.type == WatchEvent::Type::kDeleted
                                      ? ApplyPredicate(predicate, e.object, nullptr)
                                      : ApplyPredicate(predicate, e.previous, e.object);
  if (!out) return true;
  return queue->Push(std::move(*out));
}

Awaitable<void> Cacher::State::Sleep(util::Duration d) {
  auto self = shared_from_this();
  auto wakeup = std::make_shared<Wakeup>();
  {
    std::lock_guard lock(mu);
    if (stopped) co_return;
    sleepers.push_back(wakeup);
  }
  co_await wakeup->Wait(std::chrono::steady_clock::now() + d);
  std::lock_guard lock(mu);
  std::erase(sleepers, wakeup);
}

void Cacher::State::WakeWaiters() {
  // A woken waiter stays registered until it returns; waking it again is harmless.
  for (const Waiter& w : waiters) {
    if (stopped || (ready && w.revision <= revision)) w.wakeup->Notify();
  }
}

void Cacher::State::Advance(int64_t rev) {
  if (rev <= revision) return;
  revision = rev;
  WakeWaiters();
}

void Cacher::State::Reset(const ListResult& list) {
  objects.clear();
  for (const ObjectPtr& o : list.items) objects[o->key] = o;
  history.clear();
  // Watchers of the previous generation may have missed events: they must start over.
  for (auto& w : watchers) w->queue->Close();
  watchers.clear();
  revision = list.revision;
  oldest = list.revision;
  // Not ready yet: that waits for the watch (Reflect).
}

void Cacher::State::Apply(const WatchEvent& e) {
  const ObjectPtr& object = e.object;
  CachedEvent cached{e.type, object, nullptr, object->revision, std::chrono::steady_clock::now()};
  auto it = objects.find(object->key);
  if (e.type == WatchEvent::Type::kDeleted) {
    if (it != objects.end()) objects.erase(it);
  } else {
    if (it != objects.end()) {
      cached.previous = it->second;
      it->second = object;
    } else {
      objects.emplace(object->key, object);
    }
  }
  history.push_back(cached);
  while (!history.empty() && (history.size() > options.history_capacity ||
                              history.front().at < cached.at - options.history_window)) {
    oldest = history.front().revision;
    history.pop_front();
  }
  std::erase_if(watchers,
                [&](const std::shared_ptr<CacheWatcher>& w) { return !w->Deliver(cached); });
  Advance(cached.revision);
}

Awaitable<void> Cacher::State::Reflect() {
  auto self = shared_from_this();
  const std::string& prefix = options.resource_prefix;
  util::Duration backoff = std::chrono::milliseconds(100);
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (stopped) co_return;
    }
    ListOptions consistent;
    auto list = co_await storage->GetList(prefix, consistent);
    if (!list) {
      KLOG_WARNING << "watch cache for " << prefix << ": list failed: " << list.error().message;
      co_await Sleep(backoff);
      backoff = std::min<util::Duration>(backoff * 2, std::chrono::seconds(5));
      continue;
    }
    {
      std::lock_guard lock(mu);
      if (stopped) co_return;
      Reset(*list);
    }
    WatchOptions from_list;
    from_list.resource_version = std::to_string(list->revision);
    from_list.allow_bookmarks = true;
    auto watch = co_await storage->Watch(prefix, from_list);
    if (!watch) {
      KLOG_WARNING << "watch cache for " << prefix << ": watch failed: " << watch.error().message;
      co_await Sleep(backoff);
      continue;
    }
    backoff = std::chrono::milliseconds(100);
    {
      std::lock_guard lock(mu);
      if (stopped) {
        (*watch)->Stop();
        co_return;
      }
      upstream = watch->get();
      // Ready only once the watch runs: before, the cache could not catch up, and a
      // consistent read could not ask it for progress (it went to the storage instead).
      ready = true;
      WakeWaiters();
    }
    for (;;) {
      auto event = co_await (*watch)->Next();
      if (!event || event->type == WatchEvent::Type::kError) {
        if (event) KLOG_V(2) << "watch cache for " << prefix << ": " << event->error->message;
        break;
      }
      std::lock_guard lock(mu);
      if (event->type == WatchEvent::Type::kBookmark) {
        Advance(event->object->revision);
      } else {
        Apply(*event);
      }
    }
    std::lock_guard lock(mu);
    upstream = nullptr;
    ready = false;  // stale until the next list
  }
}

Awaitable<void> Cacher::State::BookmarkLoop() {
  auto self = shared_from_this();
  for (;;) {
    co_await Sleep(options.bookmark_interval);
    std::lock_guard lock(mu);
    if (stopped) co_return;
    for (auto& w : watchers) {
      if (!w->allow_bookmarks || w->last_bookmark >= revision || revision <= w->start) continue;
      w->last_bookmark = revision;
      w->queue->Push({WatchEvent::Type::kBookmark, BookmarkObject(revision, false), std::nullopt});
    }
  }
}

Awaitable<bool> Cacher::State::WaitFresh(int64_t rev,
                                         std::chrono::steady_clock::time_point deadline) {
  auto self = shared_from_this();
  auto wakeup = std::make_shared<Wakeup>();
  {
    std::lock_guard lock(mu);
    if (ready && revision >= rev) co_return true;
    if (stopped || std::chrono::steady_clock::now() >= deadline) co_return false;
    waiters.push_back({rev, wakeup});
  }
  // Registered from the check above on, so no advance in between goes unnoticed.
  struct Unregister {
    State& state;
    const Wakeup* wakeup;
    ~Unregister() {
      std::lock_guard lock(state.mu);
      std::erase_if(state.waiters, [&](const Waiter& w) { return w.wakeup.get() == wakeup; });
    }
  } unregister{*this, wakeup.get()};
  for (;;) {
    co_await wakeup->Wait(deadline);
    std::lock_guard lock(mu);
    if (ready && revision >= rev) co_return true;
    if (stopped || std::chrono::steady_clock::now() >= deadline) co_return false;
  }
}

Awaitable<bool> Cacher::State::MakeConsistent() {
  auto current = co_await storage->CurrentRevision();
  if (!current) co_return false;
  {
    std::lock_guard lock(mu);
    if (!ready) co_return false;
    if (revision >= *current) co_return true;
    // Other prefixes may have moved the revision on: ask for progress up to it.
    if (!upstream || !upstream->RequestProgress()) co_return false;
  }
  co_return co_await WaitFresh(*current,
                               std::chrono::steady_clock::now() + options.freshness_timeout);
}

}  // namespace storage
