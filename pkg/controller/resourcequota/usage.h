#pragma once
// A quota's usage in its namespace (upstream's quota.CalculateUsage and
// generic.CalculateUsageStats): for each evaluator measuring some resource of spec.hard,
// its resources start at zero and each object of its kind that matches every scope
// requirement adds its usage. Pure: the objects come from `list`.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

using Objects = std::vector<std::shared_ptr<const nlohmann::json>>;
// The objects of a resource in a namespace.
using ListFunc = std::function<Objects(const GroupResource& gr, const std::string& namespace_name)>;

// One evaluator's usage of `resources` over `objects`. A requirement that cannot be
// evaluated (a selector that does not parse) ends the count with what was added so far.
ResourceList UsageStats(const Evaluator& evaluator, const Objects& objects,
                        const std::vector<ScopeRequirement>& requirements,
                        const std::set<std::string>& resources, TimePoint now);

struct QuotaUsage {
  std::set<std::string> matched;  // the names of hard some evaluator measures
  ResourceList used;              // the usage of each of them
};
QuotaUsage CalculateUsage(const std::string& namespace_name,
                          const std::vector<ScopeRequirement>& requirements,
                          const std::set<std::string>& hard_names,
                          const std::vector<EvaluatorPtr>& evaluators, const ListFunc& list,
                          TimePoint now);

}  // namespace controller::resourcequota
