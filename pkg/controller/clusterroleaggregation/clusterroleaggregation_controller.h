#pragma once
// clusterrole-aggregation-controller: a ClusterRole with an aggregationRule gets as rules
// the union of the rules of every other ClusterRole any of its clusterRoleSelectors
// selects, in the order of the selected roles' names, each rule once (so `admin`, `edit` and
// `view` carry what the `aggregate-to-*` roles grant). Any ClusterRole change queues every
// aggregated role; the sync writes the rules when they differ.
//
// Threads: the handler runs on the informer's strand and only enqueues; the sync runs on
// the queue's strand.

#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/client/informer/shared_informer.h"
#include "pkg/controller/controller_context.h"

namespace controller::clusterroleaggregation {

// The rules `role` should have given every ClusterRole; std::nullopt when it aggregates
// nothing (no aggregationRule). An invalid selector is an error.
std::expected<std::optional<nlohmann::json>, std::string> AggregatedRules(
    const nlohmann::json& role, const std::vector<client::ObjectPtr>& all_roles);

std::expected<InitResult, std::string> StartClusterRoleAggregationController(
    ControllerContext& ctx);

}  // namespace controller::clusterroleaggregation
