#pragma once
// A pod's quality-of-service class from its containers' cpu and memory requests and
// limits, as upstream computes status.qosClass.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace master::resources {

// "Guaranteed", "Burstable" or "BestEffort" for a (defaulted) pod spec.
std::string QOSClass(const nlohmann::json& pod_spec);

}  // namespace master::resources
