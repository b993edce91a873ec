#include "pkg/genericserver/endpoints/openapi/root_documents.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/frame.h"
#include "pkg/genericserver/endpoints/openapi/paths.h"
#include "pkg/genericserver/endpoints/openapi/routes.h"
#include "pkg/genericserver/endpoints/openapi/schema_set.h"

namespace endpoints::openapi {
namespace {

// The discovery and version schemas (upstream's, without descriptions). No group-version
// document holds them.
constexpr std::string_view kRootSchemas = R"json({
"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup":{"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"default":"","type":"string"},"preferredVersion":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery"}],"default":{}},"serverAddressByClientCIDRs":{"items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR"}],"default":{}},"type":"array"},"versions":{"items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery"}],"default":{}},"type":"array"}},"required":["name","versions"],"type":"object","x-kubernetes-group-version-kind":[{"group":"","kind":"APIGroup","version":"v1"}]},
"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList":{"properties":{"apiVersion":{"type":"string"},"groups":{"items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup"}],"default":{}},"type":"array"},"kind":{"type":"string"}},"required":["groups"],"type":"object","x-kubernetes-group-version-kind":[{"group":"","kind":"APIGroupList","version":"v1"}]},
"io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions":{"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"serverAddressByClientCIDRs":{"items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR"}],"default":{}},"type":"array"},"versions":{"items":{"default":"","type":"string"},"type":"array"}},"required":["versions","serverAddressByClientCIDRs"],"type":"object","x-kubernetes-group-version-kind":[{"group":"","kind":"APIVersions","version":"v1"}]},
"io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery":{"properties":{"groupVersion":{"default":"","type":"string"},"version":{"default":"","type":"string"}},"required":["groupVersion","version"],"type":"object"},
"io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR":{"properties":{"clientCIDR":{"default":"","type":"string"},"serverAddress":{"default":"","type":"string"}},"required":["clientCIDR","serverAddress"],"type":"object"},
"io.k8s.apimachinery.pkg.version.Info":{"properties":{"buildDate":{"default":"","type":"string"},"compiler":{"default":"","type":"string"},"gitCommit":{"default":"","type":"string"},"gitTreeState":{"default":"","type":"string"},"gitVersion":{"default":"","type":"string"},"goVersion":{"default":"","type":"string"},"major":{"default":"","type":"string"},"minor":{"default":"","type":"string"},"platform":{"default":"","type":"string"}},"required":["major","minor","gitVersion","gitCommit","gitTreeState","buildDate","goVersion","compiler","platform"],"type":"object"}
})json";

const nlohmann::json& RootSchemas() {
  static const nlohmann::json schemas = nlohmann::json::parse(kRootSchemas);
  return schemas;
}

Route DiscoveryRoute(std::string path, std::string operation, std::string_view schema) {
  Route r;
  r.path = std::move(path);
  r.method = "get";
  r.operation = std::move(operation);
  r.produces = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
  r.replies = {{200, std::string(schema)}};
  return r;
}

}  // namespace

std::vector<std::string> RootDocumentKeys(const std::vector<std::string>& groups) {
  std::set<std::string> keys = {"apis", "version"};
  for (const std::string& group : groups) keys.insert(group.empty() ? "api" : "apis/" + group);
  return {keys.begin(), keys.end()};
}

nlohmann::json BuildRootDocument(std::string_view key) {
  Route route;
  if (key == "api") {
    route = DiscoveryRoute("/api/", "getAPIVersions",
                           "io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions");
  } else if (key == "apis") {
    route = DiscoveryRoute("/apis/", "getAPIVersions",
                           "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList");
  } else if (key == "version") {
    route = DiscoveryRoute("/version/", "getCodeVersion", "io.k8s.apimachinery.pkg.version.Info");
    route.produces = {"application/json"};
  } else {  // "apis/<group>"
    route = DiscoveryRoute("/" + std::string(key) + "/", "getAPIGroup",
                           "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup");
  }
  // Only the schemas the route refers to (and theirs), as upstream's documents hold.
  SchemaSet schemas(&RootSchemas());
  nlohmann::json paths = RenderPaths({route}, schemas);
  return NewDocument(std::move(paths), schemas.Schemas(), false);
}

}  // namespace endpoints::openapi
