#include "pkg/master/registry/apps/workload.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/core/pod_validation.h"
#include "pkg/master/registry/fields.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const json& s : list) {
    if (s.is_string()) out.push_back(s);
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

bool Empty(const json& selector) {
  return Sub(selector, "matchLabels").empty() && List(selector, "matchExpressions").empty();
}

}  // namespace

std::string FormatLabelSelector(const json& selector) {
  if (!selector.is_object() || Empty(selector)) return "<none>";
  // One requirement per key and operator, sorted by key as the labels library sorts them.
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& [key, value] : Sub(selector, "matchLabels").items()) {
    parts.emplace_back(key, key + "=" + (value.is_string() ? value.get<std::string>() : ""));
  }
  for (const json& e : List(selector, "matchExpressions")) {
    const std::string key = Str(e, "key");
    const std::string op = Str(e, "operator");
    std::vector<std::string> values = Strings(e.value("values", json::array()));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (op == "In") {
      parts.emplace_back(key, key + " in (" + Join(values, ",") + ")");
    } else if (op == "NotIn") {
      parts.emplace_back(key, key + " notin (" + Join(values, ",") + ")");
    } else if (op == "Exists") {
      parts.emplace_back(key, key);
    } else if (op == "DoesNotExist") {
      parts.emplace_back(key, "!" + key);
    }
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> text;
  for (auto& [key, part] : parts) text.push_back(part);
  return Join(text, ",");
}

bool SelectorMatches(const json& selector, const json& labels) {
  auto label = [&labels](const std::string& key) -> std::optional<std::string> {
    if (!labels.is_object()) return std::nullopt;
    auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  for (const auto& [key, value] : Sub(selector, "matchLabels").items()) {
    if (label(key) !=
        (value.is_string() ? std::optional(value.get<std::string>()) : std::nullopt)) {
      return false;
    }
  }
  for (const json& e : List(selector, "matchExpressions")) {
    const auto have = label(Str(e, "key"));
    const std::string op = Str(e, "operator");
    const std::vector<std::string> values = Strings(e.value("values", json::array()));
    const bool listed = have && std::find(values.begin(), values.end(), *have) != values.end();
    if ((op == "In" && !listed) || (op == "NotIn" && listed) || (op == "Exists" && !have) ||
        (op == "DoesNotExist" && have)) {
      return false;
    }
  }
  return true;
}

std::string GoStringMap(const json& map) {
  if (!map.is_object()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [key, value] : map.items()) {
    if (!first) out += ", ";
    first = false;
    out += v::GoQuote(key) + ":" + v::GoQuote(value.is_string() ? value.get<std::string>() : "");
  }
  return out + "}";
}

std::string GoLabelSelector(const json& selector) {
  std::string out = "v1.LabelSelector{MatchLabels:";
  out += selector.is_object() && selector.contains("matchLabels")
             ? GoStringMap(selector["matchLabels"])
             : "map[string]string(nil)";
  out += ", MatchExpressions:";
  const json& exprs = List(selector, "matchExpressions");
  if (!selector.is_object() || !selector.contains("matchExpressions")) {
    out += "[]v1.LabelSelectorRequirement(nil)";
  } else {
    out += "[]v1.LabelSelectorRequirement{";
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i > 0) out += ", ";
      const json& e = exprs[i];
      out += "v1.LabelSelectorRequirement{Key:" + v::GoQuote(Str(e, "key")) +
             ", Operator:" + v::GoQuote(Str(e, "operator")) + ", Values:";
      out += e.contains("values") ? v::GoStringSlice(Strings(e["values"])) : "[]string(nil)";
      out += "}";
    }
    out += "}";
  }
  return out + "}";
}

void ValidateSelector(const json& object, const std::string& kind, registry::FieldErrors& errors) {
  const json& spec = Sub(object, "spec");
  if (!spec.contains("selector") || spec["selector"].is_null()) {
    errors.push_back(v::FieldRequired("spec.selector", ""));
    return;
  }
  const json& selector = spec["selector"];
  if (Empty(selector)) {
    errors.push_back(v::FieldInvalid("spec.selector", GoLabelSelector(selector),
                                     "empty selector is invalid for " + kind));
    errors.back().value_form = v::ValueForm::kVerbatim;
    return;
  }
  const json& labels = Sub(Sub(Sub(spec, "template"), "metadata"), "labels");
  if (!SelectorMatches(selector, labels)) {
    errors.push_back(v::FieldInvalid("spec.template.metadata.labels", GoStringMap(labels),
                                     "`selector` does not match template `labels`"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
}

void ValidateAlwaysRestartingTemplate(const json& object, registry::FieldErrors& errors,
                                      const std::vector<std::string>& claims) {
  const json& pod = Sub(Sub(Sub(object, "spec"), "template"), "spec");
  ValidatePodSpec(pod, "spec.template.spec", errors, claims);
  ValidateRestartPolicy(pod, "spec.template.spec", {"Always"}, errors);
}

registry::FieldErrors SelectorUnchanged(const json& object, const json& old) {
  const json now = Sub(object, "spec").value("selector", json());
  if (now == Sub(old, "spec").value("selector", json())) return {};
  registry::FieldErrors errors{
      v::FieldInvalid("spec.selector", GoLabelSelector(now), "field is immutable")};
  errors.back().value_form = v::ValueForm::kVerbatim;
  return errors;
}

void ValidateNonNegative(const json& object, const std::vector<const char*>& fields,
                         registry::FieldErrors& errors) {
  const json& spec = Sub(object, "spec");
  for (const char* field : fields) {
    auto it = spec.find(field);
    if (it != spec.end() && it->is_number_integer() && it->get<int64_t>() < 0) {
      errors.push_back(v::FieldInvalid(std::string("spec.") + field, it->dump(),
                                       "must be greater than or equal to 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
  }
}

std::vector<registry::TableColumn> TemplateColumns() {
  return {
      {"Containers", "string", "", "The names of the pod template's containers.", 1},
      {"Images", "string", "", "The images of the pod template's containers.", 1},
      {"Selector", "string", "", "The label selector of the pods.", 1},
  };
}

void AppendTemplateCells(const json& pod_template, const json& selector, std::vector<json>& row) {
  std::vector<std::string> names;
  std::vector<std::string> images;
  for (const json& c : List(Sub(pod_template, "spec"), "containers")) {
    names.push_back(Str(c, "name"));
    images.push_back(Str(c, "image"));
  }
  row.push_back(Join(names, ","));
  row.push_back(Join(images, ","));
  row.push_back(FormatLabelSelector(selector));
}

void SetReplicaTable(registry::ResourceSpec& spec, std::function<json(const json&)> selector) {
  spec.columns = {
      registry::NameColumn(),
      {"Desired", "integer", "", "The number of pods wanted.", 0},
      {"Current", "integer", "", "The number of pods that exist.", 0},
      {"Ready", "integer", "", "The number of pods that are ready.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec.columns.push_back(std::move(c));
  spec.row = [selector](const json& object, std::chrono::system_clock::time_point now) {
    const json& s = Sub(object, "spec");
    const json& status = Sub(object, "status");
    std::vector<json> row{registry::MetaString(object, "name"), Int(s, "replicas"),
                          Int(status, "replicas"), Int(status, "readyReplicas"),
                          registry::Age(object, now)};
    AppendTemplateCells(Sub(s, "template"), selector(object), row);
    return row;
  };
}

}  // namespace master::resources
