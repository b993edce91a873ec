// autoscaling/v1 horizontal pod autoscalers: the v2 objects seen through v1's single CPU
// target. Stored as autoscaling/v2; targetCPUUtilizationPercentage is the CPU utilization
// metric, and a v1 object without one gets v2's default (80%).
//
// What v1 cannot say travels, as upstream has it (pkg/apis/autoscaling/v1/conversion.go),
// in annotations of the v1 object (hpa_v1_annotations.h). A v1 write reads them back into
// the v2 fields and drops them from metadata.
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/strategy.h"
#include "pkg/master/registry/autoscaling/hpa_v1_annotations.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr int64_t kDefaultCPU = 80;

using namespace hpa_v1;

bool IsCPUResource(const json& metric) {
  return Str(metric, "type") == "Resource" && Str(Sub(metric, "resource"), "name") == "cpu";
}

// The utilization of a CPU utilization metric; nullptr for any other metric.
const json* CPUUtilization(const json& metric) {
  if (!IsCPUResource(metric)) return nullptr;
  return Present(Sub(Sub(metric, "resource"), "target"), "averageUtilization");
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

std::optional<std::string> Annotation(const json& object, const char* key) {
  const json& annotations = Sub(Sub(object, "metadata"), "annotations");
  auto it = annotations.find(key);
  if (it == annotations.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

void SetAnnotation(json& object, const char* key, std::string value) {
  Child(Child(object, "metadata"), "annotations")[key] = std::move(value);
}

// Removes the given annotations, and metadata.annotations when that leaves it empty.
template <size_t N>
void DropAnnotations(json& object, const std::array<const char*, N>& keys) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return;
  bool dropped = false;
  for (const char* key : keys) dropped = annotations->erase(key) > 0 || dropped;
  if (dropped && annotations->empty()) meta->erase(annotations);
}

// ---- Status and the round-trip annotations -------------------------------------------------

// The status annotations of an object (an object of those present).
json StatusAnnotations(const json& object) {
  json out = json::object();
  const json& annotations = Sub(Sub(object, "metadata"), "annotations");
  for (const char* key : kStatusAnnotations) {
    if (auto it = annotations.find(key); it != annotations.end()) out[key] = *it;
  }
  return out;
}

void SetStatusAnnotations(json& object, const json& values) {
  DropAnnotations(object, kStatusAnnotations);
  for (auto it = values.begin(); it != values.end(); ++it) {
    Child(Child(object, "metadata"), "annotations")[it.key()] = *it;
  }
}

// Upstream applies its strategies to the internal object, where the status annotations
// are status: a write of the main resource keeps them as stored (and a create starts
// without them), a write of /status changes only them. The v1 strategies here see the v1
// object, so the annotations are kept and reset as status is.
class StatusAnnotationsStrategy final : public registry::Strategy {
 public:
  StatusAnnotationsStrategy(std::shared_ptr<const registry::Strategy> inner, bool status)
      : inner_(std::move(inner)), status_(status) {}

  std::optional<std::string> Decode(json& object) const override { return inner_->Decode(object); }
  void Default(json& object) const override { inner_->Default(object); }
  void PrepareForCreate(json& object) const override {
    inner_->PrepareForCreate(object);
    SetStatusAnnotations(object, json::object());
  }
  void RecordRequester(json& object, const authn::UserInfo& user) const override {
    inner_->RecordRequester(object, user);
  }
  void PrepareForUpdate(json& object, const json& old) const override {
    if (status_) {
      const json requested = StatusAnnotations(object);
      inner_->PrepareForUpdate(object, old);
      SetStatusAnnotations(object, requested);
    } else {
      inner_->PrepareForUpdate(object, old);
      SetStatusAnnotations(object, StatusAnnotations(old));
    }
  }
  registry::FieldErrors Validate(const json& object) const override {
    return inner_->Validate(object);
  }
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    return inner_->ValidateUpdate(object, old);
  }
  void Canonicalize(json& object) const override { inner_->Canonicalize(object); }
  bool AllowCreateOnUpdate() const override { return inner_->AllowCreateOnUpdate(); }
  bool AllowUnconditionalUpdate() const override { return inner_->AllowUnconditionalUpdate(); }
  bool TracksGeneration() const override { return inner_->TracksGeneration(); }
  bool HasStatusSubresource() const override { return inner_->HasStatusSubresource(); }
  apimachinery::validation::NameRule Names() const override { return inner_->Names(); }
  bool PrepareForDelete(json& object) const override { return inner_->PrepareForDelete(object); }
  std::optional<apimachinery::Status> RefuseDelete(const json& object) const override {
    return inner_->RefuseDelete(object);
  }
  bool GarbageCollected() const override { return inner_->GarbageCollected(); }
  bool Finalized(const json& object) const override { return inner_->Finalized(object); }

 private:
  std::shared_ptr<const registry::Strategy> inner_;
  bool status_;
};

}  // namespace

json HorizontalPodAutoscalerToV2(const json& hpa) {
  json out = {{"apiVersion", "autoscaling/v2"}, {"kind", "HorizontalPodAutoscaler"}};
  CopyKeys(hpa, out, {"metadata"});
  const json& spec = Sub(hpa, "spec");
  json v2spec = json::object();
  CopyKeys(spec, v2spec, {"scaleTargetRef", "minReplicas", "maxReplicas"});
  // The annotation's metrics come first, the CPU target after them, as upstream orders
  // them; with neither, v1's implicit 80%.
  json metrics = json::array();
  if (auto text = Annotation(hpa, kMetricsAnnotation)) {
    if (auto decoded = DecodeMetricSpecs(*text)) metrics = std::move(*decoded);
  }
  if (Present(spec, "targetCPUUtilizationPercentage")) {
    metrics.push_back(CPUMetric(Int(spec, "targetCPUUtilizationPercentage", kDefaultCPU)));
  }
  if (metrics.empty()) metrics.push_back(CPUMetric(kDefaultCPU));
  v2spec["metrics"] = std::move(metrics);
  if (auto text = Annotation(hpa, kBehaviorAnnotation)) {
    if (auto behavior = DecodeBehavior(*text)) v2spec["behavior"] = std::move(*behavior);
  }
  out["spec"] = std::move(v2spec);

  std::optional<json> current_metrics;
  if (auto text = Annotation(hpa, kCurrentMetricsAnnotation)) {
    current_metrics = DecodeMetricStatuses(*text);
  }
  std::optional<json> conditions;
  if (auto text = Annotation(hpa, kConditionsAnnotation)) {
    conditions = DecodeConditions(*text);
  }
  if (hpa.contains("status") || current_metrics || conditions) {
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
    // The annotation's current metrics have more to say than the CPU percentage: they win.
    if (current_metrics) {
      if (current_metrics->empty()) {
        v2status.erase("currentMetrics");
      } else {
        v2status["currentMetrics"] = std::move(*current_metrics);
      }
    }
    if (conditions && !conditions->empty()) v2status["conditions"] = std::move(*conditions);
    out["status"] = std::move(v2status);
  }
  DropAnnotations(out, kRoundTripAnnotations);
  return out;
}

json HorizontalPodAutoscalerToV1(const json& hpa) {
  json out = {{"apiVersion", "autoscaling/v1"}, {"kind", "HorizontalPodAutoscaler"}};
  CopyKeys(hpa, out, {"metadata"});
  // Only what this conversion writes: a stored object's own copies are not shown.
  DropAnnotations(out, kRoundTripAnnotations);
  const json& spec = Sub(hpa, "spec");
  json v1spec = json::object();
  CopyKeys(spec, v1spec, {"scaleTargetRef", "minReplicas", "maxReplicas"});
  // The first CPU utilization metric is the target; every metric but the CPU utilization
  // ones goes to the annotation.
  json other_metrics = json::array();
  for (const json& metric : List(spec, "metrics")) {
    const json* utilization = CPUUtilization(metric);
    if (!utilization) {
      other_metrics.push_back(metric);
    } else if (!v1spec.contains("targetCPUUtilizationPercentage")) {
      v1spec["targetCPUUtilizationPercentage"] = *utilization;
    }
  }
  out["spec"] = std::move(v1spec);
  const json& status = Sub(hpa, "status");
  if (hpa.contains("status")) {
    json v1status = {{"currentReplicas", Int(status, "currentReplicas")},
                     {"desiredReplicas", Int(status, "desiredReplicas")}};
    CopyKeys(status, v1status, {"observedGeneration", "lastScaleTime"});
    for (const json& metric : List(status, "currentMetrics")) {
      const json& current = Sub(Sub(metric, "resource"), "current");
      if (IsCPUResource(metric) && current.contains("averageUtilization")) {
        v1status["currentCPUUtilizationPercentage"] = current["averageUtilization"];
      }
    }
    out["status"] = std::move(v1status);
  }

  if (!other_metrics.empty()) {
    SetAnnotation(out, kMetricsAnnotation, EncodeMetricSpecs(other_metrics));
  }
  // Every current metric, the CPU one too (its raw value has no place in v1 either).
  const json& current_metrics = List(status, "currentMetrics");
  if (!current_metrics.empty()) {
    SetAnnotation(out, kCurrentMetricsAnnotation, EncodeMetricStatuses(current_metrics));
  }
  if (const json* behavior = Present(spec, "behavior")) {
    SetAnnotation(out, kBehaviorAnnotation, EncodeBehavior(*behavior));
  }
  const json& conditions = List(status, "conditions");
  if (!conditions.empty()) SetAnnotation(out, kConditionsAnnotation, EncodeConditions(conditions));
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
  spec->strategy = std::make_shared<StatusAnnotationsStrategy>(spec->strategy, false);
  for (registry::Subresource& sub : spec->subresources) {
    if (sub.name == "status" && sub.strategy) {
      sub.strategy = std::make_shared<StatusAnnotationsStrategy>(sub.strategy, true);
    }
  }
  registry::ResourceSpecPtr v2 = HorizontalPodAutoscalers();
  spec->storage_prefix = v2->storage_prefix;
  spec->columns = v2->columns;
  spec->row = [v2](const json& hpa, std::chrono::system_clock::time_point now) {
    return v2->row(HorizontalPodAutoscalerToV2(hpa), now);
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
