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

// "cpu: 40%/80%" per metric (current "<unknown>" until the controller reports it).
std::string Targets(const json& hpa) {
  std::string out;
  const json& current = List(Sub(hpa, "status"), "currentMetrics");
  const json& metrics = List(Sub(hpa, "spec"), "metrics");
  for (size_t i = 0; i < metrics.size(); ++i) {
    const json& m = metrics[i];
    std::string item;
    if (Str(m, "type") == "Resource") {
      const json& resource = Sub(m, "resource");
      const json& target = Sub(resource, "target");
      std::string have = "<unknown>";
      if (i < current.size()) {
        const json& cur = Sub(Sub(current[i], "resource"), "current");
        if (cur.contains("averageUtilization")) {
          have = std::to_string(Int(cur, "averageUtilization")) + "%";
        } else if (!Str(cur, "averageValue").empty()) {
          have = Str(cur, "averageValue");
        }
      }
      std::string want = target.contains("averageUtilization")
                             ? std::to_string(Int(target, "averageUtilization")) + "%"
                             : Str(target, "averageValue");
      item = Str(resource, "name") + ": " + have + "/" + want;
    } else {
      item = "<unknown>/" + Str(m, "type");
    }
    out += (out.empty() ? "" : ", ") + item;
  }
  return out.empty() ? "<none>" : out;
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
                             std::to_string(Int(s, "minReplicas", 1)),
                             std::to_string(Int(s, "maxReplicas")),
                             std::to_string(Int(Sub(hpa, "status"), "currentReplicas")),
                             registry::Age(hpa, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
