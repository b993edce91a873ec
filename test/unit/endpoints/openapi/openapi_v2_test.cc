// /openapi/v2: the v2 form of our v3 documents (swagger.h), the merge of remote documents
// (swagger_merge.h) and the handler's negotiation and caching (openapi_v2.h).

#include <catch2/catch.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v2.h"
#include "pkg/genericserver/endpoints/openapi/swagger.h"
#include "pkg/genericserver/endpoints/openapi/swagger_merge.h"
#include "pkg/genericserver/server/cacheable.h"
#include "test/unit/endpoints/openapi/specs.h"
#include "test/unit/support/handler_harness.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

constexpr const char* kProtobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr const char* kProtobufDotted =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

class Fixture {
 public:
  Fixture() {
    groups_ = {Group("", "v1", {ConfigMaps(), Namespaces()}),
               Group("coordination.k8s.io", "v1", {Leases()})};
    endpoints::openapi::InstallOpenAPIV2(
        mux_,
        [this] {
          std::lock_guard lock(mu_);
          return groups_;
        },
        [this] {
          std::lock_guard lock(mu_);
          return external_;
        });
  }

  testing::Recorded Get(const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    genericserver::RequestContext ctx = testing::MakeRequest("GET", "/openapi/v2");
    for (const auto& [name, value] : headers) ctx.request.headers.Set(name, value);
    genericserver::Handler* h = mux_.Find(ctx.request.path);
    REQUIRE(h != nullptr);
    return testing::Serve(*h, std::move(ctx));
  }

  void SetExternal(std::vector<endpoints::openapi::ExternalV2Document> external) {
    std::lock_guard lock(mu_);
    external_ = std::move(external);
  }

 private:
  genericserver::PathMux mux_;
  std::mutex mu_;
  std::vector<endpoints::APIGroupInfo> groups_;
  std::vector<endpoints::openapi::ExternalV2Document> external_;
};

std::string Header(const testing::Recorded& r, const char* name) {
  return std::string(r.headers.Get(name).value_or(""));
}

}  // namespace

TEST_CASE("openapi v2: v3 schemas in v2 form", "[openapi]") {
  using endpoints::openapi::SchemaToV2;
  // A lone allOf reference is a plain one; defaults and nullable go; a reference loses
  // type and properties beside it.
  CHECK(SchemaToV2(json::parse(
            R"({"allOf":[{"$ref":"#/components/schemas/A"}],"default":{},"description":"d"})")) ==
        json::parse(R"({"$ref":"#/definitions/A","description":"d"})"));
  CHECK(SchemaToV2(json::parse(R"({"$ref":"#/components/schemas/A","type":"object",)"
                               R"("properties":{"x":{"type":"string"}}})")) ==
        json::parse(R"({"$ref":"#/definitions/A"})"));
  CHECK(SchemaToV2(json::parse(R"({"type":"object","properties":{},"nullable":true,)"
                               R"("items":{"default":1,"type":"integer"},)"
                               R"("additionalProperties":{"oneOf":[{"type":"string"}]}})")) ==
        json::parse(R"({"type":"object","items":{"type":"integer"},"additionalProperties":{}})"));
  // A property named like a keyword is a property.
  CHECK(SchemaToV2(json::parse(R"({"properties":{"$ref":{"type":"string"},"default":{}}})")) ==
        json::parse(R"({"properties":{"$ref":{"type":"string"},"default":{}}})"));
}

TEST_CASE("openapi v2: IntOrString and Quantity in upstream's v2 form", "[openapi]") {
  json v3 = {{"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
             {"components",
              {{"schemas",
                {{"io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                  json::parse(R"({"format":"int-or-string","oneOf":[{"type":"integer"},)"
                              R"({"type":"string"}]})")},
                 {"io.k8s.apimachinery.pkg.api.resource.Quantity",
                  json::parse(R"({"oneOf":[{"type":"string"},{"type":"number"}],)"
                              R"("description":"q"})")}}}}}};
  json doc = endpoints::openapi::ToSwagger({v3});
  CHECK(doc["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] ==
        json::parse(R"({"format":"int-or-string","type":"string"})"));
  CHECK(doc["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"] ==
        json::parse(R"({"description":"q","type":"string"})"));
  CHECK(doc["info"] == json::parse(R"({"title":"Kubernetes","version":"v1.32.0"})"));
  CHECK(doc["security"] == json::parse(R"([{"BearerToken":[]}])"));
}

TEST_CASE("openapi v2: v2 definitions given replace the derived ones", "[openapi]") {
  json v3 = {{"components", {{"schemas", {{"com.example.v1.W", {{"type", "object"}}}}}}}};
  json v2 = {{"com.example.v1.W", {{"type", "object"}, {"x-k", 1}}}};
  CHECK(endpoints::openapi::ToSwagger({v3}, &v2)["definitions"]["com.example.v1.W"] ==
        v2["com.example.v1.W"]);
}

TEST_CASE("openapi v2: a remote document's paths under its prefix merge in", "[openapi]") {
  json into = json::parse(R"({
    "paths": {"/apis/w.example.com/v1/taken": {"get": {"x": "ours"}}},
    "definitions": {"Same": {"type": "string"}, "Meta": {"type": "object"},
                    "Meta_v2": {"type": "integer"}},
    "info": {"title": "Kubernetes", "version": "v1.32.0"}})");
  const json remote = json::parse(R"({
    "info": {"title": "Wardle", "version": "v1"},
    "paths": {
      "/apis/w.example.com/v1/flunders": {"get": {"parameters": [{"$ref": "#/parameters/p"}],
          "responses": {"200": {"schema": {"$ref": "#/definitions/Flunder"}}}}},
      "/apis/w.example.com/v1/taken": {"get": {"x": "theirs"}},
      "/apis/other/v1/x": {"get": {"responses": {"200": {"schema": {"$ref": "#/definitions/Other"}}}}}},
    "definitions": {
      "Flunder": {"properties": {"metadata": {"$ref": "#/definitions/Meta"},
                                 "s": {"$ref": "#/definitions/Same"}}},
      "Meta": {"type": "object", "description": "theirs"},
      "Same": {"type": "string"},
      "Other": {"type": "object"},
      "Unused": {"type": "object"}},
    "parameters": {"p": {"in": "query", "name": "pretty", "type": "string"}}})");
  endpoints::openapi::MergeSwagger(into, remote, "/apis/w.example.com/v1/");
  CHECK(into["info"]["title"] == "Kubernetes");
  CHECK(into["paths"]["/apis/w.example.com/v1/taken"]["get"]["x"] == "ours");
  CHECK(!into["paths"].contains("/apis/other/v1/x"));
  CHECK(!into["definitions"].contains("Other"));
  CHECK(!into["definitions"].contains("Unused"));
  // Meta differs, and Meta_v2 is taken by something else: Meta_v3.
  CHECK(into["definitions"]["Meta_v3"] == remote["definitions"]["Meta"]);
  CHECK(into["definitions"]["Meta"] == json::parse(R"({"type":"object"})"));
  CHECK(into["definitions"]["Flunder"]["properties"]["metadata"]["$ref"] ==
        "#/definitions/Meta_v3");
  CHECK(into["definitions"]["Flunder"]["properties"]["s"]["$ref"] == "#/definitions/Same");
  CHECK(into["parameters"]["p"]["name"] == "pretty");
  CHECK(into["paths"]["/apis/w.example.com/v1/flunders"]["get"]["responses"]["200"]["schema"]
            ["$ref"] == "#/definitions/Flunder");

  // Merged again (another group-version of the same server): the renamed copy is reused.
  json again = remote;
  again["paths"] = {
      {"/apis/w.example.com/v2/a", remote["paths"]["/apis/w.example.com/v1/flunders"]}};
  again["definitions"]["Flunder"]["description"] = "v2";
  endpoints::openapi::MergeSwagger(into, again, "/apis/w.example.com/v2/");
  CHECK(!into["definitions"].contains("Meta_v4"));
  CHECK(into["definitions"]["Flunder_v2"]["properties"]["metadata"]["$ref"] ==
        "#/definitions/Meta_v3");
}

TEST_CASE("openapi v2: JSON and protobuf by Accept, one ETag, 304 and 406", "[openapi]") {
  Fixture f;
  testing::Recorded plain = f.Get();
  REQUIRE(plain.status == 200);
  CHECK(Header(plain, "Content-Type") == "application/json");
  CHECK(Header(plain, "Vary") == "Accept");
  CHECK(!Header(plain, "Last-Modified").empty());
  const std::string etag = Header(plain, "ETag");
  CHECK(etag == "\"" + genericserver::ContentHash(plain.body) + "\"");
  const json doc = plain.Json();
  CHECK(doc["swagger"] == "2.0");
  CHECK(doc["paths"].contains("/api/v1/namespaces/{namespace}/configmaps/{name}"));
  CHECK(doc["paths"].contains("/apis/coordination.k8s.io/"));
  CHECK(doc["paths"].contains("/version/"));
  CHECK(!doc["definitions"]["io.k8s.api.core.v1.ConfigMap"]["properties"]["metadata"].contains(
      "default"));

  for (const char* accept :
       {"*/*", "application/*", "application/json", "application/json;q=0.9"}) {
    INFO(accept);
    testing::Recorded r = f.Get({{"Accept", accept}});
    CHECK(r.status == 200);
    CHECK(r.body == plain.body);
  }
  for (const char* accept : {kProtobuf, kProtobufDotted}) {
    INFO(accept);
    testing::Recorded r = f.Get({{"Accept", accept}});
    REQUIRE(r.status == 200);
    CHECK(Header(r, "Content-Type") == kProtobufDotted);
    CHECK(Header(r, "ETag") == etag);
    CHECK(Header(r, "Vary") == "Accept");
    CHECK(
        r.body.starts_with("\x0a\x03"
                           "2.0"));
  }
  // q orders the clauses; the first that names a form wins.
  CHECK(Header(f.Get({{"Accept", std::string(kProtobuf) + ";q=0.5, application/json"}}),
               "Content-Type") == "application/json");

  testing::Recorded cached = f.Get({{"Accept", kProtobuf}, {"If-None-Match", etag}});
  CHECK(cached.status == 304);
  CHECK(cached.body.empty());
  CHECK(Header(cached, "Last-Modified").empty());
  CHECK(f.Get({{"If-Modified-Since", Header(plain, "Last-Modified")}}).status == 304);
  CHECK(f.Get({{"If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT"}}).status == 200);

  testing::Recorded refused = f.Get({{"Accept", "application/yaml"}});
  CHECK(refused.status == 406);
  CHECK(refused.body.empty());
}

TEST_CASE("openapi v2: remote documents are merged after the local ones", "[openapi]") {
  Fixture f;
  const std::string before = Header(f.Get(), "ETag");
  auto body = std::make_shared<const std::string>(R"({"swagger":"2.0","paths":{
      "/apis/w.example.com/v1/flunders":{"get":{"responses":{"200":{"description":"OK",
        "schema":{"$ref":"#/definitions/F"}}}}},
      "/api/v1/namespaces":{"get":{"responses":{"200":{"description":"theirs"}}}}},
      "definitions":{"F":{"type":"object"}}})");
  f.SetExternal({{"w.example.com", "v1", body}});
  testing::Recorded r = f.Get();
  CHECK(Header(r, "ETag") != before);
  const json doc = r.Json();
  CHECK(doc["paths"].contains("/apis/w.example.com/v1/flunders"));
  CHECK(doc["definitions"]["F"] == json::parse(R"({"type":"object"})"));
  CHECK(doc["paths"]["/api/v1/namespaces"]["get"]["responses"]["200"]["description"] == "OK");
  CHECK(f.Get({{"Accept", kProtobuf}}).status == 200);

  // A document gnostic refuses has no protobuf form: 503, as upstream.
  auto bad = std::make_shared<const std::string>(
      R"({"paths":{"/apis/w.example.com/v1/x":{"get":{"responses":{"200":{"description":"OK",)"
      R"("schema":{"oneOf":[]}}}}}}})");
  f.SetExternal({{"w.example.com", "v1", bad}});
  CHECK(f.Get().status == 200);
  CHECK(f.Get({{"Accept", kProtobuf}}).status == 503);
}
