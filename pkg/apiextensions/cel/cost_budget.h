#pragma once
// The CRD side of static CEL costs (upstream's apiextensions validation): how many times a
// rule at a schema node can run for one object (its cardinality), a rule's cost, the total
// of one openAPIV3Schema with its largest contributors, and upstream's messages.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/cel/value.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::cel {

// How many values a schema node's children can have per value of the node (upstream's
// extractMaxElements): maxProperties of an object with additionalProperties (a schema or a
// boolean), maxItems of an array, 1 for other objects and scalars; std::nullopt (unbounded)
// for such a map or array without its bound.
std::optional<uint64_t> MaxElementsFactor(const nlohmann::json& schema);

// The cardinality of a child of parent_schema whose own cardinality is parent (root: 1):
// their product, saturating; unbounded when either is.
std::optional<uint64_t> ChildCardinality(std::optional<uint64_t> parent,
                                         const nlohmann::json& parent_schema);

// The cost a rule counts for: its estimated cost times the node's cardinality; for an
// unbounded node, times the number of the smallest values of the node's type (a SchemaType)
// that fit a request. Saturating.
uint64_t ExpressionCost(uint64_t max_cost, std::optional<uint64_t> cardinality, const Type& type);

// "<cost_name> exceeds budget by factor of <f>x (try simplifying the rule, or adding
// maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)": f
// with six decimals below 1.5, one up to 100, else "more than 100x".
std::string CostErrorMessage(std::string_view cost_name, uint64_t cost, uint64_t limit);

// The estimated cost of every rule and messageExpression of one openAPIV3Schema (upstream's
// TotalCost): the saturating sum, and the four most expensive that count for at least 1% of
// the schema limit, most expensive first (earlier ones first among equals).
class TotalCost {
 public:
  struct RuleCost {
    std::string path;  // "<node>.x-kubernetes-validations[i].rule" or ".messageExpression"
    uint64_t cost = 0;
  };

  void Observe(std::string path, uint64_t cost);
  uint64_t total() const { return total_; }
  const std::vector<RuleCost>& most_expensive() const { return most_expensive_; }

  // When the total exceeds the schema limit: Forbidden at each of the most expensive
  // ("contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3
  // schema"), then at schema_path with the total's CostErrorMessage. Else none.
  std::vector<apimachinery::validation::FieldError> Errors(const std::string& schema_path) const;

 private:
  uint64_t total_ = 0;
  std::vector<RuleCost> most_expensive_;
};

}  // namespace apiextensions::cel
