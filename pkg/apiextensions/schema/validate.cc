// ValidateCustomResource: what upstream's custom resource strategy validates with the schema
// (apiextensions-apiserver pkg/registry/customresource: validator.Validate's
// ValidateCustomResource, then objectmeta.Validate for embedded resources, then
// listtype.ValidateListSetsAndMaps), in that order. Root metadata (ValidateObjectMetaAccessor),
// scale subresource checks and x-kubernetes-validations (CEL) are done elsewhere.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/list_type.h"
#include "pkg/apiextensions/schema/object_meta.h"
#include "pkg/apiextensions/schema/openapi.h"
#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

FieldErrors ValidateCustomResource(const nlohmann::json& schema, const nlohmann::json& object) {
  if (!schema.is_object()) return {};
  FieldErrors errors = ValidateValue(schema, object);
  for (auto& e : ValidateEmbeddedResources(schema, object)) errors.push_back(std::move(e));
  for (auto& e : ValidateListSetsAndMaps(schema, object)) errors.push_back(std::move(e));
  return errors;
}

}  // namespace apiextensions::schema
