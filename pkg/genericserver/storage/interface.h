#pragma once
// storage::Interface: what the registry's generic Store uses, with upstream's semantics
// (k8s.io/apiserver/pkg/storage). Objects are JSON; every object read carries
// metadata.resourceVersion equal to the revision it was read at, as a decimal string.
// resourceVersion is one global, strictly increasing 64-bit revision per store.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/storage/errors.h"
#include "pkg/genericserver/storage/kv.h"

namespace storage {

struct Object {
  std::string key;
  std::shared_ptr<const std::string> json;  // metadata.resourceVersion == revision
  int64_t revision = 0;
  // The object's protobuf message, encoded by the API layer on first use and then shared by
  // every GET, LIST and watch of this version. Read and written with std::atomic_load and
  // std::atomic_store only; a copy that changes `json` must reset it.
  mutable std::shared_ptr<const std::string> protobuf;
  // The served form a conversion (storage::NewConverting) made of this version, kept the
  // same way so that lists and watches convert each version once; `by` names the
  // conversion.
  struct Converted {
    const void* by = nullptr;
    std::shared_ptr<const Object> object;
  };
  mutable std::shared_ptr<const Converted> converted;
};
using ObjectPtr = std::shared_ptr<const Object>;

struct Preconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
};

enum class ResourceVersionMatch { kUnset, kNotOlderThan, kExact };

struct GetOptions {
  // "": the newest (a consistent read); "0": any version; "N": not older than N.
  std::string resource_version;
};

// Which objects a list or watch wants. Empty: all of them.
struct SelectionPredicate {
  std::function<bool(const Object&)> matches;
  bool Everything() const { return !matches; }
  bool Matches(const Object& o) const { return !matches || matches(o); }
};

struct ListOptions {
  std::string resource_version;  // as in GetOptions
  ResourceVersionMatch match = ResourceVersionMatch::kUnset;
  int64_t limit = 0;  // 0: no limit
  std::string continue_token;
  SelectionPredicate predicate;
};

struct ListResult {
  std::vector<ObjectPtr> items;
  int64_t revision = 0;        // the list's resourceVersion
  std::string continue_token;  // empty when this is the last page
  std::optional<int64_t> remaining_item_count;
};

struct WatchOptions {
  // "" or "0": synthetic ADDED events for the current objects first, then changes;
  // "N": changes after revision N.
  std::string resource_version;
  bool recursive = true;  // key is a prefix; false: that one key
  SelectionPredicate predicate;
  bool allow_bookmarks = false;
  // With resource_version "" or "0", after the initial ADDED events a BOOKMARK whose
  // object is annotated k8s.io/initial-events-end: "true" (sendInitialEvents).
  bool send_initial_events = false;
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  ObjectPtr object;  // for kDeleted: the last state, with the deletion's resourceVersion
  std::optional<StorageError> error;  // for kError
};
const char* WatchEventTypeName(WatchEvent::Type type);

// What a watcher with this predicate sees of a change from previous to current (either
// may be null: a creation, a deletion): ADDED, MODIFIED or DELETED as the object enters,
// stays in or leaves the selection, or nothing. A deletion carries previous, whose
// resourceVersion the caller has set to the deletion's.
std::optional<WatchEvent> ApplyPredicate(const SelectionPredicate& predicate,
                                         const ObjectPtr& previous, const ObjectPtr& current);

class Watcher {
 public:
  virtual ~Watcher() = default;
  // The next event, or std::nullopt when the watch ended. One consumer coroutine at a
  // time, on any executor (a strand or a bare multi-threaded io_context alike).
  virtual Awaitable<std::optional<WatchEvent>> Next() = 0;
  // Ends the watch from any thread; a pending Next() returns std::nullopt.
  virtual void Stop() = 0;
  // Asks for a BOOKMARK (with allow_bookmarks) once every earlier event was delivered;
  // false when the backend cannot be asked.
  virtual bool RequestProgress() { return false; }
};
using WatcherPtr = std::unique_ptr<Watcher>;

// Returns the new object JSON, or an error that GuaranteedUpdate returns as is.
// current is null when the key does not exist (only with ignore_not_found).
using UpdateFunc =
    std::function<Awaitable<std::expected<std::string, StorageError>>(const ObjectPtr& current)>;
using ValidateDeletion =
    std::function<Awaitable<std::expected<void, StorageError>>(const ObjectPtr& current)>;

struct Stats {
  int64_t object_count = 0;
  int64_t bytes = 0;
};

class Interface {
 public:
  virtual ~Interface() = default;
  // Fails kAlreadyExists when the key exists. The JSON's resourceVersion is ignored.
  virtual Awaitable<Result<ObjectPtr>> Create(std::string key, std::string json) = 0;
  // Checks the preconditions and validate against the current object, then deletes it
  // if it did not change meanwhile (retrying if it did). Returns the deleted object.
  virtual Awaitable<Result<ObjectPtr>> Delete(std::string key, Preconditions preconditions,
                                              ValidateDeletion validate,
                                              ObjectPtr cached_existing) = 0;
  virtual Awaitable<Result<ObjectPtr>> Get(std::string key, GetOptions options) = 0;
  // Every object under key_prefix (a prefix ending with '/').
  virtual Awaitable<Result<ListResult>> GetList(std::string key_prefix, ListOptions options) = 0;
  // Reads the object (cached_existing may save the read), calls try_update, writes the
  // result if the object did not change meanwhile, else repeats with the new object.
  // A result equal to the current object writes nothing and keeps its resourceVersion.
  virtual Awaitable<Result<ObjectPtr>> GuaranteedUpdate(std::string key,
                                                        Preconditions preconditions,
                                                        bool ignore_not_found,
                                                        UpdateFunc try_update,
                                                        ObjectPtr cached_existing) = 0;
  virtual Awaitable<Result<WatcherPtr>> Watch(std::string key, WatchOptions options) = 0;
  virtual Awaitable<Result<int64_t>> CurrentRevision() = 0;
  virtual Awaitable<Result<void>> Compact(int64_t revision) = 0;
  virtual Awaitable<Result<Stats>> GetStats(std::string key_prefix) = 0;
  // Every object under key_prefix as a ready watch cache holds it now, read at once (no
  // await, no freshness wait: what resourceVersion "0" asks for); nullopt without one.
  virtual std::optional<ListResult> CachedList(const std::string& key_prefix) const {
    (void)key_prefix;
    return std::nullopt;
  }
  // The object at key as a ready watch cache holds it now (null when it holds none), read at
  // once; nullopt without a ready cache.
  virtual std::optional<ObjectPtr> CachedGet(const std::string& key) const {
    (void)key;
    return std::nullopt;
  }
};

}  // namespace storage
