#pragma once
// Static cost estimation of a checked CEL expression: the range of cost one evaluation can
// take, as cel-go v0.22's checker.Cost computes it in Kubernetes 1.32's CRD environment
// (presence tests free, the sets extension's estimators, Kubernetes' library
// CostEstimator) with the CRD size estimator, which sizes the parts of self from the
// schema. CRD validation refuses rules whose estimate is too high, so the numbers must be
// upstream's exactly; the estimate does not depend on any value, only on the expression and
// the schema.

#include "pkg/apiextensions/cel/ast.h"
#include "pkg/apiextensions/cel/cost_estimate.h"
#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel {

// The estimated cost of evaluating expr, an expression the checker accepted (every node has
// its type and every call its candidate overloads), whose variables (self, oldSelf) have the
// type self_type of a schema node (SchemaType: the sizes come from its Type::max_elements).
// Only Estimate::max limits a rule.
Estimate EstimateCost(const Expr& expr, const Type& self_type);

}  // namespace apiextensions::cel
