#include "pkg/apiextensions/validation/crd_validation.h"

#include <nlohmann/json.hpp>

namespace apiextensions::validation {

// Placeholder implementations; replaced by the CRD validation work.
void SetDefaults(nlohmann::json&) {}
FieldErrors ValidateCustomResourceDefinition(const nlohmann::json&) { return {}; }
FieldErrors ValidateCustomResourceDefinitionUpdate(const nlohmann::json&, const nlohmann::json&) {
  return {};
}
FieldErrors ValidateCustomResourceDefinitionStatusUpdate(const nlohmann::json&,
                                                         const nlohmann::json&) {
  return {};
}

}  // namespace apiextensions::validation
