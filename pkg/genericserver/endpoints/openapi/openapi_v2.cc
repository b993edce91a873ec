#include "pkg/genericserver/endpoints/openapi/openapi_v2.h"

#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/document_cache.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/genericserver/endpoints/openapi/serving.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/server/cacheable.h"

namespace endpoints::openapi {
namespace {

using nlohmann::json;

constexpr std::string_view kV3Ref = "#/components/schemas/";

// A v3 schema in v2 form: references into definitions, a lone allOf reference as a plain
// $ref (the form upstream's v2 documents use), no `nullable`.
json Schema(const json& schema) {
  if (schema.is_array()) {
    json out = json::array();
    for (const json& item : schema) out.push_back(Schema(item));
    return out;
  }
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    if (key == "$ref" && value.is_string()) {
      std::string ref = value;
      if (ref.starts_with(kV3Ref)) ref = "#/definitions/" + ref.substr(kV3Ref.size());
      out[key] = ref;
    } else if (key == "nullable") {
      continue;
    } else if (key == "properties" || key == "definitions") {
      json props = json::object();
      for (const auto& [name, sub] : value.items()) props[name] = Schema(sub);
      out[key] = std::move(props);
    } else {
      out[key] = Schema(value);
    }
  }
  auto all = out.find("allOf");
  if (all != out.end() && all->is_array() && all->size() == 1 && (*all)[0].contains("$ref")) {
    json ref = (*all)[0]["$ref"];
    out.erase("allOf");
    out.erase("default");
    out["$ref"] = ref;
  }
  return out;
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

json Operation(const json& op) {
  json out = json::object();
  json consumes = json::array();
  json produces = json::array();
  json parameters = json::array();
  for (const auto& [key, value] : op.items()) {
    if (key == "parameters") {
      for (const json& p : value) parameters.push_back(Parameter(p));
    } else if (key == "requestBody") {
      json body = {{"name", "body"}, {"in", "body"}, {"required", value.value("required", false)}};
      const json content = value.value("content", json::object());
      for (const auto& [type, media] : content.items()) {
        consumes.push_back(type);
        if (!body.contains("schema") && media.contains("schema"))
          body["schema"] = Schema(media["schema"]);
      }
      parameters.push_back(std::move(body));
    } else if (key == "responses") {
      json responses = json::object();
      for (const auto& [code, response] : value.items()) {
        json r = {{"description", response.value("description", "")}};
        const json content = response.value("content", json::object());
        for (const auto& [type, media] : content.items()) {
          if (std::find(produces.begin(), produces.end(), type) == produces.end()) {
            produces.push_back(type);
          }
          if (!r.contains("schema") && media.contains("schema"))
            r["schema"] = Schema(media["schema"]);
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

}  // namespace

json ToSwagger(const std::vector<json>& v3_documents) {
  json paths = json::object();
  json definitions = json::object();
  json info = json::object();
  for (const json& doc : v3_documents) {
    if (info.empty() && doc.contains("info")) info = doc["info"];
    const json doc_paths = doc.value("paths", json::object());
    for (const auto& [path, item] : doc_paths.items()) {
      json out = json::object();
      for (const auto& [key, value] : item.items()) {
        if (key == "parameters") {
          json parameters = json::array();
          for (const json& p : value) parameters.push_back(Parameter(p));
          out[key] = std::move(parameters);
        } else if (value.is_object()) {
          out[key] = Operation(value);
        } else {
          out[key] = value;
        }
      }
      paths[path] = std::move(out);
    }
    const json schemas = doc.value("components", json::object()).value("schemas", json::object());
    for (const auto& [name, schema] : schemas.items()) {
      if (!definitions.contains(name)) definitions[name] = Schema(schema);
    }
  }
  return {{"swagger", "2.0"},
          {"info", info},
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

namespace {

class Handler final : public genericserver::Handler {
 public:
  explicit Handler(std::function<std::vector<APIGroupInfo>()> groups)
      : groups_(std::move(groups)) {}

  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    if (!AcceptsJSON(ctx.request.headers.Get("Accept"))) {
      genericserver::Response not_found;
      not_found.status = 404;
      co_await out.Respond(std::move(not_found));
      co_return;
    }
    std::vector<APIGroupInfo> groups = groups_();
    const json* shared = SharedSchemas(groups);
    std::vector<std::shared_ptr<const void>> inputs;
    inputs.emplace_back(std::shared_ptr<const void>(), shared);
    for (const APIGroupInfo& group : groups) {
      for (const auto& [version, specs] : group.specs) {
        for (const registry::ResourceSpecPtr& spec : specs) inputs.push_back(spec);
      }
    }
    auto document = cache_.Get("v2", std::move(inputs), [&] {
      std::vector<json> v3;
      for (const APIGroupInfo& group : groups) {
        for (const auto& [version, specs] : group.specs) {
          if (!specs.empty()) v3.push_back(BuildGroupVersionDocument(group, version, shared));
        }
      }
      return ToSwagger(v3).dump(-1, ' ', false, json::error_handler_t::replace);
    });
    genericserver::Cacheable response;
    response.content_type = "application/json";
    response.body = document->body;
    response.etag = document->hash;
    co_await genericserver::WriteCacheable(ctx, out, std::move(response));
  }

 private:
  std::function<std::vector<APIGroupInfo>()> groups_;
  DocumentCache cache_;
};

}  // namespace

void InstallOpenAPIV2(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups) {
  mux.Handle("/openapi/v2", std::make_unique<Handler>(std::move(groups)));
}

}  // namespace endpoints::openapi
