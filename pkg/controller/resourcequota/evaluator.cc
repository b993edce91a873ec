#include "pkg/controller/resourcequota/evaluator.h"

#include <nlohmann/json.hpp>

namespace controller::resourcequota {

using nlohmann::json;

namespace {
constexpr std::string_view kCountPrefix = "count/";
}  // namespace

std::string ObjectCountResourceName(const GroupResource& gr) {
  return std::string(kCountPrefix) + gr.String();
}

std::optional<GroupResource> ParseObjectCountResourceName(std::string_view name) {
  if (!name.starts_with(kCountPrefix)) return std::nullopt;
  name.remove_prefix(kCountPrefix.size());
  if (name.empty()) return std::nullopt;
  // Resource names have no dots; group names do.
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return GroupResource{"", std::string(name)};
  if (dot == 0 || dot + 1 == name.size()) return std::nullopt;
  return GroupResource{std::string(name.substr(dot + 1)), std::string(name.substr(0, dot))};
}

std::vector<ScopeRequirement> ScopeRequirements(const json& spec) {
  std::vector<ScopeRequirement> out;
  if (!spec.is_object()) return out;
  if (auto scopes = spec.find("scopes"); scopes != spec.end() && scopes->is_array()) {
    for (const json& s : *scopes) {
      if (s.is_string()) out.push_back({s.get<std::string>(), "Exists", {}});
    }
  }
  auto selector = spec.find("scopeSelector");
  if (selector == spec.end() || !selector->is_object()) return out;
  auto expressions = selector->find("matchExpressions");
  if (expressions == selector->end() || !expressions->is_array()) return out;
  for (const json& e : *expressions) {
    if (!e.is_object()) continue;
    ScopeRequirement r{e.value("scopeName", ""), e.value("operator", ""), {}};
    if (auto values = e.find("values"); values != e.end() && values->is_array()) {
      for (const json& v : *values) {
        if (v.is_string()) r.values.push_back(v.get<std::string>());
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

ScopeMatch MatchesAsLabel(const ScopeRequirement& r, const std::optional<std::string>& value) {
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) {
      return std::unexpected("scope selector " + r.scope_name + " " + r.op + " has no values");
    }
    bool in = false;
    for (const std::string& v : r.values) in = in || (value && *value == v);
    return r.op == "In" ? in : !in;
  }
  if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) {
      return std::unexpected("scope selector " + r.scope_name + " " + r.op + " has values");
    }
    return r.op == "Exists" ? value.has_value() : !value.has_value();
  }
  return std::unexpected("\"" + r.op + "\" is not a valid scope selector operator");
}

ScopeMatch Evaluator::MatchesScope(const ScopeRequirement&, const json&) const { return false; }

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

}  // namespace controller::resourcequota
