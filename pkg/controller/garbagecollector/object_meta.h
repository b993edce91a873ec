#pragma once
// The little of an object the garbage collector looks at: its coordinates, its owner
// references, its finalizers and whether it is being deleted, read from the metadata of a
// PartialObjectMetadata (or any object). Pure values, no threads.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace controller::garbagecollector {

// The finalizers of the two non-background propagation policies (metav1's names).
inline constexpr char kFinalizerOrphan[] = "orphan";
inline constexpr char kFinalizerDeleteDependents[] = "foregroundDeletion";

// metadata.ownerReferences[i]; the optional fields stay unset when absent, so that a change
// from absent to false counts as a change (as upstream compares the pointers' targets).
struct OwnerReference {
  std::string api_version, kind, name, uid;
  std::optional<bool> controller, block_owner_deletion;
  bool operator==(const OwnerReference&) const = default;
  bool Blocking() const { return block_owner_deletion.value_or(false); }
};

// Where an object is: apiVersion, kind, namespace (empty when cluster-scoped), name, uid.
// The graph's node identity, and what an owner reference points at once the dependent's
// namespace is added (upstream's objectReference).
struct ObjectRef {
  std::string api_version, kind, namespace_name, name, uid;
  bool operator==(const ObjectRef&) const = default;
  // "[apps/v1/ReplicaSet, namespace: default, name: web, uid: 1234]", as upstream prints it
  // in logs and in the OwnerRefInvalidNamespace event.
  std::string String() const;
};

// The coordinates of an owner reference, in the namespace given.
ObjectRef RefOf(const OwnerReference& owner, std::string namespace_name);
// Same uid, name, kind and apiVersion (the namespace is not part of a reference).
bool MatchesCoordinates(const OwnerReference& ref, const ObjectRef& identity);
// Upstream's ordering of identities when choosing between candidates: kind, apiVersion,
// namespace, name, uid.
bool ReferenceLess(const ObjectRef& a, const ObjectRef& b);

struct ObjectMeta {
  std::string uid, name, namespace_name, resource_version;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  bool being_deleted = false;  // metadata.deletionTimestamp is set
  bool HasFinalizer(std::string_view finalizer) const;
};

// Reads an object's metadata (missing fields stay empty).
ObjectMeta ParseObjectMeta(const nlohmann::json& object);
std::vector<OwnerReference> ParseOwnerReferences(const nlohmann::json& refs);
// The JSON of an owner reference (unset optional fields left out).
nlohmann::json OwnerReferenceJson(const OwnerReference& ref);

// "uid1, uid2" style rendering of owner references for log lines.
std::string Describe(const std::vector<OwnerReference>& refs);

}  // namespace controller::garbagecollector
