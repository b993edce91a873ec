#include "pkg/controller/garbagecollector/graph.h"

#include <set>

namespace controller::garbagecollector {

std::vector<std::shared_ptr<Node>> Node::Dependents() const {
  std::vector<std::shared_ptr<Node>> out;
  out.reserve(dependents.size());
  for (const auto& [uid, dep] : dependents) out.push_back(dep);
  return out;
}

std::vector<std::shared_ptr<Node>> Node::BlockingDependents() const {
  std::vector<std::shared_ptr<Node>> out;
  for (const auto& [uid, dep] : dependents) {
    for (const OwnerReference& ref : dep->owners) {
      if (ref.uid == identity.uid && ref.Blocking()) {
        out.push_back(dep);
        break;
      }
    }
  }
  return out;
}

std::shared_ptr<Node> Node::Clone() const { return std::make_shared<Node>(*this); }

std::shared_ptr<Node> Graph::Find(const std::string& uid) const {
  auto it = nodes_.find(uid);
  return it == nodes_.end() ? nullptr : it->second;
}

void Graph::Write(std::shared_ptr<Node> node) {
  const std::string uid = node->identity.uid;
  nodes_[uid] = std::move(node);
}

void Graph::Erase(const std::string& uid) { nodes_.erase(uid); }

ReferenceDiff DiffReferences(const std::vector<OwnerReference>& old_refs,
                             const std::vector<OwnerReference>& new_refs) {
  ReferenceDiff diff;
  std::map<std::string, const OwnerReference*> old_by_uid;
  for (const OwnerReference& r : old_refs) old_by_uid[r.uid] = &r;
  std::set<std::string> kept;
  for (const OwnerReference& r : new_refs) {
    auto it = old_by_uid.find(r.uid);
    if (it == old_by_uid.end()) {
      diff.added.push_back(r);
      continue;
    }
    kept.insert(r.uid);
    if (!(*it->second == r)) diff.changed.emplace_back(*it->second, r);
  }
  for (const auto& [uid, r] : old_by_uid) {
    if (!kept.contains(uid)) diff.removed.push_back(*r);
  }
  return diff;
}

Partition PartitionDependents(const std::vector<std::shared_ptr<Node>>& dependents,
                              const ObjectRef& owner) {
  Partition out;
  const bool owner_namespaced = !owner.namespace_name.empty();
  for (const auto& dep : dependents) {
    bool match = false, mismatch = false;
    if (owner_namespaced && dep->identity.namespace_name != owner.namespace_name) {
      // A namespaced owner can only own objects of its own namespace.
      mismatch = true;
    } else {
      for (const OwnerReference& ref : dep->owners) {
        if (ref.uid != owner.uid) continue;
        if (MatchesCoordinates(ref, owner)) {
          match = true;
        } else {
          mismatch = true;
        }
      }
    }
    if (match) out.matching.push_back(dep);
    if (mismatch) out.nonmatching.push_back(dep);
  }
  return out;
}

std::optional<ObjectRef> AlternateOwnerIdentity(const std::vector<std::shared_ptr<Node>>& deps,
                                                const ObjectRef& absent) {
  const bool absent_cluster_scoped = absent.namespace_name.empty();
  std::optional<ObjectRef> first, first_after;
  std::vector<ObjectRef> seen{absent};
  auto was_seen = [&seen](const ObjectRef& r) {
    for (const ObjectRef& s : seen) {
      if (s == r) return true;
    }
    return false;
  };
  for (const auto& dep : deps) {
    for (const OwnerReference& ref : dep->owners) {
      if (ref.uid != absent.uid) continue;
      if (MatchesCoordinates(ref, absent) &&
          (absent_cluster_scoped || absent.namespace_name == dep->identity.namespace_name)) {
        continue;  // the very identity found absent
      }
      ObjectRef candidate = RefOf(ref, dep->identity.namespace_name);
      // The kind of `absent` is known to be cluster-scoped: drop the dependent's namespace.
      if (absent_cluster_scoped && candidate.api_version == absent.api_version &&
          candidate.kind == absent.kind) {
        candidate.namespace_name.clear();
      }
      if (was_seen(candidate)) continue;
      seen.push_back(candidate);
      if (!first || ReferenceLess(candidate, *first)) first = candidate;
      if (ReferenceLess(absent, candidate) &&
          (!first_after || ReferenceLess(candidate, *first_after))) {
        first_after = candidate;
      }
    }
  }
  return first_after ? first_after : first;
}

bool DeletionStartsWithFinalizer(const ObjectMeta* old_object, const ObjectMeta& object,
                                 std::string_view finalizer) {
  if (!object.being_deleted || !object.HasFinalizer(finalizer)) return false;
  if (old_object == nullptr) return true;
  return !old_object->being_deleted || !old_object->HasFinalizer(finalizer);
}

}  // namespace controller::garbagecollector
