#include "pkg/genericserver/registry/resource_spec.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/apimachinery/patch/openapi_patch_schema.h"
#include "pkg/util/strings.h"

namespace registry {

const Subresource* ResourceSpec::FindSubresource(std::string_view name) const {
  for (const Subresource& s : subresources) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void ResourceSpec::Complete() {
  if (list_kind.empty()) list_kind = kind + "List";
  if (singular.empty()) singular = util::ToLower(kind);
  if (storage_prefix.empty())
    storage_prefix = group.empty() ? "/" + plural : "/" + group + "/" + plural;
  if (!strategy) strategy = std::make_shared<Strategy>();
  if (!patch_schema && !unstructured && components && !schema_name.empty()) {
    // The components outlive every spec (they are static data): borrow, do not copy.
    std::shared_ptr<const nlohmann::json> borrowed(std::shared_ptr<void>(), components);
    auto schema = apimachinery::patch::NewOpenApiPatchSchema(borrowed, schema_name);
    if (schema) patch_schema = *schema;
  }
  if (!field_manager) {
    apimachinery::managedfields::FieldManager::Options o;
    o.components = components;
    o.schema_name = schema_name;
    o.fallback = shared_components;
    o.api_version = GroupVersion();
    o.kind = kind;
    o.unstructured = unstructured != nullptr;
    field_manager = std::make_shared<apimachinery::managedfields::FieldManager>(std::move(o));
  }
}

}  // namespace registry
