// ValidateCustomResource's value validation: kube-openapi's checks and messages as
// apiextensions-apiserver converts them (see pkg/apiextensions/schema/openapi.h).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/structural.h"
#include "test/unit/apiextensions/schema/support.h"

namespace s = apiextensions::schema;
using crd_schema_test::Rendered;
using crd_schema_test::ValidateSpec;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

// A spec schema with one property `name` of schema `prop`, validated with spec {name: value}.
Strings Field(const char* prop, const json& value) {
  json spec_schema = {{"type", "object"}, {"properties", {{"f", json::parse(prop)}}}};
  return ValidateSpec(spec_schema, {{"f", value}});
}

}  // namespace

TEST_CASE("type: the bad value is the value's type name", "[crd-schema]") {
  const char* integer = R"({"type":"integer"})";
  CHECK(
      Field(integer, "three") ==
      Strings{
          R"(spec.f: Invalid value: "string": spec.f in body must be of type integer: "string")"});
  CHECK(
      Field(integer, 1.5) ==
      Strings{
          R"(spec.f: Invalid value: "number": spec.f in body must be of type integer: "number")"});
  CHECK(
      Field(integer, true) ==
      Strings{
          R"(spec.f: Invalid value: "boolean": spec.f in body must be of type integer: "boolean")"});
  CHECK(
      Field(integer, json::object()) ==
      Strings{
          R"(spec.f: Invalid value: "object": spec.f in body must be of type integer: "object")"});
  CHECK(Field(integer, json::array()) ==
        Strings{
            R"(spec.f: Invalid value: "array": spec.f in body must be of type integer: "array")"});
  // A float64 with an integral value is an integer; a JSON integer is a number.
  CHECK(Field(integer, json::parse("2.0")).empty());
  CHECK(Field(integer, json::parse("1e3")).empty());
  CHECK(Field(R"({"type":"number"})", 3).empty());
  CHECK(
      Field(R"({"type":"string"})", 5) ==
      Strings{
          R"(spec.f: Invalid value: "integer": spec.f in body must be of type string: "integer")"});
  CHECK(
      Field(R"({"type":"boolean"})", "true") ==
      Strings{
          R"(spec.f: Invalid value: "string": spec.f in body must be of type boolean: "string")"});
  // The error's type is FieldValueTypeInvalid.
  json schema = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
  auto errors = s::ValidateCustomResource(schema, {{"n", "x"}});
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].type == "FieldValueTypeInvalid");
  CHECK(errors[0].field == "n");
}

TEST_CASE("nullable, and null values", "[crd-schema]") {
  CHECK(Field(R"({"type":"string"})", nullptr) ==
        Strings{R"(spec.f: Invalid value: "null": spec.f in body must be of type string: "null")"});
  CHECK(Field(R"({"type":"string","nullable":true})", nullptr).empty());
  CHECK(Field(R"({"x-kubernetes-preserve-unknown-fields":true})", nullptr).empty());
  // A null gets only the type and enum checks; enum never accepts null.
  CHECK(Field(R"({"type":"string","nullable":true,"enum":["a"],"minLength":3})", nullptr) ==
        Strings{R"(spec.f: Unsupported value: "null": supported values: "a")"});
}

TEST_CASE("x-kubernetes-int-or-string", "[crd-schema]") {
  const char* ios = R"({"x-kubernetes-int-or-string":true})";
  CHECK(Field(ios, 80).empty());
  CHECK(Field(ios, "http").empty());
  CHECK(Field(ios, json::parse("2.0")).empty());
  CHECK(
      Field(ios, 1.5) ==
      Strings{
          R"(spec.f: Invalid value: "number": spec.f in body must be of type integer,string: "number")"});
  CHECK(
      Field(ios, true) ==
      Strings{
          R"(spec.f: Invalid value: "boolean": spec.f in body must be of type integer,string: "boolean")"});
}

TEST_CASE("required", "[crd-schema]") {
  json spec_schema = json::parse(
      R"({"type":"object","required":["foo","bar"],"properties":{"foo":{"type":"string"}}})");
  CHECK(ValidateSpec(spec_schema, json::object()) ==
        Strings{"spec.foo: Required value", "spec.bar: Required value"});
  CHECK(ValidateSpec(spec_schema, {{"foo", "x"}, {"bar", 1}}).empty());
  // At the root the path is built as ".spec" and loses its dot.
  json root = json::parse(R"({"type":"object","required":["spec"]})");
  CHECK(Rendered(s::ValidateCustomResource(root, {{"kind", "W"}})) ==
        Strings{"spec: Required value"});
}

TEST_CASE("enum: Unsupported value with the allowed values", "[crd-schema]") {
  CHECK(Field(R"({"type":"string","enum":["a","b"]})", "c") ==
        Strings{R"(spec.f: Unsupported value: "c": supported values: "a", "b")"});
  CHECK(Field(R"({"type":"integer","enum":[1,2]})", 3) ==
        Strings{R"(spec.f: Unsupported value: 3: supported values: "1", "2")"});
  CHECK(
      Field(R"({"type":"number","enum":[1.5,true,null,{"a":1}]})", 2.5) ==
      Strings{
          R"(spec.f: Unsupported value: 2.5: supported values: "1.5", "true", "null", "{\"a\":1}")"});
  CHECK(
      Field(R"({"type":"object","enum":[{"a":1}]})", json::parse(R"({"a":2})")) ==
      Strings{
          R"(spec.f: Unsupported value: map[string]interface {}{"a":2}: supported values: "{\"a\":1}")"});
  CHECK(Field(R"({"type":"object","enum":[{"a":1}]})", json::parse(R"({"a":1})")).empty());
  // Values convert to the enum value's Go type before comparing: 1.0 and (truncated) 1.9 equal
  // int64 1, 65 converts to the string "A"; but int64 1 does not equal float64 1.5.
  CHECK(Field(R"({"type":"number","enum":[1]})", json::parse("1.0")).empty());
  CHECK(Field(R"({"type":"number","enum":[1]})", 1.9).empty());
  CHECK(Field(R"({"enum":["A"]})", 65).empty());
  CHECK(Field(R"({"type":"number","enum":[1.5]})", 1) ==
        Strings{R"(spec.f: Unsupported value: 1: supported values: "1.5")"});
  // Objects compare with Go types: {"a":1} is not {"a":1.0}.
  CHECK(Field(R"({"type":"object","enum":[{"a":1}]})", json::parse(R"({"a":1.0})")).size() == 1);
}

TEST_CASE("string length and pattern: the first failure only", "[crd-schema]") {
  CHECK(Field(R"({"type":"string","maxLength":3})", "abcd") ==
        Strings{"spec.f: Too long: may not be more than 3 bytes"});
  // Lengths count runes.
  CHECK(Field(R"({"type":"string","maxLength":3})", "h\xC3\xA9\xC3\xA9").empty());
  CHECK(Field(R"({"type":"string","minLength":2})", "a") ==
        Strings{R"(spec.f: Invalid value: "a": spec.f in body should be at least 2 chars long)"});
  CHECK(Field(R"({"type":"string","pattern":"^[a-z]+$"})", "A1") ==
        Strings{R"(spec.f: Invalid value: "A1": spec.f in body should match '^[a-z]+$')"});
  CHECK(Field(R"({"type":"string","maxLength":2,"pattern":"^[a-z]+$"})", "ABC") ==
        Strings{"spec.f: Too long: may not be more than 2 bytes"});
  CHECK(Field(R"({"type":"string","pattern":"("})", "x") ==
        Strings{"spec.f: Invalid value: \"x\": spec.f in body should match '(, but pattern is "
                "invalid: error parsing regexp: missing closing ): `(`'"});
  // Patterns search anywhere, as Go's MatchString.
  CHECK(Field(R"({"type":"string","pattern":"[0-9]"})", "abc1def").empty());
}

TEST_CASE("numeric bounds and multipleOf", "[crd-schema]") {
  const char* range = R"({"type":"integer","minimum":1,"maximum":10})";
  CHECK(Field(range, 11) ==
        Strings{"spec.f: Invalid value: 11: spec.f in body should be less than or equal to 10"});
  CHECK(Field(range, 0) ==
        Strings{"spec.f: Invalid value: 0: spec.f in body should be greater than or equal to 1"});
  CHECK(Field(range, 10).empty());
  CHECK(Field(R"({"type":"integer","maximum":10,"exclusiveMaximum":true})", 10) ==
        Strings{"spec.f: Invalid value: 10: spec.f in body should be less than 10"});
  CHECK(Field(R"({"type":"integer","minimum":1,"exclusiveMinimum":true})", 1) ==
        Strings{"spec.f: Invalid value: 1: spec.f in body should be greater than 1"});
  CHECK(Field(R"({"type":"number","minimum":1.5})", 1.25) ==
        Strings{
            "spec.f: Invalid value: 1.25: spec.f in body should be greater than or equal to 1.5"});
  CHECK(Field(R"({"type":"number","maximum":1000000})", 2000000.5) ==
        Strings{"spec.f: Invalid value: 2.0000005e+06: spec.f in body should be less than or "
                "equal to 1e+06"});
  // Bounds are truncated to int64 for an integer value.
  CHECK(Field(R"({"type":"integer","maximum":5.5})", 6) ==
        Strings{"spec.f: Invalid value: 6: spec.f in body should be less than or equal to 5"});
  CHECK(Field(R"({"type":"integer","minimum":1.5})", 1).empty());

  CHECK(Field(R"({"type":"integer","multipleOf":3})", 10) ==
        Strings{"spec.f: Invalid value: 10: spec.f in body should be a multiple of 3"});
  CHECK(Field(R"({"type":"integer","multipleOf":3})", -9).empty());
  CHECK(Field(R"({"type":"number","multipleOf":0.1})", 0.3).empty());
  CHECK(Field(R"({"type":"number","multipleOf":0.1})", 0.35) ==
        Strings{"spec.f: Invalid value: 0.35: spec.f in body should be a multiple of 0.1"});
  CHECK(Field(R"({"type":"integer","multipleOf":0.5})", 3).empty());
  // multipleOf, minimum and maximum are all checked, in that order.
  CHECK(Field(R"({"type":"integer","multipleOf":2,"minimum":10})", 3) ==
        Strings{"spec.f: Invalid value: 3: spec.f in body should be a multiple of 2",
                "spec.f: Invalid value: 3: spec.f in body should be greater than or equal to 10"});
}

TEST_CASE("arrays: items first, then minItems and maxItems", "[crd-schema]") {
  CHECK(
      Field(R"({"type":"array","minItems":2,"items":{"type":"string"}})", json::array({1})) ==
      Strings{
          R"(spec.f[0]: Invalid value: "integer": spec.f[0] in body must be of type string: "integer")",
          "spec.f: Invalid value: 1: spec.f in body should have at least 2 items"});
  CHECK(Field(R"({"type":"array","maxItems":1,"items":{"type":"string"}})",
              json::array({"a", "b"})) ==
        Strings{"spec.f: Too many: 2: must have at most 1 items"});
  CHECK(
      Field(R"({"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}})",
            json::parse(R"([{"n":1},{"n":"x"}])")) ==
      Strings{
          R"(spec.f[1].n: Invalid value: "string": spec.f[1].n in body must be of type integer: "string")"});
}

TEST_CASE("objects: properties counts and additionalProperties", "[crd-schema]") {
  CHECK(Field(R"({"type":"object","minProperties":2})", json::parse(R"({"a":1})")) ==
        Strings{"spec.f: Invalid value: 1: spec.f in body should have at least 2 properties"});
  CHECK(Field(R"({"type":"object","maxProperties":1})", json::parse(R"({"a":1,"b":2})")) ==
        Strings{"spec.f: Too many: 2: must have at most 1 items"});
  CHECK(
      Field(R"({"type":"object","additionalProperties":{"type":"integer"}})",
            json::parse(R"({"a":"x","b":2})")) ==
      Strings{
          R"(spec.f.a: Invalid value: "string": spec.f.a in body must be of type integer: "string")"});
  CHECK(
      Field(
          R"({"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false})",
          json::parse(R"({"a":"x","b":1})")) ==
      Strings{R"(spec.f: Invalid value: "b": spec.f.b in body is a forbidden property)"});
  // At the root, additionalProperties keys are ".key": the field loses the dot, the message not.
  json root = json::parse(R"({"type":"object","additionalProperties":{"type":"string"}})");
  CHECK(
      Rendered(s::ValidateCustomResource(root, {{"count", 1}})) ==
      Strings{
          R"(count: Invalid value: "integer": .count in body must be of type string: "integer")"});
  // Errors about the root itself have upstream's nil path.
  json small = json::parse(R"({"type":"object","maxProperties":1})");
  CHECK(Rendered(s::ValidateCustomResource(small, {{"a", 1}, {"b", 2}})) ==
        Strings{"<nil>: Too many: 2: must have at most 1 items"});
}

TEST_CASE("formats", "[crd-schema]") {
  CHECK(
      Field(R"({"type":"string","format":"date-time"})", "yesterday") ==
      Strings{
          R"(spec.f: Invalid value: "yesterday": spec.f in body must be of type date-time: "yesterday")"});
  CHECK(Field(R"({"type":"string","format":"date-time"})", "2024-01-02T03:04:05Z").empty());
  CHECK(Field(R"({"type":"string","format":"uuid"})", "nope") ==
        Strings{R"(spec.f: Invalid value: "nope": spec.f in body must be of type uuid: "nope")"});
  // Unsupported formats are stripped and ignored.
  CHECK(Field(R"({"type":"string","format":"int32"})", "x").empty());
  CHECK(Field(R"({"type":"integer","format":"int32"})", 1).empty());
  CHECK(Field(R"({"type":"string","format":"k8s-short-name"})", "NOT VALID").empty());
  // kube-openapi's type check reports the format for a non-string value...
  CHECK(Field(R"({"type":"string","format":"uuid"})", 5) ==
        Strings{R"(spec.f: Invalid value: "int64": spec.f in body must be of type uuid: "int64")"});
  CHECK(Field(R"({"type":"string","format":"uuid"})", true) ==
        Strings{R"(spec.f: Invalid value: "": spec.f in body must be of type uuid: "")"});
  // ...and skips the type check of an array altogether.
  CHECK(Field(R"({"type":"string","format":"byte"})", json::array({1})).empty());
}

TEST_CASE("oneOf, anyOf, allOf and not", "[crd-schema]") {
  json one_of = json::parse(R"({"type":"object",
      "properties":{"a":{"type":"string"},"b":{"type":"string"}},
      "oneOf":[{"required":["a"]},{"required":["b"]}]})");
  CHECK(
      ValidateSpec(one_of, json::object()) ==
      Strings{
          R"(<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid)",
          "spec.a: Required value"});
  CHECK(
      ValidateSpec(one_of, {{"a", "x"}, {"b", "y"}}) ==
      Strings{
          R"(<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives)"});
  CHECK(ValidateSpec(one_of, {{"a", "x"}}).empty());

  // anyOf keeps the failures of the alternative with the most successful checks.
  CHECK(Field(R"({"anyOf":[{"type":"integer"},{"type":"string","minLength":3}]})", "ab") ==
        Strings{R"(<nil>: Invalid value: "": "spec.f" must validate at least one schema (anyOf))",
                R"(spec.f: Invalid value: "ab": spec.f in body should be at least 3 chars long)"});
  CHECK(Field(R"({"anyOf":[{"type":"integer"},{"type":"string"}]})", "ab").empty());

  // allOf reports the failures, then itself.
  CHECK(Field(R"({"allOf":[{"minLength":2},{"maxLength":2}]})", "abc") ==
        Strings{"spec.f: Too long: may not be more than 2 bytes",
                R"(<nil>: Invalid value: "": "spec.f" must validate all the schemas (allOf))"});
  // Identical messages are reported once.
  CHECK(
      Field(R"({"allOf":[{"minLength":5},{"minLength":5}]})", "a") ==
      Strings{
          R"(spec.f: Invalid value: "a": spec.f in body should be at least 5 chars long)",
          R"(<nil>: Invalid value: "": "spec.f" must validate all the schemas (allOf). None validated)"});

  CHECK(Field(R"({"not":{"type":"string","pattern":"^x"}})", "xy") ==
        Strings{R"(<nil>: Invalid value: "": "spec.f" must not validate the schema (not))"});
  CHECK(Field(R"({"not":{"type":"string","pattern":"^x"}})", "yy").empty());
}

TEST_CASE("checks of one node are all reported, in kube-openapi's order", "[crd-schema]") {
  // type, then enum.
  CHECK(Field(R"({"type":"integer","enum":[1,2]})", "x") ==
        Strings{
            R"(spec.f: Invalid value: "string": spec.f in body must be of type integer: "string")",
            R"(spec.f: Unsupported value: "x": supported values: "1", "2")"});
  // allOf (schema props) before the string checks, enum last.
  CHECK(
      Field(R"({"type":"string","minLength":5,"enum":["abcdef"],"allOf":[{"pattern":"^z"}]})",
            "ab") ==
      Strings{
          R"(spec.f: Invalid value: "ab": spec.f in body should match '^z')",
          R"(<nil>: Invalid value: "": "spec.f" must validate all the schemas (allOf). None validated)",
          R"(spec.f: Invalid value: "ab": spec.f in body should be at least 5 chars long)",
          R"(spec.f: Unsupported value: "ab": supported values: "abcdef")"});
}

TEST_CASE("the root schema's metadata properties apply", "[crd-schema]") {
  json schema = json::parse(R"({"type":"object","properties":{"metadata":{"type":"object",
      "properties":{"name":{"type":"string","maxLength":5,"pattern":"^[a-z]+$"}}}}})");
  json object = {{"apiVersion", "example.com/v1"},
                 {"kind", "Widget"},
                 {"metadata", {{"name", "toolongname"}}}};
  CHECK(Rendered(s::ValidateCustomResource(schema, object)) ==
        Strings{"metadata.name: Too long: may not be more than 5 bytes"});
  object["metadata"]["name"] = "ok";
  CHECK(s::ValidateCustomResource(schema, object).empty());
}

TEST_CASE("validation survives hostile input", "[crd-schema]") {
  // Deeply nested data under a preserve-unknown-fields schema.
  json deep = json::array();
  for (int i = 0; i < 5000; ++i) {
    json next = json::array();
    next.push_back(std::move(deep));
    deep = std::move(next);
  }
  CHECK(Field(R"({"x-kubernetes-preserve-unknown-fields":true})", deep).empty());
  // Many failing items.
  json many = json::array();
  for (int i = 0; i < 20000; ++i) many.push_back("x");
  CHECK(Field(R"({"type":"array","items":{"type":"integer"}})", many).size() == 20000);
  // A long string against a pattern.
  CHECK(Field(R"({"type":"string","pattern":"^(a|aa)*$"})", std::string(200000, 'a')).empty());
  // A schema that is not an object validates nothing.
  CHECK(s::ValidateCustomResource(json("nonsense"), {{"a", 1}}).empty());
}

TEST_CASE("schema errors come first, then embedded resources, then list types", "[crd-schema]") {
  json spec_schema = json::parse(R"({"type":"object","properties":{
      "n":{"type":"integer"},
      "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
      "template":{"type":"object","x-kubernetes-embedded-resource":true,
                  "x-kubernetes-preserve-unknown-fields":true}}})");
  CHECK(ValidateSpec(spec_schema, json::parse(R"({"tags":["a","a"],"template":{},"n":"x"})")) ==
        Strings{
            R"(spec.n: Invalid value: "string": spec.n in body must be of type integer: "string")",
            "spec.template.apiVersion: Required value", "spec.template.kind: Required value",
            R"(spec.tags[1]: Duplicate value: "a")"});
  // The root is not checked as an embedded resource (the Store validates its metadata).
  json root = {{"type", "object"}, {"properties", {{"spec", spec_schema}}}};
  CHECK(s::ValidateCustomResource(root, {{"spec", {{"n", 1}}}, {"metadata", {{"name", "a/b"}}}})
            .empty());
}
