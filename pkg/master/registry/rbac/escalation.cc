#include "pkg/master/registry/rbac/escalation.h"

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/strings.h"

namespace master::resources {
namespace {

using authz::rbac::PolicyRule;
using nlohmann::json;

constexpr char kGroup[] = "rbac.authorization.k8s.io";

// The user may `verb` the RBAC resource (a role) named `name` in `ns`.
Awaitable<bool> Authorized(const authz::Authorizer& authorizer, const authn::UserInfo& user,
                           std::string verb, std::string resource, std::string ns,
                           std::string name) {
  const endpoints::RequestInfo r = endpoints::ResourceRequest(
      std::move(verb), kGroup, std::move(resource), std::move(ns), std::move(name));
  const authz::Attributes attributes{user, r};
  const authz::AuthorizationResult result = co_await authorizer.Authorize(attributes);
  co_return result.decision == authz::Decision::kAllow;
}

// Only what garbage collection touches (and what the server maintains) changed.
bool OnlyGCFieldsChanged(const json& object, const json* old) {
  if (!old) return false;
  auto strip = [](json o) {
    if (o.contains("metadata") && o["metadata"].is_object()) {
      for (const char* f : {"ownerReferences", "finalizers", "managedFields", "resourceVersion"}) {
        o["metadata"].erase(f);
      }
    }
    return o;
  };
  return strip(object) == strip(*old);
}

// Upstream's ConfirmNoEscalation: the message when the user's rules in ns miss some of
// `wanted`, else nothing.
std::optional<std::string> Escalation(const authz::rbac::PolicyIndex& policy,
                                      const authn::UserInfo& user, const std::string& ns,
                                      const std::vector<PolicyRule>& wanted) {
  auto [held, errors] = policy.RulesFor(user, ns);
  const std::vector<PolicyRule> missing = Uncovered(held, wanted);
  if (missing.empty()) return std::nullopt;
  std::set<std::string> lines;
  for (const PolicyRule& r : authz::rbac::CompactRules(missing)) {
    lines.insert(authz::rbac::CompactString(r));
  }
  std::string msg = "user " + util::Quote(user.name) + " (groups=" + util::QuoteList(user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:\n" +
                    util::Join(std::vector<std::string>(lines.begin(), lines.end()), "\n");
  if (!errors.empty()) msg += "; resolution errors: [" + errors + "]";
  return msg;
}

const std::vector<PolicyRule>& FullAuthority() {
  static const std::vector<PolicyRule> all = {{{"*"}, {"*"}, {"*"}, {}, {}},
                                              {{"*"}, {}, {}, {}, {"*"}}};
  return all;
}

bool HasAggregationRule(const json* role) {
  return role && role->is_object() && role->contains("aggregationRule") &&
         !(*role)["aggregationRule"].is_null();
}

// What a write of a role or binding is checked with.
struct Write {
  const registry::ResourceSpec& spec;
  const authz::rbac::PolicyIndex& policy;
  const authn::UserInfo& user;
  const json& object;
  const json* old;
  std::string ns = registry::MetaString(object, "namespace");
  std::string name = registry::MetaString(object, "name");
};

// may_escalate: the user is authorized to "escalate" the role.
std::optional<apimachinery::Status> CheckRole(const Write& w, bool may_escalate) {
  const auto& [spec, policy, user, object, old, ns, name] = w;
  if (may_escalate || OnlyGCFieldsChanged(object, old)) return std::nullopt;
  const apimachinery::GroupResource resource{kGroup, spec.plural};
  if (auto msg = Escalation(policy, user, ns, authz::rbac::RulesOf(object))) {
    return apimachinery::NewForbidden(resource, name, *msg);
  }
  // An aggregation rule can gather anything: it takes every permission.
  if ((HasAggregationRule(&object) || HasAggregationRule(old)) &&
      Escalation(policy, user, ns, FullAuthority())) {
    return apimachinery::NewForbidden(resource, name,
                                      "must have cluster-admin privileges to use the "
                                      "aggregationRule");
  }
  return std::nullopt;
}

// The role a binding refers to: kind and name.
std::pair<std::string, std::string> RoleRef(const json& binding) {
  const json& ref = binding.value("roleRef", json::object());
  if (!ref.is_object()) return {};
  return {ref.value("kind", ""), ref.value("name", "")};
}

// may_bind: the user is authorized to "bind" the role referred to.
std::optional<apimachinery::Status> CheckBinding(const Write& w, bool may_bind) {
  const auto& [spec, policy, user, object, old, ns, name] = w;
  const auto [kind, role] = RoleRef(object);
  if (may_bind || OnlyGCFieldsChanged(object, old)) return std::nullopt;
  auto rules = policy.RoleRules(kind, role, ns);
  if (!rules) {
    if (kind == "ClusterRole" || kind == "Role") {
      return apimachinery::NewNotFound({kGroup, kind == "Role" ? "role" : "clusterrole"}, role);
    }
    return apimachinery::NewInternalError(rules.error());
  }
  if (auto msg = Escalation(policy, user, ns, **rules)) {
    return apimachinery::NewForbidden({kGroup, spec.plural}, name, *msg);
  }
  return std::nullopt;
}

}  // namespace

registry::Admission PreventRBACEscalation(authz::AuthorizerPtr authorizer,
                                          std::shared_ptr<const authz::rbac::PolicyIndex> policy,
                                          registry::Admission next) {
  registry::MutateFunc then = std::move(next.mutate);
  next.mutate =
      [authorizer, policy, then](
          const registry::ResourceSpec& spec, json& object, const json* old,
          const registry::WriteOptions& options) -> Awaitable<std::optional<apimachinery::Status>> {
    if (then) {
      if (auto denied = co_await then(spec, object, old, options)) co_return denied;
    }
    if (spec.group != kGroup || !options.user ||
        options.user->InGroup(authn::kSystemPrivilegedGroup)) {
      co_return std::nullopt;
    }
    const Write w{spec, *policy, *options.user, object, old};
    if (spec.plural == "roles" || spec.plural == "clusterroles") {
      const bool may_escalate =
          co_await Authorized(*authorizer, w.user, "escalate", spec.plural, w.ns, w.name);
      co_return CheckRole(w, may_escalate);
    }
    if (spec.plural == "rolebindings" || spec.plural == "clusterrolebindings") {
      const auto [kind, role] = RoleRef(object);
      bool may_bind = false;
      if (kind == "ClusterRole" || kind == "Role") {
        const std::string resource = kind == "Role" ? "roles" : "clusterroles";
        may_bind = co_await Authorized(*authorizer, w.user, "bind", resource, w.ns, role);
      }
      co_return CheckBinding(w, may_bind);
    }
    co_return std::nullopt;
  };
  return next;
}

}  // namespace master::resources
