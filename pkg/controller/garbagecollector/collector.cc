// The collector's decisions and the API operations behind them (upstream's
// garbagecollector.go attemptToDeleteItem, orphaning, and operations.go / patch.go).
#include "pkg/controller/garbagecollector/collector.h"

#include <random>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/controller/garbagecollector/patch.h"
#include "pkg/util/log.h"

namespace controller::garbagecollector {

namespace net = boost::asio;

namespace {

Awaitable<void> Sleep(std::chrono::milliseconds d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
}

GcError ApiFailure(const client::ApiError& e) { return GcError{GcError::kOther, e.String(), e}; }

std::vector<std::string> UidsOf(const std::vector<OwnerReference>& refs) {
  std::vector<std::string> out;
  for (const OwnerReference& r : refs) out.push_back(r.uid);
  return out;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

// utilerrors.NewAggregate's text: one message alone, several in brackets.
std::string Aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::string out = "[";
  for (size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
  return out + "]";
}

}  // namespace

std::shared_ptr<GarbageCollector> GarbageCollector::New(Strand strand,
                                                        std::shared_ptr<ObjectClient> objects,
                                                        WarnFunc warn) {
  return std::shared_ptr<GarbageCollector>(
      new GarbageCollector(std::move(strand), std::move(objects), std::move(warn)));
}

GarbageCollector::GarbageCollector(Strand strand, std::shared_ptr<ObjectClient> objects,
                                   WarnFunc warn)
    : strand_(std::move(strand)),
      objects_(std::move(objects)),
      warn_(std::move(warn)),
      builder_(
          GraphActions{[this](const std::string& uid) { attempt_to_delete_->Add(uid); },
                       [this](const std::string& uid) { attempt_to_delete_->AddRateLimited(uid); },
                       [this](const std::string& uid) { attempt_to_orphan_->Add(uid); },
                       [this](const ObjectRef& dependent, const std::string& message) {
                         if (warn_) warn_(dependent, message);
                       }},
          absent_owners_),
      attempt_to_delete_(workqueue::Queue::New(strand_)),
      attempt_to_orphan_(workqueue::Queue::New(strand_)) {}

// ---------------------------------------------------------------------------------------
// Operations

std::expected<ResourceMapping, GcError> GarbageCollector::Mapping(const ObjectRef& ref) const {
  auto m = mapper_.Map(ref.api_version, ref.kind);
  if (!m) {
    return std::unexpected(
        GcError{GcError::kRestMapping, RestMappingError(ref.api_version, ref.kind)});
  }
  return *m;
}

Awaitable<std::expected<ObjectMeta, GcError>> GarbageCollector::GetObject(ObjectRef ref) {
  auto m = Mapping(ref);
  if (!m) co_return std::unexpected(m.error());
  std::string ns = m->namespaced ? ref.namespace_name : std::string();
  auto got = co_await objects_->Get(m->gvr, std::move(ns), ref.name);
  if (!got) co_return std::unexpected(ApiFailure(got.error()));
  co_return std::move(*got);
}

Awaitable<std::expected<ObjectMeta, GcError>> GarbageCollector::GetMetadata(ObjectRef ref) {
  auto m = Mapping(ref);
  if (!m) co_return std::unexpected(m.error());
  if (monitors_) {
    auto cached =
        monitors_->Cached(m->gvr, m->namespaced ? ref.namespace_name : std::string(), ref.name);
    if (cached) co_return std::move(*cached);
  }
  co_return co_await GetObject(std::move(ref));
}

Awaitable<std::expected<void, GcError>> GarbageCollector::DeleteObject(ObjectRef ref,
                                                                       std::string policy) {
  auto m = Mapping(ref);
  if (!m) co_return std::unexpected(m.error());
  DeleteOptions options;
  options.precondition_uid = ref.uid;
  options.propagation_policy = std::move(policy);
  std::string ns = m->namespaced ? ref.namespace_name : std::string();
  auto r = co_await objects_->Delete(m->gvr, std::move(ns), ref.name, std::move(options));
  if (!r) co_return std::unexpected(ApiFailure(r.error()));
  co_return std::expected<void, GcError>();
}

Awaitable<std::expected<void, GcError>> GarbageCollector::PatchObject(ObjectRef ref,
                                                                      std::string strategic,
                                                                      MergePatchFunc fallback) {
  auto m = Mapping(ref);
  if (!m) co_return std::unexpected(m.error());
  const std::string ns = m->namespaced ? ref.namespace_name : std::string();
  auto r =
      co_await objects_->Patch(m->gvr, ns, ref.name, kStrategicMergePatch, std::move(strategic));
  if (r) co_return std::expected<void, GcError>();
  if (r.error().code != 415) co_return std::unexpected(ApiFailure(r.error()));
  // Strategic merge patches are not supported here (custom resources): a JSON merge patch.
  auto current = co_await GetMetadata(ref);
  if (!current) co_return std::unexpected(current.error());
  std::string body = fallback(*current);
  auto merged = co_await objects_->Patch(m->gvr, ns, ref.name, kMergePatch, std::move(body));
  if (!merged) co_return std::unexpected(ApiFailure(merged.error()));
  co_return std::expected<void, GcError>();
}

Awaitable<std::expected<void, GcError>> GarbageCollector::RemoveFinalizer(ObjectRef ref,
                                                                          std::string finalizer) {
  // client-go's retry.DefaultBackoff: 4 tries, 10 ms growing fivefold, 10% jitter.
  thread_local std::mt19937 rng{std::random_device{}()};
  std::chrono::milliseconds delay(10);
  constexpr int kSteps = 4;
  for (int attempt = 0; attempt < kSteps; ++attempt) {
    if (attempt > 0) {
      const double jitter = std::uniform_real_distribution<double>(0, 0.1)(rng);
      co_await Sleep(std::chrono::milliseconds(static_cast<int64_t>(delay.count() * (1 + jitter))));
      delay *= 5;
    }
    auto current = co_await GetObject(ref);
    if (!current) {
      if (current.error().kind == GcError::kOther && current.error().api.IsNotFound()) {
        co_return std::expected<void, GcError>();
      }
      GcError e = current.error();
      e.message = "cannot finalize owner " + ref.String() +
                  ", because cannot get it: " + e.message +
                  ". The garbage collector will retry later";
      co_return std::unexpected(e);
    }
    if (!current->HasFinalizer(finalizer)) {
      KLOG_V(5) << "\"finalizer already removed from object\" finalizer=\"" << finalizer
                << "\" object=\"" << ref.String() << "\"";
      co_return std::expected<void, GcError>();
    }
    auto m = Mapping(ref);
    if (!m) co_return std::unexpected(m.error());
    std::string ns = m->namespaced ? ref.namespace_name : std::string();
    std::string body = RemoveFinalizerMergePatch(*current, finalizer);
    auto r =
        co_await objects_->Patch(m->gvr, std::move(ns), ref.name, kMergePatch, std::move(body));
    if (r) co_return std::expected<void, GcError>();
    if (!r.error().IsConflict()) co_return std::unexpected(ApiFailure(r.error()));
  }
  co_return std::unexpected(
      GcError{GcError::kOther, "updateMaxRetries(" + std::to_string(kSteps) +
                                   ") has reached. The garbage collector will retry later "
                                   "for owner " +
                                   ref.String()});
}

void GarbageCollector::EnqueueVirtualDeleteEvent(const ObjectRef& ref) {
  GraphEvent event;
  event.type = EventType::kDelete;
  event.is_virtual = true;
  event.api_version = ref.api_version;
  event.kind = ref.kind;
  event.object.uid = ref.uid;
  event.object.name = ref.name;
  event.object.namespace_name = ref.namespace_name;
  // Handled after what is already queued, as upstream's graphChanges queue does.
  net::post(strand_, [self = shared_from_this(), event = std::move(event)] {
    self->builder_.Process(event);
  });
}

// ---------------------------------------------------------------------------------------
// attemptToDelete

Awaitable<WorkAction> GarbageCollector::AttemptToDeleteWorker(std::string uid) {
  std::shared_ptr<Node> node = builder_.graph().Find(uid);
  if (!node) {
    // Removed meanwhile (its deletion observed, or a virtual delete event handled).
    KLOG_V(5) << "\"item no longer in the graph, skipping attemptToDeleteItem\" item=\"" << uid
              << "\"";
    co_return WorkAction::kForget;
  }
  auto r = co_await AttemptToDeleteItem(node);
  if (!r) {
    switch (r.error().kind) {
      case GcError::kVirtualDeleteEnqueued:
      case GcError::kNamespacedOwnerOfClusterScoped:
        co_return WorkAction::kForget;
      case GcError::kRestMapping:
        // A kind discovery does not know yet (a new CRD) or never will: retried.
        KLOG_V(5) << "\"error syncing item\" err=\"" << r.error().message << "\" item=\""
                  << node->identity.String() << "\"";
        co_return WorkAction::kRequeue;
      case GcError::kOther:
        KLOG_ERROR << "error syncing item " << node->identity.String() << ": " << r.error().message;
        co_return WorkAction::kRequeue;
    }
  }
  std::shared_ptr<Node> now = builder_.graph().Find(uid);
  if (now && now->is_virtual) {
    // Not observed through an informer yet: checked again, or a virtual node for an object
    // added and removed while a watch was re-established would stay forever.
    KLOG_V(5) << "\"item hasn't been observed via informer yet\" item=\"" << now->identity.String()
              << "\"";
    co_return WorkAction::kRequeue;
  }
  co_return WorkAction::kForget;
}

Awaitable<std::expected<void, GcError>> GarbageCollector::AttemptToDeleteItem(
    std::shared_ptr<Node> item) {
  const ObjectRef identity = item->identity;
  KLOG_V(2) << "\"Processing item\" item=\"" << identity.String()
            << "\" virtual=" << Bool(item->is_virtual);
  // Once being deleted an object only waits for its final deletion, unless it is deleting
  // its dependents in the foreground.
  if (item->being_deleted && !item->deleting_dependents) {
    KLOG_V(5) << "\"processing item returned at once, because its DeletionTimestamp is "
                 "non-nil\" item=\""
              << identity.String() << "\"";
    co_return std::expected<void, GcError>();
  }
  auto latest = co_await GetObject(identity);
  if (!latest) {
    if (latest.error().kind == GcError::kOther && latest.error().api.IsNotFound()) {
      KLOG_V(5) << "\"item not found, generating a virtual delete event\" item=\""
                << identity.String() << "\"";
      EnqueueVirtualDeleteEvent(identity);
      co_return std::unexpected(GcError{GcError::kVirtualDeleteEnqueued, ""});
    }
    co_return std::unexpected(latest.error());
  }
  if (latest->uid != identity.uid) {
    KLOG_V(5) << "\"UID doesn't match, item not found, generating a virtual delete event\" "
                 "item=\""
              << identity.String() << "\"";
    EnqueueVirtualDeleteEvent(identity);
    co_return std::unexpected(GcError{GcError::kVirtualDeleteEnqueued, ""});
  }
  if (item->deleting_dependents) co_return co_await ProcessDeletingDependents(item);

  const std::vector<OwnerReference> refs = latest->owner_references;
  if (refs.empty()) {
    KLOG_V(2) << "\"item doesn't have an owner, continue on next item\" item=\""
              << identity.String() << "\"";
    co_return std::expected<void, GcError>();
  }
  auto classified = co_await ClassifyReferences(identity, refs);
  if (!classified) co_return std::unexpected(classified.error());
  const Classified& c = *classified;
  KLOG_V(5) << "\"classify item's references\" item=\"" << identity.String() << "\" solid=\""
            << Describe(c.solid) << "\" dangling=\"" << Describe(c.dangling)
            << "\" waitingForDependentsDeletion=\"" << Describe(c.waiting) << "\"";

  if (!c.solid.empty()) {
    KLOG_V(2) << "\"item has at least one existing owner, will not garbage collect\" item=\""
              << identity.String() << "\" owner=\"" << Describe(c.solid) << "\"";
    if (c.dangling.empty() && c.waiting.empty()) co_return std::expected<void, GcError>();
    KLOG_V(2) << "\"remove dangling references and waiting references for item\" item=\""
              << identity.String() << "\" dangling=\"" << Describe(c.dangling)
              << "\" waitingForDependentsDeletion=\"" << Describe(c.waiting) << "\"";
    // References to owners waiting for their dependents go too, or those owners would wait
    // for this object forever.
    std::vector<std::string> uids = UidsOf(c.dangling);
    for (const std::string& u : UidsOf(c.waiting)) uids.push_back(u);
    std::string strategic = DeleteOwnerRefsStrategicPatch(identity.uid, uids);
    MergePatchFunc fallback = [uids](const ObjectMeta& current) {
      return DeleteOwnerRefsMergePatch(current, uids);
    };
    co_return co_await PatchObject(identity, std::move(strategic), std::move(fallback));
  }

  if (!c.waiting.empty() && !item->dependents.empty()) {
    for (const auto& dep : item->Dependents()) {
      if (!dep->deleting_dependents) continue;
      // A possible cycle (its owner and its dependent both wait for dependents): its own
      // references stop blocking, then it is deleted in the foreground.
      KLOG_V(2) << "\"processing item, some of its owners and its dependent have "
                   "FinalizerDeletingDependents, to prevent potential cycle, its "
                   "ownerReferences are going to be modified to be non-blocking, then the item "
                   "is going to be deleted with Foreground\" item=\""
                << identity.String() << "\" dependent=\"" << dep->identity.String() << "\"";
      const std::vector<OwnerReference> owners = item->owners;
      std::string strategic = UnblockOwnerRefsStrategicPatch(identity.uid, owners);
      MergePatchFunc fallback = [owners](const ObjectMeta& current) {
        return UnblockOwnerRefsMergePatch(owners, current.resource_version);
      };
      auto patched = co_await PatchObject(identity, std::move(strategic), std::move(fallback));
      if (!patched) co_return std::unexpected(patched.error());
      break;
    }
    KLOG_V(2) << "\"at least one owner of item has FinalizerDeletingDependents, and the item "
                 "itself has dependents, so it is going to be deleted in Foreground\" item=\""
              << identity.String() << "\"";
    co_return co_await DeleteObject(identity, "Foreground");
  }

  // No solid owner and no owner waiting on it: collected, with the policy its own
  // finalizers already ask for.
  std::string policy = "Background";
  if (latest->HasFinalizer(kFinalizerOrphan)) {
    policy = "Orphan";
  } else if (latest->HasFinalizer(kFinalizerDeleteDependents)) {
    policy = "Foreground";
  }
  KLOG_V(2) << "\"Deleting item\" item=\"" << identity.String() << "\" propagationPolicy=\""
            << policy << "\"";
  co_return co_await DeleteObject(identity, std::move(policy));
}

Awaitable<std::expected<void, GcError>> GarbageCollector::ProcessDeletingDependents(
    std::shared_ptr<Node> item) {
  std::vector<std::shared_ptr<Node>> blocking = item->BlockingDependents();
  if (blocking.empty()) {
    KLOG_V(2) << "\"remove DeleteDependents finalizer for item\" item=\"" << item->identity.String()
              << "\"";
    co_return co_await RemoveFinalizer(item->identity, kFinalizerDeleteDependents);
  }
  for (const auto& dep : blocking) {
    if (dep->deleting_dependents) continue;
    KLOG_V(2) << "\"adding dependent to attemptToDelete, because its owner is "
                 "deletingDependents\" item=\""
              << item->identity.String() << "\" dependent=\"" << dep->identity.String() << "\"";
    attempt_to_delete_->Add(dep->identity.uid);
  }
  co_return std::expected<void, GcError>();
}

Awaitable<std::expected<GarbageCollector::OwnerLookup, GcError>> GarbageCollector::IsDangling(
    OwnerReference ref, ObjectRef item) {
  ObjectRef key = RefOf(ref, "");
  if (absent_owners_.Has(key)) {
    KLOG_V(5) << "\"according to the absentOwnerCache, item's owner does not exist\" item=\""
              << item.String() << "\" owner=\"" << key.String() << "\"";
    co_return OwnerLookup{true, std::nullopt};
  }
  key.namespace_name = item.namespace_name;
  if (absent_owners_.Has(key)) {
    KLOG_V(5) << "\"according to the absentOwnerCache, item's owner does not exist in "
                 "namespace\" item=\""
              << item.String() << "\" owner=\"" << key.String() << "\"";
    co_return OwnerLookup{true, std::nullopt};
  }
  auto m = mapper_.Map(ref.api_version, ref.kind);
  if (!m) {
    co_return std::unexpected(
        GcError{GcError::kRestMapping, RestMappingError(ref.api_version, ref.kind)});
  }
  if (!m->namespaced) key.namespace_name.clear();
  if (item.namespace_name.empty() && m->namespaced) {
    // A cluster-scoped object cannot have a namespaced owner; retrying will not help.
    KLOG_V(2) << "\"item is cluster-scoped, but refers to a namespaced owner\" item=\""
              << item.String() << "\" owner=\"" << key.String() << "\"";
    co_return std::unexpected(GcError{GcError::kNamespacedOwnerOfClusterScoped,
                                      "cluster-scoped objects cannot refer to namespaced owners"});
  }
  // A namespaced owner is looked for in the dependent's namespace only.
  std::string ns = m->namespaced ? item.namespace_name : std::string();
  auto owner = co_await objects_->Get(m->gvr, std::move(ns), ref.name);
  if (!owner) {
    if (!owner.error().IsNotFound()) co_return std::unexpected(ApiFailure(owner.error()));
    absent_owners_.Add(key);
    KLOG_V(5) << "\"item's owner is not found\" item=\"" << item.String() << "\" owner=\""
              << key.String() << "\"";
    co_return OwnerLookup{true, std::nullopt};
  }
  if (owner->uid != ref.uid) {
    KLOG_V(5) << "\"item's owner is not found, UID mismatch\" item=\"" << item.String()
              << "\" owner=\"" << key.String() << "\"";
    absent_owners_.Add(key);
    co_return OwnerLookup{true, std::nullopt};
  }
  co_return OwnerLookup{false, std::move(*owner)};
}

Awaitable<std::expected<GarbageCollector::Classified, GcError>>
GarbageCollector::ClassifyReferences(ObjectRef item, std::vector<OwnerReference> refs) {
  Classified out;
  for (const OwnerReference& ref : refs) {
    auto lookup = co_await IsDangling(ref, item);
    if (!lookup) co_return std::unexpected(lookup.error());
    if (lookup->dangling) {
      out.dangling.push_back(ref);
    } else if (lookup->owner->being_deleted &&
               lookup->owner->HasFinalizer(kFinalizerDeleteDependents)) {
      out.waiting.push_back(ref);
    } else {
      out.solid.push_back(ref);
    }
  }
  co_return out;
}

// ---------------------------------------------------------------------------------------
// attemptToOrphan

Awaitable<WorkAction> GarbageCollector::AttemptToOrphanWorker(std::string uid) {
  std::shared_ptr<Node> owner = builder_.graph().Find(uid);
  if (!owner) co_return WorkAction::kForget;
  const ObjectRef identity = owner->identity;
  auto orphaned = co_await OrphanDependents(identity, owner->Dependents());
  if (!orphaned) {
    KLOG_ERROR << "orphanDependents for " << identity.String() << " failed with "
               << orphaned.error().message;
    co_return WorkAction::kRequeue;
  }
  auto removed = co_await RemoveFinalizer(identity, kFinalizerOrphan);
  if (!removed) {
    KLOG_ERROR << "removeOrphanFinalizer for " << identity.String() << " failed with "
               << removed.error().message;
    co_return WorkAction::kRequeue;
  }
  co_return WorkAction::kForget;
}

Awaitable<std::expected<void, GcError>> GarbageCollector::OrphanDependents(
    ObjectRef owner, std::vector<std::shared_ptr<Node>> deps) {
  // Every dependent is patched at once (each its own coroutine on this strand); the last
  // one to finish wakes the waiter.
  struct Group {
    explicit Group(const Strand& s) : done(s, net::steady_timer::time_point::max()) {}
    size_t pending = 0;
    std::vector<std::string> errors;
    net::steady_timer done;
  };
  auto group = std::make_shared<Group>(strand_);
  group->pending = deps.size();
  auto self = shared_from_this();
  for (const auto& dep : deps) {
    const ObjectRef dependent = dep->identity;
    auto task = [self, group, dependent, owner]() -> Awaitable<void> {
      std::string strategic = DeleteOwnerRefsStrategicPatch(dependent.uid, {owner.uid});
      const std::string owner_uid = owner.uid;
      MergePatchFunc fallback = [owner_uid](const ObjectMeta& current) {
        return DeleteOwnerRefsMergePatch(current, {owner_uid});
      };
      auto r = co_await self->PatchObject(dependent, std::move(strategic), std::move(fallback));
      // A dependent gone meanwhile needs nothing.
      if (!r && !(r.error().kind == GcError::kOther && r.error().api.IsNotFound())) {
        group->errors.push_back("orphaning " + dependent.String() + " failed, " +
                                r.error().message);
      }
      if (--group->pending == 0) group->done.cancel();
    };
    net::co_spawn(strand_, std::move(task), net::detached);
  }
  if (group->pending > 0) {
    boost::system::error_code ec;
    co_await group->done.async_wait(net::redirect_error(net::use_awaitable, ec));
  }
  if (!group->errors.empty()) {
    co_return std::unexpected(
        GcError{GcError::kOther, "failed to orphan dependents of owner " + owner.String() +
                                     ", got errors: " + Aggregate(group->errors)});
  }
  KLOG_V(5) << "\"successfully updated all dependents\" owner=\"" << owner.String() << "\"";
  co_return std::expected<void, GcError>();
}

}  // namespace controller::garbagecollector
