#pragma once
// A pod's quality-of-service class from its containers' cpu and memory requests and
// limits, as upstream computes status.qosClass.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace master::resources {

// "Guaranteed", "Burstable" or "BestEffort" for a (defaulted) pod spec.
std::string QOSClass(const nlohmann::json& pod_spec);

// The value of a resource quantity ("500m", "1Gi", "2e3"), std::nullopt when it is not one.
std::optional<long double> QuantityValue(std::string_view text);

}  // namespace master::resources
