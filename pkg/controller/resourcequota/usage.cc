#include "pkg/controller/resourcequota/usage.h"

#include <nlohmann/json.hpp>

namespace controller::resourcequota {

ResourceList UsageStats(const Evaluator& evaluator, const Objects& objects,
                        const std::vector<ScopeRequirement>& requirements,
                        const std::set<std::string>& resources, TimePoint now) {
  ResourceList used;
  for (const std::string& name : resources) used[name] = util::Quantity();
  for (const auto& object : objects) {
    bool matches = true;
    for (const ScopeRequirement& r : requirements) {
      ScopeMatch m = evaluator.MatchesScope(r, *object);
      if (!m) return used;
      matches = matches && *m;
    }
    if (matches) used = Add(used, evaluator.Usage(*object, now));
  }
  return used;
}

QuotaUsage CalculateUsage(const std::string& namespace_name,
                          const std::vector<ScopeRequirement>& requirements,
                          const std::set<std::string>& hard_names,
                          const std::vector<EvaluatorPtr>& evaluators, const ListFunc& list,
                          TimePoint now) {
  QuotaUsage out;
  for (const EvaluatorPtr& e : evaluators) out.matched.merge(e->MatchingResources(hard_names));
  for (const EvaluatorPtr& e : evaluators) {
    const std::set<std::string> resources = e->MatchingResources(out.matched);
    if (resources.empty()) continue;
    const Objects objects = list(e->group_resource(), namespace_name);
    out.used = Add(out.used, UsageStats(*e, objects, requirements, resources, now));
  }
  out.used = Mask(out.used, out.matched);
  return out;
}

}  // namespace controller::resourcequota
