#include "pkg/aggregator/discovery.h"

#include <algorithm>
#include <map>
#include <set>

#include "pkg/aggregator/priority.h"
#include "pkg/genericserver/endpoints/version_priority.h"

namespace aggregator {

std::vector<endpoints::APIGroupInfo> MergedGroups(std::vector<endpoints::APIGroupInfo> chain,
                                                  const APIServiceTable& table) {
  std::vector<endpoints::APIGroupInfo> groups;
  std::set<std::string> local;
  for (auto& info : chain) {
    if (info.group.name.empty()) continue;
    local.insert(info.group.name);
    groups.push_back(std::move(info));
  }
  // Remote group-versions by group.
  std::map<std::string, std::vector<APIServiceInfoPtr>> remote;
  std::map<std::string, int> priority;
  for (const APIServiceInfoPtr& apiservice : table.All()) {
    if (!apiservice->service || local.contains(apiservice->group)) continue;
    remote[apiservice->group].push_back(apiservice);
    int& p = priority[apiservice->group];
    p = std::max(p, apiservice->group_priority);
  }
  for (auto& [name, versions] : remote) {
    std::sort(versions.begin(), versions.end(), [](const auto& a, const auto& b) {
      if (a->version_priority != b->version_priority)
        return a->version_priority > b->version_priority;
      return endpoints::VersionPriorityLess(a->version, b->version);
    });
    endpoints::APIGroupInfo info;
    info.group.name = name;
    for (const APIServiceInfoPtr& apiservice : versions) {
      info.group.versions.push_back(apiservice->version);
      if (!apiservice->available) {
        info.stale_versions.insert(apiservice->version);
        continue;
      }
      info.resources[apiservice->version] =
          table.Resources(apiservice->name).value_or(std::vector<endpoints::APIResource>());
    }
    groups.push_back(std::move(info));
  }
  const auto group_priority = [&priority](const std::string& group) {
    auto it = priority.find(group);
    return it != priority.end() ? it->second : GroupPriority(group);
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    const int pa = group_priority(a.group.name), pb = group_priority(b.group.name);
    return pa != pb ? pa > pb : a.group.name < b.group.name;
  });
  return groups;
}

}  // namespace aggregator
