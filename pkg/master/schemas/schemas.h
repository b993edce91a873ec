#pragma once
// The OpenAPI v3 schemas of the built-in API groups, derived from the upstream kube-apiserver
// documents by tools/gen_schemas.py (see tools/README.md) and embedded in the binary.
//
// Per group-version ("v1", "apps/v1", "coordination.k8s.io/v1") this holds what upstream
// serves at /openapi/v3/apis/<group>/<version> under components.schemas, without upstream's
// prose (its descriptions are left out; the few there are the project's own, descriptions.h),
// plus the kinds and resource paths the group-version serves. Everything
// here is immutable and safe to use from any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace schemas {

// The upstream release the data comes from, e.g. "v1.26.1".
std::string_view UpstreamVersion();

// Every group-version with schemas, sorted: "admissionregistration.k8s.io/v1", ..., "v1".
std::vector<std::string> GroupVersions();

// The components.schemas object of a group-version (schema name -> schema; every "$ref" in it
// resolves within it), or nullptr for a group-version without schemas. Parsed on first use;
// the pointer stays valid for the life of the process.
const nlohmann::json* Components(std::string_view group_version);

// The name of the schema of a kind in its group-version's Components, e.g.
// ("", "v1", "ConfigMap") -> "io.k8s.api.core.v1.ConfigMap". A kind that is served only as
// a subresource of another group-version (policy/v1 Eviction, autoscaling/v1 Scale) is found
// too; its schema is in the Components of the group-version whose Resources() name it.
std::optional<std::string> SchemaNameForKind(std::string_view group, std::string_view version,
                                             std::string_view kind);

// The kinds of a group-version, sorted (each has a SchemaNameForKind); empty when unknown.
// Includes the list kinds and the kinds upstream registers in every group-version
// (DeleteOptions, WatchEvent), as the x-kubernetes-group-version-kind extensions say.
std::vector<std::string> Kinds(std::string_view group_version);

// A resource path of a group-version, as upstream's paths describe it.
struct Resource {
  std::string name;  // the plural, "pods", or a subresource, "pods/status"
  bool namespaced = false;
  // The group-version-kind of the objects the path takes and returns: "Pod" for pods/status,
  // policy/v1 "Eviction" for pods/eviction, v1 "PodExecOptions" for pods/exec.
  std::string group;
  std::string version;
  std::string kind;
  std::string schema;              // its schema name in Components; empty when there is none
  std::vector<std::string> verbs;  // discovery verbs, sorted: "create", "delete", "get", ...
};

// The resources of a group-version, sorted by name; empty when unknown.
std::vector<Resource> Resources(std::string_view group_version);

}  // namespace schemas
