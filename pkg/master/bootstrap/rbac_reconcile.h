#pragma once
// Upstream's reconciliation of RBAC objects (pkg/registry/rbac/reconciliation, in its
// union mode as the bootstrap uses it): what a stored role or binding lacks compared with
// the one the policy expects. Pure functions of JSON objects, no state: thread-safe.
//
// A role gets the expected labels and annotations it lacks (its own values win), the
// expected rules it does not cover (appended, broken down to one verb, group, resource and
// name each, as upstream's Covers reports them) and the expected aggregation selectors it
// lacks; an aggregation rule the policy does not expect is removed. A binding gets the
// labels, annotations and subjects it lacks; a different roleRef means recreating it. An
// object annotated rbac.authorization.kubernetes.io/autoupdate: "false" is protected: the
// result says what would change, and the caller leaves it alone.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace master::bootstrap {

enum class ReconcileOperation { kNone, kCreate, kUpdate, kRecreate };

struct ReconcileResult {
  ReconcileOperation operation = ReconcileOperation::kNone;
  bool is_protected = false;            // autoupdate "false" on the stored object
  nlohmann::json object;                // what to write (kUpdate, kCreate, kRecreate)
  std::vector<nlohmann::json> missing;  // rules or subjects the stored object lacked
};

// The broken-down servant rules no owner rule covers (empty: the owner covers them all).
std::vector<nlohmann::json> UncoveredRules(const nlohmann::json& owner_rules,
                                           const nlohmann::json& servant_rules);

// `existing` is the stored object (null: none, the result is kCreate of `expected`).
ReconcileResult ReconcileRole(const nlohmann::json& existing, const nlohmann::json& expected);
ReconcileResult ReconcileBinding(const nlohmann::json& existing, const nlohmann::json& expected);

// Upstream's log form of rules and subjects (Go's %v of the structs).
std::string FormatRules(const std::vector<nlohmann::json>& rules);
std::string FormatSubjects(const std::vector<nlohmann::json>& subjects);

}  // namespace master::bootstrap
