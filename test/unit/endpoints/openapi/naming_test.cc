#include <catch2/catch.hpp>

#include "pkg/genericserver/endpoints/openapi/naming.h"

using endpoints::openapi::DefinitionName;
using endpoints::openapi::NameOperation;
using endpoints::openapi::Title;
using endpoints::openapi::ToValidOperationID;

TEST_CASE("openapi: operation ids and tags as upstream derives them", "[openapi]") {
  auto id = [](const char* op, const char* path) { return NameOperation(op, path).id; };
  auto tag = [](const char* op, const char* path) { return NameOperation(op, path).tag; };
  CHECK(id("readNamespacedConfigMap", "/api/v1/namespaces/{namespace}/configmaps/{name}") ==
        "readCoreV1NamespacedConfigMap");
  CHECK(tag("readNamespacedConfigMap", "/api/v1/namespaces/{namespace}/configmaps/{name}") ==
        "core_v1");
  CHECK(id("deletecollectionNamespacedLease",
           "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases") ==
        "deleteCoordinationV1CollectionNamespacedLease");
  CHECK(id("listConfigMapForAllNamespaces", "/api/v1/configmaps") ==
        "listCoreV1ConfigMapForAllNamespaces");
  CHECK(id("patchClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}") ==
        "patchRbacAuthorizationV1ClusterRole");
  CHECK(tag("patchClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}") ==
        "rbacAuthorization_v1");
  CHECK(tag("listFlowSchema", "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas") ==
        "flowcontrolApiserver_v1beta3");
  CHECK(id("getAPIVersions", "/api/") == "getCoreAPIVersions");
  CHECK(tag("getAPIVersions", "/api/") == "core");
  CHECK(id("getAPIVersions", "/apis/") == "getAPIVersions");
  CHECK(tag("getAPIVersions", "/apis/") == "apis");
  CHECK(id("getAPIGroup", "/apis/apps/") == "getAppsAPIGroup");
  CHECK(id("getCodeVersion", "/version/") == "getCodeVersion");
  CHECK(id("patchNamespacedWidget",
           "/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}") ==
        "patchStableExampleComV1NamespacedWidget");
}

TEST_CASE("openapi: name helpers", "[openapi]") {
  CHECK(ToValidOperationID("rbac.authorization", false) == "rbacAuthorization");
  CHECK(ToValidOperationID("v1beta1", true) == "V1beta1");
  CHECK(ToValidOperationID("1abc", false) == "Abc");  // a dropped leading digit capitalizes
  CHECK(Title("ephemeralcontainers") == "Ephemeralcontainers");
  CHECK(DefinitionName("example.com", "v1", "Widget") == "com.example.v1.Widget");
  CHECK(DefinitionName("foo", "v1", "Widget") == "foo.v1.Widget");
}
