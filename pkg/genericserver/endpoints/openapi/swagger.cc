#include "pkg/genericserver/endpoints/openapi/swagger.h"

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace endpoints::openapi {
namespace {

using nlohmann::json;

constexpr std::string_view kV3Ref = "#/components/schemas/";

// The types whose v3 schema is made of junctors, in the form upstream's v2 documents give
// them (their OpenAPIV2Definition).
const std::map<std::string, json, std::less<>>& V2Forms() {
  static const auto* forms = new std::map<std::string, json, std::less<>>{
      {"io.k8s.apimachinery.pkg.util.intstr.IntOrString",
       {{"format", "int-or-string"}, {"type", "string"}}},
      {"io.k8s.apimachinery.pkg.api.resource.Quantity", {{"type", "string"}}},
  };
  return *forms;
}

// A v3 parameter in v2 form: its schema's type and format inline.
json Parameter(const json& p) {
  json out = json::object();
  for (const auto& [key, value] : p.items()) {
    if (key == "schema" && value.is_object()) {
      for (const auto& [k, v] : value.items()) out[k] = v;
    } else {
      out[key] = value;
    }
  }
  return out;
}

json Parameters(const json& parameters) {
  json out = json::array();
  for (const json& p : parameters) out.push_back(Parameter(p));
  return out;
}

void AddOnce(json& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// A v3 operation in v2 form: the request body as the `body` parameter and `consumes`, the
// responses' content as their schema and `produces`, https as the scheme.
json Operation(const json& op) {
  json out = json::object();
  json consumes = json::array();
  json produces = json::array();
  json parameters = json::array();
  for (const auto& [key, value] : op.items()) {
    if (key == "parameters") {
      parameters = Parameters(value);
    } else if (key == "requestBody") {
      json body = {{"name", "body"}, {"in", "body"}, {"required", value.value("required", false)}};
      const json content = value.value("content", json::object());
      for (const auto& [type, media] : content.items()) {
        consumes.push_back(type);
        if (!body.contains("schema") && media.contains("schema")) {
          body["schema"] = SchemaToV2(media["schema"]);
        }
      }
      if (!body.contains("schema")) body["schema"] = {{"type", "object"}};
      parameters.push_back(std::move(body));
    } else if (key == "responses") {
      json responses = json::object();
      for (const auto& [code, response] : value.items()) {
        json r = {{"description", response.value("description", "")}};
        const json content = response.value("content", json::object());
        for (const auto& [type, media] : content.items()) {
          AddOnce(produces, type);
          if (!r.contains("schema") && media.contains("schema")) {
            r["schema"] = SchemaToV2(media["schema"]);
          }
        }
        responses[code] = std::move(r);
      }
      out["responses"] = std::move(responses);
    } else {
      out[key] = value;
    }
  }
  if (!parameters.empty()) out["parameters"] = std::move(parameters);
  if (!consumes.empty()) out["consumes"] = std::move(consumes);
  if (!produces.empty()) out["produces"] = std::move(produces);
  out["schemes"] = json::array({"https"});
  return out;
}

json PathItem(const json& item) {
  json out = json::object();
  for (const auto& [key, value] : item.items()) {
    if (key == "parameters") {
      out[key] = Parameters(value);
    } else if (value.is_object()) {
      out[key] = Operation(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

}  // namespace

json SchemaToV2(const json& schema) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    if (key == "nullable" || key == "default" || key == "oneOf" || key == "anyOf" || key == "not") {
      continue;
    }
    if (key == "$ref" && value.is_string()) {
      std::string ref = value;
      if (ref.starts_with(kV3Ref)) ref = "#/definitions/" + ref.substr(kV3Ref.size());
      out[key] = std::move(ref);
    } else if (key == "properties" && value.is_object()) {
      json props = json::object();
      for (const auto& [name, sub] : value.items()) props[name] = SchemaToV2(sub);
      if (!props.empty()) out[key] = std::move(props);
    } else if ((key == "items" || key == "additionalProperties") && value.is_object()) {
      out[key] = SchemaToV2(value);
    } else if (key == "allOf" && value.is_array()) {
      json all = json::array();
      for (const json& sub : value) all.push_back(SchemaToV2(sub));
      out[key] = std::move(all);
    } else {
      out[key] = value;
    }
  }
  // v3's reference with siblings, allOf: [{$ref}], is a plain reference in v2.
  auto all = out.find("allOf");
  if (all != out.end() && all->size() == 1 && (*all)[0].is_object() && (*all)[0].contains("$ref")) {
    json ref = (*all)[0]["$ref"];
    out.erase(all);
    out["$ref"] = std::move(ref);
  }
  // kubectl refuses a reference that has a type or embeds properties.
  if (out.contains("$ref")) {
    out.erase("type");
    out.erase("properties");
  }
  return out;
}

json ToSwagger(const std::vector<json>& v3_documents, const json* definitions_v2) {
  json paths = json::object();
  json definitions = json::object();
  json info = json::object();
  for (const json& doc : v3_documents) {
    const json doc_info = doc.value("info", json::object());
    if (info.empty() && doc_info.value("title", "") == "Kubernetes") info = doc_info;
    const json doc_paths = doc.value("paths", json::object());
    for (const auto& [path, item] : doc_paths.items()) {
      if (!paths.contains(path)) paths[path] = PathItem(item);
    }
    const json schemas = doc.value("components", json::object()).value("schemas", json::object());
    for (const auto& [name, schema] : schemas.items()) {
      if (definitions.contains(name)) continue;
      auto form = V2Forms().find(name);
      if (form == V2Forms().end()) {
        definitions[name] = SchemaToV2(schema);
        continue;
      }
      json v2 = form->second;
      if (schema.contains("description")) v2["description"] = schema["description"];
      definitions[name] = std::move(v2);
    }
  }
  if (definitions_v2 && definitions_v2->is_object()) {
    for (const auto& [name, schema] : definitions_v2->items()) definitions[name] = schema;
  }
  return {{"swagger", "2.0"},
          {"info", std::move(info)},
          {"paths", std::move(paths)},
          {"definitions", std::move(definitions)},
          {"securityDefinitions",
           {{"BearerToken",
             {{"description", "Bearer Token authentication"},
              {"type", "apiKey"},
              {"name", "authorization"},
              {"in", "header"}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

}  // namespace endpoints::openapi
