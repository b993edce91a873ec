// BuildGroupVersionDocument: the shape of group-version documents.

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/master/schemas/schemas.h"
#include "test/unit/endpoints/openapi/specs.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

const std::vector<std::string> kMethods = {"get", "put", "post", "patch", "delete"};

json CoreDocument() {
  return endpoints::openapi::BuildGroupVersionDocument(
      Group("", "v1", {ConfigMaps(), Namespaces(), Secrets()}), "v1");
}

json CustomDocument() {
  return endpoints::openapi::BuildGroupVersionDocument(Group("example.com", "v1", {Widgets()}),
                                                       "v1", schemas::Components("v1"));
}

bool HasParam(const json& params, const std::string& name) {
  for (const json& p : params) {
    if (p.value("name", "") == name) return true;
  }
  return false;
}

// Every "$ref" inside `node`.
void Refs(const json& node, std::set<std::string>& out) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        out.insert(it.value().get<std::string>());
      } else {
        Refs(it.value(), out);
      }
    }
  } else if (node.is_array()) {
    for (const json& v : node) Refs(v, out);
  }
}

void RequireRefsResolve(const json& doc) {
  std::set<std::string> refs;
  Refs(doc, refs);
  for (const std::string& ref : refs) {
    INFO(ref);
    REQUIRE(ref.starts_with("#/components/schemas/"));
    REQUIRE(doc["components"]["schemas"].contains(ref.substr(21)));
  }
}

void RequirePatchOperationsCarryFieldValidation(const json& doc) {
  int patches = 0;
  for (auto& [path, item] : doc["paths"].items()) {
    if (!item.contains("patch")) continue;
    ++patches;
    INFO(path);
    const json& op = item["patch"];
    REQUIRE(op.contains("parameters"));
    REQUIRE(HasParam(op["parameters"], "fieldValidation"));
    REQUIRE(op["x-kubernetes-group-version-kind"].is_object());
    REQUIRE(op["requestBody"]["content"].contains("application/json-patch+json"));
    REQUIRE(op["requestBody"]["content"].contains("application/merge-patch+json"));
    REQUIRE(op["requestBody"]["content"].contains("application/apply-patch+yaml"));
  }
  REQUIRE(patches > 0);
}

}  // namespace

TEST_CASE("openapi: the document frame", "[openapi]") {
  json doc = CoreDocument();
  CHECK(doc["openapi"] == "3.0.0");
  CHECK(doc["info"]["title"] == "Kubernetes");
  CHECK(doc["info"]["version"].get<std::string>().starts_with("v1."));
  CHECK(doc["info"]["version"].get<std::string>().find('-') == std::string::npos);
  CHECK(doc["components"]["securitySchemes"]["BearerToken"]["type"] == "apiKey");
  CHECK(doc["components"]["securitySchemes"]["BearerToken"]["name"] == "authorization");
  CHECK(doc["components"]["securitySchemes"]["BearerToken"]["in"] == "header");
  // The whole components map of the group-version, as upstream serves it.
  CHECK(doc["components"]["schemas"] == *schemas::Components("v1"));
  CHECK(doc["paths"]["/api/v1/"]["get"]["operationId"] == "getCoreV1APIResources");
}

TEST_CASE("openapi: paths and operations for every verb", "[openapi]") {
  json paths = CoreDocument()["paths"];
  auto ops = [&](const std::string& path) {
    std::set<std::string> out;
    INFO(path);
    REQUIRE(paths.contains(path));
    for (const std::string& m : kMethods) {
      if (paths[path].contains(m))
        out.insert(m + " " + paths[path][m]["operationId"].get<std::string>());
    }
    return out;
  };
  using S = std::set<std::string>;
  CHECK(ops("/api/v1/namespaces/{namespace}/configmaps") ==
        S{"get listCoreV1NamespacedConfigMap", "post createCoreV1NamespacedConfigMap",
          "delete deleteCoreV1CollectionNamespacedConfigMap"});
  CHECK(ops("/api/v1/namespaces/{namespace}/configmaps/{name}") ==
        S{"get readCoreV1NamespacedConfigMap", "put replaceCoreV1NamespacedConfigMap",
          "patch patchCoreV1NamespacedConfigMap", "delete deleteCoreV1NamespacedConfigMap"});
  CHECK(ops("/api/v1/configmaps") == S{"get listCoreV1ConfigMapForAllNamespaces"});
  CHECK(ops("/api/v1/watch/namespaces/{namespace}/configmaps/{name}") ==
        S{"get watchCoreV1NamespacedConfigMap"});
  CHECK(ops("/api/v1/namespaces") == S{"get listCoreV1Namespace", "post createCoreV1Namespace"});
  CHECK(ops("/api/v1/namespaces/{name}/status") == S{"get readCoreV1NamespaceStatus",
                                                     "put replaceCoreV1NamespaceStatus",
                                                     "patch patchCoreV1NamespaceStatus"});
  CHECK(ops("/api/v1/namespaces/{name}/finalize") == S{"put replaceCoreV1NamespaceFinalize"});
  // No all-namespaces list for cluster-scoped kinds, no deletecollection without the verb.
  CHECK_FALSE(paths.contains("/api/v1/watch/namespaces/{namespace}/namespaces"));
  CHECK_FALSE(paths["/api/v1/namespaces"].contains("delete"));

  const json& patch = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  CHECK(patch["x-kubernetes-action"] == "patch");
  CHECK(patch["x-kubernetes-group-version-kind"] ==
        json{{"group", ""}, {"version", "v1"}, {"kind", "ConfigMap"}});
  CHECK(patch["tags"] == json::array({"core_v1"}));
  CHECK(paths["/api/v1/namespaces/{namespace}/configmaps"]["post"]["x-kubernetes-action"] ==
        "post");
}

TEST_CASE("openapi: every PATCH operation lists fieldValidation itself", "[openapi]") {
  RequirePatchOperationsCarryFieldValidation(CoreDocument());
  RequirePatchOperationsCarryFieldValidation(CustomDocument());
  RequirePatchOperationsCarryFieldValidation(endpoints::openapi::BuildGroupVersionDocument(
      Group("coordination.k8s.io", "v1", {Leases()}), "v1"));
  // Even on a path that has nothing but the PATCH (whose parameters upstream's layout
  // would otherwise all move to the path item).
  json only_patch =
      endpoints::openapi::BuildGroupVersionDocument(Group("", "v1",
                                                          {MakeSpec({.group = "",
                                                                     .version = "v1",
                                                                     .kind = "ConfigMap",
                                                                     .plural = "configmaps",
                                                                     .verbs = {"patch"}})}),
                                                    "v1");
  RequirePatchOperationsCarryFieldValidation(only_patch);
}

TEST_CASE("openapi: strategic merge patch is listed iff the kind takes it", "[openapi]") {
  json core = CoreDocument();
  for (auto& [path, item] : core["paths"].items()) {
    if (item.contains("patch")) {
      INFO(path);
      CHECK(item["patch"]["requestBody"]["content"].contains(
          "application/strategic-merge-patch+json"));
    }
  }
  json custom = CustomDocument();
  for (auto& [path, item] : custom["paths"].items()) {
    if (item.contains("patch")) {
      INFO(path);
      CHECK_FALSE(item["patch"]["requestBody"]["content"].contains(
          "application/strategic-merge-patch+json"));
    }
  }
}

TEST_CASE("openapi: every reference resolves", "[openapi]") {
  RequireRefsResolve(CoreDocument());
  RequireRefsResolve(CustomDocument());
  // Without a map to borrow meta schemas from, the custom document inlines free-form schemas.
  RequireRefsResolve(
      endpoints::openapi::BuildGroupVersionDocument(Group("example.com", "v1", {Widgets()}), "v1"));
}

TEST_CASE("openapi: custom resources as the apiextensions builder documents them", "[openapi]") {
  json doc = CustomDocument();
  CHECK(doc["info"] == json{{"title", "Kubernetes CRD Swagger"}, {"version", "v0.1.0"}});
  CHECK_FALSE(doc["components"].contains("securitySchemes"));
  CHECK_FALSE(doc["paths"].contains("/apis/example.com/v1/"));
  const json& schemas = doc["components"]["schemas"];
  REQUIRE(schemas.contains("com.example.v1.Widget"));
  CHECK(schemas["com.example.v1.Widget"]["x-kubernetes-group-version-kind"] ==
        json::array({{{"group", "example.com"}, {"kind", "Widget"}, {"version", "v1"}}}));
  REQUIRE(schemas.contains("com.example.v1.WidgetList"));
  CHECK(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  CHECK(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.Status"));
  CHECK(schemas.contains("io.k8s.api.autoscaling.v1.Scale"));

  const json& paths = doc["paths"];
  REQUIRE(paths.contains("/apis/example.com/v1/widgets"));
  CHECK(paths["/apis/example.com/v1/widgets"]["get"]["operationId"] ==
        "listExampleComV1WidgetForAllNamespaces");
  const json& item = paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"];
  CHECK(item["patch"]["operationId"] == "patchExampleComV1NamespacedWidget");
  CHECK(item["patch"]["tags"] == json::array({"exampleCom_v1"}));
  CHECK(item["get"]["responses"]["200"]["content"].size() == 2);  // json and yaml only
  CHECK(HasParam(item["get"]["parameters"], "resourceVersion"));  // GetOptions
  const json& scale = paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale"];
  CHECK(scale["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] ==
        "#/components/schemas/io.k8s.api.autoscaling.v1.Scale");
  // The builder tags every route with the custom kind, scale included.
  CHECK(scale["patch"]["x-kubernetes-group-version-kind"]["kind"] == "Widget");
  CHECK_FALSE(paths.contains("/apis/example.com/v1/watch/widgets"));
}

TEST_CASE("openapi: subresources of built-in kinds carry the kind they return", "[openapi]") {
  auto spec = MakeSpec(
      {.group = "",
       .version = "v1",
       .kind = "ReplicationController",
       .plural = "replicationcontrollers",
       .subresources = {
           {"scale", {"autoscaling", "v1", "Scale"}, {"get", "patch", "update"}, nullptr}}});
  json doc = endpoints::openapi::BuildGroupVersionDocument(Group("", "v1", {spec}), "v1");
  const json& scale =
      doc["paths"]["/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale"];
  CHECK(scale["patch"]["operationId"] == "patchCoreV1NamespacedReplicationControllerScale");
  CHECK(scale["patch"]["x-kubernetes-group-version-kind"] ==
        json{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}});
  CHECK(scale["put"]["requestBody"]["content"]["*/*"]["schema"]["$ref"] ==
        "#/components/schemas/io.k8s.api.autoscaling.v1.Scale");
}

TEST_CASE("openapi: a built-in kind without a schema still gets its operations", "[openapi]") {
  auto spec = MakeSpec({.group = "", .version = "v1", .kind = "Gadget", .plural = "gadgets"});
  REQUIRE(spec->schema_name.empty());
  json doc = endpoints::openapi::BuildGroupVersionDocument(Group("", "v1", {spec}), "v1");
  const json& item = doc["paths"]["/api/v1/namespaces/{namespace}/gadgets/{name}"];
  REQUIRE(item.contains("patch"));
  CHECK(HasParam(item["patch"]["parameters"], "fieldValidation"));
  RequireRefsResolve(doc);
}
