#include "pkg/controller/garbagecollector/graph_builder.h"

#include "pkg/util/log.h"

namespace controller::garbagecollector {

namespace {

const char* TypeName(EventType t) {
  switch (t) {
    case EventType::kAdd:
      return "add";
    case EventType::kUpdate:
      return "update";
    case EventType::kDelete:
      return "delete";
  }
  return "unknown";
}

}  // namespace

ObjectRef IdentityOf(const GraphEvent& event) {
  return ObjectRef{event.api_version, event.kind, event.object.namespace_name, event.object.name,
                   event.object.uid};
}

GraphBuilder::GraphBuilder(GraphActions actions, AbsentOwnerCache& absent_owners)
    : actions_(std::move(actions)), absent_owners_(absent_owners) {}

void GraphBuilder::AttemptToDelete(const std::shared_ptr<Node>& node) const {
  if (actions_.attempt_to_delete) actions_.attempt_to_delete(node->identity.uid);
}

void GraphBuilder::ReportInvalidNamespaceOwnerRef(const Node& dependent,
                                                  const std::string& owner_uid) {
  const OwnerReference* invalid = nullptr;
  for (const OwnerReference& ref : dependent.owners) {
    if (ref.uid == owner_uid) {
      invalid = &ref;
      break;
    }
  }
  if (invalid == nullptr || !actions_.invalid_owner_namespace) return;
  const ObjectRef shown = RefOf(*invalid, dependent.identity.namespace_name);
  actions_.invalid_owner_namespace(
      dependent.identity, "ownerRef " + shown.String() + " does not exist in namespace \"" +
                              dependent.identity.namespace_name + "\"");
}

void GraphBuilder::InsertNode(const std::shared_ptr<Node>& node) {
  graph_.Write(node);
  AddDependentToOwners(node, node->owners);
}

void GraphBuilder::RemoveNode(const std::shared_ptr<Node>& node) {
  graph_.Erase(node->identity.uid);
  RemoveDependentFromOwners(node, node->owners);
}

void GraphBuilder::AddDependentToOwners(const std::shared_ptr<Node>& node,
                                        const std::vector<OwnerReference>& owners) {
  // Set when an owner already in the graph disagrees with the reference (another
  // namespace, other coordinates): the dependent is then checked against the API.
  bool potentially_invalid = false;
  for (const OwnerReference& ref : owners) {
    std::shared_ptr<Node> owner = graph_.Find(ref.uid);
    const bool known = owner != nullptr;
    if (!known) {
      owner = std::make_shared<Node>();
      owner->identity = RefOf(ref, node->identity.namespace_name);
      owner->is_virtual = true;
      KLOG_V(5) << "\"add virtual item\" identity=\"" << owner->identity.String() << "\"";
      graph_.Write(owner);
    }
    owner->dependents[node->identity.uid] = node;
    if (!known) {
      // Verified against the API server by a worker; a virtual delete event removes it if
      // it does not exist.
      AttemptToDelete(owner);
      continue;
    }
    if (potentially_invalid) continue;
    const bool owner_namespaced = !owner->identity.namespace_name.empty();
    if (owner_namespaced && owner->identity.namespace_name != node->identity.namespace_name) {
      if (!owner->is_virtual) {
        // An observed namespaced owner in another namespace: certainly wrong (cluster-scoped
        // owners may be named from anywhere).
        KLOG_V(2) << "\"item references an owner but does not match namespaces\" item=\""
                  << node->identity.String() << "\" owner=\"" << owner->identity.String() << "\"";
        ReportInvalidNamespaceOwnerRef(*node, ref.uid);
      }
      potentially_invalid = true;
    } else if (!MatchesCoordinates(ref, owner->identity)) {
      if (!owner->is_virtual) {
        KLOG_V(2) << "\"item references an owner with coordinates that do not match the "
                     "observed identity\" item=\""
                  << node->identity.String() << "\" owner=\"" << owner->identity.String() << "\"";
      }
      potentially_invalid = true;
    } else if (!owner_namespaced &&
               owner->identity.namespace_name != node->identity.namespace_name &&
               owner->is_virtual) {
      // A virtual cluster-scoped owner named from a namespace: it may be a missing
      // namespaced object referenced from a cluster-scoped dependent; verify the dependent.
      potentially_invalid = true;
    }
  }
  if (potentially_invalid) AttemptToDelete(node);
}

void GraphBuilder::RemoveDependentFromOwners(const std::shared_ptr<Node>& node,
                                             const std::vector<OwnerReference>& owners) {
  for (const OwnerReference& ref : owners) {
    std::shared_ptr<Node> owner = graph_.Find(ref.uid);
    if (owner) owner->dependents.erase(node->identity.uid);
  }
}

void GraphBuilder::AddUnblockedOwnersToDeleteQueue(const ReferenceDiff& diff) {
  auto enqueue = [this](const std::string& uid) {
    std::shared_ptr<Node> owner = graph_.Find(uid);
    if (!owner) {
      KLOG_V(5) << "\"cannot find uid in uidToNode\" uid=\"" << uid << "\"";
      return;
    }
    AttemptToDelete(owner);
  };
  for (const OwnerReference& ref : diff.removed) {
    if (ref.Blocking()) enqueue(ref.uid);
  }
  for (const auto& [old_ref, new_ref] : diff.changed) {
    if (old_ref.Blocking() && !new_ref.Blocking()) enqueue(new_ref.uid);
  }
}

void GraphBuilder::ProcessTransitions(const ObjectMeta* old_object, const ObjectMeta& object,
                                      const std::shared_ptr<Node>& node) {
  if (DeletionStartsWithFinalizer(old_object, object, kFinalizerOrphan)) {
    KLOG_V(5) << "\"add item to attemptToOrphan\" item=\"" << node->identity.String() << "\"";
    if (actions_.attempt_to_orphan) actions_.attempt_to_orphan(node->identity.uid);
    return;
  }
  if (DeletionStartsWithFinalizer(old_object, object, kFinalizerDeleteDependents)) {
    KLOG_V(2) << "\"add item to attemptToDelete, because it's waiting for its dependents to be "
                 "deleted\" item=\""
              << node->identity.String() << "\"";
    // A node first made virtual had no way to know; set it here in any case.
    node->deleting_dependents = true;
    for (const auto& [uid, dep] : node->dependents) AttemptToDelete(dep);
    AttemptToDelete(node);
  }
}

void GraphBuilder::Process(const GraphEvent& event) {
  const ObjectMeta& object = event.object;
  KLOG_V(5) << "\"GraphBuilder process object\" apiVersion=\"" << event.api_version << "\" kind=\""
            << event.kind << "\" object=\""
            << (object.namespace_name.empty() ? "" : object.namespace_name + "/") << object.name
            << "\" uid=\"" << object.uid << "\" eventType=\"" << TypeName(event.type)
            << "\" virtual=" << (event.is_virtual ? "true" : "false");
  if (object.uid.empty()) return;

  std::shared_ptr<Node> existing = graph_.Find(object.uid);
  if (existing && !event.is_virtual && existing->is_virtual) {
    // First sight through an informer of a node known only from owner references.
    const ObjectRef observed = IdentityOf(event);
    if (!(observed == existing->identity)) {
      // Dependents that named it otherwise get checked; their owners may still be solid.
      Partition p = PartitionDependents(existing->Dependents(), observed);
      for (const auto& dep : p.nonmatching) {
        if (!observed.namespace_name.empty() &&
            dep->identity.namespace_name != observed.namespace_name) {
          KLOG_V(2) << "\"item references an owner but does not match namespaces\" item=\""
                    << dep->identity.String() << "\" owner=\"" << observed.String() << "\"";
          ReportInvalidNamespaceOwnerRef(*dep, observed.uid);
        }
        AttemptToDelete(dep);
      }
      KLOG_V(2) << "\"replacing virtual item with observed item\" virtual=\""
                << existing->identity.String() << "\" observed=\"" << observed.String() << "\"";
      existing = existing->Clone();
      existing->identity = observed;
      graph_.Write(existing);
    }
    existing->is_virtual = false;
  }

  const ObjectMeta* old_object = event.old_object ? &*event.old_object : nullptr;
  if (event.type != EventType::kDelete && !existing) {
    auto node = std::make_shared<Node>();
    node->identity = IdentityOf(event);
    node->owners = object.owner_references;
    node->being_deleted = object.being_deleted;
    node->deleting_dependents =
        object.being_deleted && object.HasFinalizer(kFinalizerDeleteDependents);
    InsertNode(node);
    // An informer may fold a creation and the start of a deletion into one event.
    ProcessTransitions(old_object, object, node);
    return;
  }
  if (event.type != EventType::kDelete) {
    ReferenceDiff diff = DiffReferences(existing->owners, object.owner_references);
    if (!diff.empty()) {
      // Owners waiting for their dependents may be unblocked by this change.
      AddUnblockedOwnersToDeleteQueue(diff);
      existing->owners = object.owner_references;
      AddDependentToOwners(existing, diff.added);
      RemoveDependentFromOwners(existing, diff.removed);
    }
    if (object.being_deleted) existing->being_deleted = true;
    ProcessTransitions(old_object, object, existing);
    return;
  }
  ProcessDelete(event, existing);
}

void GraphBuilder::ProcessDelete(const GraphEvent& event, const std::shared_ptr<Node>& existing) {
  if (!existing) {
    KLOG_V(5) << "\"item doesn't exist in the graph, this shouldn't happen\" item=\""
              << event.object.uid << "\"";
    return;
  }
  bool remove = true;
  if (event.is_virtual) {
    // A worker found no object for these coordinates.
    const ObjectRef deleted = IdentityOf(event);
    if (existing->is_virtual) {
      // Unsure of its coordinates ourselves: dependents may name the uid otherwise.
      Partition p = PartitionDependents(existing->Dependents(), deleted);
      if (!p.nonmatching.empty()) {
        remove = false;
        if (!p.matching.empty()) {
          absent_owners_.Add(deleted);
          for (const auto& dep : p.matching) AttemptToDelete(dep);
        }
        if (existing->identity == deleted) {
          // Try one of the other identities the dependents give it.
          if (auto alternate = AlternateOwnerIdentity(p.nonmatching, deleted)) {
            auto replacement = existing->Clone();
            replacement->identity = *alternate;
            graph_.Write(replacement);
            if (actions_.attempt_to_delete_rate_limited) {
              actions_.attempt_to_delete_rate_limited(replacement->identity.uid);
            }
          }
        }
      }
    } else if (!(existing->identity == deleted)) {
      // An observed node is not removed on the word of a virtual event for other coordinates;
      // only the dependents that named those coordinates are affected.
      remove = false;
      Partition p = PartitionDependents(existing->Dependents(), deleted);
      if (!p.matching.empty()) {
        absent_owners_.Add(deleted);
        for (const auto& dep : p.matching) AttemptToDelete(dep);
      }
    }
  }
  if (!remove) return;
  RemoveNode(existing);
  if (!existing->dependents.empty()) absent_owners_.Add(IdentityOf(event));
  for (const auto& [uid, dep] : existing->dependents) AttemptToDelete(dep);
  for (const OwnerReference& ref : existing->owners) {
    std::shared_ptr<Node> owner = graph_.Find(ref.uid);
    // An owner deleting its dependents in the foreground may now have none left.
    if (owner && owner->deleting_dependents) AttemptToDelete(owner);
  }
}

}  // namespace controller::garbagecollector
