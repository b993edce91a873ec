// /openapi/v2: the served group-versions as one Swagger 2.0 document.
#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

TEST_CASE("openapi v2: every group-version in Swagger 2.0 form, JSON only", "[openapi]") {
  testing::Chain api;
  auto r = api.Do("GET", "/openapi/v2", "", {"Accept: application/json"});
  REQUIRE(r.status == 200);
  const json doc = r.Json();
  CHECK(doc["swagger"] == "2.0");
  CHECK(doc["info"]["title"] == "Kubernetes");
  const json& deployment = doc["definitions"]["io.k8s.api.apps.v1.Deployment"];
  CHECK(deployment["x-kubernetes-group-version-kind"] ==
        json::parse(R"([{"group":"apps","kind":"Deployment","version":"v1"}])"));
  CHECK(deployment["properties"]["spec"]["$ref"] ==
        "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  CHECK(!deployment["properties"]["spec"].contains("allOf"));
  const json& patch =
      doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
  CHECK(patch["x-kubernetes-group-version-kind"]["kind"] == "Deployment");
  bool body = false;
  for (const json& p : patch["parameters"]) {
    if (p["in"] == "body")
      body = p["schema"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
    if (p["name"] == "fieldValidation") CHECK(p["type"] == "string");
  }
  CHECK(body);
  CHECK(patch["responses"]["200"]["schema"]["$ref"] ==
        "#/definitions/io.k8s.api.apps.v1.Deployment");
  CHECK(doc["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}/eviction"));
  // No reference is left dangling.
  const std::string text = r.body;
  CHECK(text.find("#/components/schemas/") == std::string::npos);

  const std::string etag(r.headers.Get("ETag").value_or(""));
  REQUIRE(!etag.empty());
  CHECK(api.Do("GET", "/openapi/v2", "", {"If-None-Match: " + etag}).status == 304);
  // kubectl asks for the protobuf form only: not served, and kubectl copes with a 404.
  auto protobuf = api.Do("GET", "/openapi/v2", "",
                         {"Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf"});
  CHECK(protobuf.status == 404);
}
