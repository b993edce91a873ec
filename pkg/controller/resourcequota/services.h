#pragma once
// The service evaluator (upstream's evaluator/core/services.go): `services`,
// `count/services`, `services.loadbalancers` (1 per LoadBalancer service) and
// `services.nodeports` (every port of a NodePort service; of a LoadBalancer service too,
// or only the ports with a nodePort when allocateLoadBalancerNodePorts is false). No
// scopes. Pure.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

class ServiceEvaluator : public Evaluator {
 public:
  GroupResource group_resource() const override { return {"", "services"}; }
  std::set<std::string> MatchingResources(const std::set<std::string>& names) const override;
  ResourceList Usage(const nlohmann::json& service, TimePoint now) const override;
};

// The type quota tells apart (upstream's GetQuotaServiceType): NodePort, LoadBalancer or "".
std::string QuotaServiceType(const nlohmann::json& service);

}  // namespace controller::resourcequota
