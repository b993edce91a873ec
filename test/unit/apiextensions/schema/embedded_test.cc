// Embedded resources (x-kubernetes-embedded-resource): validation and coercion of their TypeMeta
// and ObjectMeta, as apiextensions-apiserver's pkg/apiserver/schema/objectmeta does.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/object_meta.h"
#include "pkg/apiextensions/schema/structural.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "test/unit/apiextensions/schema/support.h"

namespace s = apiextensions::schema;
namespace v = apimachinery::validation;
using crd_schema_test::ValidateSpec;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

const json kTemplateSchema = json::parse(R"({"type":"object","properties":{"template":{
    "type":"object","x-kubernetes-embedded-resource":true,
    "x-kubernetes-preserve-unknown-fields":true}}})");

Strings Template(const json& value) { return ValidateSpec(kTemplateSchema, {{"template", value}}); }

}  // namespace

TEST_CASE("embedded resources need apiVersion and kind", "[crd-schema]") {
  CHECK(Template(json::object()) ==
        Strings{"spec.template.apiVersion: Required value", "spec.template.kind: Required value"});
  CHECK(Template({{"apiVersion", ""}, {"kind", ""}}) ==
        Strings{"spec.template.apiVersion: Required value", "spec.template.kind: Required value"});
  CHECK(Template({{"apiVersion", "v1"}, {"kind", "Pod"}}).empty());
  CHECK(Template({{"apiVersion", 5}, {"kind", true}}) ==
        Strings{"spec.template.apiVersion: Invalid value: 5: must be a string",
                "spec.template.kind: Invalid value: true: must be a string"});
  CHECK(
      Template({{"apiVersion", "a/b/c"}, {"kind", "Pod"}}) ==
      Strings{
          R"(spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c)"});
  const std::string dns1035 = v::IsDNS1035Label("foo_bar")[0];
  CHECK(
      Template({{"apiVersion", "v1"}, {"kind", "Foo_Bar"}}) ==
      Strings{
          R"(spec.template.kind: Invalid value: "Foo_Bar": may have mixed case, but should otherwise match: )" +
          dns1035});
}

TEST_CASE("embedded metadata is validated as ObjectMeta with path-segment names", "[crd-schema]") {
  json t = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  t["metadata"] = {{"name", "a/b"}, {"generateName", "x%"}};
  CHECK(Template(t) ==
        Strings{R"(spec.template.metadata.generateName: Invalid value: "x%": may not contain '%')",
                R"(spec.template.metadata.name: Invalid value: "a/b": may not contain '/')"});
  t["metadata"] = {{"name", ".."}};
  CHECK(Template(t) ==
        Strings{R"(spec.template.metadata.name: Invalid value: "..": may not be '..')"});
  // No name is fine (upstream validates "fakename" instead).
  t["metadata"] = json::object();
  CHECK(Template(t).empty());
  t["metadata"] = {{"namespace", "Bad_NS"}, {"generation", -1}};
  const std::string label = v::IsDNS1123Label("Bad_NS")[0];
  CHECK(Template(t) ==
        Strings{R"(spec.template.metadata.namespace: Invalid value: "Bad_NS": )" + label,
                "spec.template.metadata.generation: Invalid value: -1: must be greater than or "
                "equal to 0"});
  t["metadata"] = {{"labels", {{"ok", "fine"}, {"bad key!", "v"}}}};
  CHECK(Template(t).size() == 1);
  t["metadata"] = {{"finalizers", {"orphan", "foregroundDeletion"}}};
  CHECK(
      Template(t) ==
      Strings{
          R"(spec.template.metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set)"});
  t["metadata"] = {{"ownerReferences", {{{"apiVersion", "v1"}, {"kind", "Event"}, {"name", "e"}}}}};
  CHECK(
      Template(t) ==
      Strings{
          R"(spec.template.metadata.ownerReferences.uid: Invalid value: "": uid must not be empty)",
          "spec.template.metadata.ownerReferences: Invalid value: "
          "&OwnerReference{Kind:Event,Name:e,UID:,APIVersion:v1,Controller:nil,"
          "BlockOwnerDeletion:nil,}: /v1, Kind=Event is disallowed from being an owner"});
  t["metadata"] = {{"managedFields", {{{"operation", "Bogus"}, {"fieldsType", "FieldsV2"}}}}};
  CHECK(Template(t) ==
        Strings{"spec.template.metadata.managedFields[0].operation: Invalid value: \"Bogus\": "
                "must be `Apply` or `Update`",
                "spec.template.metadata.managedFields[0].fieldsType: Invalid value: "
                "\"FieldsV2\": must be `FieldsV1`"});
  // Metadata that does not decode into ObjectMeta.
  t["metadata"] = {{"name", 5}};
  CHECK(
      Template(t) ==
      Strings{
          R"(spec.template.metadata: Invalid value: map[string]interface {}{"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string)"});
}

TEST_CASE("embedded resources are found through items and additionalProperties", "[crd-schema]") {
  json schema = json::parse(R"({"type":"object","properties":{
      "list":{"type":"array","items":{"type":"object","x-kubernetes-embedded-resource":true,
              "x-kubernetes-preserve-unknown-fields":true}},
      "map":{"type":"object","additionalProperties":{"type":"object",
              "x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}})");
  CHECK(
      ValidateSpec(schema, {{"list", {{{"kind", "A"}}}}, {"map", {{"k", {{"kind", "B"}}}}}}) ==
      Strings{"spec.list[0].apiVersion: Required value", "spec.map[k].apiVersion: Required value"});
}

TEST_CASE("ObjectMetaDecodeError reproduces encoding/json's messages", "[crd-schema]") {
  CHECK_FALSE(s::ObjectMetaDecodeError(json::parse(R"({"name":"a","generation":3.0})")));
  CHECK(
      s::ObjectMetaDecodeError(json::parse(R"({"generation":1.5})")) ==
      "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64");
  CHECK(s::ObjectMetaDecodeError(json::parse(R"({"labels":[]})")) ==
        "json: cannot unmarshal array into Go struct field ObjectMeta.labels of type "
        "map[string]string");
  CHECK(s::ObjectMetaDecodeError(json::parse(R"({"labels":{"a":1}})")) ==
        "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string");
  CHECK(s::ObjectMetaDecodeError(json::parse(R"({"creationTimestamp":"x"})")) ==
        R"(parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006")");
  CHECK(s::ObjectMetaDecodeError(json::parse(R"({"ownerReferences":[{"controller":"yes"}]})")) ==
        "json: cannot unmarshal string into Go struct field "
        "OwnerReference.ownerReferences.controller "
        "of type bool");
  CHECK(s::ObjectMetaDecodeError(json("x")) ==
        "json: cannot unmarshal string into Go value of type v1.ObjectMeta");
  CHECK_FALSE(s::ObjectMetaDecodeError(json::parse(R"({"unknown":{"x":1}})")));
}

TEST_CASE("CoerceObjectMeta keeps ObjectMeta's fields in their typed form", "[crd-schema]") {
  json meta = json::parse(R"({
      "name":"n","namespace":"","generation":2.0,"bogus":1,"uid":null,
      "labels":{"a":"b","c":null},"annotations":{},
      "creationTimestamp":"2024-01-02T03:04:05.5+01:00",
      "deletionGracePeriodSeconds":0,
      "finalizers":["f",null],
      "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","extra":true}],
      "managedFields":[{"manager":"m","operation":"Apply","fieldsV1":{"f:a":{}},"x":1}],
      "resourceVersion":5})");
  CHECK(s::CoerceObjectMeta(meta, "metadata") == Strings{"metadata.bogus",
                                                         "metadata.managedFields[0].x",
                                                         "metadata.ownerReferences[0].extra"});
  CHECK(meta == json::parse(R"({
      "name":"n","generation":2,
      "labels":{"a":"b","c":""},
      "creationTimestamp":"2024-01-02T02:04:05Z",
      "deletionGracePeriodSeconds":0,
      "finalizers":["f",""],
      "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":""}],
      "managedFields":[{"manager":"m","operation":"Apply","fieldsV1":{"f:a":{}}}]})"));
  json null_meta = nullptr;
  CHECK(s::CoerceObjectMeta(null_meta, "metadata").empty());
  CHECK(null_meta == json::object());
  json string_meta = "x";
  CHECK(s::CoerceObjectMeta(string_meta, "metadata").empty());
  CHECK(string_meta == "x");
  json zero = {{"creationTimestamp", "0001-01-01T00:00:00Z"}, {"generation", 0}};
  s::CoerceObjectMeta(zero, "metadata");
  CHECK(zero == json::object());
}
