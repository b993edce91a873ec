#pragma once
// The dependency graph: one node per uid, observed through an informer or only named as an
// owner by some dependent ("virtual", its coordinates taken from that owner reference and
// the dependent's namespace until the API server confirms or denies them). Each node knows
// its owner references and its dependents, whether it is being deleted, and whether it is
// deleting its dependents in the foreground. Plus the pure helpers the graph builder uses
// to compare references.
//
// Threads: none of its own. The graph and its nodes belong to the garbage collector's
// strand: the graph builder writes them there, and the workers, whose coroutines run on the
// same strand, read them there. A worker that holds a node across an await may find it
// replaced in the graph (a virtual node gets a new identity by copy, not in place).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/controller/garbagecollector/object_meta.h"

namespace controller::garbagecollector {

struct Node {
  ObjectRef identity;
  std::vector<OwnerReference> owners;
  // The nodes whose owner references name this node's uid, by their uid.
  std::map<std::string, std::shared_ptr<Node>> dependents;
  // metadata.deletionTimestamp was seen (a one-way trip).
  bool being_deleted = false;
  // Being deleted with the foregroundDeletion finalizer: waits for its blocking dependents.
  bool deleting_dependents = false;
  // Made from an owner reference, never observed through an informer.
  bool is_virtual = false;

  std::vector<std::shared_ptr<Node>> Dependents() const;
  // Dependents whose reference to this node has blockOwnerDeletion=true.
  std::vector<std::shared_ptr<Node>> BlockingDependents() const;
  // A copy with the same dependents (the graph builder replaces nodes by copies).
  std::shared_ptr<Node> Clone() const;
};

class Graph {
 public:
  std::shared_ptr<Node> Find(const std::string& uid) const;
  void Write(std::shared_ptr<Node> node);  // keyed by node->identity.uid
  void Erase(const std::string& uid);
  size_t size() const { return nodes_.size(); }
  const std::map<std::string, std::shared_ptr<Node>>& nodes() const { return nodes_; }

 private:
  std::map<std::string, std::shared_ptr<Node>> nodes_;
};

// How the owner references of an object changed, matched by uid: new ones, gone ones, and
// those whose other fields changed (old, new).
struct ReferenceDiff {
  std::vector<OwnerReference> added, removed;
  std::vector<std::pair<OwnerReference, OwnerReference>> changed;
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};
ReferenceDiff DiffReferences(const std::vector<OwnerReference>& old_refs,
                             const std::vector<OwnerReference>& new_refs);

// Splits dependents into those with an owner reference to `owner` that matches its
// coordinates (in a namespace where the owner can be) and those referring to its uid with
// other coordinates, or from another namespace than a namespaced owner's. A dependent with
// several references to the uid may land in both.
struct Partition {
  std::vector<std::shared_ptr<Node>> matching, nonmatching;
};
Partition PartitionDependents(const std::vector<std::shared_ptr<Node>>& dependents,
                              const ObjectRef& owner);

// Another identity the dependents give the uid of `absent` (just found not to exist): the
// first, in ReferenceLess order, that follows `absent`, else the first of all; none when
// every dependent agrees with `absent`.
std::optional<ObjectRef> AlternateOwnerIdentity(const std::vector<std::shared_ptr<Node>>& deps,
                                                const ObjectRef& absent);

// The object has just started being deleted with `finalizer`: the new state has the
// deletionTimestamp and the finalizer, the old one (none for an add) lacked either.
bool DeletionStartsWithFinalizer(const ObjectMeta* old_object, const ObjectMeta& object,
                                 std::string_view finalizer);

}  // namespace controller::garbagecollector
