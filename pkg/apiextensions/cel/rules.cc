// x-kubernetes-validations: evaluating a CRD version's rules against custom resources
// (upstream's apiextensions-apiserver schema/cel Validator), once Compile has checked them
// (rule_checks.cc).
//
// Differences from upstream, by design or not yet done:
// - Runtime costs approximate cel-go's cost model (same limits: 1,000,000 per call,
//   10,000,000 per object).

#include "pkg/apiextensions/cel/rules.h"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/rules_internal.h"
#include "pkg/apiextensions/cel/schema_types.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::cel {

using apimachinery::validation::FieldError;
using nlohmann::json;
namespace v = apimachinery::validation;
using namespace rules_internal;  // NOLINT(build/namespaces)

namespace {

struct CompiledRule {
  RuleSpec spec;
  std::shared_ptr<const Program> program;
  std::shared_ptr<const Program> message_program;
  std::string compile_error;  // "" when compiled
  std::string field_path;     // normalized fieldPath
  bool uses_old_self = false;
};

CompiledRule CompileRule(const RuleSpec& spec, const TypePtr& type, const json& node_schema) {
  CompiledRule c;
  c.spec = spec;
  if (TrimSpace(spec.rule).empty()) return c;
  bool opt = spec.optional_old_self.value_or(false);
  CompileResult r = CompileExpression(spec.rule, RuleVars(type, opt));
  if (!r.program) {
    c.compile_error = "compilation failed: " + r.errors;
    return c;
  }
  if (r.program->result_type->kind != TypeKind::kBool) {
    c.compile_error = "cel expression must evaluate to a bool";
    return c;
  }
  c.program = r.program;
  c.uses_old_self = r.program->uses_old_self;
  if (!spec.field_path.empty()) {
    std::string err;
    if (auto p = ValidFieldPath(spec.field_path, node_schema, &err)) c.field_path = *p;
  }
  if (!spec.message_expression.empty()) {
    CompileResult m = CompileExpression(spec.message_expression, RuleVars(type, opt));
    if (m.program && m.program->result_type->kind == TypeKind::kString)
      c.message_program = m.program;
  }
  return c;
}

// --- The validator tree -------------------------------------------------------------------

struct Node {
  std::vector<CompiledRule> rules;
  std::string schema_type;  // the schema's "type", the bad value of the errors
  TypePtr type;
  bool has_old_self_rules = false;
  std::string map_type;   // x-kubernetes-map-type
  std::string list_type;  // x-kubernetes-list-type
  std::vector<std::string> map_keys;
  std::map<std::string, std::unique_ptr<Node>> properties;
  std::unique_ptr<Node> items;
  std::unique_ptr<Node> additional;
  std::vector<std::unique_ptr<Node>> all_of;
  std::string rule_type_error;  // upstream's error for rules on a schema without a CEL type
};

std::unique_ptr<Node> BuildNode(const json& vs, const json& ns, bool resource_root,
                                const TypePtr& type) {
  auto n = std::make_unique<Node>();
  n->schema_type = StringOr(ns, "type");
  n->type = type;
  n->map_type = StringOr(ns, "x-kubernetes-map-type");
  n->list_type = StringOr(ns, "x-kubernetes-list-type");
  if (auto keys = ns.find("x-kubernetes-list-map-keys"); keys != ns.end() && keys->is_array()) {
    for (const auto& k : *keys) {
      if (k.is_string()) n->map_keys.push_back(k.get<std::string>());
    }
  }
  auto rules = vs.find("x-kubernetes-validations");
  if (rules != vs.end() && rules->is_array() && !rules->empty()) {
    if (!type) {
      n->rule_type_error =
          "rule declared on schema that does not support validation rules type: '" +
          StringOr(ns, "type") + "' x-kubernetes-preserve-unknown-fields: '" +
          (BoolOr(ns, "x-kubernetes-preserve-unknown-fields") ? "true" : "false") + "'";
    } else {
      for (const auto& r : *rules) {
        CompiledRule c = CompileRule(ReadRule(r), type, ns);
        if (c.uses_old_self) n->has_old_self_rules = true;
        n->rules.push_back(std::move(c));
      }
    }
  }
  bool any = !n->rules.empty() || !n->rule_type_error.empty();
  auto vitems = vs.find("items");
  auto nitems = ns.find("items");
  if (vitems != vs.end() && vitems->is_object() && nitems != ns.end() && nitems->is_object()) {
    n->items = BuildNode(*vitems, *nitems, BoolOr(*nitems, "x-kubernetes-embedded-resource"),
                         type ? type->elem : nullptr);
    any = any || n->items;
  }
  auto vprops = vs.find("properties");
  auto nprops = ns.find("properties");
  if (vprops != vs.end() && vprops->is_object() && nprops != ns.end() && nprops->is_object()) {
    for (const auto& [k, vprop] : vprops->items()) {
      auto nprop = nprops->find(k);
      if (nprop == nprops->end()) continue;
      TypePtr ft;
      if (auto esc = EscapeProperty(k)) {
        if (!type || type->kind != TypeKind::kObject) continue;
        auto f = type->fields.find(*esc);
        if (f == type->fields.end()) continue;
        ft = f->second.type;
      } else {
        ft = SchemaType(*nprop, BoolOr(*nprop, "x-kubernetes-embedded-resource"));
        if (!ft) continue;
      }
      if (auto p = BuildNode(vprop, *nprop, BoolOr(*nprop, "x-kubernetes-embedded-resource"), ft)) {
        n->properties[k] = std::move(p);
        any = true;
      }
    }
  }
  const json* vap = AdditionalSchema(vs);
  const json* nap = AdditionalSchema(ns);
  if (vap && nap) {
    n->additional = BuildNode(*vap, *nap, BoolOr(*nap, "x-kubernetes-embedded-resource"),
                              type ? type->elem : nullptr);
    any = any || n->additional;
  }
  auto all_of = vs.find("allOf");
  if (all_of != vs.end() && all_of->is_array()) {
    for (const auto& a : *all_of) {
      if (auto p = BuildNode(a, ns, resource_root, type)) {
        n->all_of.push_back(std::move(p));
        any = true;
      }
    }
  }
  if (!any) return nullptr;
  return n;
}

// --- Evaluation -------------------------------------------------------------------------------

struct State {
  int64_t remaining = kRuntimeCELCostBudget;
  FieldErrors errors;
  bool update = false;
};

FieldError ErrorForReason(const std::string& path, const std::string& schema_type,
                          const std::string& detail, const std::optional<std::string>& reason) {
  if (reason) {
    if (*reason == v::kFieldValueForbidden) return v::FieldForbidden(path, detail);
    if (*reason == v::kFieldValueRequired) return v::FieldRequired(path, detail);
    if (*reason == v::kFieldValueDuplicate) return v::FieldDuplicate(path, schema_type);
  }
  return v::FieldInvalid(path, schema_type, detail);
}

const char* const kOutOfBudget =
    "validation failed due to running out of cost budget, no further validation rules will be run";

// Evaluates the rules of one node. Returns false when validation must stop.
bool ValidateExpressions(const Node& n, const std::string& node_path, const json& obj,
                         const json* old, bool unchanged, State& st) {
  if (obj.is_null()) return true;
  // The root's path is upstream's nil *field.Path, which prints as "<nil>".
  const std::string path = node_path.empty() ? "<nil>" : node_path;
  if (old != nullptr && old->is_null()) old = nullptr;
  if (!n.rule_type_error.empty()) {
    st.errors.push_back(v::FieldInvalid(
        path, n.schema_type, "rule compiler initialization error: " + n.rule_type_error));
    return true;
  }
  if (n.rules.empty()) return true;
  if (st.remaining <= 0) {
    st.errors.push_back(v::FieldInvalid(path, n.schema_type, kOutOfBudget));
    st.remaining = -1;
    return false;
  }
  Value self = JsonToValue(obj, n.type);
  std::optional<Value> old_self;
  if (old != nullptr && n.has_old_self_rules) old_self = JsonToValue(*old, n.type);
  std::vector<std::pair<std::string, Value>> vars = {{"self", self}};
  if (old_self) vars.emplace_back("oldSelf", *old_self);
  std::vector<std::pair<std::string, Value>> optional_vars = {
      {"self", self}, {"oldSelf", Value::Optional(old_self ? &*old_self : nullptr)}};

  for (const CompiledRule& rule : n.rules) {
    const RuleSpec& spec = rule.spec;
    if (!rule.compile_error.empty()) {
      st.errors.push_back(
          v::FieldInvalid(path, n.schema_type, "rule compile error: " + rule.compile_error));
      continue;
    }
    if (!rule.program) continue;  // empty rule
    bool optional_old_self = spec.optional_old_self.value_or(false);
    if (rule.uses_old_self && old == nullptr && !optional_old_self) continue;
    EvalResult r = Evaluate(*rule.program, optional_old_self ? optional_vars : vars, kPerCallLimit);
    if (r.cost > st.remaining) {
      st.errors.push_back(v::FieldInvalid(path, n.schema_type, kOutOfBudget));
      st.remaining = -1;
      return false;
    }
    st.remaining -= r.cost;
    if (r.value.IsError()) {
      const std::string& msg = r.value.str();
      if (msg.starts_with("no such overload")) {
        st.errors.push_back(v::FieldInvalid(path, n.schema_type,
                                            "'" + msg +
                                                "': call arguments did not match a supported "
                                                "operator, function or macro signature for rule: " +
                                                RuleErrorString(spec)));
      } else if (r.cost_exceeded) {
        st.errors.push_back(v::FieldInvalid(path, n.schema_type,
                                            "'" + msg +
                                                "': no further validation rules will be run due to "
                                                "call cost exceeds limit for rule: " +
                                                RuleErrorString(spec)));
        st.remaining = -1;
        return false;
      } else {
        st.errors.push_back(v::FieldInvalid(path, n.schema_type,
                                            msg + " evaluating rule: " + RuleErrorString(spec)));
      }
      continue;
    }
    if (r.value.IsTrue()) continue;

    std::string err_path = rule.field_path.empty() ? path : Child(node_path, rule.field_path);
    bool ratchet = !rule.uses_old_self && unchanged;
    std::string detail;
    bool have_detail = false;
    if (rule.message_program) {
      EvalResult m = Evaluate(*rule.message_program, vars, kPerCallLimit);
      if (m.cost > st.remaining) {
        if (!ratchet) {
          st.errors.push_back(
              v::FieldInvalid(err_path, n.schema_type,
                              "messageExpression evaluation failed due to running out of cost "
                              "budget, no further validation rules will be run"));
        }
        st.remaining = -1;
        return false;
      }
      if (m.cost_exceeded) {
        if (!ratchet) {
          st.errors.push_back(v::FieldInvalid(err_path, n.schema_type,
                                              "no further validation rules will be run due to call "
                                              "cost exceeds limit for messageExpression: " +
                                                  v::GoQuote(spec.message_expression)));
        }
        st.remaining = -1;
        return false;
      }
      st.remaining -= m.cost;
      if (m.value.kind == Kind::kString) {
        std::string trimmed = TrimSpace(m.value.str());
        if (!trimmed.empty() && trimmed.size() <= kMaxEvaluatedMessageExpressionSizeBytes &&
            trimmed.find('\n') == std::string::npos) {
          detail = std::move(trimmed);
          have_detail = true;
        }
      }
    }
    if (!have_detail) detail = RuleMessageOrDefault(spec);
    // Ratcheting: an unchanged value keeps passing (upstream reports a warning instead).
    if (!ratchet) st.errors.push_back(ErrorForReason(err_path, n.schema_type, detail, spec.reason));
  }
  return true;
}

// The element of a map list old with the same key values as item.
const json* CorrelateMapListItem(const json& item, const json* old,
                                 const std::vector<std::string>& keys) {
  if (old == nullptr || !old->is_array() || !item.is_object() || keys.empty()) return nullptr;
  for (const auto& o : *old) {
    if (!o.is_object()) continue;
    bool same = true;
    for (const auto& k : keys) {
      auto a = item.find(k);
      auto b = o.find(k);
      bool ha = a != item.end(), hb = b != o.end();
      if (ha != hb || (ha && *a != *b)) {
        same = false;
        break;
      }
    }
    if (same) return &o;
  }
  return nullptr;
}

bool ValidateNode(const Node* n, const std::string& path, const json& obj, const json* old,
                  bool unchanged, State& st) {
  if (n == nullptr || obj.is_null()) return true;
  if (!ValidateExpressions(*n, path, obj, old, unchanged, st)) return false;
  for (const auto& a : n->all_of) {
    if (!ValidateNode(a.get(), path, obj, old, unchanged, st)) return false;
  }
  if (obj.is_array()) {
    if (!n->items) return true;
    const json* old_arr = old != nullptr && old->is_array() ? old : nullptr;
    for (size_t i = 0; i < obj.size(); ++i) {
      const json& item = obj[i];
      // Only map lists correlate items with old ones for oldSelf.
      const json* old_item =
          n->list_type == "map" ? CorrelateMapListItem(item, old_arr, n->map_keys) : nullptr;
      // Ratcheting correlates map lists by key and sets by value; atomic lists go by the list.
      bool item_unchanged = unchanged;
      if (st.update && old_arr != nullptr) {
        if (n->list_type == "map") {
          item_unchanged = old_item != nullptr && *old_item == item;
        } else if (n->list_type == "set") {
          item_unchanged = std::find(old_arr->begin(), old_arr->end(), item) != old_arr->end();
        }
      }
      if (!ValidateNode(n->items.get(), Index(path, i), item, old_item, item_unchanged, st))
        return false;
    }
    return true;
  }
  if (obj.is_object()) {
    const json* old_obj = old != nullptr && old->is_object() ? old : nullptr;
    bool correlatable = MapIsCorrelatable(n->map_type);
    auto child_state = [&](const std::string& k, const json& v, const json** old_v,
                           bool* child_unchanged) {
      *old_v = nullptr;
      const json* ratchet_old = nullptr;
      if (old_obj != nullptr) {
        auto it = old_obj->find(k);
        if (it != old_obj->end()) ratchet_old = &*it;
      }
      if (correlatable) *old_v = ratchet_old;
      *child_unchanged = ratchet_old != nullptr ? (*ratchet_old == v) : unchanged;
      if (path.empty() && (k == "apiVersion" || k == "kind")) *child_unchanged = false;
    };
    if (n->additional) {
      for (const auto& [k, val] : obj.items()) {
        const json* old_v;
        bool cu;
        child_state(k, val, &old_v, &cu);
        if (!ValidateNode(n->additional.get(), Key(path, k), val, old_v, cu, st)) return false;
      }
    }
    if (!n->properties.empty()) {
      for (const auto& [k, val] : obj.items()) {
        auto it = n->properties.find(k);
        if (it == n->properties.end()) continue;
        const json* old_v;
        bool cu;
        child_state(k, val, &old_v, &cu);
        if (!ValidateNode(it->second.get(), Child(path, k), val, old_v, cu, st)) return false;
      }
    }
  }
  return true;
}

class CompiledRuleSet final : public RuleSet {
 public:
  explicit CompiledRuleSet(std::unique_ptr<Node> root) : root_(std::move(root)) {}

  FieldErrors Validate(const json& object, const json* old) const override {
    if (!root_) return {};
    State st;
    if (old != nullptr && old->is_null()) old = nullptr;
    st.update = old != nullptr;
    bool unchanged = old != nullptr && *old == object;
    ValidateNode(root_.get(), "", object, old, unchanged, st);
    return std::move(st.errors);
  }

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace

std::expected<std::shared_ptr<const RuleSet>, FieldErrors> Compile(const json& schema,
                                                                   const std::string& schema_path,
                                                                   const CompileOptions& options) {
  if (!schema.is_object()) return std::make_shared<CompiledRuleSet>(nullptr);
  TypePtr root_type = SchemaType(schema, true);
  FieldErrors errors = rules_internal::CheckRules(schema, schema_path, root_type, options);
  if (!errors.empty()) return std::unexpected(std::move(errors));
  return std::make_shared<CompiledRuleSet>(BuildNode(schema, schema, true, root_type));
}

}  // namespace apiextensions::cel
