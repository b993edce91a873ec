#pragma once
// Upstream's defaults for pod specs, wherever a pod spec appears: in pods and in the pod
// templates of workloads (what `kubectl get -o yaml` shows after a plain manifest).

#include <nlohmann/json_fwd.hpp>

namespace master::resources {

// Sets key to value when the object lacks it (or has null there).
void SetDefault(nlohmann::json& object, const char* key, const nlohmann::json& value);

// Containers, volumes and the spec's own fields (dnsPolicy, restartPolicy,
// schedulerName, securityContext, terminationGracePeriodSeconds).
void DefaultPodSpec(nlohmann::json& spec);

// A pod template (spec.template of a workload): its spec, and the
// `metadata.creationTimestamp: null` upstream's encoding always writes for it.
void DefaultPodTemplate(nlohmann::json& template_);

// The object at object[key], made an object when absent or not one.
nlohmann::json& Child(nlohmann::json& object, const char* key);

}  // namespace master::resources
