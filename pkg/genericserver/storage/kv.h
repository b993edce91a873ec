#pragma once
// The primitive a backend implements: an MVCC key-value store with etcd v3's semantics
// (global revision, create/mod revisions per key, compare-and-swap writes, ranges at a
// past revision, watches from a revision, compaction). The generic storage::Store
// builds the Kubernetes storage.Interface on top, once for every backend.
//
// Thread-safety: every method may be called from any thread, concurrently.

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/storage/errors.h"

namespace storage {

template <class T>
using Result = std::expected<T, StorageError>;

struct KeyValue {
  std::string key;
  std::shared_ptr<const std::string> value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  // Read through another transformer than writes use (an encryption key being rotated
  // away from): an update writes it again even when nothing changed.
  bool stale = false;
};

struct RangeOptions {
  // Keys in [key, end); an empty end means the key alone.
  std::string end;
  // Read as of this revision; 0 means the newest.
  int64_t revision = 0;
  // At most this many kvs (0: all); `more` tells whether some were left out.
  int64_t limit = 0;
  // Only count: kvs stays empty.
  bool count_only = false;
};

struct RangeResult {
  std::vector<KeyValue> kvs;  // in key order
  bool more = false;
  int64_t count = 0;     // keys in the whole range at that revision
  int64_t revision = 0;  // the store's revision when it answered
};

// The outcome of a conditional write. When the condition held: succeeded, revision is
// the revision of the write, prev the replaced or deleted kv (if any). When it failed:
// revision is the store's current revision and current the key's kv (if it exists).
struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;
  std::optional<KeyValue> prev;
  std::optional<KeyValue> current;
};

struct KVEvent {
  enum class Type { kPut, kDelete, kProgress };
  Type type = Type::kPut;
  KeyValue kv;  // for a delete: key and mod_revision (the deletion's revision) only
  std::optional<KeyValue> prev;  // the previous kv of the key, when there was one
  int64_t revision = 0;          // for progress: the store's revision
};

// A stream of events in revision order. Next() returns std::nullopt once the watch ended
// (Stop, backend shutdown, or the consumer was too slow), or an error, e.g.
// kTooOldResourceVersion when the start revision was compacted.
class KVWatch {
 public:
  virtual ~KVWatch() = default;
  // One consumer coroutine at a time, on any executor (a strand or a bare multi-threaded
  // io_context alike: the backends' queues wait on a storage::Wakeup).
  virtual Awaitable<std::optional<Result<KVEvent>>> Next() = 0;
  // Ends the stream; a pending Next() returns std::nullopt. Any thread.
  virtual void Stop() = 0;
  // Asks for a kProgress event once every earlier event was delivered; false when the
  // backend cannot be asked (etcd's JSON gateway sends progress on its own schedule).
  virtual bool RequestProgress() { return false; }
};

struct KVWatchOptions {
  std::string end;               // as in RangeOptions
  int64_t start_revision;        // first revision delivered; 0 means changes from now on
  bool progress_notify = false;  // deliver kProgress events when idle
};

struct KVStats {
  int64_t keys = 0;
  int64_t value_bytes = 0;
  int64_t file_bytes = 0;  // on disk, where there is a disk
  int64_t revision = 0;
  int64_t compact_revision = 0;
  // Group commit, where there is one: transactions committed and writes in them.
  int64_t commits = 0;
  int64_t committed_writes = 0;
};

class KV {
 public:
  virtual ~KV() = default;
  virtual Awaitable<Result<RangeResult>> Range(std::string key, RangeOptions options) = 0;
  // Puts key only if it does not exist.
  virtual Awaitable<Result<TxnResult>> Create(std::string key, std::string value) = 0;
  // Puts key only if its mod_revision is expected_revision.
  virtual Awaitable<Result<TxnResult>> Update(std::string key, std::string value,
                                              int64_t expected_revision) = 0;
  // Deletes key only if its mod_revision is expected_revision.
  virtual Awaitable<Result<TxnResult>> Delete(std::string key, int64_t expected_revision) = 0;
  virtual Awaitable<Result<std::unique_ptr<KVWatch>>> Watch(std::string key,
                                                            KVWatchOptions options) = 0;
  // Drops the history at or below revision (the newest version of every live key stays).
  virtual Awaitable<Result<void>> Compact(int64_t revision) = 0;
  virtual Awaitable<Result<KVStats>> Stats() = 0;
  // A quick liveness probe for /readyz; never blocks.
  virtual Result<void> Healthy() const = 0;
  // The newest committed revision when the backend knows it in memory (the embedded ones):
  // a consistent read's target without a round trip. std::nullopt: ask with a Range.
  virtual std::optional<int64_t> CommittedRevision() const { return std::nullopt; }
  // The largest value accepted (etcd's request limit): bigger writes fail kTooLarge.
  static constexpr size_t kMaxValueBytes = 1536 * 1024;
};

// The end of the range of every key starting with prefix ("/a/" -> "/a0").
std::string PrefixEnd(std::string_view prefix);

}  // namespace storage
