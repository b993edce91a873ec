// core/v1 pods: defaults and validation of the spec, the initial status (Pending with its
// QoS class), and kubectl's READY/STATUS/RESTARTS table.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/core/pod_qos.h"
#include "pkg/master/registry/core/pod_subresources.h"
#include "pkg/master/registry/core/pod_validation.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

// Requests default to limits where only limits are given (upstream's SetDefaults_Pod).
void RequestsFromLimits(json& spec) {
  for (const char* list : {"containers", "initContainers"}) {
    auto cs = spec.find(list);
    if (cs == spec.end() || !cs->is_array()) continue;
    for (json& c : *cs) {
      if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) continue;
      json& res = c["resources"];
      if (!res.contains("limits") || !res["limits"].is_object()) continue;
      for (auto it = res["limits"].begin(); it != res["limits"].end(); ++it) {
        json& requests = Child(res, "requests");
        if (!requests.contains(it.key())) requests[it.key()] = it.value();
      }
    }
  }
}

void DefaultPod(json& pod) {
  json& spec = Child(pod, "spec");
  DefaultPodSpec(spec);
  RequestsFromLimits(spec);
  SetDefault(spec, "enableServiceLinks", true);
}

// Pod strategy on create: status reset to Pending with the QoS class. (Priority and the
// default tolerations are admission's: pkg/plugin/admission/pod_plugins.h.)
void PrepareCreate(json& pod) {
  json& spec = Child(pod, "spec");
  pod["status"] = {{"phase", "Pending"}, {"qosClass", QOSClass(spec)}};
}

registry::FieldErrors Validate(const json& pod) {
  registry::FieldErrors errors;
  ValidatePodSpec(Sub(pod, "spec"), "spec", errors);
  return errors;
}

// What upstream lets a pod update change in spec: container images, the active deadline,
// added tolerations, a negative grace period turned into 1.
registry::FieldErrors ValidateUpdate(const json& pod, const json& old) {
  json a = Sub(pod, "spec");
  json b = Sub(old, "spec");
  for (json* spec : {&a, &b}) {
    for (const char* list : {"containers", "initContainers"}) {
      if (auto cs = spec->find(list); cs != spec->end() && cs->is_array()) {
        for (json& c : *cs) {
          if (c.is_object()) c.erase("image");
        }
      }
    }
    spec->erase("activeDeadlineSeconds");
    spec->erase("tolerations");
    spec->erase("terminationGracePeriodSeconds");
  }
  if (a == b) return {};
  return {v::FieldForbidden(
      "spec",
      "pod updates may not change fields other than `spec.containers[*].image`,"
      "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
      "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
      "set to 1 if it was previously negative)")};
}

// kubectl's STATUS: the pod's reason or phase, overridden by the reason of a waiting or
// terminated container, "Terminating" once deleted.
std::string PodStatus(const json& pod) {
  const json& status = Sub(pod, "status");
  std::string reason = Str(status, "reason");
  if (reason.empty()) reason = Str(status, "phase");
  bool running = false;
  if (auto cs = status.find("containerStatuses"); cs != status.end() && cs->is_array()) {
    for (auto it = cs->rbegin(); it != cs->rend(); ++it) {
      const json& state = Sub(*it, "state");
      if (!Str(Sub(state, "waiting"), "reason").empty()) {
        reason = Str(Sub(state, "waiting"), "reason");
      } else if (state.contains("terminated")) {
        const json& t = Sub(state, "terminated");
        if (!Str(t, "reason").empty()) {
          reason = Str(t, "reason");
        } else if (t.value("signal", 0) != 0) {
          reason = "Signal:" + std::to_string(t.value("signal", 0));
        } else {
          reason = "ExitCode:" + std::to_string(t.value("exitCode", 0));
        }
      } else if (state.contains("running") && it->value("ready", false)) {
        running = true;
      }
    }
  }
  if (reason == "Completed" && running) reason = "Running";
  if (!registry::MetaString(pod, "deletionTimestamp").empty()) {
    reason = Str(status, "reason") == "NodeLost" ? "Unknown" : "Terminating";
  }
  return reason;
}

std::vector<json> Row(const json& pod, std::chrono::system_clock::time_point now) {
  const json& spec = Sub(pod, "spec");
  const json& status = Sub(pod, "status");
  size_t total = 0;
  if (auto cs = spec.find("containers"); cs != spec.end() && cs->is_array()) total = cs->size();
  size_t ready = 0;
  int64_t restarts = 0;
  if (auto cs = status.find("containerStatuses"); cs != status.end() && cs->is_array()) {
    for (const json& c : *cs) {
      if (!c.is_object()) continue;
      if (c.value("ready", false)) ++ready;
      if (c.contains("restartCount") && c["restartCount"].is_number_integer()) {
        restarts += c["restartCount"].get<int64_t>();
      }
    }
  }
  auto or_none = [](std::string s) { return s.empty() ? std::string("<none>") : s; };
  std::string gates = "<none>";
  if (auto g = spec.find("readinessGates"); g != spec.end() && g->is_array() && !g->empty()) {
    size_t true_gates = 0;
    for (const json& gate : *g) {
      if (auto conds = status.find("conditions"); conds != status.end() && conds->is_array()) {
        for (const json& c : *conds) {
          if (Str(c, "type") == Str(gate, "conditionType") && Str(c, "status") == "True") {
            ++true_gates;
          }
        }
      }
    }
    gates = std::to_string(true_gates) + "/" + std::to_string(g->size());
  }
  return {registry::MetaString(pod, "name"),
          std::to_string(ready) + "/" + std::to_string(total),
          PodStatus(pod),
          restarts,
          registry::Age(pod, now),
          or_none(Str(status, "podIP")),
          or_none(Str(spec, "nodeName")),
          or_none(Str(status, "nominatedNodeName")),
          gates};
}

// pods/status: as upstream, ownerReferences stay as stored, and a status without a QoS class
// keeps the stored one (the class follows from the spec, which a status write cannot change).
class PodStatusStrategy final : public registry::StatusStrategy {
 public:
  PodStatusStrategy() : StatusStrategy(registry::StatusOptions{{"ownerReferences"}}) {}
  void PrepareForUpdate(json& pod, const json& old) const override {
    StatusStrategy::PrepareForUpdate(pod, old);
    const std::string stored = Str(Sub(old, "status"), "qosClass");
    if (!stored.empty() && pod.contains("status") && pod["status"].is_object() &&
        Str(pod["status"], "qosClass").empty()) {
      pod["status"]["qosClass"] = stored;
    }
  }
};

}  // namespace

registry::ResourceSpecPtr Pods(std::shared_ptr<registry::Store> disruption_budgets) {
  KindHooks hooks;
  hooks.defaults = DefaultPod;
  hooks.prepare_create = PrepareCreate;
  hooks.validate = Validate;
  hooks.validate_update = ValidateUpdate;
  auto spec = Builtin("v1", "pods", std::move(hooks));
  for (registry::Subresource& sub : spec->subresources) {
    if (sub.name == "status") sub.strategy = std::make_shared<PodStatusStrategy>();
  }
  spec->subresources.push_back(PodBinding());
  spec->subresources.push_back(PodEphemeralContainers());
  spec->subresources.push_back(PodEviction(std::move(disruption_budgets)));
  spec->short_names = {"po"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Ready", "string", "", "Ready containers out of all containers.", 0},
      {"Status", "string", "", "The pod's phase, or why a container is not running.", 0},
      {"Restarts", "string", "", "Container restarts, summed.", 0},
      registry::AgeColumn(),
      {"IP", "string", "", "The pod's IP address.", 1},
      {"Node", "string", "", "The node the pod is bound to.", 1},
      {"Nominated Node", "string", "", "The node the scheduler means to preempt for the pod.", 1},
      {"Readiness Gates", "string", "", "Readiness gates that are true, out of all.", 1},
  };
  spec->row = Row;
  auto spec_text = [](const char* key) {
    return [key](const json& pod) { return Str(Sub(pod, "spec"), key); };
  };
  spec->fields["spec.nodeName"] = spec_text("nodeName");
  spec->fields["spec.restartPolicy"] = spec_text("restartPolicy");
  spec->fields["spec.schedulerName"] = spec_text("schedulerName");
  spec->fields["spec.serviceAccountName"] = spec_text("serviceAccountName");
  spec->fields["spec.hostNetwork"] = [](const json& pod) {
    return Sub(pod, "spec").value("hostNetwork", false) == true ? std::string("true")
                                                                : std::string("false");
  };
  spec->fields["status.phase"] = [](const json& pod) { return Str(Sub(pod, "status"), "phase"); };
  spec->fields["status.podIP"] = [](const json& pod) { return Str(Sub(pod, "status"), "podIP"); };
  spec->fields["status.nominatedNodeName"] = [](const json& pod) {
    return Str(Sub(pod, "status"), "nominatedNodeName");
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
