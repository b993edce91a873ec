#include "pkg/apiextensions/registry/openapi_v2_schema.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/naming.h"

namespace apiextensions {
namespace {

using nlohmann::json;

constexpr std::string_view kConventions =
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md";

std::string MoreInfo(std::string_view anchor) {
  return " More info: " + std::string(kConventions) + std::string(anchor);
}

// TypeMeta's properties as its generated v2 definition describes them.
json TypeMetaAPIVersion() {
  return {{"description",
           "APIVersion defines the versioned schema of this representation of an object. "
           "Servers should convert recognized schemas to the latest internal value, and may "
           "reject unrecognized values." +
               MoreInfo("#resources")},
          {"type", "string"}};
}

json TypeMetaKind() {
  return {{"description",
           "Kind is a string value representing the REST resource this object represents. "
           "Servers may infer this from the endpoint the client submits requests to. Cannot be "
           "updated. In CamelCase." +
               MoreInfo("#types-kinds")},
          {"type", "string"}};
}

// The `metadata` of every object: a reference to ObjectMeta with PartialObjectMetadata's text.
json ObjectMetaProperty() {
  return {{"$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
          {"description", "Standard object's metadata." + MoreInfo("#metadata")}};
}

bool True(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_boolean() && it->get<bool>();
}

// What a structural schema node keeps when written back (ToKubeOpenAPI): proto-like zero
// values (false, "", empty lists) are not written.
void CopyStructural(const json& node, json& out) {
  for (const char* key : {"type", "title", "description", "format", "pattern",
                          "x-kubernetes-list-type", "x-kubernetes-map-type"}) {
    auto it = node.find(key);
    if (it != node.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
      out[key] = *it;
    }
  }
  for (const char* key : {"maximum", "minimum", "maxLength", "minLength", "maxItems", "minItems",
                          "multipleOf", "maxProperties", "minProperties"}) {
    auto it = node.find(key);
    if (it != node.end() && it->is_number()) out[key] = *it;
  }
  for (const char* key : {"exclusiveMaximum", "exclusiveMinimum", "uniqueItems",
                          "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
                          "x-kubernetes-int-or-string"}) {
    if (True(node, key)) out[key] = true;
  }
  for (const char* key :
       {"enum", "required", "x-kubernetes-list-map-keys", "x-kubernetes-validations"}) {
    auto it = node.find(key);
    if (it != node.end() && it->is_array() && !it->empty()) out[key] = *it;
  }
}

// addEmbeddedProperties: nodes that embed a whole object (x-kubernetes-embedded-resource)
// get apiVersion, kind and metadata, and require the first two; nodes that preserve unknown
// fields are left alone in v2 (those properties would make kubectl refuse unknown fields).
void AddEmbeddedProperties(json& node) {
  if (!node.is_object()) return;
  if (auto props = node.find("properties"); props != node.end() && props->is_object()) {
    for (auto& [name, child] : props->items()) AddEmbeddedProperties(child);
  }
  if (auto items = node.find("items"); items != node.end()) AddEmbeddedProperties(*items);
  if (auto extra = node.find("additionalProperties"); extra != node.end()) {
    AddEmbeddedProperties(*extra);
  }
  if (True(node, "x-kubernetes-preserve-unknown-fields")) return;
  if (!True(node, "x-kubernetes-embedded-resource")) return;
  json api_version = TypeMetaAPIVersion();
  api_version["description"] =
      "apiVersion defines the versioned schema of this representation of an object." +
      MoreInfo("#resources");
  json kind = TypeMetaKind();
  kind["description"] =
      "kind is a string value representing the type of this object. In CamelCase." +
      MoreInfo("#types-kinds");
  json& props = node["properties"];
  props["apiVersion"] = std::move(api_version);
  props["kind"] = std::move(kind);
  props["metadata"] = ObjectMetaProperty();
  json& required = node["required"];
  if (!required.is_array()) required = json::array();
  for (const char* key : {"kind", "apiVersion"}) {
    if (std::find(required.begin(), required.end(), key) == required.end()) {
      required.push_back(key);
    }
  }
}

json GroupVersionKind(const CustomResourceNames& names, const std::string& kind) {
  return json::array({{{"group", names.group}, {"kind", kind}, {"version", names.version}}});
}

}  // namespace

json ToStructuralOpenAPIV2(const json& node) {
  json out = json::object();
  if (!node.is_object()) return out;
  CopyStructural(node, out);
  const bool nullable = True(node, "nullable");
  const bool preserve = True(node, "x-kubernetes-preserve-unknown-fields");
  // Untyped values, and values that preserve unknown fields, break in kubectl when they
  // have items or properties.
  if (!nullable && !preserve) {
    if (auto items = node.find("items"); items != node.end() && items->is_object()) {
      out["items"] = ToStructuralOpenAPIV2(*items);
    }
    if (auto props = node.find("properties"); props != node.end() && props->is_object()) {
      json converted = json::object();
      for (const auto& [name, child] : props->items()) {
        converted[name] = ToStructuralOpenAPIV2(child);
        // kubectl cannot tell a nullable field's null from a missing one.
        if (True(child, "nullable") && out.contains("required")) {
          json& required = out["required"];
          required.erase(std::remove(required.begin(), required.end(), name), required.end());
        }
      }
      if (!converted.empty()) out["properties"] = std::move(converted);
    }
  }
  if (auto extra = node.find("additionalProperties"); extra != node.end()) {
    if (extra->is_boolean()) {
      out["additionalProperties"] = *extra;
    } else if (extra->is_object()) {
      out["additionalProperties"] = ToStructuralOpenAPIV2(*extra);
      if (True(*extra, "nullable")) out.erase("required");
    }
  }
  if (nullable) out.erase("type");
  // kubectl cannot cope with an array without an item schema.
  if (!out.contains("items") && out.value("type", "") == "array") out.erase("type");
  if (preserve && out.value("type", "") == "object") out.erase("type");
  if (auto required = out.find("required"); required != out.end() && required->empty()) {
    out.erase(required);
  }
  return out;
}

json OpenAPIV2Definitions(const json& schema, const CustomResourceNames& names) {
  const std::string object_name =
      endpoints::openapi::DefinitionName(names.group, names.version, names.kind);
  const std::string list_name =
      endpoints::openapi::DefinitionName(names.group, names.version, names.list_kind);
  json object;
  if (!schema.is_object() || True(schema, "x-kubernetes-preserve-unknown-fields")) {
    // No properties at all, not even apiVersion, kind or metadata: kubectl would otherwise
    // refuse every field beside them.
    object = {{"type", "object"}};
  } else {
    object = ToStructuralOpenAPIV2(schema);
    json& props = object["properties"];
    if (!props.is_object()) props = json::object();
    props["metadata"] = ObjectMetaProperty();
    props["apiVersion"] = TypeMetaAPIVersion();
    props["kind"] = TypeMetaKind();
    AddEmbeddedProperties(object);
  }
  object["x-kubernetes-group-version-kind"] = GroupVersionKind(names, names.kind);

  json items = {{"description", "List of " + names.plural + "." + MoreInfo("")},
                {"items", {{"$ref", "#/definitions/" + object_name}}},
                {"type", "array"}};
  json list = {{"description", names.list_kind + " is a list of " + names.kind},
               {"properties",
                {{"apiVersion", TypeMetaAPIVersion()},
                 {"items", std::move(items)},
                 {"kind", TypeMetaKind()},
                 {"metadata",
                  {{"$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"},
                   {"description", "Standard list metadata." + MoreInfo("#types-kinds")}}}}},
               {"required", json::array({"items"})},
               {"type", "object"},
               {"x-kubernetes-group-version-kind", GroupVersionKind(names, names.list_kind)}};
  return {{object_name, std::move(object)}, {list_name, std::move(list)}};
}

}  // namespace apiextensions
