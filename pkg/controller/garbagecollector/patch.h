#pragma once
// The patch bodies the garbage collector sends. Owner references are removed or unblocked
// with a strategic merge patch (list items merged by uid, `$patch: delete` removing one;
// the object's uid in the patch is a precondition); resources that refuse strategic merge
// patches (custom resources answer 415) get a JSON merge patch of the whole
// ownerReferences list instead, built from the object's current metadata with its
// resourceVersion as precondition. Finalizers are removed with a JSON merge patch of the
// remaining list and the resourceVersion. Pure.

#include <string>
#include <vector>

#include "pkg/controller/garbagecollector/object_meta.h"

namespace controller::garbagecollector {

inline constexpr char kStrategicMergePatch[] = "application/strategic-merge-patch+json";
inline constexpr char kMergePatch[] = "application/merge-patch+json";

// {"metadata":{"ownerReferences":[{"$patch":"delete","uid":...},...],"uid":<dependent>}}
std::string DeleteOwnerRefsStrategicPatch(const std::string& dependent_uid,
                                          const std::vector<std::string>& owner_uids);
// {"metadata":{"ownerReferences":<current minus those owners, or null>,"resourceVersion":..}}
std::string DeleteOwnerRefsMergePatch(const ObjectMeta& current,
                                      const std::vector<std::string>& owner_uids);
// The blocking references of `owners` again with blockOwnerDeletion=false.
std::string UnblockOwnerRefsStrategicPatch(const std::string& uid,
                                           const std::vector<OwnerReference>& owners);
// Every reference of `owners` with blockOwnerDeletion=false, at `resource_version`.
std::string UnblockOwnerRefsMergePatch(const std::vector<OwnerReference>& owners,
                                       const std::string& resource_version);
// {"metadata":{"finalizers":<the others, or null>,"resourceVersion":...}}
std::string RemoveFinalizerMergePatch(const ObjectMeta& current, const std::string& finalizer);

}  // namespace controller::garbagecollector
