#pragma once
// Shared by the static cost estimator's files (cost.cc walks the expression, cost_calls.cc
// estimates calls), not part of its interface (cost.h).

#include <optional>
#include <string>
#include <vector>

#include "pkg/apiextensions/cel/ast.h"
#include "pkg/apiextensions/cel/cost_estimate.h"
#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel::cost_internal {

// Where a value sits in self: the variable first (its name is not looked at: every path
// starts at the rule's schema node), then field names, "@items" (list items), "@values" (map
// values), "@keys" (map keys) or "@indices" (list indices of two-variable comprehensions).
// Empty when the value is not a part of self (a literal, most call results).
using Path = std::vector<std::string>;

// Upstream's CRD size estimator: the size of the value at path, from the schema node's
// Type::max_elements ({0, max}); none for an empty path or one the types do not have.
std::optional<Estimate> SchemaSize(const Type& root, const Path& path);

// What a call estimator knows of a receiver or argument (cel-go's checker.AstNode).
struct Operand {
  const Expr* expr = nullptr;
  Path path;
  TypePtr type;
  std::optional<Estimate> size;  // the size the walk computed, if any
};

// The cost of a call with one candidate overload, the operands' own costs included, and the
// size of its result when the estimator knows it.
struct CallEstimate {
  Estimate cost;
  std::optional<Estimate> result_size;
};

// One overload's estimate, in cel-go's order: the sets extension's estimators, then
// Kubernetes' library estimator (by function name), then cel-go's built-in estimates (by
// overload), else 1. target is the receiver of a member call (null otherwise); arg_costs are
// the costs of args (the receiver's is added by the caller).
CallEstimate EstimateOverload(const Overload& overload, const Operand* target,
                              const std::vector<Operand>& args,
                              const std::vector<Estimate>& arg_costs, const Type& root);

}  // namespace apiextensions::cel::cost_internal
