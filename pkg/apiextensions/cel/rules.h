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

// Compiles every rule of `schema` (a CRD version's openAPIV3Schema). schema_path is where the
// schema sits in the CRD, for the errors: "spec.versions[0].schema.openAPIV3Schema". A rule
// that does not compile is an error at
// "<schema_path>.properties[spec].x-kubernetes-validations[0].rule" (upstream's message); a schema
// without rules compiles to a RuleSet that accepts everything.
std::expected<std::shared_ptr<const RuleSet>, FieldErrors> Compile(const nlohmann::json& schema,
                                                                   const std::string& schema_path);

}  // namespace apiextensions::cel
