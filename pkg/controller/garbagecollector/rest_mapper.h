#pragma once
// From an owner reference's apiVersion and kind to the resource to GET, PATCH or DELETE,
// and whether it is namespaced: the garbage collector's RESTMapper, rebuilt from discovery
// at each sync. A mapping needs the kind among the group's preferred resources and the
// reference's version among the versions the group serves (as upstream's mapper fails for a
// version no longer served); the resource name and scope are the preferred version's, the
// version in the path the reference's own. Pure data once made.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/client/discovery/discovery.h"
#include "pkg/client/rest/resource.h"

namespace controller::garbagecollector {

struct ResourceMapping {
  client::GroupVersionResource gvr;
  bool namespaced = false;
};

// group -> versions served; the core group ("") serves v1.
using ServedVersions = std::map<std::string, std::set<std::string>>;

// The versions of each group in an APIGroupList (GET /apis), plus the core group's v1.
ServedVersions ParseServedVersions(const nlohmann::json& group_list);

class RestMapper {
 public:
  RestMapper() = default;
  RestMapper(const client::DiscoveryResult& discovery, ServedVersions served);
  std::optional<ResourceMapping> Map(std::string_view api_version, std::string_view kind) const;
  bool empty() const { return kinds_.empty(); }

 private:
  // (group, kind) -> the preferred version's resource
  std::map<std::pair<std::string, std::string>, client::ApiResource> kinds_;
  ServedVersions served_;
};

// Upstream's restMappingError text: "unable to get REST mapping for <apiVersion>/<kind>."
std::string RestMappingError(std::string_view api_version, std::string_view kind);

}  // namespace controller::garbagecollector
