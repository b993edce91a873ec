#pragma once
// The graph builder: turns the informers' add, update and delete events (and the virtual
// delete events the workers make for owners the API server does not have) into changes of
// the dependency graph, and asks for the work those changes call for: an object to check
// for deletion (an owner vanished, an owner waits for its dependents, a dependent stopped
// blocking its owner, a virtual owner to verify), an owner whose dependents are to be
// orphaned, or a Warning event about an owner reference to another namespace.
//
// Threads: none of its own. It lives on the garbage collector's strand with the graph and
// the absent-owner cache; Process runs there, and the actions it calls must only enqueue
// (they run synchronously inside Process).

#include <functional>
#include <optional>
#include <string>

#include "pkg/controller/garbagecollector/absent_owner_cache.h"
#include "pkg/controller/garbagecollector/graph.h"
#include "pkg/controller/garbagecollector/object_meta.h"

namespace controller::garbagecollector {

enum class EventType { kAdd, kUpdate, kDelete };

struct GraphEvent {
  EventType type = EventType::kAdd;
  // Made by a worker (the object was not found), not observed through an informer.
  bool is_virtual = false;
  // The resource's apiVersion and kind (the informer's, as metadata-only objects say
  // meta.k8s.io/v1 PartialObjectMetadata; a virtual event's, from the node it is about).
  std::string api_version, kind;
  ObjectMeta object;
  std::optional<ObjectMeta> old_object;  // updates only
};

struct GraphActions {
  std::function<void(const std::string& uid)> attempt_to_delete;
  std::function<void(const std::string& uid)> attempt_to_delete_rate_limited;
  std::function<void(const std::string& uid)> attempt_to_orphan;
  // A Warning event with reason OwnerRefInvalidNamespace about `dependent`.
  std::function<void(const ObjectRef& dependent, const std::string& message)>
      invalid_owner_namespace;
};

class GraphBuilder {
 public:
  GraphBuilder(GraphActions actions, AbsentOwnerCache& absent_owners);
  void Process(const GraphEvent& event);
  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }

 private:
  void InsertNode(const std::shared_ptr<Node>& node);
  void RemoveNode(const std::shared_ptr<Node>& node);
  void AddDependentToOwners(const std::shared_ptr<Node>& node,
                            const std::vector<OwnerReference>& owners);
  void RemoveDependentFromOwners(const std::shared_ptr<Node>& node,
                                 const std::vector<OwnerReference>& owners);
  void AddUnblockedOwnersToDeleteQueue(const ReferenceDiff& diff);
  void ProcessTransitions(const ObjectMeta* old_object, const ObjectMeta& object,
                          const std::shared_ptr<Node>& node);
  void ProcessDelete(const GraphEvent& event, const std::shared_ptr<Node>& existing);
  void ReportInvalidNamespaceOwnerRef(const Node& dependent, const std::string& owner_uid);
  void AttemptToDelete(const std::shared_ptr<Node>& node) const;

  GraphActions actions_;
  AbsentOwnerCache& absent_owners_;
  Graph graph_;
};

// The identity an event gives its object.
ObjectRef IdentityOf(const GraphEvent& event);

}  // namespace controller::garbagecollector
