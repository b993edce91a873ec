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
    list.push_back(std::move(j));
  }
  Json j = {{"kind", "APIResourceList"}};
  if (group_version.find('/') != std::string::npos) j["apiVersion"] = "v1";
  j["groupVersion"] = group_version;
  j["resources"] = list;
  return j.dump();
}

}  // namespace endpoints
