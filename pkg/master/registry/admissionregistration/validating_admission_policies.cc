// admissionregistration.k8s.io/v1 validating admission policies and their bindings:
// stored, defaulted (Fail, Equivalent, empty selectors, scope `*`) and validated as
// upstream; evaluating their CEL comes with admission.
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kGroupVersion[] = "admissionregistration.k8s.io/v1";

void DefaultMatchResources(json& match) {
  SetDefault(match, "matchPolicy", "Equivalent");
  SetDefault(match, "namespaceSelector", json::object());
  SetDefault(match, "objectSelector", json::object());
  for (const char* list : {"resourceRules", "excludeResourceRules"}) {
    auto rules = match.find(list);
    if (rules == match.end() || !rules->is_array()) continue;
    for (json& rule : *rules) {
      if (rule.is_object()) SetDefault(rule, "scope", "*");
    }
  }
}

registry::FieldErrors ValidatePolicy(const json& policy) {
  registry::FieldErrors errors;
  const json& spec = Sub(policy, "spec");
  if (List(spec, "validations").empty() && List(spec, "auditAnnotations").empty()) {
    errors.push_back(v::FieldRequired("spec.validations",
                                      "validations or auditAnnotations must contain at least "
                                      "one item"));
  }
  const json& validations = List(spec, "validations");
  for (size_t i = 0; i < validations.size(); ++i) {
    if (Str(validations[i], "expression").empty()) {
      errors.push_back(
          v::FieldRequired("spec.validations[" + std::to_string(i) + "].expression", ""));
    }
  }
  if (!spec.contains("matchConstraints") || spec["matchConstraints"].is_null()) {
    errors.push_back(v::FieldRequired("spec.matchConstraints", ""));
  } else if (List(Sub(spec, "matchConstraints"), "resourceRules").empty()) {
    errors.push_back(v::FieldRequired("spec.matchConstraints.resourceRules", ""));
  }
  const std::string failure = Str(spec, "failurePolicy");
  if (failure != "Fail" && failure != "Ignore") {
    errors.push_back(v::FieldNotSupported("spec.failurePolicy", failure, {"Fail", "Ignore"}));
  }
  return errors;
}

registry::FieldErrors ValidateBinding(const json& binding) {
  registry::FieldErrors errors;
  const json& spec = Sub(binding, "spec");
  if (Str(spec, "policyName").empty()) errors.push_back(v::FieldRequired("spec.policyName", ""));
  const json& actions = List(spec, "validationActions");
  if (actions.empty()) {
    errors.push_back(
        v::FieldRequired("spec.validationActions", "at least one validation action is required"));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < actions.size(); ++i) {
    const std::string action = actions[i].is_string() ? actions[i].get<std::string>() : "";
    const std::string at = "spec.validationActions[" + std::to_string(i) + "]";
    if (action != "Deny" && action != "Warn" && action != "Audit") {
      errors.push_back(v::FieldNotSupported(at, action, {"Audit", "Deny", "Warn"}));
    } else if (!seen.insert(action).second) {
      errors.push_back(v::FieldDuplicate(at, action));
    }
  }
  if (seen.contains("Deny") && seen.contains("Warn")) {
    errors.push_back(v::FieldInvalid("spec.validationActions", "",
                                     "must not contain both Deny and Warn (repeating the same "
                                     "validation failure information in the API response and "
                                     "headers serves no purpose)"));
    errors.back().value_form = v::ValueForm::kOmitted;
  }
  return errors;
}

}  // namespace

registry::ResourceSpecPtr ValidatingAdmissionPolicies() {
  KindHooks hooks;
  hooks.unconditional_update = false;
  hooks.status.stored_metadata = registry::kResetObjectMetaForStatus;
  hooks.defaults = [](json& policy) {
    json& spec = Child(policy, "spec");
    SetDefault(spec, "failurePolicy", "Fail");
    if (spec.contains("matchConstraints") && spec["matchConstraints"].is_object()) {
      DefaultMatchResources(spec["matchConstraints"]);
    }
  };
  hooks.validate = ValidatePolicy;
  hooks.generation = true;
  auto spec = Builtin(kGroupVersion, "validatingadmissionpolicies", std::move(hooks));
  spec->categories = {"api-extensions"};
  spec->columns = {
      registry::NameColumn(),
      {"Validations", "integer", "", "How many validations the policy has.", 0},
      {"ParamKind", "string", "", "The kind of the policy's parameters.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& policy, std::chrono::system_clock::time_point now) {
    const json& s = Sub(policy, "spec");
    const json& param = Sub(s, "paramKind");
    std::string param_kind = "<unset>";
    if (!param.empty()) param_kind = Str(param, "apiVersion") + "/" + Str(param, "kind");
    return std::vector<json>{registry::MetaString(policy, "name"),
                             static_cast<int64_t>(List(s, "validations").size()), param_kind,
                             registry::Age(policy, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr ValidatingAdmissionPolicyBindings() {
  KindHooks hooks;
  hooks.unconditional_update = false;
  hooks.defaults = [](json& binding) {
    json& spec = Child(binding, "spec");
    if (spec.contains("matchResources") && spec["matchResources"].is_object()) {
      DefaultMatchResources(spec["matchResources"]);
    }
  };
  hooks.validate = ValidateBinding;
  hooks.generation = true;
  auto spec = Builtin(kGroupVersion, "validatingadmissionpolicybindings", std::move(hooks));
  spec->categories = {"api-extensions"};
  spec->columns = {
      registry::NameColumn(),
      {"PolicyName", "string", "", "The policy the binding applies.", 0},
      {"ParamRef", "string", "", "The parameters the policy is given.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& binding, std::chrono::system_clock::time_point now) {
    const json& s = Sub(binding, "spec");
    const json& ref = Sub(s, "paramRef");
    std::string param = "<unset>";
    if (!ref.empty()) {
      param = Str(ref, "namespace").empty() ? Str(ref, "name")
                                            : Str(ref, "namespace") + "/" + Str(ref, "name");
      if (param.empty()) param = "*";
    }
    return std::vector<json>{registry::MetaString(binding, "name"), Str(s, "policyName"), param,
                             registry::Age(binding, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
