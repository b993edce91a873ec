#pragma once
// The memory backend (--storage-backend=memory): the KV semantics with nothing on disk,
// for tests and throwaway servers. Every operation completes without waiting; one mutex
// guards the state.

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "pkg/genericserver/storage/kv.h"

namespace storage {

class MemoryKV final : public KV, public std::enable_shared_from_this<MemoryKV> {
 public:
  static std::shared_ptr<MemoryKV> New();

  Awaitable<Result<RangeResult>> Range(std::string key, RangeOptions options) override;
  Awaitable<Result<TxnResult>> Create(std::string key, std::string value) override;
  Awaitable<Result<TxnResult>> Update(std::string key, std::string value,
                                      int64_t expected_revision) override;
  Awaitable<Result<TxnResult>> Delete(std::string key, int64_t expected_revision) override;
  Awaitable<Result<std::unique_ptr<KVWatch>>> Watch(std::string key,
                                                    KVWatchOptions options) override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  Awaitable<Result<KVStats>> Stats() override;
  Result<void> Healthy() const override { return {}; }
  std::optional<int64_t> CommittedRevision() const override {
    std::lock_guard lock(mu_);
    return revision_;
  }

  struct Watcher;

 private:
  MemoryKV() = default;
  struct Version {
    int64_t mod_revision;
    int64_t create_revision;
    std::shared_ptr<const std::string> value;  // null: deleted at mod_revision
  };
  // The newest version of key at or below revision, if live.
  std::optional<KeyValue> At(const std::string& key, const std::vector<Version>& versions,
                             int64_t revision) const;
  // Applies one write under the lock and tells the watchers.
  TxnResult Write(const std::string& key, std::shared_ptr<const std::string> value,
                  std::optional<int64_t> expected_revision, bool create);
  void Publish(const KVEvent& event);

  mutable std::mutex mu_;
  int64_t revision_ = 0;
  int64_t compact_revision_ = 0;
  std::map<std::string, std::vector<Version>, std::less<>> keys_;
  std::vector<KVEvent> history_;  // events after compact_revision_, in order
  std::vector<std::weak_ptr<Watcher>> watchers_;
};

}  // namespace storage
