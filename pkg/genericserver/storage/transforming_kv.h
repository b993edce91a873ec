#pragma once
// A KV that transforms values on their way to and from the backend (encryption at rest):
// writes go through the transformer of the key's resource, and so do the values of range
// results, compare-and-swap outcomes and watch events. Keys of resources without a
// transformer pass through as they are. The storage key is the authenticated data, as
// upstream binds a ciphertext to its etcd key.
//
// Thread-safety: as every KV; the resource table is guarded by a shared mutex (written
// when a resource's storage is first made, read on every value).

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "pkg/genericserver/storage/kv.h"
#include "pkg/genericserver/storage/value/transformer.h"

namespace storage {

class TransformingKV final : public KV, public std::enable_shared_from_this<TransformingKV> {
 public:
  // path_prefix: the Store's (--etcd-prefix); resource prefixes are relative to it.
  TransformingKV(std::shared_ptr<KV> backend, std::string path_prefix);

  // Values under path_prefix + resource_prefix ("/secrets/", "/apps/deployments/") go
  // through transformer from now on.
  void SetTransformer(const std::string& resource_prefix, value::TransformerPtr transformer);

  Awaitable<Result<RangeResult>> Range(std::string key, RangeOptions options) override;
  Awaitable<Result<TxnResult>> Create(std::string key, std::string value) override;
  Awaitable<Result<TxnResult>> Update(std::string key, std::string value,
                                      int64_t expected_revision) override;
  Awaitable<Result<TxnResult>> Delete(std::string key, int64_t expected_revision) override;
  Awaitable<Result<std::unique_ptr<KVWatch>>> Watch(std::string key,
                                                    KVWatchOptions options) override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  Awaitable<Result<KVStats>> Stats() override;
  Result<void> Healthy() const override { return backend_->Healthy(); }
  std::optional<int64_t> CommittedRevision() const override {
    return backend_->CommittedRevision();
  }

  // The plain value of kv (and whether it is stale), in place.
  Result<void> FromStorage(KeyValue& kv) const;
  Result<void> FromStorage(std::optional<KeyValue>& kv) const;

 private:
  // The transformer of key's resource, nullptr when none.
  value::TransformerPtr For(std::string_view key) const;
  Result<std::string> ToStorage(const std::string& key, std::string value) const;
  Result<void> FromStorage(TxnResult& txn) const;

  std::shared_ptr<KV> backend_;
  std::string prefix_;
  mutable std::shared_mutex mu_;
  std::map<std::string, value::TransformerPtr, std::less<>> transformers_;  // full prefixes
};

}  // namespace storage
