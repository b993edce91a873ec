// autoscaling/v2 horizontal pod autoscalers: minReplicas 1 and, without metrics, 80%
// average CPU utilization, as upstream defaults them.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const json kNone = json::object();

// A quantity field as Go's Quantity.String() of a *Quantity prints it ("<nil>" when unset);
// stored quantities are already in canonical form.
std::string Quantity(const json& object, const char* key) {
  const json* q = Present(object, key);
  if (q == nullptr) return "<nil>";
  return q->is_string() ? q->get<std::string>() : q->dump();
}

// "40%" for a utilization percentage present, else `otherwise`.
std::string Percent(const json& object, const char* key, const char* otherwise) {
  const json* p = Present(object, key);
  return p != nullptr && p->is_number_integer() ? std::to_string(p->get<int64_t>()) + "%"
                                                : otherwise;
}

// One metric of the TARGETS cell, as upstream's printer writes it: "<current>/<target>",
// the current value "<unknown>" until the controller reports the metric at the same index,
// a resource's name in front, " (avg)" after an object's or external metric's average.
std::string Target(const json& metric, const json& status) {
  const std::string type = Str(metric, "type");
  if (type == "External" || type == "Object" || type == "Pods") {
    const char* source = type == "External" ? "external" : type == "Object" ? "object" : "pods";
    const json& target = Sub(Sub(metric, source), "target");
    const json* reported = Present(status, source);
    const json& current = reported != nullptr ? Sub(*reported, "current") : kNone;
    if (type == "Pods") {
      return (reported ? Quantity(current, "averageValue") : "<unknown>") + "/" +
             Quantity(target, "averageValue");
    }
    if (Present(target, "averageValue") != nullptr) {
      const bool known = reported != nullptr && Present(current, "averageValue") != nullptr;
      return (known ? Quantity(current, "averageValue") : "<unknown>") + "/" +
             Quantity(target, "averageValue") + " (avg)";
    }
    return (reported ? Quantity(current, "value") : "<unknown>") + "/" + Quantity(target, "value");
  }
  if (type == "Resource" || type == "ContainerResource") {
    const char* source = type == "Resource" ? "resource" : "containerResource";
    const json& spec = Sub(metric, source);
    const json& target = Sub(spec, "target");
    const json* reported = Present(status, source);
    const json& current = reported != nullptr ? Sub(*reported, "current") : kNone;
    if (Present(target, "averageValue") != nullptr) {
      return Str(spec, "name") + ": " +
             (reported ? Quantity(current, "averageValue") : "<unknown>") + "/" +
             Quantity(target, "averageValue");
    }
    return Str(spec, "name") + ": " + Percent(current, "averageUtilization", "<unknown>") + "/" +
           Percent(target, "averageUtilization", "<auto>");
  }
  return "<unknown type>";
}

// The TARGETS cell: the first two metrics, then " + N more...".
std::string Targets(const json& hpa) {
  const json& current = List(Sub(hpa, "status"), "currentMetrics");
  const json& metrics = List(Sub(hpa, "spec"), "metrics");
  if (metrics.empty()) return "<none>";
  constexpr size_t kShown = 2;
  std::string out;
  for (size_t i = 0; i < metrics.size() && i < kShown; ++i) {
    out += (i == 0 ? "" : ", ") + Target(metrics[i], i < current.size() ? current[i] : kNone);
  }
  if (metrics.size() > kShown) {
    out += " + " + std::to_string(metrics.size() - kShown) + " more...";
  }
  return out;
}

}  // namespace

registry::ResourceSpecPtr HorizontalPodAutoscalers() {
  KindHooks hooks;
  hooks.defaults = [](json& hpa) {
    json& spec = Child(hpa, "spec");
    SetDefault(spec, "minReplicas", 1);
    if (List(spec, "metrics").empty()) {
      spec["metrics"] = json::parse(
          R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}])");
    }
  };
  hooks.prepare_create = [](json& hpa) { hpa["status"] = {{"desiredReplicas", 0}}; };
  hooks.validate = [](const json& hpa) {
    registry::FieldErrors errors;
    const json& spec = Sub(hpa, "spec");
    const int64_t min = Int(spec, "minReplicas", 1);
    const int64_t max = Int(spec, "maxReplicas");
    if (min < 1) {
      errors.push_back(v::FieldInvalid("spec.minReplicas", std::to_string(min),
                                       "must be greater than or equal to 1"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    if (max < 1) {
      errors.push_back(
          v::FieldInvalid("spec.maxReplicas", std::to_string(max), "must be greater than 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    } else if (max < min) {
      errors.push_back(v::FieldInvalid("spec.maxReplicas", std::to_string(max),
                                       "must be greater than or equal to `minReplicas`"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    const json& target = Sub(spec, "scaleTargetRef");
    if (Str(target, "kind").empty())
      errors.push_back(v::FieldRequired("spec.scaleTargetRef.kind", ""));
    if (Str(target, "name").empty())
      errors.push_back(v::FieldRequired("spec.scaleTargetRef.name", ""));
    return errors;
  };
  auto spec = Builtin("autoscaling/v2", "horizontalpodautoscalers", std::move(hooks));
  spec->short_names = {"hpa"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Reference", "string", "", "The object scaled.", 0},
      {"Targets", "string", "", "Current and target metric values.", 0},
      {"MinPods", "string", "", "The fewest replicas.", 0},
      {"MaxPods", "string", "", "The most replicas.", 0},
      {"Replicas", "string", "", "The replicas now.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& hpa, std::chrono::system_clock::time_point now) {
    const json& s = Sub(hpa, "spec");
    const json& target = Sub(s, "scaleTargetRef");
    return std::vector<json>{registry::MetaString(hpa, "name"),
                             Str(target, "kind") + "/" + Str(target, "name"),
                             Targets(hpa),
                             Present(s, "minReplicas") != nullptr
                                 ? std::to_string(Int(s, "minReplicas"))
                                 : std::string("<unset>"),
                             Int(s, "maxReplicas"),
                             Int(Sub(hpa, "status"), "currentReplicas"),
                             registry::Age(hpa, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
