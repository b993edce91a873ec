// Upstream's RBAC reconciliation in its union mode (rbac_reconcile.h) and the embedded
// bootstrap policy (rbac_policy.h).
#include "pkg/master/bootstrap/rbac_reconcile.h"

#include <catch2/catch.hpp>

#include <set>

#include "pkg/master/bootstrap/rbac_policy.h"

namespace {

using master::bootstrap::BootstrapRBACPolicy;
using master::bootstrap::ReconcileBinding;
using master::bootstrap::ReconcileOperation;
using master::bootstrap::ReconcileRole;
using master::bootstrap::UncoveredRules;
using nlohmann::json;

const json& PolicyRole(const std::string& name) {
  for (const json& r : BootstrapRBACPolicy().cluster_roles) {
    if (r["metadata"]["name"] == name) return r;
  }
  FAIL("no bootstrap cluster role " << name);
  static const json none;
  return none;
}

const json& PolicyBinding(const std::string& name) {
  for (const json& b : BootstrapRBACPolicy().cluster_role_bindings) {
    if (b["metadata"]["name"] == name) return b;
  }
  FAIL("no bootstrap cluster role binding " << name);
  static const json none;
  return none;
}

json Stored(json object) {
  object["metadata"]["resourceVersion"] = "7";
  object["metadata"]["uid"] = "u-1";
  return object;
}

}  // namespace

TEST_CASE("rbac bootstrap: covering rules as upstream's Covers", "[rbac-bootstrap]") {
  const json admin = json::parse(R"([{"apiGroups":["*"],"resources":["*"],"verbs":["*"]},
                                     {"nonResourceURLs":["*"],"verbs":["*"]}])");
  CHECK(UncoveredRules(admin, PolicyRole("system:node")["rules"]).empty());
  CHECK(UncoveredRules(admin, PolicyRole("system:discovery")["rules"]).empty());

  // Subresources by "*/<sub>", URLs by a trailing "*", names only by no names or the same.
  const json owner = json::parse(R"([{"apiGroups":["*"],"resources":["*/scale"],"verbs":["get"]},
      {"nonResourceURLs":["/healthz/*"],"verbs":["get"]},
      {"apiGroups":[""],"resources":["configmaps"],"resourceNames":["a"],"verbs":["update"]}])");
  const json servant = json::parse(R"([{"apiGroups":["apps"],"resources":["deployments/scale",
      "deployments"],"verbs":["get"]},{"nonResourceURLs":["/healthz/etcd","/livez"],"verbs":["get"]},
      {"apiGroups":[""],"resources":["configmaps"],"resourceNames":["a","b"],"verbs":["update"]}])");
  const std::vector<json> uncovered = UncoveredRules(owner, servant);
  const std::vector<json> want = {
      json::parse(R"({"apiGroups":["apps"],"resources":["deployments"],"verbs":["get"]})"),
      json::parse(R"({"nonResourceURLs":["/livez"],"verbs":["get"]})"),
      json::parse(R"({"apiGroups":[""],"resources":["configmaps"],"resourceNames":["b"],
                      "verbs":["update"]})")};
  CHECK(uncovered == want);
}

TEST_CASE("rbac bootstrap: a role gets back what it lacks, its own changes kept",
          "[rbac-bootstrap]") {
  const json& expected = PolicyRole("system:node-proxier");
  // Unchanged: nothing to do.
  CHECK(ReconcileRole(Stored(expected), expected).operation == ReconcileOperation::kNone);
  CHECK(ReconcileRole(json(), expected).operation == ReconcileOperation::kCreate);

  // A rule removed, a label changed, one added, an annotation removed.
  json edited = Stored(expected);
  edited["rules"].erase(edited["rules"].begin() + 1);  // nodes get/list/watch
  edited["rules"].push_back(
      json::parse(R"({"apiGroups":[""],"resources":["pods"],"verbs":["get"]})"));
  edited["metadata"]["labels"]["kubernetes.io/bootstrapping"] = "mine";
  edited["metadata"]["labels"]["team"] = "a";
  edited["metadata"].erase("annotations");
  const auto r = ReconcileRole(edited, expected);
  REQUIRE(r.operation == ReconcileOperation::kUpdate);
  CHECK_FALSE(r.is_protected);
  CHECK(r.missing.size() == 3);  // broken down: one per verb
  CHECK(r.object["rules"].size() == edited["rules"].size() + 3);
  CHECK(r.object["rules"].back() ==
        json::parse(R"({"apiGroups":[""],"resources":["nodes"],"verbs":["watch"]})"));
  CHECK(r.object["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "mine");
  CHECK(r.object["metadata"]["labels"]["team"] == "a");
  CHECK(r.object["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] ==
        "true");
  CHECK(r.object["metadata"]["resourceVersion"] == "7");  // an update of the stored one

  // Protected: reported, and the caller writes nothing.
  edited["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false";
  const auto p = ReconcileRole(edited, expected);
  CHECK(p.is_protected);
  CHECK(p.operation == ReconcileOperation::kUpdate);
}

TEST_CASE("rbac bootstrap: aggregated roles keep their rules, get their selectors",
          "[rbac-bootstrap]") {
  const json& view = PolicyRole("view");
  REQUIRE(view["aggregationRule"]["clusterRoleSelectors"].size() == 1);
  // The aggregation controller's rules are not the bootstrap's business.
  json aggregated = Stored(view);
  aggregated["rules"] = PolicyRole("system:aggregate-to-view")["rules"];
  CHECK(ReconcileRole(aggregated, view).operation == ReconcileOperation::kNone);
  // A selector removed comes back, one added stays.
  json other = aggregated;
  other["aggregationRule"]["clusterRoleSelectors"] =
      json::parse(R"([{"matchLabels":{"mine":"true"}}])");
  const auto r = ReconcileRole(other, view);
  REQUIRE(r.operation == ReconcileOperation::kUpdate);
  CHECK(r.object["aggregationRule"]["clusterRoleSelectors"].size() == 2);
  CHECK(r.object["rules"] == aggregated["rules"]);
  // An aggregation the policy does not have goes.
  json made = Stored(PolicyRole("system:basic-user"));
  made["aggregationRule"] = view["aggregationRule"];
  const auto m = ReconcileRole(made, PolicyRole("system:basic-user"));
  REQUIRE(m.operation == ReconcileOperation::kUpdate);
  CHECK_FALSE(m.object.contains("aggregationRule"));
}

TEST_CASE("rbac bootstrap: bindings get their subjects; another roleRef is recreated",
          "[rbac-bootstrap]") {
  const json& expected = PolicyBinding("system:public-info-viewer");
  CHECK(ReconcileBinding(Stored(expected), expected).operation == ReconcileOperation::kNone);
  json edited = Stored(expected);
  edited["subjects"] = json::parse(
      R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"},
          {"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}])");
  const auto r = ReconcileBinding(edited, expected);
  REQUIRE(r.operation == ReconcileOperation::kUpdate);
  REQUIRE(r.missing.size() == 1);
  CHECK(r.missing[0]["name"] == "system:unauthenticated");
  CHECK(r.object["subjects"].size() == 3);
  CHECK(r.object["subjects"][0]["name"] == "alice");

  json other_role = Stored(expected);
  other_role["roleRef"]["name"] = "view";
  const auto re = ReconcileBinding(other_role, expected);
  CHECK(re.operation == ReconcileOperation::kRecreate);
  CHECK(re.object == expected);
  // system:node binds nobody: nothing to add to a binding with subjects.
  json node = Stored(PolicyBinding("system:node"));
  node["subjects"] =
      json::parse(R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"g"}])");
  CHECK(ReconcileBinding(node, PolicyBinding("system:node")).operation ==
        ReconcileOperation::kNone);
}

TEST_CASE("rbac bootstrap: the embedded policy is upstream 1.32's", "[rbac-bootstrap]") {
  const auto& policy = BootstrapRBACPolicy();
  CHECK(policy.cluster_roles.size() == 31 + 33);
  CHECK(policy.cluster_role_bindings.size() == 12 + 33);
  CHECK(policy.roles.size() == 7);
  CHECK(policy.role_bindings.size() == 7);
  std::set<std::string> roles, bindings;
  for (const json& r : policy.cluster_roles) {
    roles.insert(r["metadata"]["name"].get<std::string>());
    CHECK(r["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults");
    CHECK(r["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] == "true");
  }
  for (const json& b : policy.cluster_role_bindings) {
    bindings.insert(b["metadata"]["name"].get<std::string>());
    CHECK(roles.contains(b["roleRef"]["name"].get<std::string>()));
  }
  // Every controller's role is bound to its service account in kube-system.
  for (const std::string& name : roles) {
    if (name.starts_with("system:controller:")) CHECK(bindings.contains(name));
  }
  for (const char* name :
       {"system:controller:validatingadmissionpolicy-status-controller",
        "system:controller:legacy-service-account-token-cleaner", "system:monitoring",
        "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver"}) {
    CHECK(roles.contains(name));
  }
  // Feature-gated in 1.32 and off by default: not bootstrapped.
  for (const char* name :
       {"system:controller:resource-claim-controller", "system:controller:service-cidrs-controller",
        "system:controller:selinux-warning-controller"}) {
    CHECK_FALSE(roles.contains(name));
  }
}
