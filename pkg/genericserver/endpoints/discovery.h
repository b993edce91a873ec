#pragma once
// Discovery documents: the legacy APIVersions (/api), APIGroupList (/apis), APIGroup
// (/apis/G) and APIResourceList (/api/v1, /apis/G/V), and the aggregated
// APIGroupDiscoveryList (/api and /apis with the apidiscovery.k8s.io Accept).

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace registry {
struct ResourceSpec;
}

namespace endpoints {

struct APIResource {
  std::string name;  // plural, or "plural/subresource"
  std::string singular_name;
  bool namespaced = false;
  std::string group;    // set only when it differs from the list's group (scale)
  std::string version;  // likewise
  std::string kind;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string storage_version_hash;  // legacy discovery only; empty: left out
};

// One group as discovery lists it; versions in preference order (first is preferred).
struct APIGroup {
  std::string name;  // "" for the legacy core group
  std::vector<std::string> versions;
};

// A group's versions and, per version, its resources: what InstallAPIGroup serves.
struct APIGroupInfo {
  APIGroup group;
  std::map<std::string, std::vector<APIResource>> resources;  // by version
  // The full descriptions of those resources, for OpenAPI; by version.
  std::map<std::string, std::vector<std::shared_ptr<const registry::ResourceSpec>>> specs;
  // Versions whose server did not answer (the aggregator's unavailable APIServices):
  // aggregated discovery lists them with freshness "Stale" and no resources.
  std::set<std::string> stale_versions;
};

// serverAddressByClientCIDRs: one entry, 0.0.0.0/0 -> server_address ("ip:port").
std::string EncodeAPIVersions(const std::vector<std::string>& versions,
                              const std::string& server_address);
std::string EncodeAPIGroup(const APIGroup& group);
std::string EncodeAPIGroupList(const std::vector<APIGroup>& groups);
// group_version is "v1" for the core group, "G/V" otherwise; the core list carries no
// apiVersion, as upstream's does not.
std::string EncodeAPIResourceList(const std::string& group_version,
                                  const std::vector<APIResource>& resources);
// The aggregated form of `groups` (their resources included); api_version is
// "apidiscovery.k8s.io/v2" or "apidiscovery.k8s.io/v2beta1".
std::string EncodeAPIGroupDiscoveryList(const std::vector<APIGroupInfo>& groups,
                                        std::string_view api_version);
// The same in two steps, so that unchanged groups need not be encoded again: one item
// (an APIGroupDiscovery, the same in v2 and v2beta1), then the list of encoded items.
std::string EncodeAPIGroupDiscovery(const APIGroupInfo& group);
std::string JoinAPIGroupDiscoveryList(const std::vector<std::string>& items,
                                      std::string_view api_version);

}  // namespace endpoints
