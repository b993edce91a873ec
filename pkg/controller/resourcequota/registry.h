#pragma once
// The evaluators the controller knows, by group resource (upstream's quota.Registry): the
// core ones from the start (pods, services, persistentvolumeclaims, and the object counts
// of configmaps, resourcequotas, replicationcontrollers and secrets), and an object count
// evaluator added for each other resource a quota names as `count/...`.
//
// Threads: a Registry is owned by its user (the controller's strand); evaluators are
// immutable and may be shared.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

class Registry {
 public:
  // With the core evaluators.
  static Registry Core();
  void Add(EvaluatorPtr evaluator);
  EvaluatorPtr Get(const GroupResource& gr) const;
  std::vector<EvaluatorPtr> List() const;
  // Whether some evaluator measures `name`.
  bool Measures(const std::string& name) const;
  // The group resources `names` counts as `count/...` that no evaluator measures.
  std::set<GroupResource> UnknownCountResources(const std::set<std::string>& names) const;

 private:
  std::map<GroupResource, EvaluatorPtr> evaluators_;
};

// Resources quota never counts (upstream's default ignored resources: virtual ones and
// events).
bool IsIgnoredResource(const GroupResource& gr);

}  // namespace controller::resourcequota
