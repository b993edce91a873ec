// The generated path items next to upstream's (kube-apiserver v1.26.1, descriptions removed):
// same paths, methods, operation ids, tags, x-kubernetes-* extensions, parameters (by place),
// request and response content types and schemas. Upstream gained parameters since 1.26
// (sendInitialEvents in 1.27, ignoreStoreReadErrorWithClusterBreakingPotential in 1.32) and
// marks request bodies required since; those differences are set aside.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "test/unit/endpoints/openapi/specs.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

const std::set<std::string> kNewerParams = {"sendInitialEvents",
                                            "ignoreStoreReadErrorWithClusterBreakingPotential"};

json Upstream() {
  std::ifstream in(KAS_OPENAPI_TESTDATA);
  REQUIRE(in.good());
  return json::parse(in);
}

json Params(const json& params) {
  json out = json::array();
  for (const json& p : params) {
    if (kNewerParams.contains(p["name"].get<std::string>())) continue;
    out.push_back(p.value("in", "") + ":" + p["name"].get<std::string>() + ":" +
                  p["schema"].value("type", "") + (p.value("required", false) ? ":required" : ""));
  }
  return out;
}

json Content(const json& content) {
  json out = json::object();
  for (auto& [type, media] : content.items()) out[type] = media["schema"];
  return out;
}

// What is compared of a path item.
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

void RequireSamePaths(const json& ours, const json& upstream, const std::string& prefix) {
  std::set<std::string> our_paths, their_paths;
  for (auto& [path, item] : ours.items()) {
    if (path.starts_with(prefix)) our_paths.insert(path);
  }
  for (auto& [path, item] : upstream.items()) their_paths.insert(path);
  CHECK(our_paths == their_paths);
  for (const std::string& path : their_paths) {
    if (!ours.contains(path)) continue;
    INFO(path);
    json mine = Summary(ours[path]);
    json theirs = Summary(upstream[path]);
    INFO("ours:     " << mine.dump());
    INFO("upstream: " << theirs.dump());
    CHECK(mine == theirs);
  }
}

}  // namespace

TEST_CASE("openapi: configmaps and namespaces as upstream documents them", "[openapi]") {
  json upstream = Upstream()["api/v1"];
  json doc = endpoints::openapi::BuildGroupVersionDocument(
      Group("", "v1", {ConfigMaps(), Namespaces()}), "v1");
  RequireSamePaths(doc["paths"], upstream, "/api/v1");
}

TEST_CASE("openapi: leases as upstream documents them", "[openapi]") {
  json upstream = Upstream()["apis/coordination.k8s.io/v1"];
  json doc = endpoints::openapi::BuildGroupVersionDocument(
      Group("coordination.k8s.io", "v1", {Leases()}), "v1");
  RequireSamePaths(doc["paths"], upstream, "/apis/coordination.k8s.io/v1");
}

TEST_CASE("openapi: 1.32 parameters and required bodies", "[openapi]") {
  json doc = endpoints::openapi::BuildGroupVersionDocument(Group("", "v1", {ConfigMaps()}), "v1");
  auto names = [](const json& params) {
    std::set<std::string> out;
    for (const json& p : params) out.insert(p["name"].get<std::string>());
    return out;
  };
  const json& collection = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps"];
  CHECK(names(collection["get"]["parameters"]).contains("sendInitialEvents"));
  CHECK(names(collection["delete"]["parameters"]).contains("sendInitialEvents"));
  CHECK(names(collection["delete"]["parameters"])
            .contains("ignoreStoreReadErrorWithClusterBreakingPotential"));
  CHECK_FALSE(names(collection["delete"]["parameters"]).contains("watch"));
  CHECK(collection["post"]["requestBody"]["required"] == true);
  CHECK_FALSE(collection["delete"]["requestBody"].contains("required"));
}
