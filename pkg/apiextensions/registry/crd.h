#pragma once
// The apiextensions.k8s.io/v1 customresourcedefinitions resource: its ResourceSpec (schema
// from the embedded upstream documents), the strategy that defaults, validates and keeps
// status.storedVersions as upstream does, and its status subresource. A DELETE marks the
// CRD with the customresourcecleanup finalizer and the Terminating condition; the
// finalizing controller (crd_finalizer.h) empties it and lets it go.

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace apiextensions {

inline constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

registry::ResourceSpecPtr CustomResourceDefinitionSpec();

// Sets (or replaces) the condition of that type in crd.status.conditions; the
// lastTransitionTime moves only when the status does. `now` is an RFC 3339 time.
void SetCondition(nlohmann::json& crd, std::string_view type, std::string_view status,
                  std::string_view reason, std::string_view message, const std::string& now);
// Whether crd.status.conditions has `type` with status "True".
bool ConditionTrue(const nlohmann::json& crd, std::string_view type);

}  // namespace apiextensions
