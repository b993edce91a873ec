#include "pkg/apiextensions/cel/cost_budget.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/cost_estimate.h"
#include "pkg/apiextensions/cel/limits.h"

namespace apiextensions::cel {

using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

// A non-negative integer keyword, when set (negative counts as 0).
std::optional<uint64_t> Bound(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer())
    return static_cast<uint64_t>(std::max<int64_t>(0, it->get<int64_t>()));
  return static_cast<uint64_t>(std::max(0.0, it->get<double>()));
}

}  // namespace

std::optional<uint64_t> MaxElementsFactor(const json& schema) {
  if (!schema.is_object()) return 1;
  auto type = schema.find("type");
  const std::string t = type != schema.end() && type->is_string() ? type->get<std::string>() : "";
  if (t == "object") {
    auto ap = schema.find("additionalProperties");
    if (ap != schema.end() && !ap->is_null()) return Bound(schema, "maxProperties");
    return 1;  // each field exists once per object
  }
  if (t == "array") return Bound(schema, "maxItems");
  return 1;
}

std::optional<uint64_t> ChildCardinality(std::optional<uint64_t> parent,
                                         const json& parent_schema) {
  if (!parent) return std::nullopt;
  std::optional<uint64_t> factor = MaxElementsFactor(parent_schema);
  if (!factor) return std::nullopt;
  return SaturatingMul(*parent, *factor);
}

uint64_t ExpressionCost(uint64_t max_cost, std::optional<uint64_t> cardinality, const Type& type) {
  // Unbounded: each value at least its smallest encoding and a comma.
  const uint64_t card =
      cardinality ? *cardinality
                  : static_cast<uint64_t>(kMaxRequestSizeBytes / (type.min_serialized_size + 1));
  if (max_cost == 0) return 0;
  return SaturatingMul(max_cost, card);
}

std::string CostErrorMessage(std::string_view cost_name, uint64_t cost, uint64_t limit) {
  const double factor = static_cast<double>(cost) / static_cast<double>(limit);
  std::string f;
  if (factor > 100.0) {
    f = "more than 100x";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof(buf), factor < 1.5 ? "%fx" : "%.1fx", factor);
    f = buf;
  }
  return std::string(cost_name) + " exceeds budget by factor of " + f +
         " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
         "arrays, maps, and strings are declared)";
}

void TotalCost::Observe(std::string path, uint64_t cost) {
  total_ = SaturatingAdd(total_, cost);
  if (cost < kStaticEstimatedCRDCostLimit / 100) return;
  most_expensive_.push_back(RuleCost{std::move(path), cost});
  std::stable_sort(most_expensive_.begin(), most_expensive_.end(),
                   [](const RuleCost& a, const RuleCost& b) { return a.cost > b.cost; });
  if (most_expensive_.size() > 4) most_expensive_.resize(4);
}

std::vector<v::FieldError> TotalCost::Errors(const std::string& schema_path) const {
  std::vector<v::FieldError> out;
  if (total_ <= kStaticEstimatedCRDCostLimit) return out;
  for (const RuleCost& r : most_expensive_) {
    out.push_back(v::FieldForbidden(
        r.path,
        "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 "
        "schema"));
  }
  out.push_back(v::FieldForbidden(
      schema_path,
      CostErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 "
                       "schema",
                       total_, kStaticEstimatedCRDCostLimit)));
  return out;
}

}  // namespace apiextensions::cel
