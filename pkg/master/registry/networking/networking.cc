// networking.k8s.io/v1: ingresses (with status), ingress classes and network policies,
// with upstream's defaults (a policy's policyTypes, TCP ports) and table columns.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// The ingress's hosts ("*" for a rule without one), at most four, as kubectl prints them.
std::string Hosts(const json& ingress) {
  std::vector<std::string> hosts;
  for (const json& rule : List(Sub(ingress, "spec"), "rules")) {
    hosts.push_back(Str(rule, "host").empty() ? "*" : Str(rule, "host"));
  }
  if (hosts.empty()) return "*";
  if (hosts.size() > 4) {
    const size_t more = hosts.size() - 4;
    hosts.resize(4);
    return Join(hosts) + " + " + std::to_string(more) + " more...";
  }
  return Join(hosts);
}

std::string LoadBalancerAddresses(const json& object) {
  std::vector<std::string> out;
  for (const json& ingress : List(Sub(Sub(object, "status"), "loadBalancer"), "ingress")) {
    if (!Str(ingress, "ip").empty()) out.push_back(Str(ingress, "ip"));
    if (!Str(ingress, "hostname").empty()) out.push_back(Str(ingress, "hostname"));
  }
  return Join(out);
}

void DefaultPorts(json& rules_holder, const char* list) {
  auto rules = rules_holder.find(list);
  if (rules == rules_holder.end() || !rules->is_array()) return;
  for (json& rule : *rules) {
    auto ports = rule.find("ports");
    if (ports == rule.end() || !ports->is_array()) continue;
    for (json& port : *ports) {
      if (port.is_object()) SetDefault(port, "protocol", "TCP");
    }
  }
}

}  // namespace

registry::ResourceSpecPtr Ingresses() {
  KindHooks hooks;
  hooks.prepare_create = [](json& ing) { ing["status"] = {{"loadBalancer", json::object()}}; };
  hooks.validate = [](const json& ing) {
    registry::FieldErrors errors;
    const json& spec = Sub(ing, "spec");
    if (List(spec, "rules").empty() && !spec.contains("defaultBackend")) {
      errors.push_back(
          v::FieldInvalid("spec", "", "either `defaultBackend` or `rules` must be specified"));
      errors.back().value_form = v::ValueForm::kOmitted;
    }
    const json& rules = List(spec, "rules");
    for (size_t r = 0; r < rules.size(); ++r) {
      const json& paths = List(Sub(rules[r], "http"), "paths");
      for (size_t p = 0; p < paths.size(); ++p) {
        const std::string at =
            "spec.rules[" + std::to_string(r) + "].http.paths[" + std::to_string(p) + "]";
        const std::string type = Str(paths[p], "pathType");
        if (type.empty()) {
          errors.push_back(v::FieldRequired(at + ".pathType", "pathType must be specified"));
        } else if (type != "Exact" && type != "Prefix" && type != "ImplementationSpecific") {
          errors.push_back(v::FieldNotSupported(at + ".pathType", type,
                                                {"Exact", "ImplementationSpecific", "Prefix"}));
        }
      }
    }
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin("networking.k8s.io/v1", "ingresses", std::move(hooks));
  spec->short_names = {"ing"};
  spec->columns = {
      registry::NameColumn(),
      {"Class", "string", "", "The ingress class.", 0},
      {"Hosts", "string", "", "The hosts the rules match.", 0},
      {"Address", "string", "", "Where the ingress is reachable.", 0},
      {"Ports", "string", "", "80, and 443 with TLS.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& ing, std::chrono::system_clock::time_point now) {
    const json& s = Sub(ing, "spec");
    std::string cls = Str(s, "ingressClassName");
    if (cls.empty()) cls = "<none>";
    return std::vector<json>{registry::MetaString(ing, "name"),
                             cls,
                             Hosts(ing),
                             LoadBalancerAddresses(ing),
                             List(s, "tls").empty() ? "80" : "80, 443",
                             registry::Age(ing, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr IngressClasses() {
  KindHooks hooks;
  hooks.validate = [](const json& ic) {
    registry::FieldErrors errors;
    if (Str(Sub(ic, "spec"), "controller").empty()) {
      errors.push_back(v::FieldRequired("spec.controller", ""));
    }
    return errors;
  };
  hooks.validate_update = [](const json& ic, const json& old) {
    registry::FieldErrors errors;
    if (Str(Sub(ic, "spec"), "controller") != Str(Sub(old, "spec"), "controller")) {
      errors.push_back(v::FieldInvalid("spec.controller", Str(Sub(ic, "spec"), "controller"),
                                       "field is immutable"));
    }
    return errors;
  };
  auto spec = Builtin("networking.k8s.io/v1", "ingressclasses", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"Controller", "string", "", "The controller that implements the class.", 0},
      {"Parameters", "string", "", "The class's parameters object.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& ic, std::chrono::system_clock::time_point now) {
    const json& params = Sub(Sub(ic, "spec"), "parameters");
    std::string parameters = "<none>";
    if (!params.empty()) {
      parameters = Str(params, "kind");
      if (!Str(params, "apiGroup").empty()) parameters += "." + Str(params, "apiGroup");
      parameters += "/" + Str(params, "name");
    }
    return std::vector<json>{registry::MetaString(ic, "name"), Str(Sub(ic, "spec"), "controller"),
                             parameters, registry::Age(ic, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr NetworkPolicies() {
  KindHooks hooks;
  hooks.defaults = [](json& np) {
    json& spec = Child(np, "spec");
    DefaultPorts(spec, "ingress");
    DefaultPorts(spec, "egress");
    // Ingress always; Egress too when egress rules are given.
    if (List(spec, "policyTypes").empty()) {
      json types = {"Ingress"};
      if (!List(spec, "egress").empty()) types.push_back("Egress");
      spec["policyTypes"] = types;
    }
  };
  hooks.generation = true;
  auto spec = Builtin("networking.k8s.io/v1", "networkpolicies", std::move(hooks));
  // Upstream withdrew NetworkPolicyStatus in 1.28: no /status (status is never stored).
  std::erase_if(spec->subresources,
                [](const registry::Subresource& sub) { return sub.name == "status"; });
  spec->short_names = {"netpol"};
  spec->columns = {
      registry::NameColumn(),
      {"Pod-Selector", "string", "", "The pods the policy applies to.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& np, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(np, "name"),
                             FormatLabelSelector(Sub(Sub(np, "spec"), "podSelector")),
                             registry::Age(np, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
