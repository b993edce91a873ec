#pragma once
// The object count evaluator (upstream's generic objectCountEvaluator): every object of a
// resource counts 1 in `count/<resource>[.<group>]` and, for the four legacy kinds, in
// their old name too (`configmaps`, `resourcequotas`, `replicationcontrollers`,
// `secrets`). No scopes. Pure.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/evaluator.h"

namespace controller::resourcequota {

class ObjectCountEvaluator : public Evaluator {
 public:
  // `alias`: the legacy name, or "" for none.
  ObjectCountEvaluator(GroupResource gr, std::string alias);
  GroupResource group_resource() const override { return gr_; }
  std::set<std::string> MatchingResources(const std::set<std::string>& names) const override;
  ResourceList Usage(const nlohmann::json& object, TimePoint now) const override;

 private:
  GroupResource gr_;
  std::set<std::string> names_;
};

}  // namespace controller::resourcequota
