// The annotations' text written from v2 values, as Go's encoding/json writes upstream's types.
#include "pkg/master/registry/autoscaling/hpa_v1_annotations.h"

#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/master/registry/fields.h"

namespace master::resources::hpa_v1 {
namespace {

using nlohmann::json;
// Written in the order of the Go struct's fields, as encoding/json writes them.
using ordered = nlohmann::ordered_json;

// ---- v2 to the annotations: Go's encoding of upstream's types -----------------------------

// What json.Marshal writes: compact, with <, > and & (and U+2028, U+2029) escaped as
// encoding/json's HTML-safe default escapes them.
std::string GoMarshal(const ordered& value) {
  return apimachinery::validation::GoHTMLSafeJSON(
      value.dump(-1, ' ', false, ordered::error_handler_t::replace));
}

void CopyIfPresent(ordered& to, const char* to_key, const json& from, const char* key) {
  if (const json* value = Present(from, key)) to[to_key] = ordered(*value);
}

// A resource.Quantity that is no pointer in Go: "0" when unset.
ordered QuantityOrZero(const json& from, const char* key) {
  const json* value = Present(from, key);
  return value ? ordered(*value) : ordered("0");
}

// v1 CrossVersionObjectReference: kind, name, apiVersion (omitempty).
ordered ReferenceV1(const json& reference) {
  ordered out = ordered::object();
  out["kind"] = Str(reference, "kind");
  out["name"] = Str(reference, "name");
  if (!Str(reference, "apiVersion").empty()) out["apiVersion"] = Str(reference, "apiVersion");
  return out;
}

// metav1.LabelSelector: matchLabels, matchExpressions (key, operator, values), empty ones
// left out.
ordered SelectorGo(const json& selector) {
  ordered out = ordered::object();
  const json& labels = Sub(selector, "matchLabels");
  if (!labels.empty()) out["matchLabels"] = ordered(labels);
  const json& expressions = List(selector, "matchExpressions");
  if (!expressions.empty()) {
    ordered list = ordered::array();
    for (const json& expression : expressions) {
      ordered requirement = ordered::object();
      requirement["key"] = Str(expression, "key");
      requirement["operator"] = Str(expression, "operator");
      const json& values = List(expression, "values");
      if (!values.empty()) requirement["values"] = ordered(values);
      list.push_back(std::move(requirement));
    }
    out["matchExpressions"] = std::move(list);
  }
  return out;
}

void SelectorIfPresent(ordered& to, const char* to_key, const json& metric) {
  if (const json* selector = Present(metric, "selector")) to[to_key] = SelectorGo(*selector);
}

// A v2 MetricSpec as v1's MetricSpec (type, object, pods, resource, containerResource,
// external).
ordered MetricSpecV1(const json& m) {
  ordered out = ordered::object();
  out["type"] = Str(m, "type");
  if (const json* source = Present(m, "object")) {
    const json& target = Sub(*source, "target");
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["target"] = ReferenceV1(Sub(*source, "describedObject"));
    v1["metricName"] = Str(metric, "name");
    v1["targetValue"] = QuantityOrZero(target, "value");
    SelectorIfPresent(v1, "selector", metric);
    CopyIfPresent(v1, "averageValue", target, "averageValue");
    out["object"] = std::move(v1);
  }
  if (const json* source = Present(m, "pods")) {
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["metricName"] = Str(metric, "name");
    v1["targetAverageValue"] = QuantityOrZero(Sub(*source, "target"), "averageValue");
    SelectorIfPresent(v1, "selector", metric);
    out["pods"] = std::move(v1);
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json* source = Present(m, kind);
    if (!source) continue;
    const json& target = Sub(*source, "target");
    ordered v1 = ordered::object();
    v1["name"] = Str(*source, "name");
    CopyIfPresent(v1, "targetAverageUtilization", target, "averageUtilization");
    CopyIfPresent(v1, "targetAverageValue", target, "averageValue");
    if (std::string_view(kind) == "containerResource") v1["container"] = Str(*source, "container");
    out[kind] = std::move(v1);
  }
  if (const json* source = Present(m, "external")) {
    const json& target = Sub(*source, "target");
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["metricName"] = Str(metric, "name");
    SelectorIfPresent(v1, "metricSelector", metric);
    CopyIfPresent(v1, "targetValue", target, "value");
    CopyIfPresent(v1, "targetAverageValue", target, "averageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

// A v2 MetricStatus as v1's MetricStatus.
ordered MetricStatusV1(const json& m) {
  ordered out = ordered::object();
  out["type"] = Str(m, "type");
  if (const json* source = Present(m, "object")) {
    const json& current = Sub(*source, "current");
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["target"] = ReferenceV1(Sub(*source, "describedObject"));
    v1["metricName"] = Str(metric, "name");
    v1["currentValue"] = QuantityOrZero(current, "value");
    SelectorIfPresent(v1, "selector", metric);
    CopyIfPresent(v1, "averageValue", current, "averageValue");
    out["object"] = std::move(v1);
  }
  if (const json* source = Present(m, "pods")) {
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["metricName"] = Str(metric, "name");
    v1["currentAverageValue"] = QuantityOrZero(Sub(*source, "current"), "averageValue");
    SelectorIfPresent(v1, "selector", metric);
    out["pods"] = std::move(v1);
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json* source = Present(m, kind);
    if (!source) continue;
    const json& current = Sub(*source, "current");
    ordered v1 = ordered::object();
    v1["name"] = Str(*source, "name");
    CopyIfPresent(v1, "currentAverageUtilization", current, "averageUtilization");
    v1["currentAverageValue"] = QuantityOrZero(current, "averageValue");
    if (std::string_view(kind) == "containerResource") v1["container"] = Str(*source, "container");
    out[kind] = std::move(v1);
  }
  if (const json* source = Present(m, "external")) {
    const json& current = Sub(*source, "current");
    const json& metric = Sub(*source, "metric");
    ordered v1 = ordered::object();
    v1["metricName"] = Str(metric, "name");
    SelectorIfPresent(v1, "metricSelector", metric);
    v1["currentValue"] = QuantityOrZero(current, "value");
    CopyIfPresent(v1, "currentAverageValue", current, "averageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

// v1's HorizontalPodAutoscalerCondition: a zero lastTransitionTime is written as null
// (metav1.Time is a struct, which omitempty keeps).
ordered ConditionV1(const json& condition) {
  ordered out = ordered::object();
  out["type"] = Str(condition, "type");
  out["status"] = Str(condition, "status");
  const json* time = Present(condition, "lastTransitionTime");
  out["lastTransitionTime"] = time ? ordered(*time) : ordered();
  if (!Str(condition, "reason").empty()) out["reason"] = Str(condition, "reason");
  if (!Str(condition, "message").empty()) out["message"] = Str(condition, "message");
  return out;
}

// One direction of the behavior as the internal HPAScalingRules: Go field names, unset
// pointers and slices as null.
ordered RulesGo(const json* rules) {
  if (!rules) return ordered();
  ordered out = ordered::object();
  const json* window = Present(*rules, "stabilizationWindowSeconds");
  out["StabilizationWindowSeconds"] = window ? ordered(*window) : ordered();
  const json* select = Present(*rules, "selectPolicy");
  out["SelectPolicy"] = select ? ordered(*select) : ordered();
  const json* policies = Present(*rules, "policies");
  if (policies && policies->is_array()) {
    ordered list = ordered::array();
    for (const json& policy : *policies) {
      ordered p = ordered::object();
      p["Type"] = Str(policy, "type");
      p["Value"] = Int(policy, "value");
      p["PeriodSeconds"] = Int(policy, "periodSeconds");
      list.push_back(std::move(p));
    }
    out["Policies"] = std::move(list);
  } else {
    out["Policies"] = ordered();
  }
  return out;
}

ordered BehaviorGo(const json& behavior) {
  ordered out = ordered::object();
  out["ScaleUp"] = RulesGo(Present(behavior, "scaleUp"));
  out["ScaleDown"] = RulesGo(Present(behavior, "scaleDown"));
  return out;
}

template <class F>
std::string EncodeList(const json& list, F encode) {
  ordered out = ordered::array();
  for (const json& element : list) out.push_back(encode(element));
  return GoMarshal(out);
}

}  // namespace

std::string EncodeMetricSpecs(const json& metrics) { return EncodeList(metrics, MetricSpecV1); }
std::string EncodeMetricStatuses(const json& metrics) {
  return EncodeList(metrics, MetricStatusV1);
}
std::string EncodeConditions(const json& conditions) { return EncodeList(conditions, ConditionV1); }
std::string EncodeBehavior(const json& behavior) { return GoMarshal(BehaviorGo(behavior)); }

}  // namespace master::resources::hpa_v1
