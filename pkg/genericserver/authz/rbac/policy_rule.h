#pragma once
// RBAC policy rules (rbac.authorization.k8s.io/v1 PolicyRule): whether a rule allows a
// request, whether a set of rules covers another (the escalation check), and the compact
// form upstream prints the rules a user lacks in. Values only: safe on any thread.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/request_info.h"

namespace authz::rbac {

struct PolicyRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names, non_resource_urls;
  bool operator==(const PolicyRule&) const = default;
};

// The rules of a Role or ClusterRole (its "rules"; missing or malformed fields are empty).
std::vector<PolicyRule> RulesOf(const nlohmann::json& role);
PolicyRule RuleFromJSON(const nlohmann::json& rule);

// The rule allows the request: its verb, group, resource ("pods/log" matches "pods/log",
// "*/log" or "*"), name (when the rule names any), or its path (a trailing "*" matches
// every path with that prefix).
bool RuleAllows(const endpoints::RequestInfo& request, const PolicyRule& rule);

// The parts of `wanted` (each broken down to one verb, group, resource and name, or one verb
// and path) that no rule of `held` covers; empty when `held` covers all of `wanted`.
std::vector<PolicyRule> Uncovered(const std::vector<PolicyRule>& held,
                                  const std::vector<PolicyRule>& wanted);

// Rules of one group and resource and nothing else but verbs merged into one.
std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules);
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}
std::string CompactString(const PolicyRule& rule);

}  // namespace authz::rbac
