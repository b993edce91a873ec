#pragma once
// The /scale subresource of the replicated kinds (deployments, replica sets, stateful
// sets, replication controllers): an autoscaling/v1 Scale read from spec.replicas,
// status.replicas and the selector, and written back to spec.replicas.

#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

// Adds `scale` to the spec (verbs from the schema data); `selector` prints the object's
// label selector for status.selector (default: spec.selector, a metav1.LabelSelector).
void AddScale(registry::ResourceSpec& spec,
              std::function<std::string(const nlohmann::json& object)> selector = nullptr);

}  // namespace master::resources
