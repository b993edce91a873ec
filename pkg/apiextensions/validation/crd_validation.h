#pragma once
// CustomResourceDefinition (apiextensions.k8s.io/v1) defaulting and validation, as
// upstream's apiextensions-apiserver: names, group, scope, versions (exactly one storage
// version), structural schema rules, list types, printer columns, subresources, conversion,
// CEL rules compiling; every error with upstream's path and message.

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::validation {

using FieldErrors = std::vector<apimachinery::validation::FieldError>;

// Upstream's v1 SetDefaults for a CRD (names.singular and names.listKind from the kind,
// conversion strategy None, webhook service port 443, status.storedVersions from the storage
// version) applied to the object as decoded.
void SetDefaults(nlohmann::json& crd);

// A new CRD.
FieldErrors ValidateCustomResourceDefinition(const nlohmann::json& crd);
// A changed CRD (scope immutable, stored versions kept, ...); old is the stored one.
FieldErrors ValidateCustomResourceDefinitionUpdate(const nlohmann::json& crd,
                                                   const nlohmann::json& old);
// A change through /status.
FieldErrors ValidateCustomResourceDefinitionStatusUpdate(const nlohmann::json& crd,
                                                         const nlohmann::json& old);

}  // namespace apiextensions::validation
