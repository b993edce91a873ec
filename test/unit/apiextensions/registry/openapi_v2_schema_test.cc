// OpenAPIV2Definitions and ToStructuralOpenAPIV2: a CRD's kinds in /openapi/v2 as upstream's
// apiextensions builder publishes them with its V2 options.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/registry/openapi_v2_schema.h"

using nlohmann::json;

namespace {

const apiextensions::CustomResourceNames kNames = {"stable.example.com", "v1", "CronTab",
                                                   "CronTabList", "crontabs"};
const char* kObject = "com.example.stable.v1.CronTab";
const char* kList = "com.example.stable.v1.CronTabList";
const char* kGVK = R"([{"group":"stable.example.com","kind":"CronTab","version":"v1"}])";

json V2(const char* schema) { return apiextensions::ToStructuralOpenAPIV2(json::parse(schema)); }

}  // namespace

TEST_CASE("crd openapi v2: no schema, or preserving unknown fields at the root",
          "[apiextensions]") {
  const json bare = json::parse(
      std::string(R"({"type":"object","x-kubernetes-group-version-kind":)") + kGVK + "}");
  CHECK(apiextensions::OpenAPIV2Definitions(json(), kNames)[kObject] == bare);
  CHECK(apiextensions::OpenAPIV2Definitions(
            json::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true,)"
                        R"("properties":{"spec":{"type":"object"}}})"),
            kNames)[kObject] == bare);
}

TEST_CASE("crd openapi v2: the kind, with metadata, apiVersion and kind as every object's",
          "[apiextensions]") {
  const json defs = apiextensions::OpenAPIV2Definitions(
      json::parse(R"({"type":"object","description":"d","properties":{
        "metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":5}}},
        "spec":{"type":"object","properties":{"cron":{"type":"string","default":"x",
          "pattern":"^a"},"replicas":{"type":"integer","minimum":0,"maximum":10}},
          "required":["cron"]}}})"),
      kNames);
  const json& object = defs[kObject];
  CHECK(object["type"] == "object");
  CHECK(object["description"] == "d");
  CHECK(object["x-kubernetes-group-version-kind"] == json::parse(kGVK));
  CHECK(object["properties"]["metadata"] ==
        json::parse(
            R"({"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",)"
            R"("description":"Standard object's metadata. More info: https://git.k8s.io/)"
            R"(community/contributors/devel/sig-architecture/api-conventions.md#metadata"})"));
  CHECK(object["properties"]["apiVersion"]["type"] == "string");
  CHECK(object["properties"]["kind"]["description"].get<std::string>().starts_with(
      "Kind is a string value representing the REST resource"));
  CHECK(object["properties"]["spec"] ==
        json::parse(R"({"type":"object","properties":{"cron":{"type":"string","pattern":"^a"},)"
                    R"("replicas":{"type":"integer","minimum":0,"maximum":10}},)"
                    R"("required":["cron"]})"));

  const json& list = defs[kList];
  CHECK(list["description"] == "CronTabList is a list of CronTab");
  CHECK(list["required"] == json::parse(R"(["items"])"));
  CHECK(list["type"] == "object");
  CHECK(list["properties"]["items"]["items"] ==
        json::parse(R"({"$ref":"#/definitions/)" + std::string(kObject) + R"("})"));
  CHECK(list["properties"]["items"]["description"] ==
        "List of crontabs. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md");
  CHECK(list["properties"]["metadata"]["$ref"] ==
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta");
  CHECK(list["x-kubernetes-group-version-kind"][0]["kind"] == "CronTabList");
}

TEST_CASE("crd openapi v2: ToStructuralOpenAPIV2", "[apiextensions]") {
  // Junctors and what is not structural go.
  CHECK(V2(R"({"type":"string","anyOf":[{"pattern":"a"}],"allOf":[{}],"oneOf":[{}],)"
           R"("not":{},"example":"x","externalDocs":{"url":"u"},"default":"d"})") ==
        json::parse(R"({"type":"string"})"));
  // Nullable: no type, items or properties, and out of the parent's required.
  CHECK(V2(R"({"type":"object","required":["a","b"],"properties":{
             "a":{"type":"object","nullable":true,"properties":{"x":{"type":"string"}}},
             "b":{"type":"array","items":{"type":"string"}}}})") ==
        json::parse(R"({"type":"object","required":["b"],"properties":{"a":{},)"
                    R"("b":{"type":"array","items":{"type":"string"}}}})"));
  // Preserving unknown fields: no items, properties or type object.
  CHECK(V2(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true,)"
           R"("properties":{"x":{"type":"string"}}})") ==
        json::parse(R"({"x-kubernetes-preserve-unknown-fields":true})"));
  // An array without items has no type; int-or-string has none either.
  CHECK(V2(R"({"type":"array"})") == json::object());
  CHECK(
      V2(R"({"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]})") ==
      json::parse(R"({"x-kubernetes-int-or-string":true})"));
  // A nullable additionalProperties schema drops required.
  CHECK(V2(R"({"type":"object","required":["a"],"additionalProperties":)"
           R"({"type":"string","nullable":true}})") ==
        json::parse(R"({"type":"object","additionalProperties":{}})"));
  // Extensions and validations stay; false flags and empty lists are not written.
  CHECK(
      V2(R"({"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set",)"
         R"("uniqueItems":false,"enum":[],"x-kubernetes-validations":[{"rule":"size(self) < 3"}]})") ==
      json::parse(R"({"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set",)"
                  R"("x-kubernetes-validations":[{"rule":"size(self) < 3"}]})"));
}

TEST_CASE("crd openapi v2: embedded resources get apiVersion, kind and metadata",
          "[apiextensions]") {
  const json defs =
      apiextensions::OpenAPIV2Definitions(json::parse(R"({"type":"object","properties":{
        "template":{"type":"object","x-kubernetes-embedded-resource":true,"required":["spec"],
                    "properties":{"spec":{"type":"object"}}},
        "raw":{"type":"object","x-kubernetes-embedded-resource":true,
               "x-kubernetes-preserve-unknown-fields":true}}})"),
                                          kNames);
  const json& props = defs[kObject]["properties"];
  CHECK(props["template"]["required"] == json::parse(R"(["spec","kind","apiVersion"])"));
  CHECK(props["template"]["properties"]["apiVersion"]["description"].get<std::string>().starts_with(
      "apiVersion defines the versioned schema"));
  CHECK(props["template"]["properties"]["metadata"]["$ref"] ==
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(props["raw"] == json::parse(R"({"x-kubernetes-embedded-resource":true,)"
                                    R"("x-kubernetes-preserve-unknown-fields":true})"));
}
