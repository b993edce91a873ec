#pragma once
// The PersistentVolumeClaim evaluator (upstream's evaluator/core/persistent_volume_claims.go):
// `persistentvolumeclaims`, `count/persistentvolumeclaims`, `requests.storage`, and per
// storage class `<class>.storageclass.storage.k8s.io/persistentvolumeclaims` and
// `<class>.storageclass.storage.k8s.io/requests.storage`. A claim's storage is its
// spec.resources.requests.storage, or status.allocatedResources.storage when larger,
// rounded up to a whole byte; its class the beta annotation, else spec.storageClassName.
// No scopes (the VolumeAttributesClass scope is behind a gate that is off in 1.32). Pure.

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

class PersistentVolumeClaimEvaluator : public Evaluator {
 public:
  GroupResource group_resource() const override { return {"", "persistentvolumeclaims"}; }
  std::set<std::string> MatchingResources(const std::set<std::string>& names) const override;
  ResourceList Usage(const nlohmann::json& claim, TimePoint now) const override;
};

// The claim's storage class name ("" when none).
std::string ClaimStorageClass(const nlohmann::json& claim);
// The storage the claim is charged, if it requests any.
std::optional<util::Quantity> ClaimStorage(const nlohmann::json& claim);

}  // namespace controller::resourcequota
