// core/v1 services: defaults as upstream (ClusterIP, TCP, targetPort = port, None session
// affinity, Cluster traffic policies), a cluster IP and node ports held through
// ServiceAllocations, the IP family fields, and kubectl's TYPE/CLUSTER-IP/PORT(S) table.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/core/service_allocations.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const std::vector<std::string> kTypes = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"};

bool NeedsClusterIP(const json& svc) { return Str(Sub(svc, "spec"), "type") != "ExternalName"; }

bool NeedsNodePorts(const json& svc) {
  const std::string type = Str(Sub(svc, "spec"), "type");
  return type == "NodePort" || type == "LoadBalancer";
}

void DefaultService(json& svc) {
  json& spec = Child(svc, "spec");
  SetDefault(spec, "sessionAffinity", "None");
  SetDefault(spec, "type", "ClusterIP");
  if (auto ports = spec.find("ports"); ports != spec.end() && ports->is_array()) {
    for (json& port : *ports) {
      if (!port.is_object()) continue;
      SetDefault(port, "protocol", "TCP");
      const json target = port.value("targetPort", json());
      if (target.is_null() || target == 0 || target == "")
        port["targetPort"] = port.value("port", 0);
    }
  }
  const std::string type = spec["type"];
  if (type == "NodePort" || type == "LoadBalancer") {
    SetDefault(spec, "externalTrafficPolicy", "Cluster");
  }
  if (type == "LoadBalancer") SetDefault(spec, "allocateLoadBalancerNodePorts", true);
  if (type != "ExternalName") SetDefault(spec, "internalTrafficPolicy", "Cluster");
  if (Str(spec, "sessionAffinity") == "ClientIP") {
    SetDefault(Child(Child(spec, "sessionAffinityConfig"), "clientIP"), "timeoutSeconds", 10800);
  }
}

class ServiceStrategy final : public registry::Strategy {
 public:
  explicit ServiceStrategy(std::string family) : family_(std::move(family)) {}

  void Default(json& svc) const override { DefaultService(svc); }
  bool HasStatusSubresource() const override { return true; }
  bool AllowCreateOnUpdate() const override { return true; }
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kDNS1035Label;
  }

  void PrepareForCreate(json& svc) const override {
    svc["status"] = {{"loadBalancer", json::object()}};
    if (!NeedsClusterIP(svc)) return;
    json& spec = Child(svc, "spec");
    const bool headless = Str(spec, "clusterIP") == "None";
    const bool selectorless = Sub(spec, "selector").empty();
    SetDefault(spec, "ipFamilyPolicy",
               headless && selectorless ? "RequireDualStack" : "SingleStack");
    if (List(spec, "ipFamilies").empty()) spec["ipFamilies"] = {family_};
  }

  // What the server filled in on create and the client left out is kept (kubectl apply
  // without clusterIP or nodePort does not ask for new ones).
  void PrepareForUpdate(json& svc, const json& old) const override {
    Strategy::PrepareForUpdate(svc, old);
    json& spec = Child(svc, "spec");
    const json& before = Sub(old, "spec");
    if (NeedsClusterIP(svc) && NeedsClusterIP(old)) {
      if (Str(spec, "clusterIP").empty() && before.contains("clusterIP")) {
        spec["clusterIP"] = before["clusterIP"];
      }
      if (List(spec, "clusterIPs").empty() && before.contains("clusterIPs") &&
          spec.value("clusterIP", json()) == before.value("clusterIP", json())) {
        spec["clusterIPs"] = before["clusterIPs"];
      }
      for (const char* field : {"ipFamilies", "ipFamilyPolicy"}) {
        if ((!spec.contains(field) || spec[field].is_null()) && before.contains(field)) {
          spec[field] = before[field];
        }
      }
    }
    if (NeedsNodePorts(svc) && NeedsNodePorts(old)) {
      auto ports = spec.find("ports");
      for (size_t i = 0; ports != spec.end() && ports->is_array() && i < ports->size(); ++i) {
        json& port = (*ports)[i];
        if (!port.is_object() || Int(port, "nodePort") != 0) continue;
        for (const json& was : List(before, "ports")) {
          if (Int(was, "port") == Int(port, "port") &&
              Str(was, "protocol") == Str(port, "protocol") && Int(was, "nodePort") != 0) {
            port["nodePort"] = was["nodePort"];
          }
        }
      }
      if (!spec.contains("healthCheckNodePort") && before.contains("healthCheckNodePort")) {
        spec["healthCheckNodePort"] = before["healthCheckNodePort"];
      }
    }
  }

  registry::FieldErrors Validate(const json& svc) const override {
    registry::FieldErrors errors;
    const json& spec = Sub(svc, "spec");
    const std::string type = Str(spec, "type");
    if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
      errors.push_back(v::FieldNotSupported("spec.type", type, kTypes));
    }
    const std::string affinity = Str(spec, "sessionAffinity");
    if (affinity != "ClientIP" && affinity != "None") {
      errors.push_back(
          v::FieldNotSupported("spec.sessionAffinity", affinity, {"ClientIP", "None"}));
    }
    const json& ports = List(spec, "ports");
    const bool headless = Str(spec, "clusterIP") == "None";
    if (type == "ExternalName") {
      if (Str(spec, "externalName").empty()) {
        errors.push_back(v::FieldRequired("spec.externalName", ""));
      }
    } else if (ports.empty() && !headless) {
      errors.push_back(v::FieldRequired("spec.ports", ""));
    }
    std::set<std::string> names;
    for (size_t i = 0; i < ports.size(); ++i) {
      const json& port = ports[i];
      const std::string at = "spec.ports[" + std::to_string(i) + "]";
      const std::string name = Str(port, "name");
      if (name.empty() && ports.size() > 1) {
        errors.push_back(v::FieldRequired(at + ".name", ""));
      } else if (!name.empty()) {
        for (const std::string& msg : v::IsDNS1123Label(name)) {
          errors.push_back(v::FieldInvalid(at + ".name", name, msg));
        }
        if (!names.insert(name).second) errors.push_back(v::FieldDuplicate(at + ".name", name));
      }
      const int64_t number = Int(port, "port");
      if (number < 1 || number > 65535) {
        errors.push_back(v::FieldInvalid(at + ".port", std::to_string(number),
                                         "must be between 1 and 65535, inclusive"));
        errors.back().value_form = v::ValueForm::kVerbatim;
      }
      const std::string protocol = Str(port, "protocol");
      if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
        errors.push_back(v::FieldNotSupported(at + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
      }
      if (type != "NodePort" && type != "LoadBalancer" && Int(port, "nodePort") != 0) {
        errors.push_back(
            v::FieldForbidden(at + ".nodePort", "may not be used when `type` is '" + type + "'"));
      }
    }
    return errors;
  }

  registry::FieldErrors ValidateUpdate(const json& svc, const json& old) const override {
    registry::FieldErrors errors;
    const json& ips = List(Sub(svc, "spec"), "clusterIPs");
    const json& before = List(Sub(old, "spec"), "clusterIPs");
    if (NeedsClusterIP(svc) && NeedsClusterIP(old) && !before.empty() && ips != before) {
      std::vector<std::string> shown;
      for (const json& ip : ips) shown.push_back(ip.is_string() ? ip.get<std::string>() : "");
      errors.push_back(v::FieldInvalid("spec.clusterIPs[0]", v::GoStringSlice(shown),
                                       "may not change once set"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    for (auto& e : Validate(svc)) errors.push_back(std::move(e));
    return errors;
  }

 private:
  std::string family_;
};

std::string Ports(const json& spec) {
  std::string out;
  for (const json& port : List(spec, "ports")) {
    if (!out.empty()) out += ",";
    out += std::to_string(Int(port, "port"));
    if (Int(port, "nodePort") != 0) out += ":" + std::to_string(Int(port, "nodePort"));
    out += "/" + Str(port, "protocol");
  }
  return out.empty() ? "<none>" : out;
}

std::string ExternalIPs(const json& svc) {
  const json& spec = Sub(svc, "spec");
  const std::string type = Str(spec, "type");
  std::vector<std::string> ips;
  for (const json& ip : List(spec, "externalIPs")) {
    if (ip.is_string()) ips.push_back(ip);
  }
  if (type == "ExternalName") return Str(spec, "externalName");
  if (type == "LoadBalancer") {
    std::vector<std::string> lb;
    for (const json& ingress : List(Sub(Sub(svc, "status"), "loadBalancer"), "ingress")) {
      if (!Str(ingress, "ip").empty()) lb.push_back(Str(ingress, "ip"));
      if (!Str(ingress, "hostname").empty()) lb.push_back(Str(ingress, "hostname"));
    }
    lb.insert(lb.end(), ips.begin(), ips.end());
    ips = lb;
    if (ips.empty()) return "<pending>";
  }
  if (ips.empty()) return "<none>";
  std::string out;
  for (const std::string& ip : ips) out += (out.empty() ? "" : ",") + ip;
  return out;
}

}  // namespace

registry::ResourceSpecPtr Services(const std::string& cluster_ip_range,
                                   std::shared_ptr<const registry::Allocations> allocations) {
  // The kind, scope, verbs and status subresource from the schema data; the strategy is
  // the service's own.
  auto spec = Builtin("v1", "services");
  spec->short_names = {"svc"};
  spec->categories = {"all"};
  spec->strategy = std::make_shared<ServiceStrategy>(IPFamily(cluster_ip_range));
  spec->allocations = std::move(allocations);
  spec->columns = {
      registry::NameColumn(),
      {"Type", "string", "", "ClusterIP, NodePort, LoadBalancer or ExternalName.", 0},
      {"Cluster-IP", "string", "", "The virtual IP of the service.", 0},
      {"External-IP", "string", "", "Addresses the service is reachable at from outside.", 0},
      {"Port(s)", "string", "", "The service's ports, with node ports.", 0},
      registry::AgeColumn(),
      {"Selector", "string", "", "The labels of the pods behind the service.", 1},
  };
  spec->row = [](const json& svc, std::chrono::system_clock::time_point now) {
    const json& s = Sub(svc, "spec");
    std::string selector;
    for (const auto& [key, value] : Sub(s, "selector").items()) {
      selector += (selector.empty() ? "" : ",") + key + "=" +
                  (value.is_string() ? value.get<std::string>() : "");
    }
    const std::string ip = Str(s, "clusterIP");
    return std::vector<json>{registry::MetaString(svc, "name"),
                             Str(s, "type"),
                             ip.empty() ? "<none>" : ip,
                             ExternalIPs(svc),
                             Ports(s),
                             registry::Age(svc, now),
                             selector.empty() ? "<none>" : selector};
  };
  spec->fields["spec.clusterIP"] = [](const json& svc) {
    return Str(Sub(svc, "spec"), "clusterIP");
  };
  spec->fields["spec.type"] = [](const json& svc) { return Str(Sub(svc, "spec"), "type"); };
  return Finish(std::move(spec));
}

}  // namespace master::resources
