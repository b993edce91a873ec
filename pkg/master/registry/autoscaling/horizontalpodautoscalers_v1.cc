// autoscaling/v1 horizontal pod autoscalers: the v2 objects seen through v1's single CPU
// target. Stored as autoscaling/v2; targetCPUUtilizationPercentage is the CPU utilization
// metric, and a v1 object without one gets v2's default (80%).
//
// What v1 cannot say travels, as upstream has it (pkg/apis/autoscaling/v1/conversion.go),
// in annotations of the v1 object: the other metrics, every current metric, spec.behavior
// and the status conditions, each as upstream's Go encoding writes its types (v1's
// MetricSpec, MetricStatus and condition; behavior as the internal Go type, field names
// without json tags). A v1 write reads them back into the v2 fields and drops them from
// metadata; one that does not decode is ignored, as upstream ignores it.
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
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
// Written in the order of the Go struct's fields, as encoding/json writes them.
using ordered = nlohmann::ordered_json;
namespace v = apimachinery::validation;
namespace gv = apimachinery::schema;

constexpr int64_t kDefaultCPU = 80;

// Upstream's round-trip annotations (pkg/apis/autoscaling/annotations.go).
constexpr const char* kMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
constexpr const char* kCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr const char* kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
constexpr const char* kBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
constexpr std::array<const char*, 4> kRoundTripAnnotations = {
    kMetricsAnnotation, kCurrentMetricsAnnotation, kConditionsAnnotation, kBehaviorAnnotation};
// The two that hold status.
constexpr std::array<const char*, 2> kStatusAnnotations = {kCurrentMetricsAnnotation,
                                                           kConditionsAnnotation};

// object[key] unless absent or null (a Go pointer that is set).
const json* Present(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() && !it->is_null() ? &*it : nullptr;
}

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

// ---- v2 to the annotations: Go's encoding of upstream's types -----------------------------

// What json.Marshal writes: compact, with <, > and & (and U+2028, U+2029) escaped as
// encoding/json's HTML-safe default escapes them.
std::string GoMarshal(const ordered& value) {
  const std::string text = value.dump(-1, ' ', false, ordered::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
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

// ---- The annotations back to v2: Go's decoding ---------------------------------------------

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Reads JSON as encoding/json fills a Go struct: a key names its field exactly or else
// ignoring case, null leaves a field unset, and a value of the wrong type fails the whole
// decoding (ok() turns false), as json.Unmarshal then returns an error.
class GoDecoder {
 public:
  bool ok() const { return ok_; }

  // The value for field `name`, nullptr when absent or null.
  const json* Field(const json& object, std::string_view name) const {
    if (!object.is_object()) return nullptr;
    auto it = object.find(std::string(name));
    if (it == object.end()) {
      for (it = object.begin(); it != object.end(); ++it) {
        if (EqualFold(it.key(), name)) break;
      }
    }
    return it != object.end() && !it->is_null() ? &*it : nullptr;
  }
  std::optional<std::string> OptionalString(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return std::nullopt;
    if (!value->is_string()) return Fail<std::string>();
    return value->get<std::string>();
  }
  std::string String(const json& object, std::string_view name) {
    return OptionalString(object, name).value_or("");
  }
  // An int32 (a JSON integer in range; 1.0 is not one).
  std::optional<int64_t> Int32(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return std::nullopt;
    constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (value->is_number_unsigned()) {
      if (value->get<uint64_t>() <= static_cast<uint64_t>(kMax)) return value->get<int64_t>();
    } else if (value->is_number_integer()) {
      const int64_t n = value->get<int64_t>();
      if (n >= kMin && n <= kMax) return n;
    }
    return Fail<int64_t>();
  }
  // A resource.Quantity (a string or a bare number), in its canonical form.
  std::optional<std::string> Quantity(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return std::nullopt;
    if (!value->is_string() && !value->is_number()) return Fail<std::string>();
    const std::string raw = value->is_string() ? value->get<std::string>() : value->dump();
    if (value->is_string() && gv::QuantityParseError(raw)) return Fail<std::string>();
    return gv::QuantityCanonical(raw).value_or(raw);
  }
  // A metav1.Time (RFC 3339), as it is re-encoded.
  std::optional<std::string> Time(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return std::nullopt;
    if (!value->is_string()) return Fail<std::string>();
    const std::string text = value->get<std::string>();
    if (gv::GoTimeParseError(gv::kRFC3339, text)) return Fail<std::string>();
    return gv::GoTimeCanonical(gv::kRFC3339, text).value_or(text);
  }
  // A struct (or a pointer to one): nullptr when unset.
  const json* Object(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return nullptr;
    if (!value->is_object()) {
      ok_ = false;
      return nullptr;
    }
    return value;
  }
  // A slice: nullptr when unset.
  const json* Array(const json& object, std::string_view name) {
    const json* value = Field(object, name);
    if (!value) return nullptr;
    if (!value->is_array()) {
      ok_ = false;
      return nullptr;
    }
    return value;
  }
  // An element of a slice of structs: null is the zero struct.
  const json& Element(const json& element) {
    static const json empty = json::object();
    if (element.is_null()) return empty;
    if (!element.is_object()) ok_ = false;
    return element.is_object() ? element : empty;
  }
  // A slice of strings, null elements "".
  json Strings(const json& object, std::string_view name) {
    json out = json::array();
    const json* list = Array(object, name);
    if (!list) return out;
    for (const json& item : *list) {
      if (item.is_null()) {
        out.push_back("");
      } else if (item.is_string()) {
        out.push_back(item);
      } else {
        ok_ = false;
      }
    }
    return out;
  }
  // A *metav1.LabelSelector, in v2's stored form.
  std::optional<json> Selector(const json& object, std::string_view name) {
    const json* selector = Object(object, name);
    if (!selector) return std::nullopt;
    json out = json::object();
    if (const json* labels = Object(*selector, "matchLabels")) {
      json m = json::object();
      for (auto it = labels->begin(); it != labels->end(); ++it) {
        if (it->is_null()) {
          m[it.key()] = "";
        } else if (it->is_string()) {
          m[it.key()] = *it;
        } else {
          ok_ = false;
        }
      }
      if (!m.empty()) out["matchLabels"] = std::move(m);
    }
    if (const json* expressions = Array(*selector, "matchExpressions")) {
      json list = json::array();
      for (const json& item : *expressions) {
        const json& expression = Element(item);
        json requirement = {{"key", String(expression, "key")},
                            {"operator", String(expression, "operator")}};
        json values = Strings(expression, "values");
        if (!values.empty()) requirement["values"] = std::move(values);
        list.push_back(std::move(requirement));
      }
      if (!list.empty()) out["matchExpressions"] = std::move(list);
    }
    return out;
  }
  // v1's CrossVersionObjectReference (a struct) in v2's form.
  json Reference(const json& object, std::string_view name) {
    static const json empty = json::object();
    const json* reference = Object(object, name);
    const json& r = reference ? *reference : empty;
    json out = {{"kind", String(r, "kind")}, {"name", String(r, "name")}};
    const std::string api_version = String(r, "apiVersion");
    if (!api_version.empty()) out["apiVersion"] = api_version;
    return out;
  }
  // v2's MetricIdentifier from v1's name and selector fields.
  json Identifier(const json& source, std::string_view name_key, std::string_view selector_key) {
    json out = {{"name", String(source, name_key)}};
    if (auto selector = Selector(source, selector_key)) out["selector"] = std::move(*selector);
    return out;
  }

 private:
  template <typename T>
  std::optional<T> Fail() {
    ok_ = false;
    return std::nullopt;
  }

  bool ok_ = true;
};

// v1's MetricSpec as v2's.
json MetricSpecToV2(GoDecoder& d, const json& m) {
  json out = {{"type", d.String(m, "type")}};
  if (const json* source = d.Object(m, "object")) {
    const std::optional<std::string> average = d.Quantity(*source, "averageValue");
    json target = {{"type", average ? "AverageValue" : "Value"},
                   {"value", d.Quantity(*source, "targetValue").value_or("0")}};
    if (average) target["averageValue"] = *average;
    out["object"] = {{"describedObject", d.Reference(*source, "target")},
                     {"target", std::move(target)},
                     {"metric", d.Identifier(*source, "metricName", "selector")}};
  }
  if (const json* source = d.Object(m, "pods")) {
    json target = {{"type", "AverageValue"},
                   {"averageValue", d.Quantity(*source, "targetAverageValue").value_or("0")}};
    out["pods"] = {{"metric", d.Identifier(*source, "metricName", "selector")},
                   {"target", std::move(target)}};
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json* source = d.Object(m, kind);
    if (!source) continue;
    const std::optional<int64_t> utilization = d.Int32(*source, "targetAverageUtilization");
    const std::optional<std::string> average = d.Quantity(*source, "targetAverageValue");
    json target = {{"type", utilization ? "Utilization" : "AverageValue"}};
    if (average) target["averageValue"] = *average;
    if (utilization) target["averageUtilization"] = *utilization;
    json v2 = {{"name", d.String(*source, "name")}, {"target", std::move(target)}};
    if (std::string_view(kind) == "containerResource") {
      v2["container"] = d.String(*source, "container");
    }
    out[kind] = std::move(v2);
  }
  if (const json* source = d.Object(m, "external")) {
    const std::optional<std::string> value = d.Quantity(*source, "targetValue");
    const std::optional<std::string> average = d.Quantity(*source, "targetAverageValue");
    json target = {{"type", value ? "Value" : "AverageValue"}};
    if (value) target["value"] = *value;
    if (average) target["averageValue"] = *average;
    out["external"] = {{"metric", d.Identifier(*source, "metricName", "metricSelector")},
                       {"target", std::move(target)}};
  }
  return out;
}

// v1's MetricStatus as v2's.
json MetricStatusToV2(GoDecoder& d, const json& m) {
  json out = {{"type", d.String(m, "type")}};
  if (const json* source = d.Object(m, "object")) {
    json current = {{"value", d.Quantity(*source, "currentValue").value_or("0")}};
    if (auto average = d.Quantity(*source, "averageValue")) current["averageValue"] = *average;
    out["object"] = {{"metric", d.Identifier(*source, "metricName", "selector")},
                     {"current", std::move(current)},
                     {"describedObject", d.Reference(*source, "target")}};
  }
  if (const json* source = d.Object(m, "pods")) {
    json current = {{"averageValue", d.Quantity(*source, "currentAverageValue").value_or("0")}};
    out["pods"] = {{"metric", d.Identifier(*source, "metricName", "selector")},
                   {"current", std::move(current)}};
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json* source = d.Object(m, kind);
    if (!source) continue;
    json current = {{"averageValue", d.Quantity(*source, "currentAverageValue").value_or("0")}};
    if (auto utilization = d.Int32(*source, "currentAverageUtilization")) {
      current["averageUtilization"] = *utilization;
    }
    json v2 = {{"name", d.String(*source, "name")}, {"current", std::move(current)}};
    if (std::string_view(kind) == "containerResource") {
      v2["container"] = d.String(*source, "container");
    }
    out[kind] = std::move(v2);
  }
  if (const json* source = d.Object(m, "external")) {
    json current = {{"value", d.Quantity(*source, "currentValue").value_or("0")}};
    if (auto average = d.Quantity(*source, "currentAverageValue")) {
      current["averageValue"] = *average;
    }
    out["external"] = {{"metric", d.Identifier(*source, "metricName", "metricSelector")},
                       {"current", std::move(current)}};
  }
  return out;
}

// v1's condition as v2's (a zero time left out, as stored v2 objects have it).
json ConditionToV2(GoDecoder& d, const json& c) {
  json out = {{"type", d.String(c, "type")}, {"status", d.String(c, "status")}};
  if (auto time = d.Time(c, "lastTransitionTime")) out["lastTransitionTime"] = *time;
  const std::string reason = d.String(c, "reason");
  if (!reason.empty()) out["reason"] = reason;
  const std::string message = d.String(c, "message");
  if (!message.empty()) out["message"] = message;
  return out;
}

// The JSON of a Go slice of structs decoded element by element; std::nullopt when
// json.Unmarshal would fail. null is an empty slice.
std::optional<json> DecodeList(const std::string& text, json (*decode)(GoDecoder&, const json&)) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  json out = json::array();
  if (parsed.is_null()) return out;
  if (!parsed.is_array()) return std::nullopt;
  GoDecoder d;
  for (const json& item : parsed) {
    const json& element = d.Element(item);
    out.push_back(decode(d, element));
  }
  if (!d.ok()) return std::nullopt;
  return out;
}

json RulesToV2(GoDecoder& d, const json& rules) {
  json out = json::object();
  if (auto window = d.Int32(rules, "StabilizationWindowSeconds")) {
    out["stabilizationWindowSeconds"] = *window;
  }
  if (auto select = d.OptionalString(rules, "SelectPolicy")) out["selectPolicy"] = *select;
  if (const json* policies = d.Array(rules, "Policies")) {
    json list = json::array();
    for (const json& item : *policies) {
      const json& policy = d.Element(item);
      list.push_back({{"type", d.String(policy, "Type")},
                      {"value", d.Int32(policy, "Value").value_or(0)},
                      {"periodSeconds", d.Int32(policy, "PeriodSeconds").value_or(0)}});
    }
    if (!list.empty()) out["policies"] = std::move(list);
  }
  return out;
}

// The behavior annotation as v2's spec.behavior; std::nullopt when it does not decode or
// decodes to no rules at all (upstream then leaves the behavior unset).
std::optional<json> BehaviorToV2(const std::string& text) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  GoDecoder d;
  json out = json::object();
  if (const json* up = d.Object(parsed, "ScaleUp")) out["scaleUp"] = RulesToV2(d, *up);
  if (const json* down = d.Object(parsed, "ScaleDown")) out["scaleDown"] = RulesToV2(d, *down);
  if (!d.ok() || out.empty()) return std::nullopt;
  return out;
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
  bool NameIsDNSLabel() const override { return inner_->NameIsDNSLabel(); }
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
    if (auto decoded = DecodeList(*text, MetricSpecToV2)) metrics = std::move(*decoded);
  }
  if (Present(spec, "targetCPUUtilizationPercentage")) {
    metrics.push_back(CPUMetric(Int(spec, "targetCPUUtilizationPercentage", kDefaultCPU)));
  }
  if (metrics.empty()) metrics.push_back(CPUMetric(kDefaultCPU));
  v2spec["metrics"] = std::move(metrics);
  if (auto text = Annotation(hpa, kBehaviorAnnotation)) {
    if (auto behavior = BehaviorToV2(*text)) v2spec["behavior"] = std::move(*behavior);
  }
  out["spec"] = std::move(v2spec);

  std::optional<json> current_metrics;
  if (auto text = Annotation(hpa, kCurrentMetricsAnnotation)) {
    current_metrics = DecodeList(*text, MetricStatusToV2);
  }
  std::optional<json> conditions;
  if (auto text = Annotation(hpa, kConditionsAnnotation)) {
    conditions = DecodeList(*text, ConditionToV2);
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
  ordered other_metrics = ordered::array();
  for (const json& metric : List(spec, "metrics")) {
    const json* utilization = CPUUtilization(metric);
    if (!utilization) {
      other_metrics.push_back(MetricSpecV1(metric));
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

  if (!other_metrics.empty()) SetAnnotation(out, kMetricsAnnotation, GoMarshal(other_metrics));
  // Every current metric, the CPU one too (its raw value has no place in v1 either).
  const json& current_metrics = List(status, "currentMetrics");
  if (!current_metrics.empty()) {
    ordered list = ordered::array();
    for (const json& metric : current_metrics) list.push_back(MetricStatusV1(metric));
    SetAnnotation(out, kCurrentMetricsAnnotation, GoMarshal(list));
  }
  if (const json* behavior = Present(spec, "behavior")) {
    SetAnnotation(out, kBehaviorAnnotation, GoMarshal(BehaviorGo(*behavior)));
  }
  const json& conditions = List(status, "conditions");
  if (!conditions.empty()) {
    ordered list = ordered::array();
    for (const json& condition : conditions) list.push_back(ConditionV1(condition));
    SetAnnotation(out, kConditionsAnnotation, GoMarshal(list));
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
