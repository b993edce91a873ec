#pragma once
// Upstream's validation of pod specs (pods and the templates of workloads), for the rules
// users meet: required containers and images, unique names, ports in range, enum values,
// volume mounts that name a volume. Field paths and messages as upstream prints them.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"

namespace master::resources {

// Errors of a pod spec found at `path` ("spec", "spec.template.spec"). claims: names
// volume mounts may use besides the spec's volumes (a stateful set's claim templates).
void ValidatePodSpec(const nlohmann::json& spec, const std::string& path,
                     registry::FieldErrors& errors, const std::vector<std::string>& claims = {});

// restartPolicy must be one of `allowed` (a workload's template: "Always"; a job's:
// "OnFailure", "Never").
void ValidateRestartPolicy(const nlohmann::json& spec, const std::string& path,
                           const std::vector<std::string>& allowed, registry::FieldErrors& errors);

}  // namespace master::resources
