// x-kubernetes-validations: what upstream checks of each rule before compiling it (rule,
// message, messageExpression, reason, fieldPath), and the compilation itself, by
// apiextensions::cel (which also checks where oldSelf may be used, and the rules' estimated
// costs).

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/rules.h"
#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

bool HasNewlines(std::string_view s) { return s.find_first_of("\n\r") != std::string_view::npos; }

bool PathValid(const json& schema, std::string_view field_path) {
  if (StructuralConversionError(schema)) return true;
  std::string err;
  return ValidFieldPath(field_path, &schema, true, &err).has_value();
}

}  // namespace

void ValidateRuleShapes(const json& schema, const std::string& path, FieldErrors& errors) {
  const json* rules = Get(schema, "x-kubernetes-validations");
  if (rules == nullptr || !rules->is_array()) return;
  static const std::vector<std::string> kReasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                                    "FieldValueInvalid", "FieldValueRequired"};
  for (size_t i = 0; i < rules->size(); ++i) {
    const json* rule = &(*rules)[i];
    const std::string base = Index(Child(path, "x-kubernetes-validations"), i);
    const std::string text = Str(rule, "rule");
    const std::string message = Str(rule, "message");
    const std::string message_expression = Str(rule, "messageExpression");
    const std::string_view trimmed_rule = TrimSpace(text);
    const std::string_view trimmed_message = TrimSpace(message);
    if (trimmed_rule.empty()) {
      errors.push_back(v::FieldRequired(Child(base, "rule"), "rule is not specified"));
    } else if (!message.empty() && trimmed_message.empty()) {
      errors.push_back(v::FieldInvalid(Child(base, "message"), message,
                                       "message must be non-empty if specified"));
    } else if (HasNewlines(trimmed_message)) {
      errors.push_back(
          v::FieldInvalid(Child(base, "message"), message, "message must not contain line breaks"));
    } else if (HasNewlines(trimmed_rule) && trimmed_message.empty()) {
      errors.push_back(v::FieldRequired(Child(base, "message"),
                                        "message must be specified if rule contains line breaks"));
    }
    if (!message_expression.empty() && TrimSpace(message_expression).empty()) {
      errors.push_back(v::FieldRequired(Child(base, "messageExpression"),
                                        "messageExpression must be non-empty if specified"));
    }
    if (const json* reason = Get(*rule, "reason")) {
      const std::string r = reason->is_string() ? reason->get<std::string>() : "";
      if (std::find(kReasons.begin(), kReasons.end(), r) == kReasons.end()) {
        errors.push_back(v::FieldNotSupported(Child(base, "reason"), r, kReasons));
      }
    }
    const std::string field_path = Str(rule, "fieldPath");
    if (!field_path.empty() && TrimSpace(field_path).empty()) {
      errors.push_back(v::FieldInvalid(Child(base, "fieldPath"), field_path,
                                       "fieldPath must be non-empty if specified"));
    }
    if (HasNewlines(field_path)) {
      errors.push_back(v::FieldInvalid(Child(base, "fieldPath"), field_path,
                                       "fieldPath must not contain line breaks"));
    }
    if (!field_path.empty() && !PathValid(schema, field_path)) {
      errors.push_back(
          v::FieldInvalid(Child(base, "fieldPath"), field_path, "fieldPath must be a valid path"));
    }
  }
}

void CompileRules(const json& schema, const std::string& schema_path,
                  bool suppress_per_expression_cost, FieldErrors& errors) {
  auto compiled = apiextensions::cel::Compile(
      schema, schema_path,
      {.estimate_costs = true, .suppress_per_expression_cost = suppress_per_expression_cost});
  if (compiled) return;
  for (FieldError& e : compiled.error()) errors.push_back(std::move(e));
}

}  // namespace apiextensions::validation::internal
