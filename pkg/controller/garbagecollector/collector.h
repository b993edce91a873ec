#pragma once
// The garbage collector (upstream's GarbageCollector with its GraphBuilder): the
// dependency graph fed by the resource monitors, and two work queues of uids fed by the
// graph builder:
//  - attemptToDelete: an object whose owners may all be gone (it is then deleted, with the
//    propagation policy its own finalizers ask for), whose owners wait for their dependents
//    in the foreground (their references are dropped when another owner is solid, or the
//    object is deleted in the foreground when it has dependents of its own), or that is
//    itself waiting for its dependents (its foregroundDeletion finalizer is removed once no
//    dependent blocks it, else its blocking dependents are queued); a virtual owner whose
//    existence is verified (a virtual delete event removes it when absent);
//  - attemptToOrphan: an owner being deleted with the `orphan` finalizer: its uid is removed
//    from every dependent's owner references, then the finalizer from the owner.
// Every 30 s discovery is asked again for the resources that can be deleted, listed and
// watched; monitors are started for new ones and stopped for vanished ones, with the
// workers paused until the new monitors have synced.
//
// Threads: everything here belongs to one strand, the collector's: the graph, the
// absent-owner cache, the REST mapper, the monitors' bookkeeping, both queues and every
// worker coroutine (their API calls are awaited there). Informer events arrive on the
// informers' strands and are posted to it; so is the Warning event callback's caller.

#include <atomic>
#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

#include "pkg/client/discovery/discovery.h"
#include "pkg/client/rest/client.h"
#include "pkg/client/workqueue/queue.h"
#include "pkg/controller/garbagecollector/absent_owner_cache.h"
#include "pkg/controller/garbagecollector/graph_builder.h"
#include "pkg/controller/garbagecollector/monitors.h"
#include "pkg/controller/garbagecollector/object_client.h"
#include "pkg/controller/garbagecollector/rest_mapper.h"
#include "pkg/genericserver/server/awaitable.h"

namespace controller::garbagecollector {

// Why an attempt ended without doing its work.
struct GcError {
  enum Kind {
    kVirtualDeleteEnqueued,           // the object is gone: a virtual delete event was queued
    kNamespacedOwnerOfClusterScoped,  // will not resolve on retry
    kRestMapping,                     // the kind is not (yet) known to discovery
    kOther,
  };
  Kind kind = kOther;
  std::string message;
  client::ApiError api{};  // for kOther errors from the API server
};

// What a worker does with a key after an attempt.
enum class WorkAction { kForget, kRequeue };

class GarbageCollector : public std::enable_shared_from_this<GarbageCollector> {
 public:
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;
  // `warn(dependent, message)` records the OwnerRefInvalidNamespace Warning event.
  using WarnFunc = std::function<void(const ObjectRef& dependent, const std::string& message)>;

  static std::shared_ptr<GarbageCollector> New(Strand strand, std::shared_ptr<ObjectClient> objects,
                                               WarnFunc warn);
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Starts the collector against the API server: the discovery sync loop every
  // `sync_period` (monitors started once `informers_started` is set), and once every
  // monitor has synced, `workers` workers on each queue. From any thread.
  void Run(std::shared_ptr<client::RestClient> client, int workers,
           std::shared_ptr<std::atomic<bool>> informers_started,
           std::chrono::milliseconds sync_period = std::chrono::seconds(30));

  // On the strand (tests drive these directly).
  void SetMapper(RestMapper mapper) { mapper_ = std::move(mapper); }
  void ProcessEvent(const GraphEvent& event) { builder_.Process(event); }
  const Graph& graph() const { return builder_.graph(); }
  AbsentOwnerCache& absent_owners() { return absent_owners_; }
  const std::shared_ptr<workqueue::Queue>& attempt_to_delete() const { return attempt_to_delete_; }
  const std::shared_ptr<workqueue::Queue>& attempt_to_orphan() const { return attempt_to_orphan_; }
  const Strand& strand() const { return strand_; }
  // One attempt at a key of each queue.
  Awaitable<WorkAction> AttemptToDeleteWorker(std::string uid);
  Awaitable<WorkAction> AttemptToOrphanWorker(std::string uid);

 private:
  GarbageCollector(Strand strand, std::shared_ptr<ObjectClient> objects, WarnFunc warn);

  // Decisions and operations (collector.cc).
  struct OwnerLookup {
    bool dangling = false;
    std::optional<ObjectMeta> owner;  // when not dangling
  };
  struct Classified {
    std::vector<OwnerReference> solid, dangling, waiting;
  };
  using MergePatchFunc = std::function<std::string(const ObjectMeta& current)>;
  Awaitable<std::expected<void, GcError>> AttemptToDeleteItem(std::shared_ptr<Node> item);
  Awaitable<std::expected<void, GcError>> ProcessDeletingDependents(std::shared_ptr<Node> item);
  Awaitable<std::expected<OwnerLookup, GcError>> IsDangling(OwnerReference ref, ObjectRef item);
  Awaitable<std::expected<Classified, GcError>> ClassifyReferences(
      ObjectRef item, std::vector<OwnerReference> refs);
  Awaitable<std::expected<void, GcError>> OrphanDependents(ObjectRef owner,
                                                           std::vector<std::shared_ptr<Node>> deps);
  std::expected<ResourceMapping, GcError> Mapping(const ObjectRef& ref) const;
  Awaitable<std::expected<ObjectMeta, GcError>> GetObject(ObjectRef ref);
  // The object's metadata from its monitor's cache, else from the API server.
  Awaitable<std::expected<ObjectMeta, GcError>> GetMetadata(ObjectRef ref);
  Awaitable<std::expected<void, GcError>> DeleteObject(ObjectRef ref, std::string policy);
  // A strategic merge patch, or, where the resource refuses those (415), the JSON merge
  // patch `fallback` makes from the object's current metadata.
  Awaitable<std::expected<void, GcError>> PatchObject(ObjectRef ref, std::string strategic,
                                                      MergePatchFunc fallback);
  Awaitable<std::expected<void, GcError>> RemoveFinalizer(ObjectRef ref, std::string finalizer);
  void EnqueueVirtualDeleteEvent(const ObjectRef& ref);

  // Running (collector_run.cc).
  void OnMonitorEvent(const MonitorEvent& event);
  // The long-running coroutines take `self`, which keeps the collector alive while they run
  // (a member coroutine's `this` alone does not).
  Awaitable<void> RunAsync(std::shared_ptr<GarbageCollector> self,
                           std::shared_ptr<client::RestClient> client, int workers,
                           std::shared_ptr<std::atomic<bool>> informers_started,
                           std::chrono::milliseconds sync_period);
  Awaitable<void> SyncLoop(std::shared_ptr<GarbageCollector> self,
                           std::shared_ptr<client::RestClient> client,
                           std::shared_ptr<std::atomic<bool>> informers_started,
                           std::chrono::milliseconds period);
  struct Deletable {
    std::map<client::GroupVersionResource, client::ApiResource> resources;
    std::map<std::string, std::string> failed;  // group version -> error
    RestMapper mapper;
  };
  Awaitable<Deletable> GetDeletableResources(client::RestClient& client);
  Awaitable<bool> WaitForMonitorsSynced(std::chrono::milliseconds timeout);
  Awaitable<void> Worker(std::shared_ptr<GarbageCollector> self,
                         std::shared_ptr<workqueue::Queue> queue, bool orphan);
  Awaitable<void> PauseWorkers();

  Strand strand_;
  std::shared_ptr<ObjectClient> objects_;
  WarnFunc warn_;
  AbsentOwnerCache absent_owners_;
  GraphBuilder builder_;
  RestMapper mapper_;
  std::shared_ptr<workqueue::Queue> attempt_to_delete_, attempt_to_orphan_;
  std::unique_ptr<Monitors> monitors_;  // made by Run
  // Workers wait while paused (a resync of the monitors); in_flight_ counts attempts.
  bool paused_ = false;
  int in_flight_ = 0;
};

}  // namespace controller::garbagecollector
