#pragma once
// Shared by the files of x-kubernetes-validations (rules.cc evaluates the rules of a schema,
// rule_checks.cc reports what CRD validation finds wrong with them, rule_spec.cc holds what
// both read of a rule), not part of their interface (rules.h).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/rules.h"
#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel::rules_internal {

// k8s.io/apiserver/pkg/apis/cel: PerCallLimit, RuntimeCELCostBudget,
// MaxEvaluatedMessageExpressionSizeBytes.
inline constexpr int64_t kPerCallLimit = 1000000;
inline constexpr int64_t kRuntimeCELCostBudget = 10000000;
inline constexpr size_t kMaxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

// The string / true boolean member of a JSON object, "" / false otherwise.
std::string StringOr(const nlohmann::json& j, const char* key);
bool BoolOr(const nlohmann::json& j, const char* key);
// Go's strings.TrimSpace.
std::string TrimSpace(std::string_view s);
bool HasNewlines(std::string_view s);

// field.Path rendering: path.Child(name), path.Key(key), path.Index(i).
std::string Child(const std::string& path, const std::string& name);
std::string Key(const std::string& path, const std::string& key);
std::string Index(const std::string& path, size_t i);

// additionalProperties when it is a schema, else null.
const nlohmann::json* AdditionalSchema(const nlohmann::json& s);
// Whether oldSelf correlates through an object of this x-kubernetes-map-type.
bool MapIsCorrelatable(const std::string& map_type);

// One x-kubernetes-validations entry as written.
struct RuleSpec {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::optional<std::string> reason;
  std::string field_path;
  std::optional<bool> optional_old_self;
};

RuleSpec ReadRule(const nlohmann::json& j);
// Go's %#v of the internal apiextensions.ValidationRule, the bad value of compile errors.
std::string GoRuleString(const RuleSpec& r);
// The message, else the rule, trimmed.
std::string RuleErrorString(const RuleSpec& r);
// The message, else "failed rule: <rule>".
std::string RuleMessageOrDefault(const RuleSpec& r);

// Upstream's ValidFieldPath: a JSON path of field (.name) and map key (['key']) accessors
// valid for the schema; returns the path as field.Path prints it ("spec.foo", "labels[x]"),
// or std::nullopt with *err set.
std::optional<std::string> ValidFieldPath(std::string_view path, const nlohmann::json& root,
                                          std::string* err);

// The variables of a rule at a node of CEL type t: self, and oldSelf (optional(t) with
// optionalOldSelf).
std::vector<Declaration> RuleVars(const TypePtr& t, bool optional_old_self);

// rule_checks.cc: what upstream's CRD validation reports of the rules of schema (whose CEL
// type is root_type), in its order: the checks of each rule, compile errors, oldSelf misuse
// and, with options.estimate_costs, the cost limits.
FieldErrors CheckRules(const nlohmann::json& schema, const std::string& schema_path,
                       const TypePtr& root_type, const CompileOptions& options);

}  // namespace apiextensions::cel::rules_internal
