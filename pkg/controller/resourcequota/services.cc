#include "pkg/controller/resourcequota/services.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"

namespace controller::resourcequota {

using nlohmann::json;

std::string QuotaServiceType(const json& service) {
  const std::string type = Str(Field(service, "spec"), "type");
  return type == "NodePort" || type == "LoadBalancer" ? type : "";
}

std::set<std::string> ServiceEvaluator::MatchingResources(
    const std::set<std::string>& names) const {
  static const std::set<std::string> kResources = {"count/services", "services",
                                                   "services.loadbalancers", "services.nodeports"};
  std::set<std::string> out;
  for (const std::string& name : names) {
    if (kResources.contains(name)) out.insert(name);
  }
  return out;
}

ResourceList ServiceEvaluator::Usage(const json& service, TimePoint) const {
  const json& spec = Field(service, "spec");
  const json& ports = Field(spec, "ports");
  const int64_t port_count = ports.is_array() ? static_cast<int64_t>(ports.size()) : 0;
  ResourceList out;
  out["count/services"] = util::Quantity(1);
  out["services"] = util::Quantity(1);
  out["services.loadbalancers"] = util::Quantity();
  out["services.nodeports"] = util::Quantity();
  const std::string type = Str(spec, "type");
  if (type == "NodePort") {
    out["services.nodeports"] = util::Quantity(port_count);
  } else if (type == "LoadBalancer") {
    const json& allocate = Field(spec, "allocateLoadBalancerNodePorts");
    if (allocate.is_boolean() && !allocate.get<bool>()) {
      int64_t with_node_port = 0;
      if (ports.is_array()) {
        for (const json& p : ports) {
          const json& node_port = Field(p, "nodePort");
          if (node_port.is_number_integer() && node_port.get<int64_t>() != 0) ++with_node_port;
        }
      }
      out["services.nodeports"] = util::Quantity(with_node_port);
    } else {
      out["services.nodeports"] = util::Quantity(port_count);
    }
    out["services.loadbalancers"] = util::Quantity(1);
  }
  return out;
}

}  // namespace controller::resourcequota
