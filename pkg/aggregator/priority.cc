#include "pkg/aggregator/priority.h"

#include <algorithm>
#include <map>

namespace aggregator {

int GroupPriority(std::string_view group) {
  static const std::map<std::string_view, int> kPriorities = {
      {"apiregistration.k8s.io", 18000},
      {"apps", 17800},
      {"events.k8s.io", 17750},
      {"authentication.k8s.io", 17700},
      {"authorization.k8s.io", 17600},
      {"autoscaling", 17500},
      {"batch", 17400},
      {"certificates.k8s.io", 17300},
      {"networking.k8s.io", 17200},
      {"policy", 17100},
      {"rbac.authorization.k8s.io", 17000},
      {"storage.k8s.io", 16800},
      {"admissionregistration.k8s.io", 16700},
      {"apiextensions.k8s.io", 16700},
      {"scheduling.k8s.io", 16600},
      {"coordination.k8s.io", 16500},
      {"node.k8s.io", 16300},
      {"discovery.k8s.io", 16200},
      {"flowcontrol.apiserver.k8s.io", 16100},
      {"internal.apiserver.k8s.io", 16000},
      {"resource.k8s.io", 15900},
      {"storagemigration.k8s.io", 15800},
  };
  auto it = kPriorities.find(group);
  return it == kPriorities.end() ? 1000 : it->second;
}

void SortByPriority(std::vector<endpoints::APIGroupInfo>& groups) {
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    const int pa = GroupPriority(a.group.name), pb = GroupPriority(b.group.name);
    return pa != pb ? pa > pb : a.group.name < b.group.name;
  });
}

}  // namespace aggregator
