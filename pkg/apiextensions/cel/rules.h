#pragma once
// x-kubernetes-validations: the CEL rules of a structural schema, compiled once per CRD
// version and evaluated against custom resources, as upstream's apiextensions-apiserver does
// (self, oldSelf for transition rules, message/messageExpression, reason, fieldPath), with a
// cost limit so that no rule stalls the server.

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::cel {

using FieldErrors = std::vector<apimachinery::validation::FieldError>;

class RuleSet {
 public:
  virtual ~RuleSet() = default;
  // Evaluates every rule of the schema against the object (a whole custom resource) and,
  // on update, the stored one (null on create: transition rules are then skipped). Errors
  // are upstream's ("spec: Invalid value: \"object\": <message>", reasons as the rule says).
  virtual FieldErrors Validate(const nlohmann::json& object, const nlohmann::json* old) const = 0;
};

struct CompileOptions {
  // CRD validation: refuse rules and messageExpressions whose estimated cost (times the
  // number of times they can run for one object) exceeds 10,000,000, and schemas whose rules
  // together exceed 100,000,000 (upstream's messages, after every other error). Serving a
  // stored CRD does not estimate.
  bool estimate_costs = false;
  // An update that leaves this schema as it was: the per-expression limits are not enforced,
  // the total for the schema still is (upstream's suppressPerExpressionCost).
  bool suppress_per_expression_cost = false;
};

// Compiles every rule of `schema` (a CRD version's openAPIV3Schema). schema_path is where the
// schema sits in the CRD, for the errors: "spec.versions[0].schema.openAPIV3Schema". A rule
// that does not compile is an error at
// "<schema_path>.properties[spec].x-kubernetes-validations[0].rule" (upstream's message); a schema
// without rules compiles to a RuleSet that accepts everything.
std::expected<std::shared_ptr<const RuleSet>, FieldErrors> Compile(
    const nlohmann::json& schema, const std::string& schema_path,
    const CompileOptions& options = {});

}  // namespace apiextensions::cel
