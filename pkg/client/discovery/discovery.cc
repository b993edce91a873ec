#include "pkg/client/discovery/discovery.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace client {

using nlohmann::json;

bool ApiResource::Supports(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

const ApiResource* DiscoveryResult::ForKind(std::string_view group, std::string_view kind) const {
  for (const ApiResource& r : resources) {
    if (r.gvr.group == group && r.kind == kind) return &r;
  }
  return nullptr;
}

std::vector<ApiResource> DiscoveryResult::WithVerbs(const std::vector<std::string>& verbs) const {
  std::vector<ApiResource> out;
  for (const ApiResource& r : resources) {
    if (std::all_of(verbs.begin(), verbs.end(),
                    [&](const std::string& v) { return r.Supports(v); })) {
      out.push_back(r);
    }
  }
  return out;
}

namespace {

void AddResources(const json& list, const std::string& group, const std::string& version,
                  DiscoveryResult& out) {
  auto it = list.find("resources");
  if (it == list.end() || !it->is_array()) return;
  for (const json& r : *it) {
    const std::string name = r.value("name", "");
    if (name.empty() || name.find('/') != std::string::npos) continue;  // subresources
    ApiResource a;
    a.gvr = {group, version, name};
    a.kind = r.value("kind", "");
    a.namespaced = r.value("namespaced", false);
    if (auto v = r.find("verbs"); v != r.end() && v->is_array()) {
      for (const json& verb : *v) {
        if (verb.is_string()) a.verbs.push_back(verb.get<std::string>());
      }
    }
    out.resources.push_back(std::move(a));
  }
}

}  // namespace

Awaitable<Result<DiscoveryResult>> ServerPreferredResources(RestClient& client) {
  DiscoveryResult out;
  auto core = co_await client.Get("/api/v1");
  if (!core) co_return std::unexpected(core.error());
  AddResources(*core, "", "v1", out);
  auto groups = co_await client.Get("/apis");
  if (!groups) co_return std::unexpected(groups.error());
  for (const json& g : groups->value("groups", json::array())) {
    const std::string name = g.value("name", "");
    const std::string version =
        g.value("preferredVersion", json::object()).value("version", std::string());
    if (name.empty() || version.empty()) continue;
    auto list = co_await client.Get("/apis/" + name + "/" + version);
    if (!list) {
      out.failed[name + "/" + version] = list.error().String();
      continue;
    }
    AddResources(*list, name, version, out);
  }
  co_return out;
}

}  // namespace client
