#include "pkg/controller/resourcequota/registry.h"

#include "pkg/controller/resourcequota/object_count.h"
#include "pkg/controller/resourcequota/persistent_volume_claims.h"
#include "pkg/controller/resourcequota/pods.h"
#include "pkg/controller/resourcequota/services.h"

namespace controller::resourcequota {

Registry Registry::Core() {
  Registry r;
  r.Add(std::make_shared<PodEvaluator>());
  r.Add(std::make_shared<ServiceEvaluator>());
  r.Add(std::make_shared<PersistentVolumeClaimEvaluator>());
  for (const char* legacy : {"configmaps", "resourcequotas", "replicationcontrollers", "secrets"}) {
    r.Add(std::make_shared<ObjectCountEvaluator>(GroupResource{"", legacy}, legacy));
  }
  return r;
}

void Registry::Add(EvaluatorPtr evaluator) {
  GroupResource gr = evaluator->group_resource();
  evaluators_[std::move(gr)] = std::move(evaluator);
}

EvaluatorPtr Registry::Get(const GroupResource& gr) const {
  auto it = evaluators_.find(gr);
  return it == evaluators_.end() ? nullptr : it->second;
}

std::vector<EvaluatorPtr> Registry::List() const {
  std::vector<EvaluatorPtr> out;
  out.reserve(evaluators_.size());
  for (const auto& [gr, e] : evaluators_) out.push_back(e);
  return out;
}

bool Registry::Measures(const std::string& name) const {
  for (const auto& [gr, e] : evaluators_) {
    if (!e->MatchingResources({name}).empty()) return true;
  }
  return false;
}

std::set<GroupResource> Registry::UnknownCountResources(const std::set<std::string>& names) const {
  std::set<GroupResource> out;
  for (const std::string& name : names) {
    auto gr = ParseObjectCountResourceName(name);
    if (!gr || IsIgnoredResource(*gr) || evaluators_.contains(*gr)) continue;
    out.insert(*gr);
  }
  return out;
}

bool IsIgnoredResource(const GroupResource& gr) {
  static const std::set<GroupResource> kIgnored = {
      {"", "bindings"},
      {"", "componentstatuses"},
      {"authentication.k8s.io", "tokenreviews"},
      {"authentication.k8s.io", "selfsubjectreviews"},
      {"authorization.k8s.io", "subjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectaccessreviews"},
      {"authorization.k8s.io", "localsubjectaccessreviews"},
      {"authorization.k8s.io", "selfsubjectrulesreviews"},
      {"", "events"},
      {"events.k8s.io", "events"},
  };
  return kIgnored.contains(gr);
}

}  // namespace controller::resourcequota
