// rbac.authorization.k8s.io/v1: roles, cluster roles and their bindings, stored and
// validated as upstream (rules with verbs, resources and API groups; a binding's roleRef
// fixed at creation; subjects of a known kind). Enforced by the RBAC authorization mode
// (pkg/genericserver/authz/rbac); writes are checked for escalation (escalation.h).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/name_rule.h"
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

constexpr char kGroup[] = "rbac.authorization.k8s.io";

registry::FieldErrors ValidateRules(const json& role, bool namespaced) {
  registry::FieldErrors errors;
  const json& rules = List(role, "rules");
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string at = "rules[" + std::to_string(i) + "]";
    if (List(rule, "verbs").empty()) {
      errors.push_back(v::FieldRequired(at + ".verbs", "verbs must contain at least one value"));
    }
    if (!List(rule, "nonResourceURLs").empty()) {
      if (namespaced) {
        errors.push_back(v::FieldInvalid(at + ".nonResourceURLs", "",
                                         "namespaced rules cannot apply to non-resource URLs"));
        errors.back().value_form = v::ValueForm::kOmitted;
      }
      if (!List(rule, "apiGroups").empty() || !List(rule, "resources").empty() ||
          !List(rule, "resourceNames").empty()) {
        errors.push_back(
            v::FieldInvalid(at + ".nonResourceURLs", "",
                            "rules cannot apply to both regular resources and non-resource URLs"));
        errors.back().value_form = v::ValueForm::kOmitted;
      }
      continue;
    }
    if (List(rule, "apiGroups").empty()) {
      errors.push_back(
          v::FieldRequired(at + ".apiGroups", "resource rules must supply at least one api group"));
    }
    if (List(rule, "resources").empty()) {
      errors.push_back(
          v::FieldRequired(at + ".resources", "resource rules must supply at least one resource"));
    }
  }
  return errors;
}

// Users and groups get the RBAC apiGroup, as upstream defaults it (service accounts' is
// "", which is not written).
void DefaultSubjects(json& binding) {
  auto subjects = binding.find("subjects");
  if (subjects == binding.end() || !subjects->is_array()) return;
  for (json& s : *subjects) {
    if (!s.is_object() || !Str(s, "apiGroup").empty()) continue;
    const std::string kind = Str(s, "kind");
    if (kind == "User" || kind == "Group") s["apiGroup"] = kGroup;
  }
}

std::string GoRoleRef(const json& ref) {
  return "rbac.RoleRef{APIGroup:" + v::GoQuote(Str(ref, "apiGroup")) +
         ", Kind:" + v::GoQuote(Str(ref, "kind")) + ", Name:" + v::GoQuote(Str(ref, "name")) + "}";
}

registry::FieldErrors ValidateBinding(const json& binding, bool namespaced) {
  registry::FieldErrors errors;
  const json& ref = Sub(binding, "roleRef");
  if (Str(ref, "apiGroup") != kGroup) {
    errors.push_back(v::FieldNotSupported("roleRef.apiGroup", Str(ref, "apiGroup"), {kGroup}));
  }
  const std::string kind = Str(ref, "kind");
  const std::vector<std::string> kinds = namespaced
                                             ? std::vector<std::string>{"Role", "ClusterRole"}
                                             : std::vector<std::string>{"ClusterRole"};
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    errors.push_back(v::FieldNotSupported("roleRef.kind", kind, kinds));
  }
  const std::string role = Str(ref, "name");
  if (role.empty()) errors.push_back(v::FieldRequired("roleRef.name", ""));
  for (const std::string& msg : v::IsValidPathSegmentName(role)) {
    errors.push_back(v::FieldInvalid("roleRef.name", role, msg));
  }
  const json& subjects = List(binding, "subjects");
  for (size_t i = 0; i < subjects.size(); ++i) {
    const json& s = subjects[i];
    const std::string at = "subjects[" + std::to_string(i) + "]";
    if (Str(s, "name").empty()) errors.push_back(v::FieldRequired(at + ".name", ""));
    const std::string subject_kind = Str(s, "kind");
    if (subject_kind == "ServiceAccount") {
      if (!Str(s, "apiGroup").empty()) {
        errors.push_back(v::FieldNotSupported(at + ".apiGroup", Str(s, "apiGroup"), {""}));
      }
      if (!namespaced && Str(s, "namespace").empty()) {
        errors.push_back(v::FieldRequired(at + ".namespace", ""));
      }
    } else if (subject_kind == "User" || subject_kind == "Group") {
      if (Str(s, "apiGroup") != kGroup) {
        errors.push_back(v::FieldNotSupported(at + ".apiGroup", Str(s, "apiGroup"), {kGroup}));
      }
    } else {
      errors.push_back(
          v::FieldNotSupported(at + ".kind", subject_kind, {"ServiceAccount", "User", "Group"}));
    }
  }
  return errors;
}

registry::FieldErrors RoleRefUnchanged(const json& binding, const json& old) {
  if (binding.value("roleRef", json()) == old.value("roleRef", json())) return {};
  registry::FieldErrors errors{
      v::FieldInvalid("roleRef", GoRoleRef(Sub(binding, "roleRef")), "cannot change roleRef")};
  errors.back().value_form = v::ValueForm::kVerbatim;
  return errors;
}

std::vector<registry::TableColumn> BindingColumns() {
  return {
      registry::NameColumn(),
      {"Role", "string", "", "The role the binding grants.", 0},
      registry::AgeColumn(),
      {"Users", "string", "", "The users the binding names.", 1},
      {"Groups", "string", "", "The groups the binding names.", 1},
      {"ServiceAccounts", "string", "", "The service accounts the binding names.", 1},
  };
}

std::vector<json> BindingRow(const json& binding, std::chrono::system_clock::time_point now) {
  std::string users, groups, accounts;
  for (const json& s : List(binding, "subjects")) {
    const std::string kind = Str(s, "kind");
    std::string& list = kind == "User" ? users : kind == "Group" ? groups : accounts;
    std::string name = Str(s, "name");
    if (kind == "ServiceAccount") name = Str(s, "namespace") + ":" + name;
    list += (list.empty() ? "" : ", ") + name;
  }
  const json& ref = Sub(binding, "roleRef");
  return {registry::MetaString(binding, "name"),
          Str(ref, "kind") + "/" + Str(ref, "name"),
          registry::Age(binding, now),
          users,
          groups,
          accounts};
}

std::shared_ptr<registry::ResourceSpec> Role(const char* plural, bool namespaced) {
  KindHooks hooks;
  hooks.names = apimachinery::validation::NameRule::kPathSegmentName;
  hooks.validate = [namespaced](const json& role) { return ValidateRules(role, namespaced); };
  auto spec = Builtin("rbac.authorization.k8s.io/v1", plural, std::move(hooks));
  // Upstream prints roles with the default columns: NAME and CREATED AT.
  return spec;
}

std::shared_ptr<registry::ResourceSpec> Binding(const char* plural, bool namespaced) {
  KindHooks hooks;
  hooks.names = apimachinery::validation::NameRule::kPathSegmentName;
  hooks.defaults = DefaultSubjects;
  hooks.validate = [namespaced](const json& b) { return ValidateBinding(b, namespaced); };
  hooks.validate_update = RoleRefUnchanged;
  auto spec = Builtin("rbac.authorization.k8s.io/v1", plural, std::move(hooks));
  spec->columns = BindingColumns();
  spec->row = BindingRow;
  return spec;
}

}  // namespace

registry::ResourceSpecPtr Roles() { return Finish(Role("roles", true)); }
registry::ResourceSpecPtr ClusterRoles() { return Finish(Role("clusterroles", false)); }
registry::ResourceSpecPtr RoleBindings() { return Finish(Binding("rolebindings", true)); }
registry::ResourceSpecPtr ClusterRoleBindings() {
  return Finish(Binding("clusterrolebindings", false));
}

}  // namespace master::resources
