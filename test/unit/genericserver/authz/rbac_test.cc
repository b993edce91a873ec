// RBAC: rule matching, the policy index (bindings by user, group and service account, both
// scopes, missing roles), the authorizer's reasons as upstream words them, and the
// coverage check behind escalation prevention.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authz/rbac/policy_index.h"
#include "pkg/genericserver/authz/rbac/policy_rule.h"
#include "pkg/genericserver/authz/rbac/rbac_authorizer.h"
#include "test/unit/support/await.h"

using authz::Decision;
using authz::rbac::CompactRules;
using authz::rbac::CompactString;
using authz::rbac::PolicyIndex;
using authz::rbac::PolicyKind;
using authz::rbac::PolicyRule;
using authz::rbac::RuleAllows;
using authz::rbac::Uncovered;
using nlohmann::json;

namespace {

endpoints::RequestInfo Info(std::string method, std::string path) {
  endpoints::RequestInfoResolver resolver;
  return *resolver.Resolve(genericserver::Request::FromTarget(std::move(method), std::move(path)));
}

authn::UserInfo User(std::string name, std::vector<std::string> groups = {}) {
  groups.push_back("system:authenticated");
  return {std::move(name), "", std::move(groups), {}};
}

json Role(const std::string& ns, const std::string& name, json rules) {
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"metadata", meta}, {"rules", rules}};
}

json Binding(const std::string& ns, const std::string& name, const std::string& kind,
             const std::string& role, json subjects) {
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"metadata", meta},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", role}}},
          {"subjects", subjects}};
}

}  // namespace

TEST_CASE("rules match verbs, groups, resources, subresources, names and paths", "[rbac]") {
  const PolicyRule pods{{"get", "list"}, {""}, {"pods", "pods/log"}, {}, {}};
  CHECK(RuleAllows(Info("GET", "/api/v1/namespaces/ns/pods"), pods));
  CHECK(RuleAllows(Info("GET", "/api/v1/namespaces/ns/pods/p/log"), pods));
  CHECK_FALSE(RuleAllows(Info("GET", "/api/v1/namespaces/ns/pods/p/status"), pods));
  CHECK_FALSE(RuleAllows(Info("DELETE", "/api/v1/namespaces/ns/pods/p"), pods));
  CHECK_FALSE(RuleAllows(Info("GET", "/apis/apps/v1/namespaces/ns/deployments"), pods));
  const PolicyRule scale{{"*"}, {"*"}, {"*/scale"}, {}, {}};
  CHECK(RuleAllows(Info("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale"), scale));
  CHECK_FALSE(RuleAllows(Info("PUT", "/apis/apps/v1/namespaces/ns/deployments/d"), scale));
  const PolicyRule named{{"get"}, {""}, {"configmaps"}, {"a"}, {}};
  CHECK(RuleAllows(Info("GET", "/api/v1/namespaces/ns/configmaps/a"), named));
  CHECK_FALSE(RuleAllows(Info("GET", "/api/v1/namespaces/ns/configmaps/b"), named));
  CHECK_FALSE(RuleAllows(Info("GET", "/api/v1/namespaces/ns/configmaps"), named));
  const PolicyRule paths{{"get"}, {}, {}, {}, {"/healthz", "/apis/*"}};
  CHECK(RuleAllows(Info("GET", "/healthz"), paths));
  CHECK_FALSE(RuleAllows(Info("GET", "/healthz/etcd"), paths));
  CHECK(RuleAllows(Info("GET", "/apis/"), paths));
  CHECK_FALSE(RuleAllows(Info("GET", "/api"), paths));
  // Resource rules never allow paths, nor path rules resources.
  CHECK_FALSE(RuleAllows(Info("GET", "/healthz"), pods));
  CHECK_FALSE(RuleAllows(Info("GET", "/apis/apps/v1/deployments"), paths));
}

TEST_CASE("the authorizer finds bindings by user, group and service account", "[rbac]") {
  auto policy = std::make_shared<PolicyIndex>();
  policy->Replace(PolicyKind::kClusterRole,
                  {Role("", "reader", json::parse(R"([{"verbs":["get","list"],"apiGroups":[""],
                                                      "resources":["configmaps"]}])")),
                   Role("", "health", json::parse(R"([{"verbs":["get"],
                                                      "nonResourceURLs":["/healthz"]}])"))});
  policy->Replace(PolicyKind::kRole, {Role("ns", "secrets", json::parse(R"([{"verbs":["get"],
                                          "apiGroups":[""],"resources":["secrets"]}])"))});
  policy->Replace(PolicyKind::kClusterRoleBinding,
                  {Binding("", "all-health", "ClusterRole", "health",
                           json::parse(R"([{"kind":"Group","name":"system:authenticated"}])")),
                   Binding("", "gone", "ClusterRole", "missing",
                           json::parse(R"([{"kind":"User","name":"bob"}])"))});
  policy->Replace(
      PolicyKind::kRoleBinding,
      {Binding(
           "ns", "read", "ClusterRole", "reader",
           json::parse(R"([{"kind":"User","name":"jane"},{"kind":"ServiceAccount","name":"sa"}])")),
       Binding("ns", "secret", "Role", "secrets",
               json::parse(R"([{"kind":"Group","name":"ops"}])"))});
  auto rbac = authz::rbac::NewRBACAuthorizer(policy);
  auto decide = [&](const authn::UserInfo& u, const char* method, const char* path) {
    const endpoints::RequestInfo info = Info(method, path);
    const authz::Attributes attributes{u, info};
    return testsupport::AwaitNow(rbac->Authorize(attributes));
  };

  auto r = decide(User("jane"), "GET", "/api/v1/namespaces/ns/configmaps");
  CHECK(r.decision == Decision::kAllow);
  CHECK(r.reason ==
        R"(RBAC: allowed by RoleBinding "read/ns" of ClusterRole "reader" to User "jane")");
  // The binding is the namespace's: nowhere else, nor cluster-wide.
  CHECK(decide(User("jane"), "GET", "/api/v1/namespaces/other/configmaps").decision ==
        Decision::kNoOpinion);
  CHECK(decide(User("jane"), "GET", "/api/v1/configmaps").decision == Decision::kNoOpinion);
  CHECK(decide(User("jane"), "DELETE", "/api/v1/namespaces/ns/configmaps/c").decision ==
        Decision::kNoOpinion);
  // A ServiceAccount subject without a namespace is the binding's namespace's.
  r = decide(User("system:serviceaccount:ns:sa"), "GET", "/api/v1/namespaces/ns/configmaps/c");
  CHECK(
      r.reason ==
      R"(RBAC: allowed by RoleBinding "read/ns" of ClusterRole "reader" to ServiceAccount "sa/ns")");
  CHECK(decide(User("system:serviceaccount:other:sa"), "GET", "/api/v1/namespaces/ns/configmaps")
            .decision == Decision::kNoOpinion);
  // Groups, and a Role of the binding's namespace.
  r = decide(User("carol", {"ops"}), "GET", "/api/v1/namespaces/ns/secrets/s");
  CHECK(r.reason == R"(RBAC: allowed by RoleBinding "secret/ns" of Role "secrets" to Group "ops")");
  r = decide(User("carol"), "GET", "/healthz");
  CHECK(
      r.reason ==
      R"(RBAC: allowed by ClusterRoleBinding "all-health" of ClusterRole "health" to Group "system:authenticated")");
  // A binding to a missing role: no opinion, the missing role as the reason.
  r = decide(User("bob"), "GET", "/api/v1/pods");
  CHECK(r.decision == Decision::kNoOpinion);
  CHECK(r.reason == R"(RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found)");
  // Nobody bound: no opinion, no reason.
  r = decide(User("zed"), "GET", "/api/v1/pods");
  CHECK(r.decision == Decision::kNoOpinion);
  CHECK(r.reason.empty());

  // Changes: a removed binding no longer applies, an updated one applies as updated.
  policy->Remove(PolicyKind::kRoleBinding, Binding("ns", "read", "", "", json::array()));
  CHECK(decide(User("jane"), "GET", "/api/v1/namespaces/ns/configmaps").decision ==
        Decision::kNoOpinion);
  policy->Upsert(PolicyKind::kRoleBinding,
                 Binding("ns", "secret", "Role", "secrets",
                         json::parse(R"([{"kind":"User","name":"jane"}])")));
  CHECK(decide(User("jane"), "GET", "/api/v1/namespaces/ns/secrets/s").decision ==
        Decision::kAllow);
  CHECK(decide(User("carol", {"ops"}), "GET", "/api/v1/namespaces/ns/secrets/s").decision ==
        Decision::kNoOpinion);

  // What a user may do, as SelfSubjectRulesReview lists it.
  const authz::Rules rules = rbac->RulesFor(User("bob"), "ns");
  CHECK(rules.resource_rules.empty());
  REQUIRE(rules.non_resource_rules.size() == 1);
  CHECK(rules.non_resource_rules[0].non_resource_urls == std::vector<std::string>{"/healthz"});
  CHECK(rules.evaluation_error == R"(clusterrole.rbac.authorization.k8s.io "missing" not found)");
}

TEST_CASE("coverage: what held rules lack of wanted ones, compacted as upstream", "[rbac]") {
  const std::vector<PolicyRule> held = {{{"get", "list"}, {""}, {"pods", "*/status"}, {}, {}},
                                        {{"get"}, {"apps"}, {"deployments"}, {"d"}, {}},
                                        {{"get"}, {}, {}, {}, {"/logs/*"}}};
  CHECK(Uncovered(held, {{{"get"}, {""}, {"pods", "pods/status"}, {}, {}}}).empty());
  CHECK(Uncovered(held, {{{"get"}, {"apps"}, {"deployments"}, {"d"}, {}}}).empty());
  CHECK(Uncovered(held, {{{"get"}, {}, {}, {}, {"/logs/a/b"}}}).empty());
  // A rule for every name is not covered by one for some names.
  CHECK(Uncovered(held, {{{"get"}, {"apps"}, {"deployments"}, {}, {}}}).size() == 1);
  const auto missing =
      Uncovered(held, {{{"get", "delete", "watch"}, {""}, {"pods", "secrets"}, {}, {}}});
  REQUIRE(missing.size() == 5);  // delete and watch pods, every verb on secrets
  const auto compact = CompactRules(missing);
  REQUIRE(compact.size() == 2);
  CHECK(CompactString(compact[0]) ==
        R"({APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]})");
  CHECK(CompactString(compact[1]) ==
        R"({APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "watch"]})");
  CHECK(CompactString({{"get"}, {}, {}, {}, {"/x"}}) ==
        R"({NonResourceURLs:["/x"], Verbs:["get"]})");
  // Everything covers everything.
  const std::vector<PolicyRule> all = {{{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}};
  CHECK(Uncovered(all, held).empty());
}
