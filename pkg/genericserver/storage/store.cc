#include "pkg/genericserver/storage/store.h"

#include <charconv>
#include <deque>

#include "pkg/genericserver/storage/continue_token.h"
#include "pkg/genericserver/storage/versioner.h"

namespace storage {
namespace {

// A hot key with many writers: every lost race is someone else's progress, but give
// up eventually rather than spin forever on a store that keeps changing.
constexpr int kMaxAttempts = 10000;

StorageError Invalid(std::string message) {
  return {ErrorCode::kInvalid, "", std::move(message), 0, nullptr};
}

StorageError TooLarge(const std::string& key, size_t size) {
  return {ErrorCode::kTooLarge, key,
          "object is too large: " + std::to_string(size) + " bytes, the limit is " +
              std::to_string(KV::kMaxValueBytes),
          0, nullptr};
}

// The stored form: no resourceVersion.
Result<std::string> Strip(const std::string& key, std::string_view json) {
  auto stripped = WithResourceVersion(json, 0);
  if (!stripped) return std::unexpected(InternalError("object for " + key + " is not JSON"));
  if (stripped->size() > KV::kMaxValueBytes) {
    return std::unexpected(TooLarge(key, stripped->size()));
  }
  return std::move(*stripped);
}

// Upstream's precondition check (storage.Preconditions.Check), messages included.
Result<void> CheckPreconditions(const std::string& key, const Preconditions& p,
                                const Object& current) {
  if (!p.uid && !p.resource_version) return {};
  auto meta = ReadMetaFields(*current.json);
  if (!meta) return std::unexpected(InternalError("object at " + key + " is not JSON"));
  if (p.uid && *p.uid != meta->uid) {
    return std::unexpected(StorageError{ErrorCode::kInvalidObj, key,
                                        "Precondition failed: UID in precondition: " + *p.uid +
                                            ", UID in object meta: " + meta->uid,
                                        0, nullptr});
  }
  if (p.resource_version && *p.resource_version != meta->resource_version) {
    return std::unexpected(StorageError{
        ErrorCode::kInvalidObj, key,
        "Precondition failed: ResourceVersion in precondition: " + *p.resource_version +
            ", ResourceVersion in object meta: " + meta->resource_version,
        0, nullptr});
  }
  return {};
}

// Reads the newest version of one key.
Awaitable<Result<std::optional<KeyValue>>> ReadKey(KV& kv, const std::string& full) {
  RangeOptions single_key;  // a named local: see docs/architecture.md on braced temporaries
  auto got = co_await kv.Range(full, single_key);
  if (!got) co_return std::unexpected(got.error());
  if (got->kvs.empty()) co_return std::optional<KeyValue>();
  co_return std::move(got->kvs.front());
}

}  // namespace

Result<int64_t> ParseResourceVersion(std::string_view rv) {
  if (rv.empty()) return 0;
  int64_t value = 0;
  auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
  if (ec != std::errc() || p != rv.data() + rv.size() || value < 0) {
    return std::unexpected(Invalid("invalid resource version: " + std::string(rv)));
  }
  return value;
}

ObjectPtr BookmarkObject(int64_t revision, bool initial_events_end) {
  auto o = std::make_shared<Object>();
  o->revision = revision;
  std::string json = R"({"metadata":{"resourceVersion":")" + std::to_string(revision) + "\"";
  if (initial_events_end) json += R"(,"annotations":{"k8s.io/initial-events-end":"true"})";
  json += "}}";
  o->json = std::make_shared<const std::string>(std::move(json));
  return o;
}

Store::Store(std::shared_ptr<KV> kv, std::string path_prefix)
    : kv_(std::move(kv)), prefix_(std::move(path_prefix)) {
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
}

Result<ObjectPtr> Store::ToObject(const KeyValue& kv, int64_t revision) const {
  auto json = WithResourceVersion(*kv.value, revision);
  if (!json) return std::unexpected(InternalError("object at " + kv.key + " is not JSON"));
  auto o = std::make_shared<Object>();
  o->key = kv.key.substr(std::min(prefix_.size(), kv.key.size()));
  o->json = std::make_shared<const std::string>(std::move(*json));
  o->revision = revision;
  return o;
}

Awaitable<Result<ObjectPtr>> Store::Create(std::string key, std::string json) {
  auto stripped = Strip(key, json);
  if (!stripped) co_return std::unexpected(stripped.error());
  const std::string full = Full(key);
  auto txn = co_await kv_->Create(full, *stripped);
  if (!txn) co_return std::unexpected(txn.error());
  if (!txn->succeeded) co_return std::unexpected(AlreadyExistsError(key));
  KeyValue stored{full, std::make_shared<const std::string>(std::move(*stripped)), txn->revision,
                  txn->revision};
  co_return ToObject(stored, txn->revision);
}

Awaitable<Result<ObjectPtr>> Store::Get(std::string key, GetOptions options) {
  auto min_rv = ParseResourceVersion(options.resource_version);
  if (!min_rv) co_return std::unexpected(min_rv.error());
  RangeOptions single_key;
  auto got = co_await kv_->Range(Full(key), single_key);
  if (!got) co_return std::unexpected(got.error());
  if (*min_rv > got->revision) {
    co_return std::unexpected(
        StorageError{ErrorCode::kTooLargeResourceVersion, key,
                     "Too large resource version: " + std::to_string(*min_rv) +
                         ", current: " + std::to_string(got->revision),
                     got->revision, nullptr});
  }
  if (got->kvs.empty()) co_return std::unexpected(NotFoundError(key));
  co_return ToObject(got->kvs.front(), got->kvs.front().mod_revision);
}

Awaitable<Result<ListResult>> Store::GetList(std::string key_prefix, ListOptions options) {
  if (key_prefix.empty() || key_prefix.back() != '/') key_prefix += '/';
  const std::string full_prefix = Full(key_prefix);
  const std::string end = PrefixEnd(full_prefix);
  auto requested = ParseResourceVersion(options.resource_version);
  if (!requested) co_return std::unexpected(requested.error());

  std::string start = full_prefix;
  int64_t read_revision = 0;  // 0: newest
  const bool continuing = !options.continue_token.empty();
  if (continuing) {
    if (!options.resource_version.empty() && options.resource_version != "0") {
      co_return std::unexpected(
          Invalid("specifying resource version is not allowed when using continue"));
    }
    auto position = DecodeContinue(options.continue_token, full_prefix);
    if (!position) co_return std::unexpected(position.error());
    start = position->start_key;
    read_revision = position->revision;
  } else if (options.match == ResourceVersionMatch::kExact) {
    if (*requested == 0) {
      co_return std::unexpected(Invalid("resourceVersionMatch=Exact requires a resourceVersion"));
    }
    read_revision = *requested;
  } else if (options.match == ResourceVersionMatch::kUnset && *requested > 0 && options.limit > 0) {
    // Legacy: a paginated list at resourceVersion N reads exactly N.
    read_revision = *requested;
  }

  ListResult out;
  const bool filtered = !options.predicate.Everything();
  int64_t want = options.limit;
  for (int round = 0;; ++round) {
    RangeOptions range;
    range.end = end;
    range.revision = read_revision;
    // Filtering lists read more per round so that a selective predicate still fills pages.
    range.limit =
        want > 0 ? (filtered ? std::max<int64_t>(want - out.items.size(), 100) : want) : 0;
    auto got = co_await kv_->Range(start, range);
    if (!got) {
      if (got.error().code == ErrorCode::kTooOldResourceVersion && continuing) {
        StorageError e = got.error();
        e.message =
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter, or use the continue "
            "token in this response to retrieve the remainder of the results. Continuing with "
            "the provided token results in an inconsistent list - objects that were created, "
            "modified, or deleted between the time the first chunk was returned and now may "
            "show up in the list.";
        co_return std::unexpected(e);
      }
      co_return std::unexpected(got.error());
    }
    if (read_revision == 0) {
      read_revision = got->revision;  // later rounds read the same snapshot
      if (*requested > got->revision) {
        co_return std::unexpected(
            StorageError{ErrorCode::kTooLargeResourceVersion, key_prefix,
                         "Too large resource version: " + std::to_string(*requested) +
                             ", current: " + std::to_string(got->revision),
                         got->revision, nullptr});
      }
    }
    out.revision = read_revision;
    std::string last_key;
    bool page_full = false;
    for (size_t i = 0; i < got->kvs.size(); ++i) {
      const KeyValue& kv = got->kvs[i];
      auto object = ToObject(kv, kv.mod_revision);
      if (!object) co_return std::unexpected(object.error());
      last_key = kv.key;
      if (!options.predicate.Matches(**object)) continue;
      out.items.push_back(std::move(*object));
      if (want > 0 && static_cast<int64_t>(out.items.size()) >= want) {
        page_full = true;
        // Items after this one in the batch are read again on the next page.
        if (i + 1 < got->kvs.size()) got->more = true;
        break;
      }
    }
    if (!got->more) break;
    if (page_full || want == 0) {
      out.continue_token = EncodeContinue(last_key + '\0', full_prefix, read_revision);
      if (!filtered) out.remaining_item_count = got->count - static_cast<int64_t>(out.items.size());
      break;
    }
    start = last_key + '\0';
  }
  co_return out;
}

Awaitable<Result<ObjectPtr>> Store::GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                     bool ignore_not_found, UpdateFunc try_update,
                                                     ObjectPtr cached_existing) {
  const std::string full = Full(key);
  // The state to update from. A cached object may be stale: a failure that staleness can
  // explain is retried once with a fresh read before it is returned.
  std::optional<KeyValue> current;
  bool fresh = true;
  if (cached_existing) {
    auto stripped = WithResourceVersion(*cached_existing->json, 0);
    if (stripped) {
      current = KeyValue{full, std::make_shared<const std::string>(std::move(*stripped)), 0,
                         cached_existing->revision};
      fresh = false;
    }
  }
  if (!current) {
    auto read = co_await ReadKey(*kv_, full);
    if (!read) co_return std::unexpected(read.error());
    current = std::move(*read);
  }
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto refresh = [&]() -> Awaitable<Result<void>> {
      auto read = co_await ReadKey(*kv_, full);
      if (!read) co_return std::unexpected(read.error());
      current = std::move(*read);
      fresh = true;
      co_return Result<void>();
    };
    ObjectPtr existing;
    if (current) {
      auto object = ToObject(*current, current->mod_revision);
      if (!object) co_return std::unexpected(object.error());
      existing = std::move(*object);
    } else if (!ignore_not_found) {
      co_return std::unexpected(NotFoundError(key));
    }
    if (existing) {
      auto ok = CheckPreconditions(key, preconditions, *existing);
      if (!ok) {
        if (!fresh) {
          if (auto r = co_await refresh(); !r) co_return std::unexpected(r.error());
          continue;
        }
        co_return std::unexpected(ok.error());
      }
    }
    auto updated = co_await try_update(existing);
    if (!updated) {
      if (!fresh) {
        if (auto r = co_await refresh(); !r) co_return std::unexpected(r.error());
        continue;
      }
      co_return std::unexpected(updated.error());
    }
    auto stripped = Strip(key, *updated);
    if (!stripped) co_return std::unexpected(stripped.error());
    if (current && !current->stale && *stripped == *current->value) {
      // Nothing changed: no write, no new resourceVersion, no event.
      if (!fresh) {
        if (auto r = co_await refresh(); !r) co_return std::unexpected(r.error());
        continue;
      }
      co_return existing;
    }
    // Two statements, not a ?: around co_await (see docs/architecture.md).
    Result<TxnResult> txn;
    if (current) {
      txn = co_await kv_->Update(full, *stripped, current->mod_revision);
    } else {
      txn = co_await kv_->Create(full, *stripped);
    }
    if (!txn) co_return std::unexpected(txn.error());
    if (!txn->succeeded) {
      current = txn->current;  // someone else wrote first: start over from theirs
      fresh = true;
      continue;
    }
    KeyValue stored{full, std::make_shared<const std::string>(std::move(*stripped)),
                    current ? current->create_revision : txn->revision, txn->revision};
    co_return ToObject(stored, txn->revision);
  }
  co_return std::unexpected(ConflictError(key, "too many concurrent updates of " + key));
}

Awaitable<Result<ObjectPtr>> Store::Delete(std::string key, Preconditions preconditions,
                                           ValidateDeletion validate, ObjectPtr cached_existing) {
  const std::string full = Full(key);
  std::optional<KeyValue> current;
  bool fresh = true;
  if (cached_existing) {
    auto stripped = WithResourceVersion(*cached_existing->json, 0);
    if (stripped) {
      current = KeyValue{full, std::make_shared<const std::string>(std::move(*stripped)), 0,
                         cached_existing->revision};
      fresh = false;
    }
  }
  if (!current) {
    auto read = co_await ReadKey(*kv_, full);
    if (!read) co_return std::unexpected(read.error());
    current = std::move(*read);
  }
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    if (!current) co_return std::unexpected(NotFoundError(key));
    auto object = ToObject(*current, current->mod_revision);
    if (!object) co_return std::unexpected(object.error());
    Result<void> ok = CheckPreconditions(key, preconditions, **object);
    if (ok && validate) ok = co_await validate(*object);
    if (!ok) {
      if (!fresh) {
        auto read = co_await ReadKey(*kv_, full);
        if (!read) co_return std::unexpected(read.error());
        current = std::move(*read);
        fresh = true;
        continue;
      }
      co_return std::unexpected(ok.error());
    }
    auto txn = co_await kv_->Delete(full, current->mod_revision);
    if (!txn) co_return std::unexpected(txn.error());
    if (!txn->succeeded) {
      current = txn->current;
      fresh = true;
      continue;
    }
    co_return *object;
  }
  co_return std::unexpected(ConflictError(key, "too many concurrent updates of " + key));
}

namespace {

// Turns the backend's events into API watch events: initial ADDED events first, then
// changes, with selection transitions (an object that stops matching is DELETED for
// this watcher, one that starts matching is ADDED) and bookmarks on progress.
class StoreWatcher final : public Watcher {
 public:
  StoreWatcher(std::unique_ptr<KVWatch> kv, std::deque<WatchEvent> initial, WatchOptions options,
               std::function<Result<ObjectPtr>(const KeyValue&, int64_t)> to_object)
      : kv_(std::move(kv)),
        pending_(std::move(initial)),
        options_(std::move(options)),
        to_object_(std::move(to_object)) {}

  Awaitable<std::optional<WatchEvent>> Next() override {
    for (;;) {
      if (!pending_.empty()) {
        WatchEvent e = std::move(pending_.front());
        pending_.pop_front();
        co_return e;
      }
      if (done_) co_return std::nullopt;
      auto next = co_await kv_->Next();
      if (!next) co_return std::nullopt;
      if (!*next) {
        done_ = true;
        WatchEvent error;
        error.type = WatchEvent::Type::kError;
        error.error = next->error();
        co_return error;
      }
      if (auto e = Convert(**next)) co_return std::move(*e);
    }
  }

  void Stop() override { kv_->Stop(); }
  bool RequestProgress() override { return kv_->RequestProgress(); }

 private:
  std::optional<WatchEvent> Convert(const KVEvent& ev) {
    using Type = WatchEvent::Type;
    if (ev.type == KVEvent::Type::kProgress) {
      if (!options_.allow_bookmarks) return std::nullopt;
      return WatchEvent{Type::kBookmark, BookmarkObject(ev.revision, false), std::nullopt};
    }
    const int64_t rev = ev.kv.mod_revision;
    ObjectPtr previous, current;
    if (ev.prev) {
      auto p = to_object_(*ev.prev, rev);  // the old state, at the event's revision
      if (p) previous = std::move(*p);
    }
    if (ev.type == KVEvent::Type::kPut) {
      auto c = to_object_(ev.kv, rev);
      if (!c) return std::nullopt;
      current = std::move(*c);
    }
    return ApplyPredicate(options_.predicate, previous, current);
  }

  std::unique_ptr<KVWatch> kv_;
  std::deque<WatchEvent> pending_;
  WatchOptions options_;
  std::function<Result<ObjectPtr>(const KeyValue&, int64_t)> to_object_;
  bool done_ = false;
};

}  // namespace

Awaitable<Result<WatcherPtr>> Store::Watch(std::string key, WatchOptions options) {
  std::string full = Full(key);
  std::string end;
  if (options.recursive) {
    if (full.back() != '/') full += '/';
    end = PrefixEnd(full);
  }
  auto requested = ParseResourceVersion(options.resource_version);
  if (!requested) co_return std::unexpected(requested.error());
  std::deque<WatchEvent> initial;
  int64_t start = *requested + 1;
  if (*requested == 0) {
    // "" and "0": the current state as ADDED events, then changes after it.
    RangeOptions range;
    range.end = end;
    auto listed = co_await kv_->Range(full, range);
    if (!listed) co_return std::unexpected(listed.error());
    for (const KeyValue& kv : listed->kvs) {
      auto object = ToObject(kv, kv.mod_revision);
      if (!object) co_return std::unexpected(object.error());
      if (!options.predicate.Matches(**object)) continue;
      initial.push_back({WatchEvent::Type::kAdded, std::move(*object), std::nullopt});
    }
    if (options.send_initial_events && options.allow_bookmarks) {
      initial.push_back(
          {WatchEvent::Type::kBookmark, BookmarkObject(listed->revision, true), std::nullopt});
    }
    start = listed->revision + 1;
  }
  KVWatchOptions kv_options;
  kv_options.end = end;
  kv_options.start_revision = start;
  kv_options.progress_notify = options.allow_bookmarks;
  auto watch = co_await kv_->Watch(full, kv_options);
  if (!watch) co_return std::unexpected(watch.error());
  co_return std::make_unique<StoreWatcher>(
      std::move(*watch), std::move(initial), std::move(options),
      [this](const KeyValue& kv, int64_t rev) { return ToObject(kv, rev); });
}

Awaitable<Result<int64_t>> Store::CurrentRevision() {
  if (auto committed = kv_->CommittedRevision()) co_return *committed;
  RangeOptions range;
  range.count_only = true;
  auto got = co_await kv_->Range(prefix_ + "/", range);
  if (!got) co_return std::unexpected(got.error());
  co_return got->revision;
}

Awaitable<Result<void>> Store::Compact(int64_t revision) {
  co_return co_await kv_->Compact(revision);
}

Awaitable<Result<Stats>> Store::GetStats(std::string key_prefix) {
  const std::string full = Full(key_prefix);
  RangeOptions range;
  range.end = PrefixEnd(full);
  auto got = co_await kv_->Range(full, range);
  if (!got) co_return std::unexpected(got.error());
  Stats s;
  s.object_count = got->count;
  for (const KeyValue& kv : got->kvs) s.bytes += static_cast<int64_t>(kv.value->size());
  co_return s;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key: the backends treat "\0" as no upper bound
}

std::optional<WatchEvent> ApplyPredicate(const SelectionPredicate& predicate,
                                         const ObjectPtr& previous, const ObjectPtr& current) {
  using Type = WatchEvent::Type;
  const bool was = previous && predicate.Matches(*previous);
  const bool is = current && predicate.Matches(*current);
  if (is && was) return WatchEvent{Type::kModified, current, std::nullopt};
  if (is) return WatchEvent{Type::kAdded, current, std::nullopt};
  if (was) {
    // Left the selection (or deleted): the last state it was seen in, at this revision.
    if (!current) return WatchEvent{Type::kDeleted, previous, std::nullopt};
    auto gone = std::make_shared<Object>(*previous);
    auto json = WithResourceVersion(*previous->json, current->revision);
    if (json) gone->json = std::make_shared<const std::string>(std::move(*json));
    gone->protobuf = nullptr;  // encoded from the old resourceVersion
    gone->converted = nullptr;
    gone->revision = current->revision;
    return WatchEvent{Type::kDeleted, gone, std::nullopt};
  }
  return std::nullopt;
}

const char* WatchEventTypeName(WatchEvent::Type type) {
  switch (type) {
    case WatchEvent::Type::kAdded:
      return "ADDED";
    case WatchEvent::Type::kModified:
      return "MODIFIED";
    case WatchEvent::Type::kDeleted:
      return "DELETED";
    case WatchEvent::Type::kBookmark:
      return "BOOKMARK";
    case WatchEvent::Type::kError:
      return "ERROR";
  }
  return "ERROR";
}

}  // namespace storage
