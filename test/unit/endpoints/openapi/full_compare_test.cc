// TEMPORARY: every resource of the upstream reference, compared path by path.
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/master/schemas/schemas.h"
#include "test/unit/endpoints/openapi/specs.h"
using nlohmann::json;
using namespace openapi_test;
namespace {
const std::set<std::string> kNewer = {"sendInitialEvents", "ignoreStoreReadErrorWithClusterBreakingPotential"};
json Params(const json& params) { json out = json::array(); for (const json& p : params) { if (kNewer.contains(p["name"].get<std::string>())) continue; out.push_back(p.value("in", "") + ":" + p["name"].get<std::string>() + ":" + p["schema"].value("type", "") + (p.value("required", false) ? ":required" : "")); } return out; }
json Content(const json& c) { json o = json::object(); for (auto& [t, m] : c.items()) o[t] = m["schema"]; return o; }
json Strip(const json& x) { if (x.is_object()) { json o = json::object(); for (auto& [k, v] : x.items()) if (k != "description") o[k] = Strip(v); return o; } if (x.is_array()) { json a = json::array(); for (auto& v : x) a.push_back(Strip(v)); return a; } return x; }
json Summary(const json& item) { json out = json::object(); for (auto& [key, value] : item.items()) { if (key == "parameters") { out["parameters"] = Params(value); continue; } json op = {{"operationId", value["operationId"]}, {"tags", value["tags"]}}; for (const char* e : {"x-kubernetes-action", "x-kubernetes-group-version-kind"}) if (value.contains(e)) op[e] = value[e]; json p = value.contains("parameters") ? Params(value["parameters"]) : json::array(); if (!p.empty()) op["parameters"] = p; if (value.contains("requestBody")) op["requestBody"] = Content(value["requestBody"]["content"]); for (auto& [code, r] : value["responses"].items()) op["responses"][code] = r.contains("content") ? Content(r["content"]) : json::object(); out[key] = op; } return out; }
}
TEST_CASE("openapi full compare", "[openapi-full]") {
  for (std::string gv : schemas::GroupVersions()) {
    std::string group = gv.find('/') == std::string::npos ? "" : gv.substr(0, gv.find('/'));
    std::string version = gv.substr(gv.find('/') + 1);
    std::string file = "/work/shared/reference/openapi-v3-k8s-1.26.1/" + (group.empty() ? std::string("api__v1") : "apis__" + group + "__" + version) + ".json";
    std::ifstream in(file); if (!in) continue;
    json ref = json::parse(in);
    std::vector<registry::ResourceSpecPtr> specs;
    std::set<std::string> skip_sub = {"proxy", "exec", "attach", "portforward", "log"};
    auto resources = schemas::Resources(gv);
    std::set<std::string> subs_skipped;
    for (auto& r : resources) {
      if (r.name.find('/') != std::string::npos) continue;
      SpecArgs a{.group = group, .version = version, .kind = r.kind, .plural = r.name, .namespaced = r.namespaced, .verbs = r.verbs};
      for (auto& s : resources) {
        if (!s.name.starts_with(r.name + "/")) continue;
        std::string sub = s.name.substr(r.name.size() + 1);
        if (skip_sub.contains(sub)) { subs_skipped.insert(s.name); continue; }
        a.subresources.push_back({sub, {s.group, s.version, s.kind}, s.verbs, nullptr});
      }
      specs.push_back(MakeSpec(a));
    }
    json doc = endpoints::openapi::BuildGroupVersionDocument(Group(group, version, specs), version);
    int diffs = 0, same = 0;
    for (auto& [path, item] : ref["paths"].items()) {
      bool skipped = false;
      for (auto& s : subs_skipped) { auto slash = s.find('/'); if (path.find("/" + s.substr(0, slash) + "/{name}/" + s.substr(slash + 1)) != std::string::npos) skipped = true; }
      if (skipped) continue;
      if (!doc["paths"].contains(path)) { std::cout << gv << " MISSING " << path << "\n"; ++diffs; continue; }
      json a = Summary(doc["paths"][path]), b = Summary(Strip(item));
      if (a != b) { ++diffs; std::cout << gv << " DIFF " << path << "\n ours " << a.dump() << "\n upst " << b.dump() << "\n"; } else ++same;
    }
    for (auto& [path, item] : doc["paths"].items()) if (!ref["paths"].contains(path)) { std::cout << gv << " EXTRA " << path << "\n"; ++diffs; }
    std::cout << gv << ": same " << same << " diffs " << diffs << "\n";
  }
}
