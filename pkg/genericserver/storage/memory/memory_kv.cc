#include "pkg/genericserver/storage/memory/memory_kv.h"

#include <algorithm>

#include "pkg/genericserver/storage/async_queue.h"
#include "pkg/genericserver/storage/watch_queue.h"

namespace storage {

std::shared_ptr<MemoryKV> MemoryKV::New() { return std::shared_ptr<MemoryKV>(new MemoryKV()); }

struct MemoryKV::Watcher final : WatchQueue {
  using WatchQueue::WatchQueue;
};

std::optional<KeyValue> MemoryKV::At(const std::string& key, const std::vector<Version>& versions,
                                     int64_t revision) const {
  auto it = std::upper_bound(versions.begin(), versions.end(), revision,
                             [](int64_t r, const Version& v) { return r < v.mod_revision; });
  if (it == versions.begin()) return std::nullopt;
  const Version& v = *std::prev(it);
  if (!v.value) return std::nullopt;
  return KeyValue{key, v.value, v.create_revision, v.mod_revision};
}

Awaitable<Result<RangeResult>> MemoryKV::Range(std::string key, RangeOptions options) {
  std::lock_guard lock(mu_);
  const int64_t at = options.revision ? options.revision : revision_;
  if (options.revision && options.revision < compact_revision_) {
    co_return std::unexpected(TooOldError(options.revision, compact_revision_));
  }
  if (at > revision_) {
    co_return std::unexpected(StorageError{
        ErrorCode::kTooLargeResourceVersion, key,
        "required revision " + std::to_string(at) + " is a future revision", revision_, nullptr});
  }
  RangeResult out;
  out.revision = revision_;
  auto visit = [&](const std::string& k, const std::vector<Version>& versions) {
    auto kv = At(k, versions, at);
    if (!kv) return;
    ++out.count;
    if (options.count_only) return;
    if (options.limit > 0 && static_cast<int64_t>(out.kvs.size()) >= options.limit) {
      out.more = true;
      return;
    }
    out.kvs.push_back(std::move(*kv));
  };
  if (options.end.empty()) {
    if (auto it = keys_.find(key); it != keys_.end()) visit(it->first, it->second);
  } else {
    const bool unbounded = options.end == std::string(1, '\0');
    for (auto it = keys_.lower_bound(key);
         it != keys_.end() && (unbounded || it->first < options.end); ++it) {
      visit(it->first, it->second);
    }
  }
  co_return out;
}

TxnResult MemoryKV::Write(const std::string& key, std::shared_ptr<const std::string> value,
                          std::optional<int64_t> expected_revision, bool create) {
  auto& versions = keys_[key];
  auto current = At(key, versions, revision_);
  TxnResult result;
  const bool ok = create ? !current.has_value()
                         : current.has_value() && current->mod_revision == *expected_revision;
  if (!ok) {
    result.revision = revision_;
    result.current = current;
    if (versions.empty()) keys_.erase(key);
    return result;
  }
  const int64_t rev = ++revision_;
  KVEvent event;
  event.revision = rev;
  if (value) {
    const int64_t created = current ? current->create_revision : rev;
    versions.push_back({rev, created, value});
    event.type = KVEvent::Type::kPut;
    event.kv = KeyValue{key, value, created, rev};
  } else {
    versions.push_back({rev, 0, nullptr});
    event.type = KVEvent::Type::kDelete;
    event.kv = KeyValue{key, nullptr, 0, rev};
  }
  event.prev = current;
  result.succeeded = true;
  result.revision = rev;
  result.prev = current;
  history_.push_back(event);
  Publish(event);
  return result;
}

void MemoryKV::Publish(const KVEvent& event) {
  std::erase_if(watchers_, [&](const std::weak_ptr<Watcher>& weak) {
    auto w = weak.lock();
    return !w || !w->Offer(event);
  });
}

Awaitable<Result<TxnResult>> MemoryKV::Create(std::string key, std::string value) {
  if (value.size() > kMaxValueBytes) {
    co_return std::unexpected(
        StorageError{ErrorCode::kTooLarge, key, "request is too large", 0, nullptr});
  }
  std::lock_guard lock(mu_);
  co_return Write(key, std::make_shared<const std::string>(std::move(value)), std::nullopt, true);
}

Awaitable<Result<TxnResult>> MemoryKV::Update(std::string key, std::string value,
                                              int64_t expected_revision) {
  if (value.size() > kMaxValueBytes) {
    co_return std::unexpected(
        StorageError{ErrorCode::kTooLarge, key, "request is too large", 0, nullptr});
  }
  std::lock_guard lock(mu_);
  co_return Write(key, std::make_shared<const std::string>(std::move(value)), expected_revision,
                  false);
}

Awaitable<Result<TxnResult>> MemoryKV::Delete(std::string key, int64_t expected_revision) {
  std::lock_guard lock(mu_);
  co_return Write(key, nullptr, expected_revision, false);
}

Awaitable<Result<std::unique_ptr<KVWatch>>> MemoryKV::Watch(std::string key,
                                                            KVWatchOptions options) {
  std::lock_guard lock(mu_);
  const int64_t start = options.start_revision ? options.start_revision : revision_ + 1;
  if (start <= compact_revision_) {
    co_return std::unexpected(TooOldError(start, compact_revision_ + 1));
  }
  auto watcher = std::make_shared<Watcher>(std::move(key), std::move(options.end), start);
  // History and registration under one lock: no event is missed or sent twice.
  for (const KVEvent& e : history_) {
    if (e.revision >= start && !watcher->Offer(e)) break;
  }
  watcher->SetProgressSource([self = weak_from_this()]() -> int64_t {
    auto kv = self.lock();
    if (!kv) return 0;
    std::lock_guard lock(kv->mu_);
    return kv->revision_;
  });
  watchers_.push_back(watcher);
  co_return std::unique_ptr<KVWatch>(new WatchHandle(watcher));
}

Awaitable<Result<void>> MemoryKV::Compact(int64_t revision) {
  std::lock_guard lock(mu_);
  if (revision > revision_) {
    co_return std::unexpected(StorageError{ErrorCode::kTooLargeResourceVersion, "",
                                           "mvcc: required revision is a future revision",
                                           revision_, nullptr});
  }
  if (revision <= compact_revision_) co_return Result<void>();
  compact_revision_ = revision;
  std::erase_if(history_, [&](const KVEvent& e) { return e.revision <= revision; });
  for (auto it = keys_.begin(); it != keys_.end();) {
    auto& versions = it->second;
    // Keep the newest version at or below the compaction revision, unless it is a
    // deletion, and everything after it.
    auto keep = std::upper_bound(versions.begin(), versions.end(), revision,
                                 [](int64_t r, const Version& v) { return r < v.mod_revision; });
    if (keep != versions.begin()) {
      auto newest_old = std::prev(keep);
      versions.erase(versions.begin(), newest_old->value ? newest_old : keep);
    }
    it = versions.empty() ? keys_.erase(it) : std::next(it);
  }
  co_return Result<void>();
}

Awaitable<Result<KVStats>> MemoryKV::Stats() {
  std::lock_guard lock(mu_);
  KVStats s;
  s.revision = revision_;
  s.compact_revision = compact_revision_;
  for (const auto& [key, versions] : keys_) {
    if (versions.back().value) {
      ++s.keys;
      s.value_bytes += static_cast<int64_t>(versions.back().value->size());
    }
  }
  co_return s;
}

}  // namespace storage
