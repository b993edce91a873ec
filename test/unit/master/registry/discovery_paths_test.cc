// Discovery with and without a trailing slash, and what the requests to act (the reviews)
// answer for the Table and PartialObjectMetadata forms: as upstream, across the chain.
#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

TEST_CASE("discovery: API roots answer with a trailing slash too", "[builtin][discovery]") {
  testing::Chain api;
  struct Case {
    std::string path;
    std::string kind;
  };
  for (const Case& c : std::vector<Case>{{"/api", "APIVersions"},
                                         {"/api/", "APIVersions"},
                                         {"/api/v1", "APIResourceList"},
                                         {"/api/v1/", "APIResourceList"},
                                         {"/apis", "APIGroupList"},
                                         {"/apis/", "APIGroupList"},
                                         {"/apis/apps", "APIGroup"},
                                         {"/apis/apps/", "APIGroup"},
                                         {"/apis/apps/v1", "APIResourceList"},
                                         {"/apis/apps/v1/", "APIResourceList"},
                                         {"/apis/apiextensions.k8s.io/", "APIGroup"},
                                         {"/apis/apiextensions.k8s.io/v1/", "APIResourceList"},
                                         {"/apis/apiregistration.k8s.io/", "APIGroup"},
                                         {"/apis/apiregistration.k8s.io/v1/", "APIResourceList"}}) {
    INFO(c.path);
    auto r = api.Do("GET", c.path);
    REQUIRE(r.status == 200);
    CHECK(r.Json()["kind"] == c.kind);
  }
  // Each form says the same with or without the slash.
  CHECK(api.Do("GET", "/apis/apps/v1/").body == api.Do("GET", "/apis/apps/v1").body);
  CHECK(api.Do("GET", "/apis/").Json() == api.Do("GET", "/apis").Json());
  // "/apis/" is the APIGroupList only: an aggregated Accept gets it too.
  auto aggregated = api.Do("GET", "/apis/", "",
                           {"Accept: application/json;g=apidiscovery.k8s.io;v=v2;"
                            "as=APIGroupDiscoveryList"});
  CHECK(aggregated.Json()["kind"] == "APIGroupList");
  CHECK(api.Do("GET", "/apis/nope/").status == 404);
  CHECK(api.Do("GET", "/apis/apps/v9/").status == 404);
}

TEST_CASE("negotiation: requests to act have no Table form", "[builtin][discovery]") {
  testing::Chain api;
  const std::string reviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  const std::string body =
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
      R"("spec":{"resourceAttributes":{"verb":"get"}}})";
  auto table =
      api.Do("POST", reviews, body, {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  REQUIRE(table.status == 406);
  CHECK(table.Json()["reason"] == "NotAcceptable");
  CHECK(table.Json()["message"] ==
        "only the following media types are accepted: application/json, application/yaml, "
        "application/vnd.kubernetes.protobuf");
  // kubectl's Accept falls back to the object.
  auto fallback = api.Do("POST", reviews, body,
                         {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json"});
  REQUIRE(fallback.status == 201);
  CHECK(fallback.Json()["kind"] == "SelfSubjectAccessReview");
  // Its metadata is there to be asked for.
  auto metadata = api.Do("POST", reviews, body,
                         {"Accept: application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"});
  REQUIRE(metadata.status == 201);
  CHECK(metadata.Json()["kind"] == "PartialObjectMetadata");
  CHECK(metadata.Json()["apiVersion"] == "meta.k8s.io/v1");
  // Stored kinds keep their Table.
  auto namespaces = api.Do("GET", "/api/v1/namespaces", "",
                           {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  REQUIRE(namespaces.status == 200);
  CHECK(namespaces.Json()["kind"] == "Table");
}

TEST_CASE("health: the checks of the chain, in upstream's order", "[builtin][health]") {
  testing::Chain api;
  // The hooks do not run here: every hook and boot check is listed, not finished.
  auto ready = api.Do("GET", "/readyz?verbose");
  std::vector<std::string> names;
  std::istringstream lines(ready.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 4 || line[0] != '[') continue;
    names.push_back(line.substr(3, line.find(' ') - 3));
  }
  CHECK(names == std::vector<std::string>{
                     "ping",
                     "log",
                     "etcd",
                     "etcd-readiness",
                     "informer-sync",
                     "poststarthook/generic-apiserver-start-informers",
                     "poststarthook/start-apiextensions-informers",
                     "poststarthook/start-apiextensions-controllers",
                     "poststarthook/crd-informer-synced",
                     "poststarthook/start-system-namespaces-controller",
                     "poststarthook/start-cluster-authentication-info-controller",
                     "poststarthook/rbac/bootstrap-roles",
                     "poststarthook/scheduling/bootstrap-system-priority-classes",
                     "poststarthook/bootstrap-controller",
                     "poststarthook/start-kube-aggregator-informers",
                     "poststarthook/apiservice-status-local-available-controller",
                     "poststarthook/apiservice-status-remote-available-controller",
                     "poststarthook/apiservice-registration-controller",
                     "poststarthook/apiservice-discovery-controller",
                     "poststarthook/kube-apiserver-autoregistration",
                     "autoregister-completion",
                     "poststarthook/apiservice-openapi-controller",
                     "poststarthook/apiservice-openapiv3-controller",
                     "shutdown",
                 });
  CHECK(ready.status == 500);
  // ?exclude names one check per parameter, as upstream reads it.
  auto excluded = api.Do("GET", "/livez?verbose&exclude=ping,log");
  CHECK(excluded.body.find("[+]ping ok") != std::string::npos);
  CHECK(excluded.body.find("no matches for \"ping,log\"") != std::string::npos);
}
