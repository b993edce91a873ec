// Every built-in resource of the schemas data, documented and compared with upstream's real
// documents (kube-apiserver v1.26.1) when they are at hand: $KAS_OPENAPI_REFERENCE_DIR, by
// default ../shared/reference/openapi-v3-k8s-1.26.1 beside the checkout (a warning without
// them; upstream_test.cc compares a committed extract in any case).
// Connect subresources (exec, attach, portforward, proxy) are not described by ResourceSpecs
// and are left out, and so are the resources of later releases (tools/schema_additions.json),
// which the 1.26.1 documents do not have.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/master/schemas/schemas.h"
#include "test/unit/endpoints/openapi/specs.h"
#include "test/unit/endpoints/openapi/summary.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

const std::set<std::string> kConnect = {"attach", "exec", "portforward", "proxy"};

std::filesystem::path ReferenceDir() {
  const char* dir = std::getenv("KAS_OPENAPI_REFERENCE_DIR");
  return dir ? dir : KAS_OPENAPI_REFERENCE_DIR;
}

// The specs of a group-version as its schemas data lists them.
std::vector<registry::ResourceSpecPtr> SpecsOf(const std::string& group, const std::string& version,
                                               std::set<std::string>& connect_paths) {
  std::string gv = group.empty() ? version : group + "/" + version;
  std::vector<schemas::Resource> resources = schemas::Resources(gv);
  std::vector<registry::ResourceSpecPtr> specs;
  for (const schemas::Resource& r : resources) {
    if (r.name.find('/') != std::string::npos) continue;
    SpecArgs args{.group = group,
                  .version = version,
                  .kind = r.kind,
                  .plural = r.name,
                  .namespaced = r.namespaced,
                  .verbs = r.verbs};
    for (const schemas::Resource& s : resources) {
      if (!s.name.starts_with(r.name + "/")) continue;
      std::string sub = s.name.substr(r.name.size() + 1);
      if (kConnect.contains(sub)) {
        connect_paths.insert("/" + r.name + "/{name}/" + sub);
        continue;
      }
      args.subresources.push_back({sub, {s.group, s.version, s.kind}, s.verbs, nullptr});
    }
    specs.push_back(MakeSpec(std::move(args)));
  }
  return specs;
}

// The resources tools/schema_additions.json adds to a group-version.
std::set<std::string> AddedResources(const std::string& gv) {
  std::ifstream in(KAS_SCHEMA_ADDITIONS);
  REQUIRE(in);
  const json additions = json::parse(in);
  std::set<std::string> out;
  if (!additions.contains("resources") || !additions["resources"].contains(gv)) return out;
  for (const json& r : additions["resources"][gv]) out.insert(r["name"].get<std::string>());
  return out;
}

bool IsConnect(const std::string& path, const std::set<std::string>& connect_paths) {
  for (const std::string& c : connect_paths) {
    if (path.find(c) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("openapi: every built-in group-version as upstream documents it", "[openapi]") {
  const std::filesystem::path dir = ReferenceDir();
  if (!std::filesystem::exists(dir / "api__v1.json")) {
    WARN("no upstream documents at " << dir << ": skipped");
    return;
  }
  int compared = 0;
  for (const std::string& gv : schemas::GroupVersions()) {
    const size_t slash = gv.find('/');
    const std::string group = slash == std::string::npos ? "" : gv.substr(0, slash);
    const std::string version = gv.substr(slash == std::string::npos ? 0 : slash + 1);
    std::ifstream in(
        dir / (group.empty() ? "api__v1.json" : "apis__" + group + "__" + version + ".json"));
    if (!in) continue;
    json upstream = json::parse(in)["paths"];
    std::set<std::string> connect;
    json ours = endpoints::openapi::BuildGroupVersionDocument(
        Group(group, version, SpecsOf(group, version, connect)), version)["paths"];
    INFO(gv);
    for (auto& [path, item] : upstream.items()) {
      if (IsConnect(path, connect)) continue;
      INFO(path);
      REQUIRE(ours.contains(path));
      json mine = Summary(ours[path]);
      json theirs = Summary(item);
      INFO("ours:     " << mine.dump());
      INFO("upstream: " << theirs.dump());
      CHECK(mine == theirs);
      ++compared;
    }
    const std::set<std::string> added = AddedResources(gv);
    for (auto& [path, item] : ours.items()) {
      INFO(path);
      bool later = false;
      for (const std::string& name : added) {
        later = later || path.find("/" + name.substr(0, name.find('/'))) != std::string::npos;
      }
      if (!later) CHECK(upstream.contains(path));
    }
  }
  CHECK(compared > 300);
}
