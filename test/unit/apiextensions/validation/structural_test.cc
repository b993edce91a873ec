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

TEST_CASE("CRD structural schema: every specified field and item has a type", "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"description": "no type"})") ==
        Strings{At(".properties[spec].type: Required value: must not be empty for specified object "
                   "fields")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "items": {"description": "no type"}})") ==
        Strings{At(".properties[spec].items.type: Required value: must not be empty for specified "
                   "array items")});
  CHECK(ErrorsOfSpec(R"({"type": "array"})") ==
        Strings{At(".properties[spec].items: Required value: must be specified")});
  CHECK(Create(WithSchema(json::parse(R"({"properties": {"spec": {"type": "object"}}})"))) ==
        Strings{At(".type: Required value: must not be empty at the root")});
  CHECK(Create(WithSchema(json::parse(R"({"type": "string"})"))) ==
        Strings{At(R"(.type: Invalid value: "string": must be object at the root)")});
  // Several errors come sorted by their text, as upstream sorts them.
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"b": {}, "a": {"type": "array"}}})") ==
        Strings{At(".properties[spec].properties[a].items: Required value: must be specified"),
                At(".properties[spec].properties[b].type: Required value: must not be empty for "
                   "specified object fields")});
}

TEST_CASE("CRD structural schema: additionalProperties at the root", "[crd-validation]") {
  CHECK(Create(WithSchema(
            json::parse(R"({"type": "object", "additionalProperties": {"type": "string"}})"))) ==
        Strings{At(".additionalProperties: Forbidden: must not be used at the root")});
  // Further down it makes a map.
  CHECK(ErrorsOfSpec(R"({"type": "object", "additionalProperties": {"type": "string"}})").empty());
}

TEST_CASE("CRD structural schema: metadata, kind and apiVersion at the root", "[crd-validation]") {
  auto with_root_property = [](const char* name, const char* schema) {
    json root = SpecSchema(json{{"type", "object"}});
    root["properties"][name] = json::parse(schema);
    return Create(WithSchema(root));
  };
  CHECK(with_root_property("metadata", R"({"type": "object"})").empty());
  CHECK(with_root_property("metadata", R"({"type": "object", "properties": {
      "name": {"type": "string", "maxLength": 20}, "generateName": {"type": "string"}}})")
            .empty());
  CHECK(with_root_property("metadata",
                           R"({"type": "object", "properties": {"labels": {"type": "object"}}})") ==
        Strings{At(".properties[metadata]: Forbidden: must not specify anything other than name "
                   "and generateName, but metadata is implicitly specified")});
  CHECK(with_root_property("metadata", R"({"type": "object", "description": "the metadata"})") ==
        Strings{At(".properties[metadata]: Forbidden: must not specify anything other than name "
                   "and generateName, but metadata is implicitly specified")});
  CHECK(with_root_property("metadata", R"({"type": "string"})") ==
        Strings{At(R"(.properties[metadata].type: Invalid value: "string": must be object)")});
  CHECK(with_root_property("kind", R"({"type": "integer"})") ==
        Strings{At(R"(.properties[kind].type: Invalid value: "integer": must be string)")});
  CHECK(with_root_property("apiVersion", R"({"type": "object"})") ==
        Strings{At(R"(.properties[apiVersion].type: Invalid value: "object": must be string)")});
  // Defaults are not allowed in the top-level metadata.
  CHECK(with_root_property("metadata", R"({"type": "object", "properties": {
      "name": {"type": "string", "default": "x"}}})") ==
        Strings{At(".properties[metadata].properties[name].default: Forbidden: must not be set in "
                   "top-level metadata")});
}

TEST_CASE("CRD structural schema: x-kubernetes-int-or-string", "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-int-or-string": true})").empty());
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-int-or-string": true,
      "anyOf": [{"type": "integer"}, {"type": "string"}]})")
            .empty());
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-int-or-string": true,
      "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^[0-9]+%?$"}]})")
            .empty());
  // Anything beyond the two types is not the int-or-string pattern.
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-int-or-string": true,
      "anyOf": [{"type": "integer", "description": "a number"}, {"type": "string"}]})") ==
        Strings{
            At(".properties[spec].anyOf[0].description: Forbidden: must be empty to be structural"),
            At(".properties[spec].anyOf[0].type: Forbidden: must be empty to be structural"),
            At(".properties[spec].anyOf[1].type: Forbidden: must be empty to be structural")});
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-int-or-string": true,
      "x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-embedded-resource": true,
      "type": "object", "properties": {"a": {"type": "string"}}})") ==
        Strings{At(".properties[spec].x-kubernetes-embedded-resource: Invalid value: true: must be "
                   "false if x-kubernetes-int-or-string is true"),
                At(".properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: true: "
                   "must be false if x-kubernetes-int-or-string is true")});
}

TEST_CASE("CRD structural schema: x-kubernetes-embedded-resource", "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true})")
            .empty());
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true})") ==
        Strings{At(".properties[spec].properties: Required value: must not be empty if "
                   "x-kubernetes-embedded-resource is true without "
                   "x-kubernetes-preserve-unknown-fields")});
  CHECK(
      ErrorsOfSpec(R"({"type": "string", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true})") ==
      Strings{At(
          R"(.properties[spec].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true)")});
  CHECK(ErrorsOfSpec(R"({"x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true})") ==
        Strings{At(".properties[spec].type: Required value: must be object if "
                   "x-kubernetes-embedded-resource is true")});
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": {"type": "string"}})") ==
        Strings{At(".properties[spec].additionalProperties: Forbidden: must not be used if "
                   "x-kubernetes-embedded-resource is set")});
  // An embedded resource's kind and metadata are restricted as at the root, but its metadata
  // may say more.
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "properties": {"kind": {"type": "boolean"},
                     "metadata": {"type": "object", "properties": {"labels": {"type": "object",
                        "additionalProperties": {"type": "string"}}}}}})") ==
      Strings{At(
          R"(.properties[spec].properties[kind].type: Invalid value: "boolean": must be string)")});
  // Not inside resource meta.
  CHECK(ErrorsOfSpec(R"({"type": "object", "x-kubernetes-embedded-resource": true,
      "properties": {"metadata": {"type": "object", "x-kubernetes-embedded-resource": true,
                                  "x-kubernetes-preserve-unknown-fields": true}}})") ==
        Strings{At(".properties[spec].properties[metadata].x-kubernetes-embedded-resource: "
                   "Forbidden: must not be used inside of resource meta")});
}

TEST_CASE("CRD structural schema: value validations only restate the structure",
          "[crd-validation]") {
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "allOf": [{"properties": {"a": {"minLength": 1}}}],
      "oneOf": [{"required": ["a"]}, {"not": {"required": ["a"]}}]})")
            .empty());
  CHECK(ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "allOf": [{"properties": {"a": {"type": "string", "default": "x"}}}]})") ==
        Strings{At(".properties[spec].allOf[0].properties[a].default: Forbidden: must be undefined "
                   "to be structural"),
                At(".properties[spec].allOf[0].properties[a].type: Forbidden: must be empty to be "
                   "structural")});
  CHECK(
      ErrorsOfSpec(R"({"type": "object", "properties": {"a": {"type": "string"}},
      "anyOf": [{"nullable": true, "title": "t", "additionalProperties": false,
                 "x-kubernetes-preserve-unknown-fields": true,
                 "x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true,
                 "x-kubernetes-validations": [{"rule": "true"}]}]})") ==
      Strings{At(".properties[spec].anyOf[0].additionalProperties: Forbidden: must be undefined to "
                 "be structural"),
              At(".properties[spec].anyOf[0].nullable: Forbidden: must be false to be structural"),
              At(".properties[spec].anyOf[0].title: Forbidden: must be empty to be structural"),
              At(".properties[spec].anyOf[0].x-kubernetes-embedded-resource: Forbidden: must be "
                 "false to be structural"),
              At(".properties[spec].anyOf[0].x-kubernetes-int-or-string: Forbidden: must be false "
                 "to be structural"),
              At(".properties[spec].anyOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must "
                 "be false to be structural"),
              At(".properties[spec].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to "
                 "be structural")});
  CHECK(
      ErrorsOfSpec(
          R"({"type": "object", "oneOf": [{"type": "object", "x-kubernetes-map-type": "atomic"}]})") ==
      Strings{At(".properties[spec].oneOf[0].type: Forbidden: must be empty to be structural"),
              At(".properties[spec].oneOf[0].x-kubernetes-map-type: Forbidden: must be undefined "
                 "to be structural")});
  CHECK(ErrorsOfSpec(R"({"type": "array", "items": {"type": "string"},
      "not": {"type": "array", "x-kubernetes-list-type": "atomic", "x-kubernetes-list-map-keys": []}})") ==
        Strings{At(".properties[spec].not.type: Forbidden: must be empty to be structural"),
                At(".properties[spec].not.x-kubernetes-list-type: Forbidden: must be undefined to "
                   "be structural")});
  // metadata is never reasoned about in value validations.
  json root = SpecSchema(json{{"type", "object"}});
  root["properties"]["metadata"] = {{"type", "object"}};
  root["anyOf"] = json::parse(R"([{"properties": {"metadata": {"required": ["name"]}}}])");
  CHECK(
      Create(WithSchema(root)) ==
      Strings{At(
          ".anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context")});
}

TEST_CASE("CRD structural schema: fields value validations name must be specified",
          "[crd-validation]") {
  json root = SpecSchema(json{{"type", "object"}});
  root["anyOf"] = json::parse(R"([{"required": ["spec"]}, {"properties": {"status": {}}}])");
  CHECK(Create(WithSchema(root)) ==
        Strings{At(".properties[status]: Required value: because it is defined in "
                   "spec.validation.openAPIV3Schema.anyOf[1].properties[status]")});
  json items = SpecSchema(json{{"type", "object"}});
  items["not"] = json::parse(R"({"properties": {"spec": {"items": {"minimum": 1}}}})");
  CHECK(Create(WithSchema(items)) ==
        Strings{At(".properties[spec].items: Required value: because it is defined in "
                   "spec.validation.openAPIV3Schema.not.properties[spec].items")});
}

TEST_CASE("CRD structural schema: patterns must compile as Go regular expressions",
          "[crd-validation]") {
  auto pattern_errors = [](const std::string& pattern) {
    return Create(WithSchema(SpecSchema(json{{"type", "string"}, {"pattern", pattern}})));
  };
  // The engine's own cases, Go's error texts included: test/unit/apimachinery/regex/.
  for (const char* ok : {"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "(?<n>x)", R"(\p{Greek}\pL)"}) {
    INFO(ok);
    CHECK(pattern_errors(ok).empty());
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"(?<=a)b", "invalid named capture: `(?<=a)b`"},
      {"a)", "unexpected ): `a)`"},
      {R"(a\)", "trailing backslash at end of expression: ``"},
  };
  for (const auto& [pattern, error] : bad) {
    INFO(pattern);
    json quoted = pattern;
    CHECK(pattern_errors(pattern) ==
          Strings{At(
              ".properties[spec].pattern: Invalid value: " + quoted.dump() +
              ": must be a valid regular expression, but isn't: error parsing regexp: " + error)});
  }
}

TEST_CASE("CRD structural schema: what cannot become a structural schema", "[crd-validation]") {
  // Reported alone, when nothing else is wrong.
  json root = SpecSchema(json{{"type", "object"}});
  root["$schema"] = "http://json-schema.org/draft-04/schema#";
  CHECK(Create(WithSchema(root)) ==
        Strings{At(R"(: Invalid value: "": OpenAPIV3Schema 'schema' is not supported)")});
  // Otherwise upstream's more specific errors win.
  root["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"] = false;
  CHECK(Create(WithSchema(root)) ==
        Strings{At(".properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: "
                   "must be true or undefined")});
}
