#pragma once
// The status a ResourceQuota should have after a sync (upstream's syncResourceQuota):
// status.hard is spec.hard as given, status.used the usage just calculated, plus what the
// old status said of resources of spec.hard no evaluator measured, and nothing else. It is
// written when status.hard differs from spec.hard (by value), when status.hard or
// status.used is missing, or when the used quantities changed (by value: "1000m" is "1").
// Pure.

#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/resource_list.h"

namespace controller::resourcequota {

// The ResourceQuota `quota` with its new status, or std::nullopt when it needs no update.
std::optional<nlohmann::json> UpdatedQuota(const nlohmann::json& quota,
                                           const ResourceList& new_usage);

// Two JSON resource lists hold the same resources with equal quantities (absent and empty
// are equal; a value that does not parse equals only the same text).
bool SemanticEqual(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace controller::resourcequota
