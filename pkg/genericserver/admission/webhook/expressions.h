#pragma once
// The CEL of admission (webhook matchConditions, admission policies' conditions, variables
// and validations): expressions compiled once against dynamically typed variables and
// evaluated with upstream's per-expression cost limit, errors worded as upstream's
// ("compilation error: ...", "expression '<e>' resulted in error: ...").

#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/program.h"

namespace admission::webhook {

namespace cel = apiextensions::cel;

using Variables = std::vector<std::pair<std::string, cel::Value>>;

// Upstream's cost limit of one admission expression (celconfig.PerCallLimit).
inline constexpr int64_t kPerCallCostLimit = 1000000;

struct Expression {
  std::string source;
  std::shared_ptr<const cel::Program> program;  // null when it does not compile
  std::string compile_error;
};

// Compiles `source` with each of `names` a dynamically typed variable.
Expression Compile(std::string_view source, const std::vector<std::string>& names);

// The value, or upstream's error text (the compile error, the evaluation error, running
// out of cost budget).
std::expected<cel::Value, std::string> Evaluate(const Expression& expression,
                                                const Variables& vars);

struct MatchCondition {
  std::string name;
  Expression expression;
};

// matchConditions: true when all are true, false as soon as one is false (errors
// notwithstanding); otherwise the errors, joined as Go's aggregate joins them.
std::expected<bool, std::string> ConditionsMatch(const std::vector<MatchCondition>& conditions,
                                                 const Variables& vars);

}  // namespace admission::webhook
