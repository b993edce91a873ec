#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

json WithSelectable(const json& fields) {
  json crd = crdval_test::WithSchema(json::parse(R"({"type": "object", "properties": {
      "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
      "spec": {"type": "object", "properties": {
          "color": {"type": "string", "enum": ["red", "blue"]},
          "size": {"type": "integer"}, "ready": {"type": "boolean"},
          "ratio": {"type": "number"},
          "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}})"));
  crd["spec"]["versions"][0]["selectableFields"] = fields;
  return crd;
}

json Paths(std::initializer_list<const char*> paths) {
  json out = json::array();
  for (const char* p : paths) out.push_back({{"jsonPath", p}});
  return out;
}

}  // namespace

TEST_CASE("CRD selectable fields: strings, booleans and integers", "[crd-validation]") {
  CHECK(Create(WithSelectable(
                   Paths({".spec.color", ".spec.size", ".spec.ready", ".spec.labels.team"})))
            .empty());
}

TEST_CASE("CRD selectable fields: paths", "[crd-validation]") {
  const std::string p = "spec.selectableFields";
  CHECK(
      Create(
          WithSelectable(Paths({"", ".spec.missing", ".metadata.name", ".spec", ".spec.ratio",
                                ".spec.color", ".spec.color", "spec.color", ".spec['color']"}))) ==
      Strings{
          p + "[0].jsonPath: Required value",
          p + R"([1].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field)",
          p + R"([2].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata)",
          p + R"([3].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.)",
          p + R"([4].jsonPath: Invalid value: ".spec.ratio": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.)",
          p + R"([6].jsonPath: Duplicate value: ".spec.color")",
          p + R"([7].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec)",
          p + R"([8].jsonPath: Invalid value: ".spec['color']": is an invalid path: array notation is not allowed)"});
}

TEST_CASE("CRD selectable fields: at most 8", "[crd-validation]") {
  json fields = json::array();
  for (int i = 0; i < 9; ++i)
    fields.push_back({{"jsonPath", ".spec.labels.l" + std::to_string(i)}});
  CHECK(Create(WithSelectable(fields)) ==
        Strings{"spec.selectableFields: Too many: 9: must have at most 8 items"});
}

TEST_CASE("CRD selectable fields: need the schema they point into", "[crd-validation]") {
  json crd = WithSelectable(Paths({".spec.color"}));
  crd["spec"]["versions"][0].erase("schema");
  CHECK(
      Create(crd) ==
      Strings{
          "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
          R"(spec.selectableFields: Invalid value: "": selectableFields may only be set when validations.schema is included)"});

  // Upstream hoists a schema shared by all versions but keeps selectable fields that differ
  // per version, and then finds the version without a schema (its message says "not").
  json split = WithSelectable(Paths({".spec.color"}));
  json second = split["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  second.erase("selectableFields");
  split["spec"]["versions"].push_back(second);
  CHECK(
      Create(split) ==
      Strings{
          R"(spec.versions[0].selectableFields: Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included)"});

  // With different schemas each version's fields are checked against its own.
  json own = split;
  own["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].erase(
      "color");
  own["spec"]["versions"][1]["selectableFields"] = Paths({".spec.color"});
  CHECK(
      Create(own) ==
      Strings{
          R"(spec.versions[1].selectableFields[0].jsonPath: Invalid value: ".spec.color": is an invalid path: does not refer to a valid field)"});
}
