#include "test/unit/endpoints/openapi/summary.h"

#include <set>
#include <string>

namespace openapi_test {
namespace {

using nlohmann::json;

const std::set<std::string> kNewerParams = {
    "sendInitialEvents", "ignoreStoreReadErrorWithClusterBreakingPotential", "stream"};

json Params(const json& params) {
  json out = json::array();
  for (const json& p : params) {
    const std::string name = p.value("name", "");
    if (kNewerParams.contains(name)) continue;
    std::string type = p.contains("schema") ? p["schema"].value("type", "") : "";
    out.push_back(p.value("in", "") + ":" + name + ":" + type +
                  (p.value("required", false) ? ":required" : ""));
  }
  return out;
}

json Content(const json& content) {
  json out = json::object();
  for (auto& [type, media] : content.items()) out[type] = media.value("schema", json::object());
  return out;
}

}  // namespace

json Summary(const json& item) {
  json out = json::object();
  for (auto& [key, value] : item.items()) {
    if (key == "parameters") {
      out["parameters"] = Params(value);
      continue;
    }
    json op = {{"operationId", value["operationId"]}, {"tags", value["tags"]}};
    for (const char* ext : {"x-kubernetes-action", "x-kubernetes-group-version-kind"}) {
      if (value.contains(ext)) op[ext] = value[ext];
    }
    json params = value.contains("parameters") ? Params(value["parameters"]) : json::array();
    if (!params.empty()) op["parameters"] = params;
    if (value.contains("requestBody")) op["requestBody"] = Content(value["requestBody"]["content"]);
    for (auto& [code, response] : value["responses"].items()) {
      op["responses"][code] =
          response.contains("content") ? Content(response["content"]) : json::object();
    }
    out[key] = std::move(op);
  }
  return out;
}

}  // namespace openapi_test
