#include "pkg/controller/resourcequota/object_count.h"

namespace controller::resourcequota {

ObjectCountEvaluator::ObjectCountEvaluator(GroupResource gr, std::string alias)
    : gr_(std::move(gr)) {
  names_.insert(ObjectCountResourceName(gr_));
  if (!alias.empty()) names_.insert(std::move(alias));
}

std::set<std::string> ObjectCountEvaluator::MatchingResources(
    const std::set<std::string>& names) const {
  std::set<std::string> out;
  for (const std::string& name : names) {
    if (names_.contains(name)) out.insert(name);
  }
  return out;
}

ResourceList ObjectCountEvaluator::Usage(const nlohmann::json&, TimePoint) const {
  ResourceList out;
  for (const std::string& name : names_) out[name] = util::Quantity(1);
  return out;
}

}  // namespace controller::resourcequota
