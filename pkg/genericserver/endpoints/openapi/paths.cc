#include "pkg/genericserver/endpoints/openapi/paths.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/naming.h"

namespace endpoints::openapi {
namespace {

using ParamKey = std::pair<std::string, std::string>;  // name, location

const char* Reason(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 401:
      return "Unauthorized";
  }
  return "";
}

nlohmann::json RenderParam(const Param& p) {
  nlohmann::json out = {
      {"in", p.in}, {"name", p.name}, {"schema", {{"type", p.type}, {"uniqueItems", true}}}};
  if (p.in == "path") out["required"] = true;
  return out;
}

nlohmann::json RenderParams(std::vector<const Param*> params) {
  std::ranges::sort(params, [](const Param* a, const Param* b) {
    return std::tie(a->name, a->in) < std::tie(b->name, b->in);
  });
  nlohmann::json out = nlohmann::json::array();
  for (const Param* p : params) out.push_back(RenderParam(*p));
  return out;
}

nlohmann::json RenderOperation(const Route& r, const std::map<ParamKey, const Param*>& common,
                               SchemaSet& schemas) {
  OperationName name = NameOperation(r.operation, r.path);
  nlohmann::json op = {{"operationId", name.id}, {"tags", nlohmann::json::array({name.tag})}};
  if (!r.action.empty()) {
    op["x-kubernetes-action"] = r.action;
    op["x-kubernetes-group-version-kind"] = {
        {"group", r.gvk.group}, {"version", r.gvk.version}, {"kind", r.gvk.kind}};
  }
  std::vector<const Param*> own;
  for (const Param& p : r.params) {
    if (!common.contains({p.name, p.in})) own.push_back(&p);
  }
  if (!own.empty()) op["parameters"] = RenderParams(std::move(own));
  if (r.body) {
    nlohmann::json body = {{"content", nlohmann::json::object()}};
    nlohmann::json schema = schemas.Ref(r.body->schema);
    for (const std::string& type : r.body->content_types)
      body["content"][type] = {{"schema", schema}};
    if (r.body->required) body["required"] = true;
    op["requestBody"] = std::move(body);
  }
  nlohmann::json responses = nlohmann::json::object();
  for (const Reply& reply : r.replies) {
    nlohmann::json response = {{"description", Reason(reply.code)}};
    nlohmann::json schema = reply.primitive.empty() ? schemas.Ref(reply.schema)
                                                    : nlohmann::json{{"type", reply.primitive}};
    nlohmann::json content = nlohmann::json::object();
    for (const std::string& type : r.produces) content[type] = {{"schema", schema}};
    if (!content.empty()) response["content"] = std::move(content);
    responses[std::to_string(reply.code)] = std::move(response);
  }
  responses["401"] = {{"description", Reason(401)}};
  op["responses"] = std::move(responses);
  return op;
}

}  // namespace

nlohmann::json RenderPaths(const std::vector<Route>& routes, SchemaSet& schemas) {
  // Routes by path, then method; the first route of a path and method wins.
  std::map<std::string, std::map<std::string, const Route*>> by_path;
  for (const Route& r : routes) by_path[r.path].try_emplace(r.method, &r);

  nlohmann::json paths = nlohmann::json::object();
  for (const auto& [path, by_method] : by_path) {
    // Parameters of every operation of the path go to the path item.
    std::map<ParamKey, int> counts;
    std::map<ParamKey, const Param*> first;
    for (const auto& [method, r] : by_method) {
      for (const Param& p : r->params) {
        ParamKey key{p.name, p.in};
        ++counts[key];
        first.try_emplace(key, &p);
      }
    }
    const bool has_patch = by_method.contains("patch");
    std::map<ParamKey, const Param*> common;
    for (const auto& [key, count] : counts) {
      if (count != static_cast<int>(by_method.size())) continue;
      if (has_patch && key.first == "fieldValidation") continue;
      common.emplace(key, first.at(key));
    }
    nlohmann::json item = nlohmann::json::object();
    if (!common.empty()) {
      std::vector<const Param*> shared;
      for (const auto& [key, p] : common) shared.push_back(p);
      item["parameters"] = RenderParams(std::move(shared));
    }
    for (const auto& [method, r] : by_method) item[method] = RenderOperation(*r, common, schemas);
    paths[path] = std::move(item);
  }
  return paths;
}

}  // namespace endpoints::openapi
