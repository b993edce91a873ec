#pragma once
// ResourceSpecs for the OpenAPI tests: built-in kinds with their upstream schemas, and a
// custom kind without one.

#include <string>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/registry/resource_spec.h"

namespace openapi_test {

struct SpecArgs {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  bool namespaced = true;
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
  std::vector<registry::Subresource> subresources = {};
  bool with_schema = true;  // look the schema up in pkg/master/schemas
};

registry::ResourceSpecPtr MakeSpec(SpecArgs args);

registry::ResourceSpecPtr ConfigMaps();
registry::ResourceSpecPtr Namespaces();  // cluster-scoped, finalize and status
registry::ResourceSpecPtr Secrets();
registry::ResourceSpecPtr Leases();   // coordination.k8s.io/v1
registry::ResourceSpecPtr Widgets();  // example.com/v1, no schema, status and scale

// An APIGroupInfo with one version and these specs.
endpoints::APIGroupInfo Group(const std::string& name, const std::string& version,
                              std::vector<registry::ResourceSpecPtr> specs);

}  // namespace openapi_test
