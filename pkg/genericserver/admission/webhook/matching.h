#pragma once
// Which admission webhooks and policies a request reaches, as upstream's predicates decide:
// the rules (operations, apiGroups, apiVersions, resources with subresources, scope), the
// namespace selector and the object selector. All but SelectorsMatch are pure functions of
// the request and one webhook.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"
#include "pkg/genericserver/apimachinery/labels/selector.h"

namespace admission::webhook {

// "CREATE", "UPDATE", "DELETE".
std::string_view OperationName(Operation operation);

// What the rules look at.
struct RuleRequest {
  Operation operation;
  std::string_view group, version, resource, subresource;
  bool cluster_scoped;  // a cluster-scoped kind, or a Namespace (rules' scope "Cluster")
};

RuleRequest RuleRequestOf(const Attributes& attributes);

// Whether any of `rules` (a RuleWithOperations array) matches: each list holds the value or
// "*"; a resource "r" matches r alone, "r/s" its subresource s, "*" every main resource,
// "*/*" everything, "r/*" r and its subresources, "*/s" every s; scope "*" (the default),
// "Cluster" or "Namespaced". `any_version` matches every apiVersions list (matchPolicy
// Equivalent, for the versions of a resource this server serves as one).
bool RulesMatch(const nlohmann::json& rules, const RuleRequest& request, bool any_version = false);
// One rule of those.
bool RuleMatches(const nlohmann::json& rule, const RuleRequest& request, bool any_version = false);

// The resources no webhook is called for (upstream's IsExemptAdmissionConfigurationResource):
// the webhook configurations and admission policies themselves.
bool ExemptResource(std::string_view group, std::string_view resource);

// A webhook's namespaceSelector or objectSelector (metav1.LabelSelector; absent or {} match
// everything); the error is upstream's selector parse error.
std::expected<apimachinery::labels::Selector, std::string> ParseSelector(
    const nlohmann::json* label_selector);

// The object selector: matches when the object's or the old object's labels match (a null
// object, which deletions have, matches only through the old one).
bool ObjectSelectorMatches(const apimachinery::labels::Selector& selector,
                           const nlohmann::json& object, const nlohmann::json* old);

// The namespaceSelector (not for cluster-scoped requests other than Namespaces; a Namespace's
// own labels on its create and update, else its namespace's, a missing namespace being
// its 404), then the objectSelector.
Awaitable<std::expected<bool, apimachinery::Status>> SelectorsMatch(
    const Stores& stores, const apimachinery::labels::Selector& namespace_selector,
    const apimachinery::labels::Selector& object_selector, const Attributes& attributes,
    const nlohmann::json& object);

}  // namespace admission::webhook
