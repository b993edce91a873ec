#pragma once
// The RBAC policy the authorizer decides with: every Role, ClusterRole, RoleBinding and
// ClusterRoleBinding, kept in memory (fed from the watch caches by whoever owns the
// stores) and indexed by subject, so that finding what applies to a user is a few lookups
// whatever the number of bindings.
//
// Thread-safe: one feeder writes (under the exclusive lock), any thread reads (shared).

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/authz/rbac/policy_rule.h"

namespace authz::rbac {

enum class PolicyKind { kRole, kClusterRole, kRoleBinding, kClusterRoleBinding };

struct Subject {
  std::string kind, name, ns;
};

struct Binding {
  std::string ns, name;  // ns: empty for a ClusterRoleBinding
  std::string role_kind, role_name;
  std::vector<Subject> subjects;
};

using RuleList = std::shared_ptr<const std::vector<PolicyRule>>;

// Where a rule comes from, as upstream describes it in "RBAC: allowed by ...":
// ClusterRoleBinding "x" of ClusterRole "y" to User "jane".
struct RuleSource {
  const Binding& binding;
  const Subject& subject;
  std::string Describe() const;
};

class PolicyIndex {
 public:
  // Replaces every object of a kind (after a list); objects are the API's JSON.
  void Replace(PolicyKind kind, const std::vector<nlohmann::json>& objects);
  void Upsert(PolicyKind kind, const nlohmann::json& object);
  void Remove(PolicyKind kind, const nlohmann::json& object);
  // Every kind was listed once.
  void MarkSynced(PolicyKind kind);
  bool Synced() const;

  // Calls visit for each rule that applies to the user in the namespace (cluster-wide ones
  // first, then the namespace's), and with an error for each binding whose role is
  // missing, until visit returns false. The lock is held meanwhile: visit must not call
  // back into the index.
  using Visitor = std::function<bool(const RuleSource* source, const PolicyRule* rule,
                                     const std::string* error)>;
  void VisitRulesFor(const authn::UserInfo& user, std::string_view ns, const Visitor& visit) const;
  // Every rule that applies, and the errors met (upstream's aggregate form; empty: none).
  std::pair<std::vector<PolicyRule>, std::string> RulesFor(const authn::UserInfo& user,
                                                           std::string_view ns) const;
  // The rules of a binding's role: roleRef kind "Role" (in ns) or "ClusterRole", or
  // upstream's NotFound message.
  std::expected<RuleList, std::string> RoleRules(std::string_view kind, std::string_view name,
                                                 std::string_view ns) const;

 private:
  // The bindings of one scope, by name and by whom they name: users (service accounts as
  // their user names) and groups.
  struct Scope {
    std::map<std::string, std::shared_ptr<const Binding>, std::less<>> by_name;
    std::unordered_map<std::string, std::set<std::string>> by_user, by_group;
    void Add(std::shared_ptr<const Binding> b);
    void Erase(const std::string& name);
    // The bindings naming the user or one of their groups, ordered by name.
    std::vector<const Binding*> For(const authn::UserInfo& user) const;
  };
  std::expected<RuleList, std::string> RoleRulesLocked(std::string_view kind, std::string_view name,
                                                       std::string_view ns) const;
  void UpsertLocked(PolicyKind kind, const nlohmann::json& object);
  void RemoveLocked(PolicyKind kind, const std::string& ns, const std::string& name);

  mutable std::shared_mutex mu_;
  std::map<std::string, RuleList, std::less<>> cluster_roles_;
  // Roles by namespace, then name (looked up without copying either).
  std::map<std::string, std::map<std::string, RuleList, std::less<>>, std::less<>> roles_;
  Scope cluster_bindings_;
  std::map<std::string, Scope, std::less<>> role_bindings_;  // by namespace
  std::set<PolicyKind> synced_;
};

// Errors as upstream aggregates them: "<error>", or "[<error>, <error>]" for several
// distinct ones; "" for none.
std::string AggregateErrors(const std::vector<std::string>& errors);

}  // namespace authz::rbac
