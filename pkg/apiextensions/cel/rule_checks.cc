// x-kubernetes-validations at CRD creation and update (upstream's
// ValidateCustomResourceDefinitionOpenAPISchema, the CEL part): the checks of each rule
// (rule, message, messageExpression, reason, fieldPath), compiling rules and
// messageExpressions, where oldSelf may be used, and the static cost limits: each rule's
// estimated cost times how many times it can run for one object, each messageExpression's
// estimated cost, at most 10,000,000; the sum over the schema at most 100,000,000, with its
// largest contributors named. Errors come in upstream's order for each node (the rule's cost,
// its compile error, its messageExpression's error or cost, oldSelf), children before their
// parent, properties in name order (upstream's map order is random); the schema's total
// last.
//
// Differences from upstream, by design or not yet done:
// - cel-go's checker and ANTLR parser messages are imitated for the common errors
//   ("undeclared reference to 'x' (in container '')", "undefined field 'x'",
//   "found no matching overload for '_+_' applied to '(int, string)'", "Syntax error:
//   mismatched input 'x' expecting <EOF>"); rarer syntax errors are worded differently, and
//   object types print as "object" where cel-go prints a generated type name.
// - A non-nil Reason or OptionalOldSelf pointer prints in the ValidationRule shown with compile
//   errors as (0xc000000000), where Go prints the pointer's address.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/cost.h"
#include "pkg/apiextensions/cel/cost_budget.h"
#include "pkg/apiextensions/cel/limits.h"
#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/rules_internal.h"
#include "pkg/apiextensions/cel/schema_types.h"

namespace apiextensions::cel::rules_internal {

using apimachinery::validation::FieldError;
using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

struct CheckContext {
  explicit CheckContext(const CompileOptions& o) : options(o) {}
  const CompileOptions& options;
  FieldErrors errors;
  int static_errors = 0;  // rule errors that make upstream skip compiling the rules above
  TotalCost total_cost;
};

const std::vector<std::string>& SupportedReasons() {
  static const std::vector<std::string> reasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                                   "FieldValueInvalid", "FieldValueRequired"};
  return reasons;
}

// has_type: whether the node is reached through properties/items/additionalProperties from the
// root (upstream's celContext), where rules are compiled; type is its CEL type, cardinality
// how many times it can occur in one object (std::nullopt: unbounded).
void CheckSchema(const json& s, const std::string& path, bool has_type, const TypePtr& type,
                 const std::optional<std::string>& uncorrelatable,
                 std::optional<uint64_t> cardinality, CheckContext& ctx) {
  if (!s.is_object()) return;
  int static_before = ctx.static_errors;
  const std::optional<uint64_t> child_cardinality = ChildCardinality(cardinality, s);

  if (const json* ap = AdditionalSchema(s)) {
    TypePtr t = has_type && type && type->kind == TypeKind::kMap ? type->elem : nullptr;
    if (has_type && !t) t = SchemaType(*ap, BoolOr(*ap, "x-kubernetes-embedded-resource"));
    CheckSchema(*ap, path + ".additionalProperties", has_type, t, uncorrelatable, child_cardinality,
                ctx);
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
      CheckSchema(prop, path + ".properties[" + k + "]", has_type, t, unc, child_cardinality, ctx);
    }
  }
  if (auto n = s.find("not"); n != s.end())
    CheckSchema(*n, path + ".not", false, nullptr, uncorrelatable, std::nullopt, ctx);
  for (const char* comb : {"allOf", "oneOf", "anyOf"}) {
    auto c = s.find(comb);
    if (c == s.end() || !c->is_array()) continue;
    for (size_t i = 0; i < c->size(); ++i) {
      CheckSchema((*c)[i], path + "." + comb + "[" + std::to_string(i) + "]", false, nullptr,
                  uncorrelatable, std::nullopt, ctx);
    }
  }
  if (auto items = s.find("items"); items != s.end() && items->is_object()) {
    std::optional<std::string> unc = uncorrelatable;
    if (!unc && StringOr(s, "x-kubernetes-list-type") != "map") unc = path;
    TypePtr t = has_type && type && type->kind == TypeKind::kList ? type->elem : nullptr;
    if (has_type && !t) t = SchemaType(*items, BoolOr(*items, "x-kubernetes-embedded-resource"));
    CheckSchema(*items, path + ".items", has_type, t, unc, child_cardinality, ctx);
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
    if (ctx.options.estimate_costs) {
      const uint64_t cost =
          ExpressionCost(EstimateCost(*c.program->root, *type).max, cardinality, *type);
      if (!ctx.options.suppress_per_expression_cost && cost > kStaticEstimatedCostLimit) {
        ctx.errors.push_back(v::FieldForbidden(
            rp + ".rule",
            CostErrorMessage("estimated rule cost", cost, kStaticEstimatedCostLimit)));
      }
      ctx.total_cost.Observe(rp + ".rule", cost);
    }
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
      } else if (ctx.options.estimate_costs) {
        // A message is built once per failure: no cardinality.
        const uint64_t cost = EstimateCost(*m.program->root, *type).max;
        if (!ctx.options.suppress_per_expression_cost && cost > kStaticEstimatedCostLimit) {
          ctx.errors.push_back(v::FieldForbidden(
              rp + ".messageExpression", CostErrorMessage("estimated messageExpression cost", cost,
                                                          kStaticEstimatedCostLimit)));
        }
        ctx.total_cost.Observe(rp + ".messageExpression", cost);
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

FieldErrors CheckRules(const json& schema, const std::string& schema_path, const TypePtr& root_type,
                       const CompileOptions& options) {
  CheckContext ctx(options);
  CheckSchema(schema, schema_path, true, root_type, std::nullopt, uint64_t{1}, ctx);
  if (options.estimate_costs) {
    for (FieldError& e : ctx.total_cost.Errors(schema_path)) ctx.errors.push_back(std::move(e));
  }
  return std::move(ctx.errors);
}

}  // namespace apiextensions::cel::rules_internal
