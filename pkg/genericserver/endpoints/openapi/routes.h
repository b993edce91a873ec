#pragma once
// The routes (path, method, parameters, bodies, responses) upstream's installers document
// for a resource: the generic REST installer's for built-in kinds, the apiextensions
// builder's for custom resources. Schemas are named, not resolved (see schema_set.h).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/registry/resource_spec.h"

namespace endpoints::openapi {

inline constexpr std::string_view kStatusSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
inline constexpr std::string_view kDeleteOptionsSchema =
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
inline constexpr std::string_view kPatchSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
inline constexpr std::string_view kWatchEventSchema =
    "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent";
inline constexpr std::string_view kAPIResourceListSchema =
    "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList";
inline constexpr std::string_view kObjectMetaSchema =
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
inline constexpr std::string_view kListMetaSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
inline constexpr std::string_view kScaleSchema = "io.k8s.api.autoscaling.v1.Scale";

struct Param {
  std::string name;
  std::string in;    // "path" (always required) or "query"
  std::string type;  // "string", "integer" or "boolean"
};

struct Body {
  std::vector<std::string> content_types;
  std::string schema;  // a schema name; empty: a free-form object
  bool required = false;
};

struct Reply {
  int code = 200;
  std::string schema = {};     // as Body::schema
  std::string primitive = {};  // instead of schema: {"type": primitive} ("string" for logs)
};

struct Route {
  std::string path;
  std::string method;     // "get", "put", "post", "patch", "delete"
  std::string operation;  // upstream's name before the group and version go in: "readNamespacedPod"
  std::string action;     // x-kubernetes-action; empty for routes that are not a resource's
  registry::GroupVersionKind gvk;  // x-kubernetes-group-version-kind, with action
  std::vector<Param> params;
  std::optional<Body> body;
  std::vector<Reply> replies;  // the common 401 is not listed
  std::vector<std::string> produces;
};

// The schema names a resource's routes refer to (empty: none; a free-form object is used).
struct KindSchemas {
  std::string object;
  std::string list;
  std::map<std::string, std::string> subresources;  // by subresource name: what it returns
};

// Custom resources (no strategic merge patch) are documented as apiextensions does.
bool IsCustomResource(const registry::ResourceSpec& spec);

// "/api/v1" or "/apis/<group>/<version>".
std::string GroupVersionPrefix(std::string_view group, std::string_view version);

// Every route of spec: collection, item, all-namespaces list, subresources and, for built-in
// kinds, upstream's deprecated /watch/ paths.
std::vector<Route> ResourceRoutes(const registry::ResourceSpec& spec, const KindSchemas& schemas);

// GET <prefix>/ (the group-version's APIResourceList), which built-in documents list.
Route ResourceListRoute(std::string_view group, std::string_view version);

}  // namespace endpoints::openapi
