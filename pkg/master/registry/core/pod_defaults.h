#pragma once
// Upstream's defaults for pod specs, wherever a pod spec appears: in pods and in the pod
// templates of workloads (what `kubectl get -o yaml` shows after a plain manifest).

#include <nlohmann/json_fwd.hpp>

#include "pkg/master/registry/fields.h"

namespace master::resources {

// Containers, volumes and the spec's own fields (dnsPolicy, restartPolicy,
// schedulerName, securityContext, terminationGracePeriodSeconds).
void DefaultPodSpec(nlohmann::json& spec);

// A pod template (spec.template of a workload): its spec, and the
// `metadata.creationTimestamp: null` upstream's encoding always writes for it.
void DefaultPodTemplate(nlohmann::json& template_);

}  // namespace master::resources
