// x-kubernetes-validations: compiling a CRD version's rules (with the errors upstream's CRD
// validation reports) and evaluating them against custom resources (upstream's
// apiextensions-apiserver schema/cel Validator).
//
// Differences from upstream, by design or not yet done:
// - cel-go's checker and ANTLR parser messages are imitated for the common errors
//   ("undeclared reference to 'x' (in container '')", "undefined field 'x'",
//   "found no matching overload for '_+_' applied to '(int, string)'", "Syntax error:
//   mismatched input 'x' expecting <EOF>"); rarer syntax errors are worded differently, and
//   object types print as "object" where cel-go prints a generated type name.
// - No static cost estimation: rules are not rejected at CRD creation for their estimated
//   worst-case cost ("estimated rule cost exceeds budget ..."); the runtime limits apply.
// - Runtime costs approximate cel-go's cost model (same limits: 1,000,000 per call,
//   10,000,000 per object).
// - A non-nil Reason or OptionalOldSelf pointer prints in the ValidationRule shown with compile
//   errors as (0xc000000000), where Go prints the pointer's address.

#include "pkg/apiextensions/cel/rules.h"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/schema_types.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::cel {

using apimachinery::validation::FieldError;
using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

// k8s.io/apiserver/pkg/apis/cel: PerCallLimit, RuntimeCELCostBudget,
// MaxEvaluatedMessageExpressionSizeBytes.
constexpr int64_t kPerCallLimit = 1000000;
constexpr int64_t kRuntimeCELCostBudget = 10000000;
constexpr size_t kMaxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

std::string StringOr(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool BoolOr(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string TrimSpace(std::string_view s) {
  size_t b = 0, e = s.size();
  auto sp = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (b < e && sp(s[b])) ++b;
  while (e > b && sp(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

bool HasNewlines(std::string_view s) { return s.find_first_of("\n\r") != std::string_view::npos; }

std::string Child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}
std::string Key(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// One x-kubernetes-validations entry as written.
struct RuleSpec {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::optional<std::string> reason;
  std::string field_path;
  std::optional<bool> optional_old_self;
};

RuleSpec ReadRule(const json& j) {
  RuleSpec r;
  if (!j.is_object()) return r;
  r.rule = StringOr(j, "rule");
  r.message = StringOr(j, "message");
  r.message_expression = StringOr(j, "messageExpression");
  auto reason = j.find("reason");
  if (reason != j.end() && reason->is_string()) r.reason = reason->get<std::string>();
  r.field_path = StringOr(j, "fieldPath");
  auto opt = j.find("optionalOldSelf");
  if (opt != j.end() && opt->is_boolean()) r.optional_old_self = opt->get<bool>();
  return r;
}

// Go's %#v of the internal apiextensions.ValidationRule, the bad value of compile errors.
std::string GoRuleString(const RuleSpec& r) {
  return "apiextensions.ValidationRule{Rule:" + v::GoQuote(r.rule) +
         ", Message:" + v::GoQuote(r.message) +
         ", MessageExpression:" + v::GoQuote(r.message_expression) +
         ", Reason:(*apiextensions.FieldValueErrorReason)(" + (r.reason ? "0xc000000000" : "nil") +
         "), FieldPath:" + v::GoQuote(r.field_path) + ", OptionalOldSelf:(*bool)(" +
         (r.optional_old_self ? "0xc000000000" : "nil") + ")}";
}

std::string RuleErrorString(const RuleSpec& r) {
  if (!r.message.empty()) return TrimSpace(r.message);
  return TrimSpace(r.rule);
}

std::string RuleMessageOrDefault(const RuleSpec& r) {
  if (r.message.empty()) return "failed rule: " + RuleErrorString(r);
  return TrimSpace(r.message);
}

bool HasProperties(const json& s) {
  auto p = s.find("properties");
  return p != s.end() && p->is_object() && !p->empty();
}

const json* AdditionalSchema(const json& s) {
  auto ap = s.find("additionalProperties");
  if (ap == s.end() || !ap->is_object()) return nullptr;
  return &*ap;
}

// Upstream's ValidFieldPath: a JSON path of field (.name) and map key (['key']) accessors
// valid for the schema; returns the path as field.Path prints it ("spec.foo", "labels[x]").
std::optional<std::string> ValidFieldPath(std::string_view path, const json& root,
                                          std::string* err) {
  // Tokens: '.', '[', ']' alone; quoted strings; other text up to a delimiter.
  std::vector<std::string> tokens;
  for (size_t i = 0; i < path.size();) {
    if (path[i] == '\'') {
      size_t j = i + 1;
      while (j < path.size() && !(path[j] == '\'' && path[j - 1] != '\\')) ++j;
      if (j >= path.size()) {
        tokens.emplace_back(path.substr(i));
        break;
      }
      tokens.emplace_back(path.substr(i, j - i + 1));
      i = j + 1;
      continue;
    }
    if (path[i] == '.' || path[i] == '[' || path[i] == ']') {
      tokens.emplace_back(1, path[i]);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < path.size() && path[j] != '.' && path[j] != '[' && path[j] != ']') ++j;
    tokens.emplace_back(path.substr(i, j - i));
    i = j;
  }
  const json* schema = &root;
  std::string out;
  auto append = [&](const std::string& name) -> bool {
    if (HasProperties(*schema)) {
      out = Child(out, name);
      const auto& props = (*schema)["properties"];
      auto it = props.find(name);
      if (it == props.end()) {
        *err = "does not refer to a valid field";
        return false;
      }
      schema = &*it;
      return true;
    }
    if (const json* ap = AdditionalSchema(*schema)) {
      out = Key(out, name);
      schema = ap;
      return true;
    }
    *err = "does not refer to a valid field";
    return false;
  };
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::string& tok = tokens[k];
    if (tok == "[") {
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      const std::string& q = tokens[k];
      if (q.size() < 2 || q.front() != '\'' || q.back() != '\'') {
        *err = "expected single quoted string but got " + q;
        return std::nullopt;
      }
      std::string unescaped;
      for (size_t i = 1; i + 1 < q.size(); ++i) {
        if (q[i] == '\\' && i + 2 < q.size()) {
          char d = q[++i];
          switch (d) {
            case 'a':
              unescaped.push_back('\a');
              break;
            case 'b':
              unescaped.push_back('\b');
              break;
            case 'f':
              unescaped.push_back('\f');
              break;
            case 'n':
              unescaped.push_back('\n');
              break;
            case 'r':
              unescaped.push_back('\r');
              break;
            case 't':
              unescaped.push_back('\t');
              break;
            case 'v':
              unescaped.push_back('\v');
              break;
            case '\'':
              unescaped.push_back('\'');
              break;
            case '\\':
              unescaped.push_back('\\');
              break;
            default:
              *err = "invalid string literal: invalid escape char \\" + std::string(1, d);
              return std::nullopt;
          }
          continue;
        }
        unescaped.push_back(q[i]);
      }
      if (!append(unescaped)) return std::nullopt;
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (tokens[k] != "]") {
        *err = "expected ] but got " + tokens[k];
        return std::nullopt;
      }
    } else if (tok == ".") {
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (!append(tokens[k])) return std::nullopt;
    } else {
      *err = "expected [ or . but got: " + tok;
      return std::nullopt;
    }
  }
  return out;
}

// The variables of a rule at a node of CEL type t.
std::vector<Declaration> RuleVars(const TypePtr& t, bool optional_old_self) {
  return {{"self", t}, {"oldSelf", optional_old_self ? OptionalOf(t) : t}};
}

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

bool MapIsCorrelatable(const std::string& map_type) {
  return map_type.empty() || map_type == "granular" || map_type == "atomic";
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

// --- CRD-time checks (upstream's ValidateCustomResourceDefinitionOpenAPISchema, the CEL part) --

struct CheckContext {
  FieldErrors errors;
  int static_errors = 0;  // rule errors that make upstream skip compiling the rules above
};

const std::vector<std::string>& SupportedReasons() {
  static const std::vector<std::string> reasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                                   "FieldValueInvalid", "FieldValueRequired"};
  return reasons;
}

// has_type: whether the node is reached through properties/items/additionalProperties from the
// root (upstream's celContext), where rules are compiled; type is its CEL type.
void CheckSchema(const json& s, const std::string& path, bool has_type, const TypePtr& type,
                 const std::optional<std::string>& uncorrelatable, CheckContext& ctx) {
  if (!s.is_object()) return;
  int static_before = ctx.static_errors;

  if (const json* ap = AdditionalSchema(s)) {
    TypePtr t = has_type && type && type->kind == TypeKind::kMap ? type->elem : nullptr;
    if (has_type && !t) t = SchemaType(*ap, BoolOr(*ap, "x-kubernetes-embedded-resource"));
    CheckSchema(*ap, path + ".additionalProperties", has_type, t, uncorrelatable, ctx);
  }
  if (auto props = s.find("properties"); props != s.end() && props->is_object()) {
    for (const auto& [k, prop] : props->items()) {
      std::optional<std::string> unc = uncorrelatable;
      if (!unc && !MapIsCorrelatable(StringOr(s, "x-kubernetes-map-type"))) unc = path;
      TypePtr t;
      if (has_type) {
        auto esc = EscapeProperty(k);
        if (esc && type && type->kind == TypeKind::kObject) {
          auto f = type->fields.find(*esc);
          if (f != type->fields.end()) t = f->second.type;
        }
        if (!t) t = SchemaType(prop, BoolOr(prop, "x-kubernetes-embedded-resource"));
      }
      CheckSchema(prop, path + ".properties[" + k + "]", has_type, t, unc, ctx);
    }
  }
  if (auto n = s.find("not"); n != s.end())
    CheckSchema(*n, path + ".not", false, nullptr, uncorrelatable, ctx);
  for (const char* comb : {"allOf", "oneOf", "anyOf"}) {
    auto c = s.find(comb);
    if (c == s.end() || !c->is_array()) continue;
    for (size_t i = 0; i < c->size(); ++i) {
      CheckSchema((*c)[i], path + "." + comb + "[" + std::to_string(i) + "]", false, nullptr,
                  uncorrelatable, ctx);
    }
  }
  if (auto items = s.find("items"); items != s.end() && items->is_object()) {
    std::optional<std::string> unc = uncorrelatable;
    if (!unc && StringOr(s, "x-kubernetes-list-type") != "map") unc = path;
    TypePtr t = has_type && type && type->kind == TypeKind::kList ? type->elem : nullptr;
    if (has_type && !t) t = SchemaType(*items, BoolOr(*items, "x-kubernetes-embedded-resource"));
    CheckSchema(*items, path + ".items", has_type, t, unc, ctx);
  }

  auto rules = s.find("x-kubernetes-validations");
  if (rules == s.end() || !rules->is_array() || rules->empty()) return;
  std::vector<RuleSpec> specs;
  for (size_t i = 0; i < rules->size(); ++i) {
    RuleSpec r = ReadRule((*rules)[i]);
    specs.push_back(r);
    std::string rp = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
    std::string trimmed_rule = TrimSpace(r.rule);
    std::string trimmed_msg = TrimSpace(r.message);
    size_t before = ctx.errors.size();
    if (trimmed_rule.empty()) {
      ctx.errors.push_back(v::FieldRequired(rp + ".rule", "rule is not specified"));
    } else if (!r.message.empty() && trimmed_msg.empty()) {
      ctx.errors.push_back(
          v::FieldInvalid(rp + ".message", r.message, "message must be non-empty if specified"));
    } else if (HasNewlines(trimmed_msg)) {
      ctx.errors.push_back(
          v::FieldInvalid(rp + ".message", r.message, "message must not contain line breaks"));
    } else if (HasNewlines(trimmed_rule) && trimmed_msg.empty()) {
      ctx.errors.push_back(v::FieldRequired(
          rp + ".message", "message must be specified if rule contains line breaks"));
    }
    if (!r.message_expression.empty() && TrimSpace(r.message_expression).empty()) {
      ctx.errors.push_back(v::FieldRequired(rp + ".messageExpression",
                                            "messageExpression must be non-empty if specified"));
    }
    if (r.reason && std::find(SupportedReasons().begin(), SupportedReasons().end(), *r.reason) ==
                        SupportedReasons().end()) {
      ctx.errors.push_back(v::FieldNotSupported(rp + ".reason", *r.reason, SupportedReasons()));
    }
    if (!r.field_path.empty() && TrimSpace(r.field_path).empty()) {
      ctx.errors.push_back(v::FieldInvalid(rp + ".fieldPath", r.field_path,
                                           "fieldPath must be non-empty if specified"));
    }
    if (HasNewlines(r.field_path)) {
      ctx.errors.push_back(v::FieldInvalid(rp + ".fieldPath", r.field_path,
                                           "fieldPath must not contain line breaks"));
    }
    if (!r.field_path.empty()) {
      std::string err;
      if (!ValidFieldPath(r.field_path, s, &err)) {
        ctx.errors.push_back(
            v::FieldInvalid(rp + ".fieldPath", r.field_path, "fieldPath must be a valid path"));
      }
    }
    ctx.static_errors += static_cast<int>(ctx.errors.size() - before);
  }
  if (ctx.static_errors != static_before || !has_type) return;
  if (!type) {
    ctx.errors.push_back(v::FieldInternalError(
        path + ".x-kubernetes-validations",
        "rule declared on schema that does not support validation rules type: '" +
            StringOr(s, "type") + "' x-kubernetes-preserve-unknown-fields: '" +
            (BoolOr(s, "x-kubernetes-preserve-unknown-fields") ? "true" : "false") + "'"));
    return;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const RuleSpec& r = specs[i];
    std::string rp = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
    if (TrimSpace(r.rule).empty()) continue;
    bool opt = r.optional_old_self.value_or(false);
    CompileResult c = CompileExpression(r.rule, RuleVars(type, opt));
    bool uses_old_self = false;
    if (!c.program) {
      FieldError e =
          v::FieldInvalid(rp + ".rule", GoRuleString(r), "compilation failed: " + c.errors);
      e.value_form = v::ValueForm::kVerbatim;
      ctx.errors.push_back(e);
      continue;
    }
    if (c.program->result_type->kind != TypeKind::kBool) {
      FieldError e =
          v::FieldInvalid(rp + ".rule", GoRuleString(r), "cel expression must evaluate to a bool");
      e.value_form = v::ValueForm::kVerbatim;
      ctx.errors.push_back(e);
      continue;
    }
    uses_old_self = c.program->uses_old_self;
    if (!r.message_expression.empty()) {
      CompileResult m = CompileExpression(r.message_expression, RuleVars(type, opt));
      std::string detail;
      if (!m.program) {
        detail = "messageExpression compilation failed: " + m.errors;
      } else if (m.program->result_type->kind != TypeKind::kString) {
        detail = "messageExpression must evaluate to a string";
      }
      if (!detail.empty()) {
        FieldError e = v::FieldInvalid(rp + ".messageExpression", GoRuleString(r), detail);
        e.value_form = v::ValueForm::kVerbatim;
        ctx.errors.push_back(e);
      }
    }
    if (uses_old_self) {
      if (uncorrelatable) {
        ctx.errors.push_back(v::FieldInvalid(
            rp + ".rule", r.rule,
            "oldSelf cannot be used on the uncorrelatable portion of the schema within " +
                *uncorrelatable));
      }
    } else if (r.optional_old_self) {
      FieldError e =
          v::FieldInvalid(rp + ".optionalOldSelf", *r.optional_old_self ? "true" : "false",
                          "may not be set if oldSelf is not used in rule");
      e.value_form = v::ValueForm::kVerbatim;
      ctx.errors.push_back(e);
    }
  }
}

}  // namespace

std::expected<std::shared_ptr<const RuleSet>, FieldErrors> Compile(const json& schema,
                                                                   const std::string& schema_path) {
  if (!schema.is_object()) return std::make_shared<CompiledRuleSet>(nullptr);
  TypePtr root_type = SchemaType(schema, true);
  CheckContext ctx;
  CheckSchema(schema, schema_path, true, root_type, std::nullopt, ctx);
  if (!ctx.errors.empty()) return std::unexpected(std::move(ctx.errors));
  return std::make_shared<CompiledRuleSet>(BuildNode(schema, schema, true, root_type));
}

}  // namespace apiextensions::cel
