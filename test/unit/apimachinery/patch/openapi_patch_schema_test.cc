#include "pkg/genericserver/apimachinery/patch/openapi_patch_schema.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/go_format.h"
#include "test/unit/apimachinery/patch/test_schemas.h"

using apimachinery::patch::FieldPatchInfo;
using apimachinery::patch::NewOpenApiPatchSchema;
using apimachinery::patch::PatchSchema;
using apimachinery::patch::PatchStrategy;
using nlohmann::json;

namespace {

std::shared_ptr<const PatchSchema> Deployment() {
  auto schema = NewOpenApiPatchSchema(json::parse(patch_test::kKubeComponents),
                                      "io.k8s.api.apps.v1.Deployment");
  REQUIRE(schema);
  return *schema;
}

// Follows a path of field names from `schema`.
FieldPatchInfo At(std::shared_ptr<const PatchSchema> schema,
                  std::initializer_list<const char*> path) {
  FieldPatchInfo info;
  for (const char* name : path) {
    auto field = schema->Field(name);
    INFO(name);
    REQUIRE(field);
    info = *field;
    schema = info.schema;
  }
  return info;
}

}  // namespace

TEST_CASE("OpenAPI patch schema reads strategies and merge keys", "[patch]") {
  auto root = Deployment();
  CHECK(root->Name() == "Deployment");

  FieldPatchInfo containers = At(root, {"spec", "template", "spec", "containers"});
  CHECK(containers.is_list);
  CHECK(containers.strategy == PatchStrategy::kMerge);
  CHECK(containers.merge_key == "name");
  CHECK_FALSE(containers.primitive_items);
  CHECK(containers.schema->Name() == "Container");

  FieldPatchInfo volumes = At(root, {"spec", "template", "spec", "volumes"});
  CHECK(volumes.strategy == PatchStrategy::kMerge);
  CHECK(volumes.retain_keys);

  FieldPatchInfo strategy = At(root, {"spec", "strategy"});
  CHECK_FALSE(strategy.is_list);
  CHECK(strategy.strategy == PatchStrategy::kDefault);
  CHECK(strategy.retain_keys);
  CHECK(strategy.schema->Name() == "DeploymentStrategy");

  FieldPatchInfo ports = At(root, {"spec", "template", "spec", "containers", "ports"});
  CHECK(ports.merge_key == "containerPort");
  CHECK(ports.list_type == "map");
  CHECK(ports.list_map_keys == std::vector<std::string>{"containerPort", "protocol"});

  FieldPatchInfo finalizers = At(root, {"metadata", "finalizers"});
  CHECK(finalizers.is_list);
  CHECK(finalizers.primitive_items);
  CHECK(finalizers.strategy == PatchStrategy::kMerge);
  CHECK(finalizers.merge_key.empty());

  FieldPatchInfo args = At(root, {"spec", "template", "spec", "containers", "args"});
  CHECK(args.is_list);
  CHECK(args.strategy == PatchStrategy::kDefault);
}

TEST_CASE("OpenAPI patch schema: maps, free-form types and unknown fields", "[patch]") {
  auto root = Deployment();
  // additionalProperties: every key is a field.
  auto label = At(root, {"metadata", "labels", "any-key"});
  CHECK_FALSE(label.is_list);
  auto limit = At(root, {"spec", "template", "spec", "containers", "resources", "limits", "cpu"});
  CHECK(limit.schema->Name() == "Quantity");
  // IntOrString has no properties: free-form.
  CHECK(At(root, {"spec", "strategy", "rollingUpdate", "maxSurge", "whatever"}).schema);
  // A typed object without such a property.
  auto pod = At(root, {"spec", "template", "spec"}).schema;
  CHECK(pod->Name() == "PodSpec");
  CHECK_FALSE(pod->Field("nope"));
}

TEST_CASE("OpenAPI patch schema accepts documents, components or schema maps", "[patch]") {
  json doc = json::parse(patch_test::kKubeComponents);
  CHECK(NewOpenApiPatchSchema(doc["components"], "io.k8s.api.core.v1.ConfigMap"));
  CHECK(NewOpenApiPatchSchema(doc["components"]["schemas"], "io.k8s.api.core.v1.ConfigMap"));
  auto missing = NewOpenApiPatchSchema(doc, "io.k8s.api.core.v1.Nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() ==
        "schema \"io.k8s.api.core.v1.Nope\" is not defined in the OpenAPI component schemas");

  // OpenAPI v2 definitions and direct $refs.
  json v2 = json::parse(R"({"definitions": {
    "a.B": {"type": "object", "properties": {"items": {"type": "array",
      "items": {"$ref": "#/definitions/a.C"}, "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "id"}}},
    "a.C": {"type": "object", "properties": {"id": {"type": "string"}}}}})");
  auto b = NewOpenApiPatchSchema(v2, "a.B");
  REQUIRE(b);
  auto items = (*b)->Field("items");
  REQUIRE(items);
  CHECK(items->merge_key == "id");
  CHECK(items->schema->Name() == "C");
}

TEST_CASE("Go formatting of decoded JSON values", "[patch]") {
  using apimachinery::patch::GoString;
  using apimachinery::patch::GoTypeName;
  using apimachinery::patch::GoValue;
  CHECK(GoValue(json::parse(R"({"b":[1,"x",null],"a":{"c":true}})")) ==
        "map[a:map[c:true] b:[1 x <nil>]]");
  CHECK(GoValue(json(1.5)) == "1.5");
  CHECK(GoValue(json(1e6)) == "1e+06");
  CHECK(GoValue(json(123456.0)) == "123456");
  CHECK(GoValue(json(0.00001)) == "1e-05");
  CHECK(GoString(json(5)) == "%!s(int64=5)");
  CHECK(GoString(json("delete")) == "delete");
  CHECK(GoTypeName(json::array()) == "[]interface {}");
  CHECK(GoTypeName(json(nullptr)) == "%!s(<nil>)");
}
