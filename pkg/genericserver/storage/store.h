#pragma once
// storage::Store: the Kubernetes storage semantics (preconditions, compare-and-swap
// retry loops, no-op updates, pagination, resourceVersion rules, watch with selection
// transitions and bookmarks) built once over any KV backend, as upstream's etcd3 store
// is built over etcd. Keys given to it are relative ("/configmaps/ns/name"); it adds
// the path prefix (--etcd-prefix) before they reach the backend.

#include <memory>
#include <string>

#include "pkg/genericserver/storage/interface.h"
#include "pkg/genericserver/storage/kv.h"

namespace storage {

class Store final : public Interface {
 public:
  Store(std::shared_ptr<KV> kv, std::string path_prefix);

  Awaitable<Result<ObjectPtr>> Create(std::string key, std::string json) override;
  Awaitable<Result<ObjectPtr>> Delete(std::string key, Preconditions preconditions,
                                      ValidateDeletion validate,
                                      ObjectPtr cached_existing) override;
  Awaitable<Result<ObjectPtr>> Get(std::string key, GetOptions options) override;
  Awaitable<Result<ListResult>> GetList(std::string key_prefix, ListOptions options) override;
  Awaitable<Result<ObjectPtr>> GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                bool ignore_not_found, UpdateFunc try_update,
                                                ObjectPtr cached_existing) override;
  Awaitable<Result<WatcherPtr>> Watch(std::string key, WatchOptions options) override;
  Awaitable<Result<int64_t>> CurrentRevision() override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  Awaitable<Result<Stats>> GetStats(std::string key_prefix) override;

  KV& Backend() { return *kv_; }

 private:
  std::string Full(std::string_view key) const { return prefix_ + std::string(key); }
  // The object for kv (resourceVersion set to its mod revision), relative key.
  Result<ObjectPtr> ToObject(const KeyValue& kv, int64_t revision) const;

  std::shared_ptr<KV> kv_;
  std::string prefix_;
};

// Parses a resourceVersion query value: "" and "0" give 0.
Result<int64_t> ParseResourceVersion(std::string_view rv);
// A bookmark's object: {"metadata":{"resourceVersion":"N"}}, with the
// k8s.io/initial-events-end annotation when initial_events_end.
ObjectPtr BookmarkObject(int64_t revision, bool initial_events_end);

}  // namespace storage
