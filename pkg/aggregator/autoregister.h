#pragma once
// Local APIServices for what the chain serves itself, as upstream's autoregister and CRD
// registration controllers keep them: one per built-in group-version ("v1." for the core
// group, "v1.apps", ...), created or corrected at start-up and labelled
// kube-aggregator.kubernetes.io/automanaged=onstart, and one per served version of each
// CRD group (groupPriorityMinimum 1000, versionPriority 100), labelled "true" and created
// and deleted as CRDs come and go. APIServices without the label are the user's: left alone.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace aggregator {

inline constexpr char kAutomanagedLabel[] = "kube-aggregator.kubernetes.io/automanaged";

// `groups`: every group the chain serves now; `builtin`: the "group/version"s (core: "/v1")
// that are there from the start; `dynamic_synced`: whether every CRD is served (until then,
// no CRD APIService is deleted). Registers the built-in ones before the hook returns, then
// follows the groups (checked every second) until shutdown.
genericserver::PostStartHookFunc AutoRegister(
    std::shared_ptr<registry::Store> apiservices,
    std::function<std::vector<endpoints::APIGroupInfo>()> groups, std::set<std::string> builtin,
    std::function<bool()> dynamic_synced, genericserver::Lifecycle& lifecycle);

}  // namespace aggregator
