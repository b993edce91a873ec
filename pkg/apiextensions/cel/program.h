#pragma once
// Compiling (parse + type check) and evaluating one CEL expression.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/ast.h"
#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel {

struct Declaration {
  std::string name;
  TypePtr type;
};

struct Program {
  std::string source;
  ExprPtr root;
  TypePtr result_type;
  bool uses_old_self = false;  // references the variable "oldSelf"
};

struct CompileResult {
  std::shared_ptr<const Program> program;  // null on errors
  std::string errors;                      // cel-go's display of the issues, "" when none
};

// Parses and type checks source with the given variables.
CompileResult CompileExpression(std::string_view source, const std::vector<Declaration>& vars);

struct EvalResult {
  Value value;  // a value or an error value
  int64_t cost = 0;
  bool cost_exceeded = false;  // the evaluation was stopped at cost_limit
};

// Evaluates a compiled program with variable values, stopping once the cost goes over
// cost_limit.
EvalResult Evaluate(const Program& program, const std::vector<std::pair<std::string, Value>>& vars,
                    int64_t cost_limit);

}  // namespace apiextensions::cel
