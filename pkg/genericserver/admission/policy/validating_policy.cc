#include "pkg/genericserver/admission/policy/validating_policy.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/schema_types.h"
#include "pkg/genericserver/admission/webhook/expressions.h"
#include "pkg/genericserver/admission/webhook/matching.h"
#include "pkg/genericserver/admission/webhook/review.h"
#include "pkg/genericserver/apimachinery/labels/label_selector.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/strings.h"

namespace admission::policy {

namespace {

namespace cel = apiextensions::cel;
using apimachinery::Status;
using apimachinery::labels::Selector;
using nlohmann::json;
using webhook::Expression;
using webhook::MatchCondition;

constexpr char kPolicies[] = "validatingadmissionpolicies.admissionregistration.k8s.io";
constexpr char kBindings[] = "validatingadmissionpolicybindings.admissionregistration.k8s.io";
// What a messageExpression may give (celconfig.MaxEvaluatedMessageExpressionSizeBytes).
constexpr size_t kMaxMessageBytes = 5 * 1024;

const std::vector<std::string> kVariables = {"object", "oldObject",       "request",
                                             "params", "namespaceObject", "variables"};

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const json* Find(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// matchConstraints of a policy or matchResources of a binding.
struct MatchResources {
  Selector namespace_selector;
  Selector object_selector;
  std::string selector_error;
  json rules = json::array();
  json exclude = json::array();
  bool exact = false;
};

MatchResources ParseMatch(const json& m) {
  MatchResources out;
  for (auto [field, selector] : {std::pair{"namespaceSelector", &out.namespace_selector},
                                 std::pair{"objectSelector", &out.object_selector}}) {
    auto parsed = webhook::ParseSelector(Find(m, field));
    if (parsed) {
      *selector = std::move(*parsed);
    } else if (out.selector_error.empty()) {
      out.selector_error = parsed.error();
    }
  }
  if (const json* r = Find(m, "resourceRules")) out.rules = *r;
  if (const json* r = Find(m, "excludeResourceRules")) out.exclude = *r;
  out.exact = Str(m, "matchPolicy") == "Exact";
  return out;
}

struct Validation {
  Expression expression;
  std::string message;
  std::string reason;
  std::optional<Expression> message_expression;
};

struct Variable {
  std::string name;
  Expression expression;
};

struct AuditAnnotation {
  std::string key;
  Expression value;
};

// A policy, compiled. Immutable.
struct Policy {
  std::string name;
  bool fail_open = false;  // failurePolicy: Ignore
  std::string param_api_version, param_kind;
  std::optional<MatchResources> constraints;
  std::vector<Variable> variables;
  std::vector<Validation> validations;
  std::vector<MatchCondition> conditions;
  std::vector<AuditAnnotation> audit_annotations;
};
using PolicyPtr = std::shared_ptr<const Policy>;

PolicyPtr Compile(const json& object) {
  auto p = std::make_shared<Policy>();
  p->name = registry::MetaString(object, "name");
  const json* spec = Find(object, "spec");
  if (spec == nullptr) return p;
  p->fail_open = Str(*spec, "failurePolicy") == "Ignore";
  if (const json* kind = Find(*spec, "paramKind")) {
    p->param_api_version = Str(*kind, "apiVersion");
    p->param_kind = Str(*kind, "kind");
  }
  if (const json* m = Find(*spec, "matchConstraints")) p->constraints = ParseMatch(*m);
  if (const json* vars = Find(*spec, "variables"); vars && vars->is_array()) {
    for (const json& v : *vars) {
      p->variables.push_back({Str(v, "name"), webhook::Compile(Str(v, "expression"), kVariables)});
    }
  }
  if (const json* validations = Find(*spec, "validations");
      validations && validations->is_array()) {
    for (const json& v : *validations) {
      Validation validation{webhook::Compile(Str(v, "expression"), kVariables), Str(v, "message"),
                            Str(v, "reason"), std::nullopt};
      if (const std::string m = Str(v, "messageExpression"); !m.empty()) {
        validation.message_expression = webhook::Compile(m, kVariables);
      }
      p->validations.push_back(std::move(validation));
    }
  }
  if (const json* list = Find(*spec, "auditAnnotations"); list && list->is_array()) {
    for (const json& a : *list) {
      p->audit_annotations.push_back(
          {Str(a, "key"), webhook::Compile(Str(a, "valueExpression"), kVariables)});
    }
  }
  if (const json* conditions = Find(*spec, "matchConditions");
      conditions && conditions->is_array()) {
    for (const json& c : *conditions) {
      p->conditions.push_back({Str(c, "name"), webhook::Compile(Str(c, "expression"), kVariables)});
    }
  }
  return p;
}

// A failing validation or an error under failurePolicy Fail. Configuration errors refuse
// whatever the binding's validationActions say.
struct Decision {
  std::string message;
  std::string reason;
  bool configuration = false;
  int expression_index = -1;  // the validation's, for the Audit action's annotation
};

// What one evaluation came to: its decisions and its audit annotations (key, value).
struct Evaluation {
  std::vector<Decision> decisions;
  std::vector<std::pair<std::string, std::string>> annotations;
};

int ReasonToCode(std::string_view reason) {
  if (reason == "Forbidden") return 403;
  if (reason == "Unauthorized") return 401;
  if (reason == "RequestEntityTooLarge") return 413;
  return 422;
}

// The exempt resources: the policies themselves, and the reviews that write nothing.
bool Exempt(const registry::ResourceSpec& spec) {
  static const std::vector<std::string> kReviews = {
      "selfsubjectreviews",        "tokenreviews",
      "localsubjectaccessreviews", "selfsubjectaccessreviews",
      "selfsubjectrulesreviews",   "subjectaccessreviews"};
  return webhook::ExemptResource(spec.group, spec.plural) ||
         std::find(kReviews.begin(), kReviews.end(), spec.plural) != kReviews.end();
}

bool NamedRulesMatch(const json& rules, const webhook::RuleRequest& request, std::string_view name,
                     bool any_version) {
  if (!rules.is_array()) return false;
  for (const json& rule : rules) {
    if (!webhook::RuleMatches(rule, request, any_version)) continue;
    const json* names = Find(rule, "resourceNames");
    if (names == nullptr || !names->is_array() || names->empty()) return true;
    for (const json& n : *names) {
      if (n.is_string() && n.get_ref<const std::string&>() == name) return true;
    }
  }
  return false;
}

// upstream's matching.Matcher.Matches: the selectors, the excluded rules, the rules (none:
// everything).
Awaitable<std::expected<bool, Status>> Matches(const Stores& stores, const MatchResources& m,
                                               const Attributes& a, const json& object) {
  const webhook::RuleRequest request = webhook::RuleRequestOf(a);
  if (NamedRulesMatch(m.exclude, request, a.name, !m.exact)) co_return false;
  if (!m.rules.empty() && !NamedRulesMatch(m.rules, request, a.name, !m.exact)) co_return false;
  if (!m.selector_error.empty()) {
    co_return std::unexpected(apimachinery::NewInternalError(m.selector_error));
  }
  co_return co_await webhook::SelectorsMatch(stores, m.namespace_selector, m.object_selector, a,
                                             object);
}

// GroupVersionKind.String() of a paramKind.
std::string KindString(const std::string& api_version, const std::string& kind) {
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return group + "/" + version + ", Kind=" + kind;
}

// The parameters a binding gives its policy: [null] without paramKind or paramRef, [] when
// none is found and that is allowed; the error is upstream's configuration error.
Awaitable<std::expected<std::vector<json>, std::string>> Params(const Stores& stores,
                                                                const Policy& policy,
                                                                const json& binding,
                                                                const Attributes& a) {
  std::vector<json> out;
  const json* ref = Find(*Find(binding, "spec"), "paramRef");
  if (policy.param_kind.empty() || ref == nullptr) {
    out.push_back(json());
    co_return out;
  }
  auto store = stores.GetKind(policy.param_api_version, policy.param_kind);
  if (!store) {
    co_return std::unexpected("failed to find resource referenced by paramKind: '" +
                              KindString(policy.param_api_version, policy.param_kind) + "'");
  }
  const std::string name = Str(*ref, "name");
  const json* selector = Find(*ref, "selector");
  std::string ns = Str(*ref, "namespace");
  if (!store->Spec().namespaced && !ns.empty()) {
    co_return std::unexpected(
        "failed to configure binding: paramRef.namespace must not be provided for a "
        "cluster-scoped `paramKind`");
  }
  if (store->Spec().namespaced && ns.empty()) {
    if (a.ns.empty()) {
      co_return std::unexpected(
          "failed to configure binding: cannot use namespaced paramRef in policy binding that "
          "matches cluster-scoped resources");
    }
    ns = a.ns;
  }
  if (!name.empty() && selector != nullptr) {
    co_return std::unexpected(
        "failed to configure binding: paramRef.name and paramRef.selector are mutually "
        "exclusive");
  }
  if (!name.empty()) {
    auto found = co_await Lookup(store, ns, name);
    if (found) {
      out.push_back(std::move(*found));
    } else if (found.error().code != 404) {
      co_return std::unexpected("failed to configure binding: " + found.error().message);
    }
  } else if (selector != nullptr) {
    auto parsed = webhook::ParseSelector(selector);
    if (!parsed) co_return std::unexpected("failed to configure binding: " + parsed.error());
    auto listed = co_await ListCached(store, ns);
    if (!listed)
      co_return std::unexpected("failed to configure binding: " + listed.error().message);
    for (json& item : *listed) {
      if (parsed->Matches(apimachinery::labels::LabelsOf(item))) out.push_back(std::move(item));
    }
  } else {
    co_return std::unexpected(
        "failed to configure binding: one of name or selector must be provided");
  }
  if (out.empty() && Str(*ref, "parameterNotFoundAction") != "Allow") {
    co_return std::unexpected(
        "failed to configure binding: no params found for policy binding with `Deny` "
        "parameterNotFoundAction");
  }
  co_return out;
}

// The failing validation's message: its messageExpression's string (trimmed, one line, at
// most 5 KiB), else its message, else the expression.
std::string FailureMessage(const Validation& v, const webhook::Variables& vars) {
  if (v.message_expression) {
    auto value = webhook::Evaluate(*v.message_expression, vars);
    if (value && value->kind == cel::Kind::kString) {
      std::string m(util::TrimSpace(value->str()));
      if (!m.empty() && m.size() <= kMaxMessageBytes && m.find('\n') == std::string::npos) {
        return m;
      }
    }
  }
  if (std::string m(util::TrimSpace(v.message)); !m.empty()) return m;
  return "failed expression: " + std::string(util::TrimSpace(v.expression.source));
}

// Upstream's limit on an audit annotation's value.
constexpr size_t kMaxAuditAnnotationBytes = 10 * 1024;

// One evaluation of the policy with one parameter: its decisions and audit annotations.
Evaluation Evaluate(const Policy& policy, const webhook::Variables& base) {
  Evaluation out;
  webhook::Variables vars = base;
  // The variables, in order, each seeing those before it (upstream's are lazy: an error
  // matters only to an expression that uses the variable, as an error value does here).
  std::vector<std::pair<cel::Value, cel::Value>> composed;
  vars.push_back({"variables", cel::Value::Map({})});
  for (const auto& v : policy.variables) {
    auto value = webhook::Evaluate(v.expression, vars);
    composed.emplace_back(cel::Value::String(v.name),
                          value ? std::move(*value)
                                : cel::Value::Error("composited variable \"" + v.name +
                                                    "\" fails to evaluate: " + value.error()));
    vars.back().second = cel::Value::Map(composed);
  }
  auto matched = webhook::ConditionsMatch(policy.conditions, vars);
  if (!matched) {
    if (!policy.fail_open) out.decisions.push_back({matched.error(), "", false});
    return out;
  }
  if (!*matched) return out;
  for (size_t i = 0; i < policy.validations.size(); ++i) {
    const Validation& v = policy.validations[i];
    auto value = webhook::Evaluate(v.expression, vars);
    if (value && value->kind != cel::Kind::kBool) {
      value = std::unexpected("expression '" + v.expression.source +
                              "' resulted in error: no such overload");
    }
    if (!value) {
      if (!policy.fail_open) {
        out.decisions.push_back({value.error(), "", false, static_cast<int>(i)});
      }
      continue;
    }
    if (value->b) continue;
    out.decisions.push_back({FailureMessage(v, vars), v.reason, false, static_cast<int>(i)});
  }
  for (const AuditAnnotation& annotation : policy.audit_annotations) {
    auto value = webhook::Evaluate(annotation.value, vars);
    if (value && value->kind == cel::Kind::kNull) continue;
    if (value && value->kind != cel::Kind::kString) {
      value = std::unexpected("valueExpression '" + annotation.value.source +
                              "' resulted in unsupported return type: " + cel::TypeName(*value) +
                              ". Return type must be either string or null.");
    }
    if (!value) {
      // An audit annotation that fails refuses whatever the binding's actions say.
      if (!policy.fail_open) out.decisions.push_back({value.error(), "", true});
      continue;
    }
    std::string text(util::TrimSpace(value->str()));
    if (text.empty()) continue;
    if (text.size() > kMaxAuditAnnotationBytes) text.resize(kMaxAuditAnnotationBytes);
    out.annotations.emplace_back(policy.name + "/" + annotation.key, std::move(text));
  }
  return out;
}

std::string ObjectName(const Attributes& a, const json& object) {
  if (!a.name.empty()) return a.name;
  const json& named = a.old != nullptr && object.is_null() ? *a.old : object;
  if (std::string n = registry::MetaString(named, "name"); !n.empty()) return n;
  if (std::string n = registry::MetaString(named, "generateName"); !n.empty()) return n;
  return "Unknown";
}

class ValidatingAdmissionPolicy final : public Plugin {
 public:
  explicit ValidatingAdmissionPolicy(std::shared_ptr<const Stores> stores)
      : stores_(std::move(stores)) {}

  bool Handles(Operation) const override { return true; }

  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (Exempt(a.spec)) co_return std::nullopt;
    auto binding_store = stores_->Get(kBindings);
    auto policy_store = stores_->Get(kPolicies);
    if (!binding_store || !policy_store) co_return std::nullopt;
    auto bindings = co_await ListCached(binding_store, "");
    if (!bindings || bindings->empty()) co_return std::nullopt;
    auto policies = co_await ListCached(policy_store, "");
    if (!policies) co_return std::nullopt;
    std::map<std::string, PolicyPtr> by_name = CompiledPolicies(*policies);
    std::sort(bindings->begin(), bindings->end(), [](const json& x, const json& y) {
      return registry::MetaString(x, "name") < registry::MetaString(y, "name");
    });

    const cel::TypePtr dyn = cel::DynType();
    std::optional<webhook::Variables> base;  // made when a binding first applies
    std::optional<Status> refusal;           // the first Deny
    json failures = json::array();           // the Audit action's
    std::map<std::string, std::vector<std::string>> annotations;  // auditAnnotations
    for (const json& binding : *bindings) {
      const json* spec = Find(binding, "spec");
      if (spec == nullptr) continue;
      auto found = by_name.find(Str(*spec, "policyName"));
      if (found == by_name.end()) continue;
      const Policy& policy = *found->second;
      const std::string binding_name = registry::MetaString(binding, "name");
      std::vector<Decision> decisions;
      if (!policy.constraints) {
        if (!policy.fail_open) {
          decisions.push_back(
              {"failed to configure policy: policy contained no match constraints, a required "
               "field",
               "", true});
        }
      } else {
        auto matches = co_await Matches(*stores_, *policy.constraints, a, object);
        if (!matches) co_return matches.error();
        if (!*matches) continue;
        if (const json* narrowed = Find(*spec, "matchResources")) {
          auto also = co_await Matches(*stores_, ParseMatch(*narrowed), a, object);
          if (!also) co_return also.error();
          if (!*also) continue;
        }
        if (!base) {
          auto made = co_await BaseVariables(a, object);
          if (!made) co_return made.error();
          base = std::move(*made);
        }
        auto params = co_await Params(*stores_, policy, binding, a);
        if (!params) {
          if (!policy.fail_open) decisions.push_back({params.error(), "", true});
        } else {
          for (const json& param : *params) {
            webhook::Variables vars = *base;
            vars.push_back({"params", cel::JsonToValue(param, dyn)});
            Evaluation evaluated = Evaluate(policy, vars);
            for (Decision& d : evaluated.decisions) decisions.push_back(std::move(d));
            for (auto& [key, value] : evaluated.annotations) {
              auto& values = annotations[key];
              if (std::find(values.begin(), values.end(), value) == values.end()) {
                values.push_back(std::move(value));
              }
            }
          }
        }
      }
      std::vector<std::string> actions;
      if (const json* list = Find(*spec, "validationActions"); list && list->is_array()) {
        for (const json& action : *list) {
          if (action.is_string()) actions.push_back(action);
        }
      }
      const auto has = [&](std::string_view action) {
        return std::find(actions.begin(), actions.end(), action) != actions.end();
      };
      for (const Decision& d : decisions) {
        if (has("Warn") && !d.configuration && a.options.warnings != nullptr) {
          a.options.warnings->push_back("Validation failed for ValidatingAdmissionPolicy '" +
                                        policy.name + "' with binding '" + binding_name +
                                        "': " + d.message);
        }
        if (has("Audit") && !d.configuration) {
          json failure = {{"message", d.message},
                          {"policy", policy.name},
                          {"binding", binding_name},
                          {"expressionIndex", d.expression_index},
                          {"validationActions", actions}};
          failures.push_back(std::move(failure));
        }
        if (d.configuration || has("Deny")) {
          if (!refusal) refusal = Refusal(a, object, policy, binding_name, d);
        }
      }
      if (refusal) break;
    }
    if (a.options.audit != nullptr) {
      if (!failures.empty()) {
        a.options.audit->AddAnnotation("validation.policy.admission.k8s.io/validation_failure",
                                       failures.dump());
      }
      for (const auto& [key, values] : annotations) {
        a.options.audit->AddAnnotation(key, util::Join(values, ", "));
      }
    }
    co_return refusal;
  }

 private:
  // object, oldObject, request and namespaceObject (the namespace of a namespaced request,
  // null otherwise).
  Awaitable<std::expected<webhook::Variables, Status>> BaseVariables(const Attributes& a,
                                                                     const json& object) const {
    const cel::TypePtr dyn = cel::DynType();
    json namespace_object;
    if (a.spec.namespaced && !a.ns.empty()) {
      if (auto store = stores_->Get("namespaces")) {
        auto found = co_await Lookup(store, "", a.ns);
        if (!found) co_return std::unexpected(found.error());
        namespace_object = std::move(*found);
      }
    }
    co_return webhook::Variables{
        {"object", cel::JsonToValue(object, dyn)},
        {"oldObject", cel::JsonToValue(a.old != nullptr ? *a.old : json(), dyn)},
        {"request", cel::JsonToValue(webhook::RequestVariable(a), dyn)},
        {"namespaceObject", cel::JsonToValue(namespace_object, dyn)}};
  }

  static Status Refusal(const Attributes& a, const json& object, const Policy& policy,
                        const std::string& binding, const Decision& d) {
    const std::string message = "ValidatingAdmissionPolicy '" + policy.name + "' with binding '" +
                                binding + "' denied request: " + d.message;
    Status status = apimachinery::NewForbidden(a.spec.Resource(), ObjectName(a, object), message);
    status.reason = d.reason.empty() ? "Invalid" : d.reason;
    status.code = ReasonToCode(status.reason);
    if (!status.details) status.details.emplace();
    status.details->causes.push_back({"", message, ""});
    return status;
  }

  // The policies by name, compiled once per resourceVersion.
  std::map<std::string, PolicyPtr> CompiledPolicies(const std::vector<json>& policies) const {
    std::map<std::string, PolicyPtr> out;
    std::lock_guard lock(mu_);
    std::map<std::string, std::pair<std::string, PolicyPtr>> next;
    for (const json& p : policies) {
      const std::string uid = registry::MetaString(p, "uid");
      const std::string rv = registry::MetaString(p, "resourceVersion");
      PolicyPtr compiled;
      if (auto it = cache_.find(uid); it != cache_.end() && it->second.first == rv) {
        compiled = it->second.second;
      } else {
        compiled = Compile(p);
      }
      out[compiled->name] = compiled;
      next[uid] = {rv, compiled};
    }
    cache_ = std::move(next);
    return out;
  }

  std::shared_ptr<const Stores> stores_;
  mutable std::mutex mu_;
  // By uid: the resourceVersion compiled and the policy.
  mutable std::map<std::string, std::pair<std::string, PolicyPtr>> cache_;
};

}  // namespace

PluginPtr NewValidatingAdmissionPolicy(std::shared_ptr<const Stores> stores) {
  return std::make_shared<ValidatingAdmissionPolicy>(std::move(stores));
}

}  // namespace admission::policy
