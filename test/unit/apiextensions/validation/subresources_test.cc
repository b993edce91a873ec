#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

json WithSubresources(const char* subresources) {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"][0]["subresources"] = json::parse(subresources);
  return crd;
}

}  // namespace

TEST_CASE("CRD subresources: status and a valid scale", "[crd-validation]") {
  CHECK(Create(WithSubresources(R"({"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
      "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}})"))
            .empty());
}

TEST_CASE("CRD subresources: scale paths", "[crd-validation]") {
  CHECK(Create(WithSubresources(R"({"scale": {}})")) ==
        Strings{"spec.subresources.scale.specReplicasPath: Required value",
                "spec.subresources.scale.statusReplicasPath: Required value"});
  CHECK(
      Create(WithSubresources(R"({"scale": {"specReplicasPath": "spec.replicas",
      "statusReplicasPath": ".spec.replicas", "labelSelectorPath": ".metadata.labels"}})")) ==
      Strings{
          R"(spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .)",
          R"(spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status)",
          R"(spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status)"});
  // The prefix includes the dot after spec.
  CHECK(
      Create(WithSubresources(R"({"scale": {"specReplicasPath": ".spec",
      "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".spec.selector"}})")) ==
      Strings{
          R"(spec.subresources.scale.specReplicasPath: Invalid value: ".spec": should be a json path under .spec)"});
}

TEST_CASE("CRD subresources: per version when the versions differ", "[crd-validation]") {
  json crd = WithSubresources(R"({"status": {}})");
  json second = crd["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  second["subresources"] = json::parse(R"({"scale": {"specReplicasPath": ".spec.replicas",
      "statusReplicasPath": "status.replicas"}})");
  crd["spec"]["versions"].push_back(second);
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .)"});

  // Only the version with the status subresource restricts its schema's root.
  json root = crd;
  root["spec"]["versions"][1]["subresources"] = json::object();
  for (json& ver : root["spec"]["versions"]) ver["schema"]["openAPIV3Schema"]["type"] = "array";
  root["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["items"] = {{"type", "string"}};
  CHECK(
      Create(root) ==
      Strings{
          R"(spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled)",
          R"(spec.versions[0].schema.openAPIV3Schema.items: Required value: must be specified)",
          R"(spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root)",
          R"(spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root)"});
}

TEST_CASE("CRD subresources: shared by all versions, validated once", "[crd-validation]") {
  json crd = WithSubresources(R"({"scale": {"specReplicasPath": ".spec.replicas",
      "statusReplicasPath": ".spec.replicas"}})");
  json second = crd["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  crd["spec"]["versions"].push_back(second);
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status)"});
}
