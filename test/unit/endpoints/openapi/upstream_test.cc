// The generated path items next to upstream's (kube-apiserver v1.26.1, descriptions removed,
// in testdata/): same paths and, per path, the same Summary (summary.h).

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "test/unit/endpoints/openapi/specs.h"
#include "test/unit/endpoints/openapi/summary.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

json Upstream() {
  std::ifstream in(KAS_OPENAPI_TESTDATA);
  REQUIRE(in.good());
  return json::parse(in);
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
