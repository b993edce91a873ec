#include "pkg/aggregator/priority.h"

#include <map>

namespace aggregator {

int GroupPriority(std::string_view group) {
  static const std::map<std::string_view, int> kPriorities = {
      {"", 18000},
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

int VersionPriority(std::string_view group, std::string_view version) {
  static const std::map<std::pair<std::string_view, std::string_view>, int> kPriorities = {
      {{"", "v1"}, 1},
      {{"autoscaling", "v2"}, 30},
      {{"events.k8s.io", "v1beta1"}, 5},
      {{"discovery.k8s.io", "v1beta1"}, 12},
      {{"flowcontrol.apiserver.k8s.io", "v1"}, 21},
      {{"flowcontrol.apiserver.k8s.io", "v1beta3"}, 18},
      {{"flowcontrol.apiserver.k8s.io", "v1beta2"}, 15},
      {{"flowcontrol.apiserver.k8s.io", "v1beta1"}, 12},
  };
  auto it = kPriorities.find({group, version});
  if (it != kPriorities.end()) return it->second;
  const bool ga =
      version.size() > 1 && version.find_first_not_of("0123456789", 1) == std::string_view::npos;
  return ga ? 15 : 9;
}

}  // namespace aggregator
