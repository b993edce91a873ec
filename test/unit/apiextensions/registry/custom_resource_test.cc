#include "pkg/apiextensions/registry/custom_resource.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/table.h"

using nlohmann::json;

namespace {

json Widgets(json version_extra = json::object()) {
  json version = {
      {"name", "v1"},
      {"served", true},
      {"storage", true},
      {"schema",
       {{"openAPIV3Schema",
         {{"type", "object"},
          {"properties",
           {{"spec",
             {{"type", "object"},
              {"properties",
               {{"replicas", {{"type", "integer"}, {"default", 1}}},
                {"color", {{"type", "string"}}}}}}},
            {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}};
  version.update(version_extra);
  return {{"metadata", {{"name", "widgets.example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", "Namespaced"},
            {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
            {"versions", json::array({version})}}},
          {"status",
           {{"acceptedNames",
             {{"plural", "widgets"},
              {"singular", "widget"},
              {"kind", "Widget"},
              {"listKind", "WidgetList"},
              {"shortNames", {"wd"}},
              {"categories", {"all"}}}}}}};
}

const auto kNow = std::chrono::system_clock::now();

}  // namespace

TEST_CASE("a CRD version becomes a ResourceSpec with the accepted names", "[crd-registry]") {
  auto spec = apiextensions::CustomResourceSpec(Widgets(), "v1");
  REQUIRE(spec);
  const registry::ResourceSpec& s = **spec;
  CHECK(s.group == "example.com");
  CHECK(s.kind == "Widget");
  CHECK(s.list_kind == "WidgetList");
  CHECK(s.short_names == std::vector<std::string>{"wd"});
  CHECK(s.categories == std::vector<std::string>{"all"});
  CHECK(s.namespaced);
  CHECK(s.storage_prefix == "/example.com/widgets");
  CHECK(s.patch_schema == nullptr);  // no strategic merge patch
  REQUIRE(s.unstructured);
  CHECK(s.subresources.empty());
  CHECK_FALSE(apiextensions::CustomResourceSpec(Widgets(), "v2"));

  json unnamed = Widgets();
  unnamed["status"]["acceptedNames"]["kind"] = "";
  CHECK_FALSE(apiextensions::CustomResourceSpec(unnamed, "v1"));
}

TEST_CASE("custom resources are pruned and defaulted by their schema", "[crd-registry]") {
  auto spec = *apiextensions::CustomResourceSpec(Widgets(), "v1");
  json object = {{"apiVersion", "example.com/v1"},
                 {"kind", "Widget"},
                 {"metadata", {{"name", "w"}}},
                 {"extra", true},
                 {"spec", {{"color", "red"}, {"junk", 1}}}};
  CHECK(spec->unstructured->Prune(object) == std::vector<std::string>{"extra", "spec.junk"});
  spec->strategy->Default(object);
  CHECK(object["spec"] == json{{"color", "red"}, {"replicas", 1}});
  object["spec"]["replicas"] = "three";
  auto errors = spec->strategy->Validate(object);
  REQUIRE(errors.size() == 1);
  CHECK(apimachinery::validation::ErrorString(errors[0]) ==
        "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type "
        "integer: \"string\"");
}

TEST_CASE("generation counts status changes only without a status subresource", "[crd-registry]") {
  json old = {{"metadata", {{"name", "w"}}}, {"spec", {{"a", 1}}}, {"status", {{"b", 1}}}};
  json status_changed = old;
  status_changed["status"]["b"] = 2;
  auto plain = *apiextensions::CustomResourceSpec(Widgets(), "v1");
  CHECK(plain->strategy->GenerationChanged(status_changed, old));
  CHECK_FALSE(plain->strategy->HasStatusSubresource());

  auto with_status = *apiextensions::CustomResourceSpec(
      Widgets({{"subresources", {{"status", json::object()}}}}), "v1");
  CHECK(with_status->strategy->HasStatusSubresource());
  CHECK_FALSE(with_status->strategy->GenerationChanged(status_changed, old));
  REQUIRE(with_status->FindSubresource("status"));
}

TEST_CASE("the scale subresource reads and writes the CRD's paths", "[crd-registry]") {
  auto spec = *apiextensions::CustomResourceSpec(
      Widgets({{"subresources",
                {{"scale",
                  {{"specReplicasPath", ".spec.replicas"},
                   {"statusReplicasPath", ".status.ready"},
                   {"labelSelectorPath", ".status.selector"}}}}}}),
      "v1");
  const registry::Subresource* scale = spec->FindSubresource("scale");
  REQUIRE(scale);
  REQUIRE(scale->view);
  json object = {{"metadata", {{"name", "w"}, {"namespace", "ns"}}},
                 {"spec", {{"replicas", 2}}},
                 {"status", {{"ready", 1}, {"selector", "app=w"}}}};
  json view = scale->view->ToView(object);
  CHECK(view["apiVersion"] == "autoscaling/v1");
  CHECK(view["spec"]["replicas"] == 2);
  CHECK(view["status"] == json{{"replicas", 1}, {"selector", "app=w"}});
  json wanted = view;
  wanted["spec"]["replicas"] = 5;
  auto updated = scale->view->FromView(wanted, object);
  REQUIRE(updated);
  CHECK((*updated)["spec"]["replicas"] == 5);
}

TEST_CASE("printer columns print as upstream's table convertor", "[crd-registry]") {
  json columns = json::array(
      {{{"name", "Replicas"}, {"type", "integer"}, {"jsonPath", ".spec.replicas"}},
       {{"name", "Color"}, {"type", "string"}, {"jsonPath", ".spec.color"}, {"priority", 1}},
       {{"name", "Ready"},
        {"type", "string"},
        {"jsonPath", ".status.conditions[?(@.type==\"Ready\")].status"}},
       {{"name", "Ratio"}, {"type", "number"}, {"jsonPath", ".spec.ratio"}},
       {{"name", "Since"}, {"type", "date"}, {"jsonPath", ".status.since"}}});
  auto spec =
      *apiextensions::CustomResourceSpec(Widgets({{"additionalPrinterColumns", columns}}), "v1");
  json defs = registry::TableColumnDefinitions(*spec);
  REQUIRE(defs.size() == 6);
  CHECK(defs[0]["name"] == "Name");
  CHECK(defs[1]["description"] ==
        "Custom resource definition column (in JSONPath format): .spec.replicas");
  CHECK(defs[2]["priority"] == 1);
  json object = {
      {"metadata", {{"name", "w"}}},
      {"spec", {{"replicas", 2.0}, {"color", 7}}},
      {"status",
       {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}, {"since", "not a time"}}}};
  auto cells = spec->row(object, kNow);
  CHECK(cells == std::vector<json>{"w", 2, "7", "True", nullptr, "<invalid>"});

  auto plain = *apiextensions::CustomResourceSpec(Widgets(), "v1");
  json plain_defs = registry::TableColumnDefinitions(*plain);
  REQUIRE(plain_defs.size() == 2);
  CHECK(plain_defs[1]["name"] == "Age");
  CHECK(plain_defs[1]["type"] == "date");
}

TEST_CASE("schema keywords are found where schemas nest, not in field names", "[crd-registry]") {
  const json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "default": {"type": "string"},
      "list": {"type": "array", "items": {"type": "object", "properties": {
        "deep": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0"}]}}}},
      "map": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}}}})");
  CHECK(apiextensions::SchemaUses(schema, "x-kubernetes-validations"));
  CHECK(apiextensions::SchemaUses(schema, "default"));
  json no_default = schema;
  no_default["properties"]["map"]["additionalProperties"].erase("default");
  CHECK_FALSE(apiextensions::SchemaUses(no_default, "default"));  // a field named "default"
  CHECK_FALSE(apiextensions::SchemaUses(schema, "x-kubernetes-embedded-resource"));
}
