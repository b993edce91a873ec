// BuildGroupVersionDocument: a group-version's routes and schemas as one OpenAPI document.

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/frame.h"
#include "pkg/genericserver/endpoints/openapi/naming.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/genericserver/endpoints/openapi/paths.h"
#include "pkg/genericserver/endpoints/openapi/routes.h"
#include "pkg/genericserver/endpoints/openapi/schema_set.h"

namespace endpoints::openapi {
namespace {

nlohmann::json KindExtension(const std::string& group, const std::string& version,
                             const std::string& kind) {
  return nlohmann::json::array({{{"group", group}, {"kind", kind}, {"version", version}}});
}

// The schemas of a spec's kind, list and subresources; kinds without one get the schema the
// apiextensions builder gives a custom resource without a schema (a free-form object named
// after the kind) and, when they can be listed, a list of those.
KindSchemas ResolveKindSchemas(const registry::ResourceSpec& spec, SchemaSet& schemas) {
  KindSchemas out;
  if (!spec.schema_name.empty() && schemas.Has(spec.schema_name)) {
    out.object = spec.schema_name;
  } else if (auto found = schemas.FindKind(spec.Kind())) {
    out.object = *found;
  } else {
    out.object = DefinitionName(spec.group, spec.version, spec.kind);
    schemas.Add(out.object, {{"type", "object"},
                             {"x-kubernetes-group-version-kind",
                              KindExtension(spec.group, spec.version, spec.kind)}});
  }
  const bool lists = std::find(spec.verbs.begin(), spec.verbs.end(), "list") != spec.verbs.end();
  if (auto found = schemas.FindKind({spec.group, spec.version, spec.list_kind})) {
    out.list = *found;
  } else if (lists) {  // a resource that is only a request (a review) has no list
    out.list = DefinitionName(spec.group, spec.version, spec.list_kind);
    nlohmann::json items = {{"type", "array"}, {"items", schemas.Ref(out.object)}};
    nlohmann::json list = {{"type", "object"},
                           {"required", nlohmann::json::array({"items"})},
                           {"properties",
                            {{"apiVersion", {{"type", "string"}}},
                             {"items", std::move(items)},
                             {"kind", {{"type", "string"}}},
                             {"metadata", schemas.Ref(kListMetaSchema)}}},
                           {"x-kubernetes-group-version-kind",
                            KindExtension(spec.group, spec.version, spec.list_kind)}};
    schemas.Add(out.list, std::move(list));
  }
  for (const registry::Subresource& sub : spec.subresources) {
    const registry::GroupVersionKind& kind = sub.kind;
    if (kind.kind.empty() ||
        (kind.group == spec.group && kind.version == spec.version && kind.kind == spec.kind)) {
      out.subresources[sub.name] = out.object;
    } else if (auto found = schemas.FindKind(kind)) {
      out.subresources[sub.name] = *found;
    } else if (kind.group == "autoscaling" && kind.kind == "Scale") {
      out.subresources[sub.name] = std::string(kScaleSchema);
    }
  }
  return out;
}

}  // namespace

nlohmann::json BuildGroupVersionDocument(const APIGroupInfo& group, const std::string& version) {
  return BuildGroupVersionDocument(group, version, nullptr);
}

nlohmann::json BuildGroupVersionDocument(const APIGroupInfo& group, const std::string& version,
                                         const nlohmann::json* shared_schemas) {
  static const std::vector<registry::ResourceSpecPtr> kNone;
  auto found = group.specs.find(version);
  const std::vector<registry::ResourceSpecPtr>& specs =
      found == group.specs.end() ? kNone : found->second;

  bool custom_only = !specs.empty();
  SchemaSet schemas(shared_schemas);
  for (const registry::ResourceSpecPtr& spec : specs) {
    if (!spec) continue;
    custom_only = custom_only && IsCustomResource(*spec);
    if (spec->components) schemas.Merge(*spec->components);
  }

  std::vector<Route> routes;
  if (!custom_only) routes.push_back(ResourceListRoute(group.group.name, version));
  for (const registry::ResourceSpecPtr& spec : specs) {
    if (!spec) continue;
    std::vector<Route> more = ResourceRoutes(*spec, ResolveKindSchemas(*spec, schemas));
    routes.insert(routes.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  nlohmann::json paths = RenderPaths(routes, schemas);
  // The apiextensions builder always lists ObjectMeta (with what it refers to).
  if (custom_only) schemas.Ref(kObjectMetaSchema);
  return NewDocument(std::move(paths), schemas.Schemas(), custom_only);
}

}  // namespace endpoints::openapi
