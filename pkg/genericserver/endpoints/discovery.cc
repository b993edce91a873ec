#include "pkg/genericserver/endpoints/discovery.h"

#include <nlohmann/json.hpp>

namespace endpoints {
namespace {

using Json = nlohmann::ordered_json;

Json GroupJson(const APIGroup& g) {
  Json versions = Json::array();
  for (const std::string& v : g.versions) {
    versions.push_back({{"groupVersion", g.name + "/" + v}, {"version", v}});
  }
  Json j = {{"name", g.name}, {"versions", versions}};
  if (!versions.empty()) j["preferredVersion"] = versions.front();
  return j;
}

}  // namespace

std::string EncodeAPIVersions(const std::vector<std::string>& versions,
                              const std::string& server_address) {
  Json j = {{"kind", "APIVersions"},
            {"versions", versions},
            {"serverAddressByClientCIDRs",
             Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
  return j.dump();
}

std::string EncodeAPIGroup(const APIGroup& group) {
  Json j = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
  j.update(GroupJson(group));
  return j.dump();
}

std::string EncodeAPIGroupList(const std::vector<APIGroup>& groups) {
  Json list = Json::array();
  for (const APIGroup& g : groups) list.push_back(GroupJson(g));
  Json j = {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}};
  return j.dump();
}

std::string EncodeAPIResourceList(const std::string& group_version,
                                  const std::vector<APIResource>& resources) {
  Json list = Json::array();
  for (const APIResource& r : resources) {
    Json j = {{"name", r.name}, {"singularName", r.singular_name}, {"namespaced", r.namespaced}};
    if (!r.group.empty()) j["group"] = r.group;
    if (!r.version.empty()) j["version"] = r.version;
    j["kind"] = r.kind;
    j["verbs"] = r.verbs;
    if (!r.short_names.empty()) j["shortNames"] = r.short_names;
    if (!r.categories.empty()) j["categories"] = r.categories;
    if (!r.storage_version_hash.empty()) j["storageVersionHash"] = r.storage_version_hash;
    list.push_back(std::move(j));
  }
  Json j = {{"kind", "APIResourceList"}};
  if (group_version.find('/') != std::string::npos) j["apiVersion"] = "v1";
  j["groupVersion"] = group_version;
  j["resources"] = list;
  return j.dump();
}

namespace {

Json ResponseKind(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

// One resource with its subresources ("plural/sub" entries) folded in.
Json ResourceDiscovery(const APIGroup& g, const std::string& version, const APIResource& r,
                       const std::vector<APIResource>& all) {
  Json j = {{"resource", r.name},
            {"responseKind", ResponseKind(g.name, version, r.kind)},
            {"scope", r.namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", r.singular_name},
            {"verbs", r.verbs}};
  if (!r.short_names.empty()) j["shortNames"] = r.short_names;
  if (!r.categories.empty()) j["categories"] = r.categories;
  Json subresources = Json::array();
  const std::string prefix = r.name + "/";
  for (const APIResource& sub : all) {
    if (!sub.name.starts_with(prefix)) continue;
    subresources.push_back(
        {{"subresource", sub.name.substr(prefix.size())},
         {"responseKind",
          ResponseKind(sub.group.empty() && sub.version.empty() ? g.name : sub.group,
                       sub.version.empty() ? version : sub.version, sub.kind)},
         {"verbs", sub.verbs}});
  }
  if (!subresources.empty()) j["subresources"] = std::move(subresources);
  return j;
}

}  // namespace

std::string EncodeAPIGroupDiscovery(const APIGroupInfo& info) {
  {
    Json versions = Json::array();
    for (const std::string& version : info.group.versions) {
      if (info.stale_versions.contains(version)) {
        versions.push_back({{"version", version}, {"freshness", "Stale"}});
        continue;
      }
      Json resources = Json::array();
      auto it = info.resources.find(version);
      if (it != info.resources.end()) {
        for (const APIResource& r : it->second) {
          if (r.name.find('/') == std::string::npos) {
            resources.push_back(ResourceDiscovery(info.group, version, r, it->second));
          }
        }
      }
      versions.push_back(
          {{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
    }
    Json metadata = Json::object();
    if (!info.group.name.empty()) metadata["name"] = info.group.name;
    metadata["creationTimestamp"] = nullptr;
    Json item = {{"metadata", std::move(metadata)}, {"versions", std::move(versions)}};
    return item.dump();
  }
}

std::string JoinAPIGroupDiscoveryList(const std::vector<std::string>& items,
                                      std::string_view api_version) {
  Json j = {{"kind", "APIGroupDiscoveryList"},
            {"apiVersion", api_version},
            {"metadata", Json::object()},
            {"items", Json::array()}};
  std::string out = j.dump();  // ...,"items":[]}
  out.resize(out.size() - 2);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    out += items[i];
  }
  out += "]}";
  return out;
}

std::string EncodeAPIGroupDiscoveryList(const std::vector<APIGroupInfo>& groups,
                                        std::string_view api_version) {
  std::vector<std::string> items;
  items.reserve(groups.size());
  for (const APIGroupInfo& info : groups) items.push_back(EncodeAPIGroupDiscovery(info));
  return JoinAPIGroupDiscoveryList(items, api_version);
}

}  // namespace endpoints
