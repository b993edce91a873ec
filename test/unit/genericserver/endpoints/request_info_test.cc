#include <catch2/catch.hpp>

#include "pkg/genericserver/endpoints/request_info.h"

namespace {
struct Expect {
  std::string method, target;
  bool resource;
  std::string verb, prefix, group, version, ns, res, sub, name;
};
}  // namespace

TEST_CASE("RequestInfo is resolved from method, path and query as upstream does") {
  std::vector<Expect> cases = {
      {"GET", "/api/v1/namespaces", true, "list", "api", "", "v1", "", "namespaces", "", ""},
      {"GET", "/api/v1/namespaces/ns1", true, "get", "api", "", "v1", "ns1", "namespaces", "",
       "ns1"},
      {"PUT", "/api/v1/namespaces/ns1/finalize", true, "update", "api", "", "v1", "ns1",
       "namespaces", "finalize", "ns1"},
      {"GET", "/api/v1/namespaces/ns1/status", true, "get", "api", "", "v1", "ns1", "namespaces",
       "status", "ns1"},
      {"GET", "/api/v1/namespaces/ns1/pods", true, "list", "api", "", "v1", "ns1", "pods", "", ""},
      {"GET", "/api/v1/namespaces/ns1/pods?watch=true", true, "watch", "api", "", "v1", "ns1",
       "pods", "", ""},
      {"GET", "/api/v1/namespaces/ns1/pods?watch=1", true, "watch", "api", "", "v1", "ns1", "pods",
       "", ""},
      {"GET", "/api/v1/namespaces/ns1/pods?watch=false", true, "list", "api", "", "v1", "ns1",
       "pods", "", ""},
      {"GET", "/api/v1/watch/namespaces/ns1/pods", true, "watch", "api", "", "v1", "ns1", "pods",
       "", ""},
      {"GET", "/api/v1/namespaces/ns1/pods/p1/log", true, "get", "api", "", "v1", "ns1", "pods",
       "log", "p1"},
      {"POST", "/api/v1/namespaces/ns1/pods", true, "create", "api", "", "v1", "ns1", "pods", "",
       ""},
      {"DELETE", "/api/v1/namespaces/ns1/pods", true, "deletecollection", "api", "", "v1", "ns1",
       "pods", "", ""},
      {"DELETE", "/api/v1/namespaces/ns1/pods/p1", true, "delete", "api", "", "v1", "ns1", "pods",
       "", "p1"},
      {"PATCH", "/apis/apps/v1/namespaces/ns1/deployments/d/scale", true, "patch", "apis", "apps",
       "v1", "ns1", "deployments", "scale", "d"},
      {"GET", "/apis/apps/v1/deployments", true, "list", "apis", "apps", "v1", "", "deployments",
       "", ""},
      {"HEAD", "/api/v1/nodes/n1", true, "get", "api", "", "v1", "", "nodes", "", "n1"},
      {"GET", "/api/v1/proxy/namespaces/ns1/pods/p1/some/path", true, "proxy", "api", "", "v1",
       "ns1", "pods", "", "p1"},
      {"GET", "/api/v1/namespaces/ns1/configmaps?fieldSelector=metadata.name%3Dcm1", true, "list",
       "api", "", "v1", "ns1", "configmaps", "", "cm1"},
      {"GET", "/api/v1/namespaces/ns1/configmaps?watch=1&fieldSelector=metadata.name==cm1", true,
       "watch", "api", "", "v1", "ns1", "configmaps", "", "cm1"},
      {"GET", "/api/v1/configmaps?fieldSelector=metadata.name!=cm1", true, "list", "api", "", "v1",
       "", "configmaps", "", ""},
      // Discovery and other paths are not resource requests.
      {"GET", "/api", false, "get", "", "", "", "", "", "", ""},
      {"GET", "/api/v1", false, "get", "", "", "", "", "", "", ""},
      {"GET", "/apis", false, "get", "", "", "", "", "", "", ""},
      {"GET", "/apis/apps", false, "get", "", "", "", "", "", "", ""},
      {"GET", "/apis/apps/v1", false, "get", "apis", "", "", "", "", "", ""},
      {"POST", "/healthz", false, "post", "", "", "", "", "", "", ""},
      {"GET", "/", false, "get", "", "", "", "", "", "", ""},
  };
  endpoints::RequestInfoResolver resolver;
  for (const Expect& e : cases) {
    INFO(e.method << " " << e.target);
    auto info = resolver.Resolve(genericserver::Request::FromTarget(e.method, e.target));
    REQUIRE(info);
    CHECK(info->is_resource_request == e.resource);
    CHECK(info->verb == e.verb);
    CHECK(info->api_prefix == e.prefix);
    CHECK(info->api_group == e.group);
    CHECK(info->api_version == e.version);
    CHECK(info->namespace_ == e.ns);
    CHECK(info->resource == e.res);
    CHECK(info->subresource == e.sub);
    CHECK(info->name == e.name);
  }
}

TEST_CASE("a special verb without a resource is an error") {
  endpoints::RequestInfoResolver resolver;
  CHECK_FALSE(resolver.Resolve(genericserver::Request::FromTarget("GET", "/api/v1/watch")));
}

TEST_CASE("long-running and read-only requests are recognised") {
  endpoints::RequestInfoResolver resolver;
  auto info = [&](const char* m, const char* p) {
    return *resolver.Resolve(genericserver::Request::FromTarget(m, p));
  };
  CHECK(endpoints::IsLongRunning(info("GET", "/api/v1/pods?watch=true")));
  CHECK(endpoints::IsLongRunning(info("GET", "/api/v1/namespaces/n/pods/p/log")));
  CHECK(endpoints::IsLongRunning(info("POST", "/api/v1/namespaces/n/pods/p/exec")));
  CHECK_FALSE(endpoints::IsLongRunning(info("GET", "/api/v1/pods")));
  CHECK(endpoints::IsReadOnly(info("GET", "/api/v1/pods")));
  CHECK(endpoints::IsReadOnly(info("GET", "/healthz")));
  CHECK_FALSE(endpoints::IsReadOnly(info("POST", "/api/v1/namespaces")));
  CHECK_FALSE(endpoints::IsReadOnly(info("DELETE", "/api/v1/namespaces/x")));
}
