// The annotations' text read back into v2 values, as Go's encoding/json decodes it.
#include "pkg/master/registry/autoscaling/hpa_v1_annotations.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/master/registry/fields.h"

namespace master::resources::hpa_v1 {
namespace {

using nlohmann::json;
namespace gv = apimachinery::schema;

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

}  // namespace

std::optional<json> DecodeMetricSpecs(const std::string& text) {
  return DecodeList(text, MetricSpecToV2);
}
std::optional<json> DecodeMetricStatuses(const std::string& text) {
  return DecodeList(text, MetricStatusToV2);
}
std::optional<json> DecodeConditions(const std::string& text) {
  return DecodeList(text, ConditionToV2);
}
std::optional<json> DecodeBehavior(const std::string& text) { return BehaviorToV2(text); }

}  // namespace master::resources::hpa_v1
