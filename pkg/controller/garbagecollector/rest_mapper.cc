#include "pkg/controller/garbagecollector/rest_mapper.h"

#include <nlohmann/json.hpp>

namespace controller::garbagecollector {

using nlohmann::json;

ServedVersions ParseServedVersions(const json& group_list) {
  ServedVersions out;
  out[""].insert("v1");
  if (!group_list.is_object()) return out;
  auto groups = group_list.find("groups");
  if (groups == group_list.end() || !groups->is_array()) return out;
  for (const json& g : *groups) {
    if (!g.is_object()) continue;
    const std::string name = g.value("name", "");
    if (name.empty()) continue;
    auto& versions = out[name];
    auto vs = g.find("versions");
    if (vs == g.end() || !vs->is_array()) continue;
    for (const json& v : *vs) {
      if (v.is_object() && v.contains("version") && v["version"].is_string()) {
        versions.insert(v["version"].get<std::string>());
      }
    }
  }
  return out;
}

RestMapper::RestMapper(const client::DiscoveryResult& discovery, ServedVersions served)
    : served_(std::move(served)) {
  for (const client::ApiResource& r : discovery.resources) {
    if (r.kind.empty()) continue;
    kinds_.emplace(std::make_pair(r.gvr.group, r.kind), r);  // the first resource of a kind
  }
}

std::optional<ResourceMapping> RestMapper::Map(std::string_view api_version,
                                               std::string_view kind) const {
  if (api_version.empty() || kind.empty()) return std::nullopt;
  auto [group, version] = client::ParseApiVersion(api_version);
  if (version.empty() || version.find('/') != std::string::npos) return std::nullopt;
  auto it = kinds_.find({group, std::string(kind)});
  if (it == kinds_.end()) return std::nullopt;
  const client::ApiResource& preferred = it->second;
  if (version != preferred.gvr.version) {
    auto s = served_.find(group);
    if (s == served_.end() || !s->second.contains(version)) return std::nullopt;
  }
  ResourceMapping m;
  m.gvr = {group, version, preferred.gvr.resource};
  m.namespaced = preferred.namespaced;
  return m;
}

std::string RestMappingError(std::string_view api_version, std::string_view kind) {
  return "unable to get REST mapping for " + std::string(api_version) + "/" + std::string(kind) +
         ".";
}

}  // namespace controller::garbagecollector
