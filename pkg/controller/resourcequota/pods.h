#pragma once
// The pod evaluator (upstream's pkg/quota/v1/evaluator/core/pods.go): `pods`, `count/pods`,
// `cpu`, `memory`, `ephemeral-storage`, their `requests.` and `limits.` forms, hugepages
// and extended resources (`requests.<name>`), and the pod scopes Terminating,
// NotTerminating, BestEffort, NotBestEffort, PriorityClass and CrossNamespacePodAffinity.
// Pods that are terminal (Succeeded, Failed) or past their deletion grace period count
// only in `count/pods`. Pure.

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

class PodEvaluator : public Evaluator {
 public:
  GroupResource group_resource() const override { return {"", "pods"}; }
  std::set<std::string> MatchingResources(const std::set<std::string>& names) const override;
  ScopeMatch MatchesScope(const ScopeRequirement& r, const nlohmann::json& pod) const override;
  ResourceList Usage(const nlohmann::json& pod, TimePoint now) const override;
};

// The pod's effective requests and limits (upstream's resource helpers PodRequests and
// PodLimits): the sum over its containers and restartable (sidecar) init containers, at
// least what each other init container needs beside the sidecars started before it, plus
// spec.overhead (for limits, only for resources that have a limit).
ResourceList PodRequests(const nlohmann::json& pod);
ResourceList PodLimits(const nlohmann::json& pod);

// Whether the pod is charged for compute resources (upstream's QuotaV1Pod): not Succeeded
// or Failed, and not past deletionTimestamp + deletionGracePeriodSeconds.
bool QuotaV1Pod(const nlohmann::json& pod, TimePoint now);
// spec.activeDeadlineSeconds >= 0.
bool IsTerminating(const nlohmann::json& pod);
// status.qosClass is BestEffort, or (when unset) no container requests or limits any cpu
// or memory.
bool IsBestEffort(const nlohmann::json& pod);
// A term of pod (anti-)affinity names namespaces or has a namespace selector.
bool UsesCrossNamespacePodAffinity(const nlohmann::json& pod);

}  // namespace controller::resourcequota
