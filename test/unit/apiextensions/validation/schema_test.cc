#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using crdval_test::kSchema;
using crdval_test::SpecSchema;
using crdval_test::WithSchema;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

std::string At(const std::string& rest) { return std::string(kSchema) + rest; }

Strings ErrorsOfSpec(const char* spec) { return Create(WithSchema(SpecSchema(json::parse(spec)))); }

}  // namespace

TEST_CASE("CRD schema: OpenAPI features CRDs do not support", "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"type": "object", "id": "x"})") ==
        Strings{At(".properties[spec].id: Forbidden: id is not supported")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "$ref": "#/definitions/x"})") ==
        Strings{At(".properties[spec].$ref: Forbidden: $ref is not supported")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "patternProperties": {"^a": {"type": "string"}}})") ==
        Strings{At(
            ".properties[spec].patternProperties: Forbidden: patternProperties is not supported")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "definitions": {"a": {"type": "string"}}})") ==
        Strings{At(".properties[spec].definitions: Forbidden: definitions is not supported")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "dependencies": {"a": ["b"]}})") ==
        Strings{At(".properties[spec].dependencies: Forbidden: dependencies is not supported")});
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "items": {"type": "string"}, "additionalItems": false})") ==
      Strings{
          At(".properties[spec].additionalItems: Forbidden: additionalItems is not supported")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "items": [{"type": "string"}]})") ==
        Strings{At(
            ".properties[spec].items: Forbidden: items must be a schema object and not an array")});
  CHECK(
      ErrorsOfSpec(R"({"type": "null"})") ==
      Strings{
          At(R"(.properties[spec].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string")"),
          At(".properties[spec].type: Forbidden: type cannot be set to null, use nullable as an "
             "alternative")});
  CHECK(
      ErrorsOfSpec(R"({"type": "date"})") ==
      Strings{At(
          R"(.properties[spec].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string")")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "items": {"type": "string"}, "uniqueItems": true})") ==
        Strings{At(".properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true "
                   "since the runtime complexity becomes quadratic")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "additionalProperties": {"type": "string"}})") ==
        Strings{At(".properties[spec].additionalProperties: Forbidden: additionalProperties and "
                   "properties are mutual exclusive")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "additionalProperties": true})")
            .empty());
}

TEST_CASE("CRD schema: the root", "[crd-validation]") {
  json root = SpecSchema(json{{"type", "object"}});
  root["nullable"] = true;
  CHECK(Create(WithSchema(root)) ==
        Strings{At(".nullable: Forbidden: nullable cannot be true at the root")});

  // With the status subresource only what survives extracting properties[status] is allowed.
  json crd = WithSchema(json::parse(R"({"type": "string"})"));
  crd["spec"]["versions"][0]["subresources"] = {{"status", json::object()}};
  CHECK(
      Create(crd) ==
      Strings{
          At(R"(.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled)"),
          At(R"(.type: Invalid value: "string": must be object at the root)")});

  json props = WithSchema(json::parse(
      R"({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "minProperties": 1})"));
  props["spec"]["versions"][0]["subresources"] = {{"status", json::object()}};
  CHECK(
      Create(props) ==
      Strings{At(
          ": Invalid value: apiextensions.JSONSchemaProps{ID:\"\", Schema:\"\", "
          "Ref:(*string)(nil), Description:\"\", Type:\"object\", Nullable:false, Format:\"\", "
          "Title:\"\", Default:(*apiextensions.JSON)(nil), Maximum:(*float64)(nil), "
          "ExclusiveMaximum:false, Minimum:(*float64)(nil), ExclusiveMinimum:false, "
          "MaxLength:(*int64)(nil), MinLength:(*int64)(nil), Pattern:\"\", "
          "MaxItems:(*int64)(nil), MinItems:(*int64)(nil), UniqueItems:false, "
          "MultipleOf:(*float64)(nil), Enum:[]apiextensions.JSON(nil), "
          "MaxProperties:(*int64)(nil), MinProperties:(*int64)(0xc000000000), "
          "Required:[]string(nil), Items:(*apiextensions.JSONSchemaPropsOrArray)(nil), "
          "AllOf:[]apiextensions.JSONSchemaProps(nil), OneOf:[]apiextensions.JSONSchemaProps(nil), "
          "AnyOf:[]apiextensions.JSONSchemaProps(nil), Not:(*apiextensions.JSONSchemaProps)(nil), "
          "Properties:map[string]apiextensions.JSONSchemaProps(nil), "
          "AdditionalProperties:(*apiextensions.JSONSchemaPropsOrBool)(nil), "
          "PatternProperties:map[string]apiextensions.JSONSchemaProps(nil), "
          "Dependencies:apiextensions.JSONSchemaDependencies(nil), "
          "AdditionalItems:(*apiextensions.JSONSchemaPropsOrBool)(nil), "
          "Definitions:apiextensions.JSONSchemaDefinitions(nil), "
          "ExternalDocs:(*apiextensions.ExternalDocumentation)(nil), "
          "Example:(*apiextensions.JSON)(nil), XPreserveUnknownFields:(*bool)(0xc000000000), "
          "XEmbeddedResource:false, XIntOrString:false, XListMapKeys:[]string(nil), "
          "XListType:(*string)(nil), XMapType:(*string)(nil), "
          "XValidations:apiextensions.ValidationRules(nil)}: only [Description Type Format "
          "Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern "
          "MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs "
          "Example XPreserveUnknownFields XValidations] fields are allowed at the root of the "
          "schema if the status subresource is enabled")});

  json allowed = crdval_test::ValidCRD();
  allowed["spec"]["versions"][0]["subresources"] = {{"status", json::object()}};
  json& schema = allowed["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  schema["description"] = "Widgets";
  schema["required"] = {"spec"};
  schema["x-kubernetes-validations"] = json::parse(R"j([{"rule": "has(self.spec)"}])j");
  CHECK(Create(allowed).empty());
}

TEST_CASE("CRD schema: x-kubernetes-list-type", "[crd-validation]") {
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "x-kubernetes-list-type": "set"})") ==
      Strings{At(
          R"(.properties[spec].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified)")});
  CHECK(
      ErrorsOfSpec(
          R"({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"})") ==
      Strings{At(
          R"(.properties[spec].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map")")});
  // Items of sets must be atomic.
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "set",
      "items": {"type": "object", "properties": {"a": {"type": "string"}}}})") ==
        Strings{At(".properties[spec].items.x-kubernetes-map-type: Invalid value: null: must be "
                   "atomic as item of a list with x-kubernetes-list-type=set")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "set",
      "items": {"type": "object", "x-kubernetes-map-type": "atomic",
                "properties": {"a": {"type": "string"}}}})")
            .empty());
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "set",
      "items": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}})") ==
      Strings{At(
          R"(.properties[spec].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set)")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "set",
      "items": {"type": "string", "nullable": true}})") ==
        Strings{At(".properties[spec].items.nullable: Forbidden: cannot be nullable when "
                   "x-kubernetes-list-type is set")});
}

TEST_CASE("CRD schema: x-kubernetes-list-type map and its keys", "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name", "protocol"],
      "items": {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"},
                               "protocol": {"type": "string", "default": "TCP"}}}})")
            .empty());
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-map-keys": ["name"],
      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}})") ==
        Strings{At(".properties[spec].x-kubernetes-list-type: Required value: must be map if "
                   "x-kubernetes-list-map-keys is non-empty")});
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "atomic",
      "x-kubernetes-list-map-keys": ["name"],
      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}})") ==
      Strings{At(
          R"(.properties[spec].x-kubernetes-list-type: Invalid value: "atomic": must be map if x-kubernetes-list-map-keys is non-empty)")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
      "items": {"type": "object", "properties": {"name": {"type": "string"}}}})") ==
        Strings{At(".properties[spec].x-kubernetes-list-map-keys: Required value: must not be "
                   "empty if x-kubernetes-list-type is map")});
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"], "items": {"type": "string"}})") ==
      Strings{At(
          R"(.properties[spec].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map)")});
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name", "port", "name", "sel"],
      "items": {"type": "object", "required": ["name", "sel"],
                "properties": {"name": {"type": "string"},
                               "sel": {"type": "object", "x-kubernetes-map-type": "atomic"}}}})") ==
      Strings{
          At(R"(.properties[spec].x-kubernetes-list-map-keys: Invalid value: []string{"name", "port", "name", "sel"}: entries must all be names of item properties)"),
          At(R"(.properties[spec].x-kubernetes-list-map-keys: Invalid value: []string{"name", "port", "name", "sel"}: must not contain duplicate entries)"),
          At(R"(.properties[spec].items.properties[sel].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map)")});
  CHECK(
      ErrorsOfSpec(R"({"type": "array", "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name", "port"],
      "items": {"type": "object", "nullable": true, "required": ["port"],
                "properties": {"name": {"type": "string"},
                               "port": {"type": "integer", "nullable": true}}}})") ==
      Strings{
          At(".properties[spec].items.nullable: Forbidden: cannot be nullable when "
             "x-kubernetes-list-type is map"),
          At(".properties[spec].items.properties[name].default: Required value: this property is "
             "in x-kubernetes-list-map-keys, so it must have a default or be a required property"),
          At(".properties[spec].items.properties[port].nullable: Forbidden: this property is in "
             "x-kubernetes-list-map-keys, so it cannot be nullable")});
}

TEST_CASE("CRD schema: x-kubernetes-map-type and preserve-unknown-fields", "[crd-validation]") {
  CHECK(
      ErrorsOfSpec(R"({"type": "string", "x-kubernetes-map-type": "atomic"})") ==
      Strings{At(
          R"(.properties[spec].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified)")});
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "x-kubernetes-map-type": "shallow"})") ==
      Strings{At(
          R"(.properties[spec].x-kubernetes-map-type: Unsupported value: "shallow": supported values: "atomic", "granular")")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-map-type": "granular",
      "x-kubernetes-preserve-unknown-fields": true})")
            .empty());
}

TEST_CASE("CRD schema: defaults are pruned and allowed where upstream allows them",
          "[crd-validation]") {
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "default": {"a": "x", "b": 1, "c": 1234567.5, "d": [true, null]}})") ==
      Strings{At(
          R"(.properties[spec].default: Invalid value: map[string]interface {}{"a":"x", "b":1, "c":1.2345675e+06, "d":[]interface {}{true, interface {}(nil)}}: must not have unknown fields)")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string", "default": "x"},
      "m": {"type": "object", "additionalProperties": {"type": "integer"}, "default": {"k": 1}},
      "p": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "default": {"anything": [1, {"goes": true}]}}}})")
            .empty());
  // Embedded resources keep apiVersion, kind and metadata.
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "properties": {"spec": {"type": "object"}},
      "default": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {},
                  "other": 1.5}})") ==
      Strings{At(
          R"(.properties[spec].default: Invalid value: map[string]interface {}{"apiVersion":"v1", "kind":"Pod", "metadata":map[string]interface {}{"name":"x"}, "other":1.5, "spec":map[string]interface {}{}}: must not have unknown fields)")});
  // Maps inside an embedded resource's metadata may not have defaults.
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
      "properties": {"metadata": {"type": "object", "properties": {"annotations": {
          "type": "object", "additionalProperties": {"type": "string", "default": "x"}}}}}})") ==
        Strings{At(".properties[spec].properties[metadata].properties[annotations]."
                   "additionalProperties.default: Forbidden: must not be set inside "
                   "additionalProperties applying to object metadata")});

  // Defaults need pruning: spec.preserveUnknownFields must be false.
  json crd = WithSchema(SpecSchema(json::parse(R"({"type": "string", "default": "x"})")));
  crd["spec"]["preserveUnknownFields"] = true;
  CHECK(Create(crd) ==
        Strings{"spec.preserveUnknownFields: Invalid value: true: must be false in order to use "
                "defaults in the schema",
                "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
                "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"});
}

TEST_CASE("CRD schema: x-kubernetes-validations rules are well formed", "[crd-validation]") {
  auto rules = [](const char* list) {
    json spec = json::parse(R"({"type": "object", "properties": {"a": {"type": "string"}}})");
    spec["x-kubernetes-validations"] = json::parse(list);
    return Create(WithSchema(SpecSchema(spec)));
  };
  const std::string base = At(".properties[spec].x-kubernetes-validations");
  CHECK(
      rules(R"j([{"rule": "has(self.a)", "message": "a is required", "reason": "FieldValueRequired",
                  "fieldPath": ".a", "messageExpression": "'a is ' + 'required'"},
                 {"rule": "self.a != 'x'", "fieldPath": "['a']"}])j")
          .empty());
  CHECK(rules(R"([{"rule": "  "}])") ==
        Strings{base + "[0].rule: Required value: rule is not specified"});
  CHECK(
      rules(R"([{"rule": "true", "message": " "}])") ==
      Strings{base + R"([0].message: Invalid value: " ": message must be non-empty if specified)"});
  CHECK(rules(R"([{"rule": "true", "message": "one\ntwo"}])") ==
        Strings{base +
                R"([0].message: Invalid value: "one\ntwo": message must not contain line breaks)"});
  CHECK(rules(R"([{"rule": "true &&\ntrue"}])") ==
        Strings{
            base +
            "[0].message: Required value: message must be specified if rule contains line breaks"});
  CHECK(rules(R"([{"rule": "true", "messageExpression": "  "}])") ==
        Strings{base + "[0].messageExpression: Required value: messageExpression must be non-empty "
                       "if specified"});
  CHECK(
      rules(R"([{"rule": "true", "reason": "FieldValueBad"}])") ==
      Strings{
          base +
          R"([0].reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")"});
  CHECK(rules(R"([{"rule": "true", "fieldPath": " "}])") ==
        Strings{
            base + R"([0].fieldPath: Invalid value: " ": fieldPath must be non-empty if specified)",
            base + R"([0].fieldPath: Invalid value: " ": fieldPath must be a valid path)"});
  CHECK(
      rules(R"([{"rule": "true", "fieldPath": ".b"}, {"rule": "true", "fieldPath": ".a\n"}])") ==
      Strings{
          base + R"([0].fieldPath: Invalid value: ".b": fieldPath must be a valid path)",
          base + R"([1].fieldPath: Invalid value: ".a\n": fieldPath must not contain line breaks)",
          base + R"([1].fieldPath: Invalid value: ".a\n": fieldPath must be a valid path)"});
}

TEST_CASE("CRD schema: oldSelf only where old and new values correlate", "[crd-validation]") {
  const std::string list = At(".properties[spec].properties[list]");
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "properties": {"list": {"type": "array", "maxItems": 10,
      "items": {"type": "string", "maxLength": 10,
                "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}})") ==
      Strings{
          list +
          R"(.items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within )" +
          list});
  // Items of map lists correlate; names in strings and fields called oldSelf are no use.
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"list": {"type": "array",
      "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
      "items": {"type": "object", "required": ["k"],
                "properties": {"k": {"type": "string", "maxLength": 10}},
                "x-kubernetes-validations": [{"rule": "self.k == oldSelf.k"}]}},
      "atomic": {"type": "array", "items": {"type": "object",
                "properties": {"oldSelf": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "self.oldSelf != 'oldSelf'"}]}}}})")
            .empty());
  CHECK(ErrorsOfSpec(R"j({"type": "object", "properties": {"a": {"type": "string"}},
      "x-kubernetes-validations": [
      {"rule": "self.a != 'x'", "optionalOldSelf": true},
      {"rule": "oldSelf.hasValue()", "optionalOldSelf": true}]})j") ==
        Strings{At(".properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: "
                   "true: may not be set if oldSelf is not used in rule")});
}

TEST_CASE("CRD schema: defaults must validate against their schema", "[crd-validation]") {
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "properties": {
      "replicas": {"type": "integer", "default": "one"},
      "mode": {"type": "string", "enum": ["Fast", "Safe"], "default": "Slow"},
      "limits": {"type": "object", "properties": {"cpu": {"type": "integer", "maximum": 8}},
                 "default": {"cpu": 16}}}})") ==
      Strings{
          At(".properties[spec].properties[limits].default.cpu: Invalid value: 16: cpu in body "
             "should be less than or equal to 8"),
          At(R"(.properties[spec].properties[mode].default: Unsupported value: "Slow": supported values: "Fast", "Safe")"),
          // kube-openapi names the value itself "", hence the two spaces (as upstream)
          At(R"(.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string")")});
  // Embedded resources in defaults are resources.
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
      "default": {"apiVersion": "v1", "metadata": {"name": "x"}}})") ==
        Strings{At(".properties[spec].default.kind: Required value")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
      "default": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}})")
            .empty());
}

TEST_CASE("CRD schema: rules are compiled once the schema is otherwise valid", "[crd-validation]") {
  // The wording of compilation errors is apiextensions::cel's; here only where they go.
  auto fields = [](const Strings& errors) {
    Strings out;
    for (const std::string& e : errors) out.push_back(e.substr(0, e.find(": ")));
    return out;
  };
  const char* bad_rule = R"j({"type": "object", "properties": {"a": {"type": "string"}},
      "x-kubernetes-validations": [{"rule": "self.b == 1"}]})j";
  const Strings errors = ErrorsOfSpec(bad_rule);
  REQUIRE(errors.size() == 1);
  CHECK(fields(errors) == Strings{At(".properties[spec].x-kubernetes-validations[0].rule")});
  CHECK(errors[0].find("compilation failed") != std::string::npos);

  // Not while the schema has other errors.
  json spec = json::parse(bad_rule);
  spec["properties"]["c"] = json::object();
  CHECK(Create(WithSchema(SpecSchema(spec))) ==
        Strings{At(".properties[spec].properties[c].type: Required value: must not be empty for "
                   "specified object fields")});

  // Each version's own schema is compiled under its own path.
  json crd = WithSchema(SpecSchema(json::parse(bad_rule)));
  json second = crd["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  second["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"][0]["rule"] =
      "self.a == 'x'";
  crd["spec"]["versions"].push_back(second);
  CHECK(fields(Create(crd)) == Strings{"spec.versions[0].schema.openAPIV3Schema.properties[spec].x-"
                                       "kubernetes-validations[0].rule"});
}
