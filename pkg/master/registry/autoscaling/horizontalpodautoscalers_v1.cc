// autoscaling/v1 horizontal pod autoscalers: the v2 objects seen through v1's single CPU
// target. Stored as autoscaling/v2; targetCPUUtilizationPercentage is the CPU utilization
// metric, and a v1 object without one gets v2's default (80%).
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr int64_t kDefaultCPU = 80;

bool IsCPUUtilization(const json& metric) {
  return Str(metric, "type") == "Resource" && Str(Sub(metric, "resource"), "name") == "cpu";
}

json CPUMetric(int64_t percent) {
  return {
      {"type", "Resource"},
      {"resource",
       {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", percent}}}}}};
}

// Copies the listed keys of `from` that are present into `to`.
void CopyKeys(const json& from, json& to, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto it = from.find(key); it != from.end()) to[key] = *it;
  }
}

}  // namespace

json HorizontalPodAutoscalerToV2(const json& hpa) {
  json out = {{"apiVersion", "autoscaling/v2"}, {"kind", "HorizontalPodAutoscaler"}};
  CopyKeys(hpa, out, {"metadata"});
  const json& spec = Sub(hpa, "spec");
  json v2spec = json::object();
  CopyKeys(spec, v2spec, {"scaleTargetRef", "minReplicas", "maxReplicas"});
  v2spec["metrics"] =
      json::array({CPUMetric(Int(spec, "targetCPUUtilizationPercentage", kDefaultCPU))});
  out["spec"] = std::move(v2spec);
  if (hpa.contains("status")) {
    const json& status = Sub(hpa, "status");
    json v2status = json::object();
    CopyKeys(status, v2status, {"observedGeneration", "lastScaleTime"});
    if (Int(status, "currentReplicas") != 0)
      v2status["currentReplicas"] = status["currentReplicas"];
    v2status["desiredReplicas"] = Int(status, "desiredReplicas");
    if (status.contains("currentCPUUtilizationPercentage")) {
      v2status["currentMetrics"] = json::array(
          {{{"type", "Resource"},
            {"resource",
             {{"name", "cpu"},
              {"current",
               {{"averageUtilization", Int(status, "currentCPUUtilizationPercentage")}}}}}}});
    }
    out["status"] = std::move(v2status);
  }
  return out;
}

json HorizontalPodAutoscalerToV1(const json& hpa) {
  json out = {{"apiVersion", "autoscaling/v1"}, {"kind", "HorizontalPodAutoscaler"}};
  CopyKeys(hpa, out, {"metadata"});
  const json& spec = Sub(hpa, "spec");
  json v1spec = json::object();
  CopyKeys(spec, v1spec, {"scaleTargetRef", "minReplicas", "maxReplicas"});
  for (const json& metric : List(spec, "metrics")) {
    const json& target = Sub(Sub(metric, "resource"), "target");
    if (IsCPUUtilization(metric) && target.contains("averageUtilization")) {
      v1spec["targetCPUUtilizationPercentage"] = target["averageUtilization"];
    }
  }
  out["spec"] = std::move(v1spec);
  if (hpa.contains("status")) {
    const json& status = Sub(hpa, "status");
    json v1status = {{"currentReplicas", Int(status, "currentReplicas")},
                     {"desiredReplicas", Int(status, "desiredReplicas")}};
    CopyKeys(status, v1status, {"observedGeneration", "lastScaleTime"});
    for (const json& metric : List(status, "currentMetrics")) {
      const json& current = Sub(Sub(metric, "resource"), "current");
      if (IsCPUUtilization(metric) && current.contains("averageUtilization")) {
        v1status["currentCPUUtilizationPercentage"] = current["averageUtilization"];
      }
    }
    out["status"] = std::move(v1status);
  }
  return out;
}

registry::ResourceSpecPtr HorizontalPodAutoscalersV1() {
  KindHooks hooks;
  hooks.defaults = [](json& hpa) { SetDefault(Child(hpa, "spec"), "minReplicas", 1); };
  hooks.prepare_create = [](json& hpa) { hpa["status"] = json::object(); };
  hooks.validate = [](const json& hpa) {
    registry::FieldErrors errors;
    const json& spec = Sub(hpa, "spec");
    if (Int(spec, "minReplicas", 1) < 1) {
      errors.push_back(v::FieldInvalid("spec.minReplicas", std::to_string(Int(spec, "minReplicas")),
                                       "must be greater than or equal to 1"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    if (Int(spec, "maxReplicas") < Int(spec, "minReplicas", 1)) {
      errors.push_back(v::FieldInvalid("spec.maxReplicas", std::to_string(Int(spec, "maxReplicas")),
                                       "must be greater than or equal to `minReplicas`"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    if (spec.contains("targetCPUUtilizationPercentage") &&
        Int(spec, "targetCPUUtilizationPercentage") < 1) {
      errors.push_back(v::FieldInvalid("spec.targetCPUUtilizationPercentage",
                                       std::to_string(Int(spec, "targetCPUUtilizationPercentage")),
                                       "must be greater than or equal to 1"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    return errors;
  };
  auto spec = Builtin("autoscaling/v1", "horizontalpodautoscalers", std::move(hooks));
  spec->short_names = {"hpa"};
  spec->categories = {"all"};
  registry::ResourceSpecPtr v2 = HorizontalPodAutoscalers();
  spec->storage_prefix = v2->storage_prefix;
  spec->columns = v2->columns;
  spec->row = [v2](const json& hpa, std::chrono::system_clock::time_point now) {
    return v2->row(HorizontalPodAutoscalerToV2(hpa), now);
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
