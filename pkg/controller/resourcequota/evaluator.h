#pragma once
// What measures one kind of object for quota (upstream's quota.Evaluator): the resource
// names of a quota it can measure, whether an object matches a quota's scope, and an
// object's usage. The scopes and `count/` names shared by every evaluator live here too.
// Pure: evaluators hold no state and may be used from any thread.

#include <chrono>
#include <compare>
#include <expected>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/resourcequota/resource_list.h"

namespace controller::resourcequota {

using TimePoint = std::chrono::system_clock::time_point;

struct GroupResource {
  std::string group;  // "" for the core group
  std::string resource;
  auto operator<=>(const GroupResource&) const = default;
  // "pods", "deployments.apps".
  std::string String() const { return group.empty() ? resource : resource + "." + group; }
};

// "count/<resource>" for the core group, "count/<resource>.<group>" otherwise.
std::string ObjectCountResourceName(const GroupResource& gr);
// The group resource a "count/..." name counts; std::nullopt for other names.
std::optional<GroupResource> ParseObjectCountResourceName(std::string_view name);

// One condition on the objects a quota counts: an entry of spec.scopes (operator Exists)
// or an expression of spec.scopeSelector.
struct ScopeRequirement {
  std::string scope_name;  // Terminating, NotTerminating, BestEffort, NotBestEffort, ...
  std::string op;          // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};
// The requirements of a ResourceQuota's spec: its scopes, then its selector's expressions.
std::vector<ScopeRequirement> ScopeRequirements(const nlohmann::json& spec);

// Whether an object matches a requirement, or why the requirement cannot be evaluated.
using ScopeMatch = std::expected<bool, std::string>;
// A requirement as a label selector requirement over one label, `scope_name` = `value`
// (std::nullopt: the label is absent), as upstream's
// ScopedResourceSelectorRequirementsAsSelector: In and NotIn need values, Exists and
// DoesNotExist none.
ScopeMatch MatchesAsLabel(const ScopeRequirement& r, const std::optional<std::string>& value);

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual GroupResource group_resource() const = 0;
  // Those of `names` this evaluator measures.
  virtual std::set<std::string> MatchingResources(const std::set<std::string>& names) const = 0;
  // Whether `object` matches `r`; evaluators without scopes match none.
  virtual ScopeMatch MatchesScope(const ScopeRequirement& r, const nlohmann::json& object) const;
  // The usage of one object at `now`.
  virtual ResourceList Usage(const nlohmann::json& object, TimePoint now) const = 0;
};
using EvaluatorPtr = std::shared_ptr<const Evaluator>;

// Upstream's helper.IsNativeResource: no '/' in the name, or a kubernetes.io/ prefix.
bool IsNativeResource(std::string_view name);

}  // namespace controller::resourcequota
