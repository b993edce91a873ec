#include "pkg/genericserver/admission/webhook/matching.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/labels/label_selector.h"
#include "pkg/genericserver/registry/object_meta.h"

namespace admission::webhook {

using nlohmann::json;

std::string_view OperationName(Operation operation) {
  switch (operation) {
    case Operation::kCreate:
      return "CREATE";
    case Operation::kUpdate:
      return "UPDATE";
    case Operation::kDelete:
      return "DELETE";
  }
  return "";
}

namespace {

// Whether the list holds `value` or "*".
bool Lists(const json& rule, const char* field, std::string_view value) {
  auto it = rule.find(field);
  if (it == rule.end() || !it->is_array()) return false;
  for (const json& v : *it) {
    if (v.is_string() && (v == "*" || v.get_ref<const std::string&>() == value)) return true;
  }
  return false;
}

bool ResourceMatches(const json& rule, std::string_view resource, std::string_view subresource) {
  auto it = rule.find("resources");
  if (it == rule.end() || !it->is_array()) return false;
  for (const json& v : *it) {
    if (!v.is_string()) continue;
    const std::string_view r = v.get_ref<const std::string&>();
    const size_t slash = r.find('/');
    const std::string_view res = r.substr(0, slash);
    const std::string_view sub = slash == std::string_view::npos ? "" : r.substr(slash + 1);
    if ((res == "*" || res == resource) && (sub == "*" || sub == subresource)) return true;
  }
  return false;
}

bool ScopeMatches(const json& rule, bool cluster_scoped) {
  auto it = rule.find("scope");
  if (it == rule.end() || !it->is_string() || *it == "*") return true;
  if (*it == "Cluster") return cluster_scoped;
  if (*it == "Namespaced") return !cluster_scoped;
  return false;
}

bool IsNamespace(const registry::ResourceSpec& spec) {
  return spec.group.empty() && spec.plural == "namespaces";
}

// The labels the namespaceSelector is matched against: a Namespace's own when it is being
// created or updated, else the request namespace's (NotFound as it is).
Awaitable<registry::Result<std::map<std::string, std::string>>> NamespaceLabels(
    const Stores& stores, const Attributes& a, const json& object) {
  if (IsNamespace(a.spec) && a.options.subresource.empty() && a.operation != Operation::kDelete) {
    co_return apimachinery::labels::LabelsOf(object);
  }
  const std::string name = IsNamespace(a.spec) ? a.name : a.ns;
  auto store = stores.Get("namespaces");
  if (!store) co_return std::map<std::string, std::string>{};
  auto found = co_await Lookup(store, "", name);
  if (!found) {
    if (found.error().code == 404) co_return std::unexpected(found.error());
    co_return std::unexpected(apimachinery::NewInternalError(found.error().message));
  }
  co_return apimachinery::labels::LabelsOf(*found);
}

}  // namespace

RuleRequest RuleRequestOf(const Attributes& a) {
  return {a.operation,   a.spec.group,          a.spec.version,
          a.spec.plural, a.options.subresource, !a.spec.namespaced || IsNamespace(a.spec)};
}

Awaitable<std::expected<bool, apimachinery::Status>> SelectorsMatch(
    const Stores& stores, const apimachinery::labels::Selector& namespace_selector,
    const apimachinery::labels::Selector& object_selector, const Attributes& a,
    const json& object) {
  const bool cluster_request = a.ns.empty() && !IsNamespace(a.spec);
  if (!cluster_request && !namespace_selector.Empty()) {
    auto labels = co_await NamespaceLabels(stores, a, object);
    if (!labels) co_return std::unexpected(labels.error());
    if (!namespace_selector.Matches(*labels)) co_return false;
  }
  co_return ObjectSelectorMatches(object_selector, object, a.old);
}

bool RuleMatches(const json& rule, const RuleRequest& request, bool any_version) {
  return rule.is_object() && Lists(rule, "operations", OperationName(request.operation)) &&
         Lists(rule, "apiGroups", request.group) &&
         (any_version || Lists(rule, "apiVersions", request.version)) &&
         ResourceMatches(rule, request.resource, request.subresource) &&
         ScopeMatches(rule, request.cluster_scoped);
}

bool RulesMatch(const json& rules, const RuleRequest& request, bool any_version) {
  if (!rules.is_array()) return false;
  for (const json& rule : rules) {
    if (RuleMatches(rule, request, any_version)) return true;
  }
  return false;
}

bool ExemptResource(std::string_view group, std::string_view resource) {
  return group == "admissionregistration.k8s.io" &&
         (resource == "validatingwebhookconfigurations" ||
          resource == "mutatingwebhookconfigurations" ||
          resource == "validatingadmissionpolicies" ||
          resource == "validatingadmissionpolicybindings");
}

std::expected<apimachinery::labels::Selector, std::string> ParseSelector(
    const json* label_selector) {
  if (label_selector == nullptr || label_selector->is_null())
    return apimachinery::labels::Selector();
  auto parsed = apimachinery::labels::FromLabelSelector(*label_selector);
  if (!parsed) return std::unexpected(parsed.error());
  return parsed->value_or(apimachinery::labels::Selector());
}

bool ObjectSelectorMatches(const apimachinery::labels::Selector& selector, const json& object,
                           const json* old) {
  if (selector.Empty()) return true;
  const auto matches = [&](const json& o) {
    return o.is_object() && o.contains("metadata") &&
           selector.Matches(apimachinery::labels::LabelsOf(o));
  };
  return matches(object) || (old != nullptr && matches(*old));
}

}  // namespace admission::webhook
