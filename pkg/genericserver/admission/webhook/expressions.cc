#include "pkg/genericserver/admission/webhook/expressions.h"

#include "pkg/apiextensions/cel/value.h"

namespace admission::webhook {

Expression Compile(std::string_view source, const std::vector<std::string>& names) {
  std::vector<cel::Declaration> vars;
  vars.reserve(names.size());
  for (const std::string& name : names) vars.push_back({name, cel::DynType()});
  cel::CompileResult compiled = cel::CompileExpression(source, vars);
  return {std::string(source), std::move(compiled.program), std::move(compiled.errors)};
}

std::expected<cel::Value, std::string> Evaluate(const Expression& e, const Variables& vars) {
  if (!e.program) return std::unexpected("compilation error: " + e.compile_error);
  cel::EvalResult r = cel::Evaluate(*e.program, vars, kPerCallCostLimit);
  if (r.cost_exceeded) {
    return std::unexpected(
        "validation failed due to running out of cost budget, no further validation rules "
        "will be run");
  }
  if (r.value.IsError()) {
    return std::unexpected("expression '" + e.source + "' resulted in error: " + r.value.str());
  }
  return std::move(r.value);
}

std::expected<bool, std::string> ConditionsMatch(const std::vector<MatchCondition>& conditions,
                                                 const Variables& vars) {
  std::vector<std::string> errors;
  for (const MatchCondition& c : conditions) {
    auto value = Evaluate(c.expression, vars);
    if (!value) {
      errors.push_back(value.error());
    } else if (value->kind != cel::Kind::kBool) {
      errors.push_back("expression '" + c.expression.source +
                       "' resulted in error: no such overload");
    } else if (!value->b) {
      return false;
    }
  }
  if (errors.empty()) return true;
  if (errors.size() == 1) return std::unexpected(errors[0]);
  std::string joined = "[";
  for (size_t i = 0; i < errors.size(); ++i) joined += (i ? ", " : "") + errors[i];
  return std::unexpected(joined + "]");
}

}  // namespace admission::webhook
