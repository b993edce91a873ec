"""Integration tests: upstream 1.32's RBAC bootstrap policy, created and reconciled by the
real kube-apiserver binary at every start (post-start hook rbac/bootstrap-roles), seen
through real kubectl.

What a user sees: `kubectl get clusterroles` lists upstream's roles labelled
kubernetes.io/bootstrapping=rbac-defaults, with upstream's rules, aggregation rules,
labels and annotations; cluster-admin is bound to system:masters; a bootstrap role a user
changed gets what it lost back at the next start unless it is annotated
rbac.authorization.kubernetes.io/autoupdate: "false"; with the real
kube-controller-manager, view, edit and admin carry the union of the roles they aggregate.
They are enforced with --authorization-mode=RBAC (test_rbac.py).

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_rbac_bootstrap -v
"""

import json
import unittest

import harness
import kcm_cluster
from harness import wait_for

RBAC = "rbac.authorization.k8s.io"

# Upstream 1.32's bootstrap ClusterRoles (cluster-roles.yaml and controller-roles.yaml).
CLUSTER_ROLES = [
    "admin", "cluster-admin", "edit", "view",
    "system:aggregate-to-admin", "system:aggregate-to-edit", "system:aggregate-to-view",
    "system:auth-delegator", "system:basic-user",
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    "system:certificates.k8s.io:kube-apiserver-client-approver",
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
    "system:certificates.k8s.io:kubelet-serving-approver",
    "system:certificates.k8s.io:legacy-unknown-approver",
    "system:discovery", "system:heapster", "system:kube-aggregator",
    "system:kube-controller-manager", "system:kube-dns", "system:kube-scheduler",
    "system:kubelet-api-admin", "system:monitoring", "system:node", "system:node-bootstrapper",
    "system:node-problem-detector", "system:node-proxier", "system:persistent-volume-provisioner",
    "system:public-info-viewer", "system:service-account-issuer-discovery",
    "system:volume-scheduler",
]
CONTROLLERS = [
    "attachdetach-controller", "certificate-controller", "clusterrole-aggregation-controller",
    "cronjob-controller", "daemon-set-controller", "deployment-controller",
    "disruption-controller", "endpoint-controller", "endpointslice-controller",
    "endpointslicemirroring-controller", "ephemeral-volume-controller", "expand-controller",
    "generic-garbage-collector", "horizontal-pod-autoscaler", "job-controller",
    "legacy-service-account-token-cleaner", "namespace-controller", "node-controller",
    "persistent-volume-binder", "pod-garbage-collector", "pv-protection-controller",
    "pvc-protection-controller", "replicaset-controller", "replication-controller",
    "resourcequota-controller", "root-ca-cert-publisher", "route-controller",
    "service-account-controller", "service-controller", "statefulset-controller",
    "ttl-after-finished-controller", "ttl-controller",
    "validatingadmissionpolicy-status-controller",
]
CLUSTER_ROLE_BINDINGS = [
    "cluster-admin", "system:basic-user", "system:discovery", "system:kube-controller-manager",
    "system:kube-dns", "system:kube-scheduler", "system:monitoring", "system:node",
    "system:node-proxier", "system:public-info-viewer",
    "system:service-account-issuer-discovery", "system:volume-scheduler",
]
ROLES = {
    "kube-system": ["extension-apiserver-authentication-reader",
                    "system::leader-locking-kube-controller-manager",
                    "system::leader-locking-kube-scheduler", "system:controller:bootstrap-signer",
                    "system:controller:cloud-provider", "system:controller:token-cleaner"],
    "kube-public": ["system:controller:bootstrap-signer"],
}
ROLE_BINDINGS = {
    "kube-system": ["system::extension-apiserver-authentication-reader",
                    "system::leader-locking-kube-controller-manager",
                    "system::leader-locking-kube-scheduler", "system:controller:bootstrap-signer",
                    "system:controller:cloud-provider", "system:controller:token-cleaner"],
    "kube-public": ["system:controller:bootstrap-signer"],
}


def rule(verbs, groups=None, resources=None, names=None, urls=None):
    """A rule as upstream's golden files print it (keys in JSON order)."""
    r = {}
    if groups is not None:
        r["apiGroups"] = groups
    if urls is not None:
        r["nonResourceURLs"] = urls
    if names is not None:
        r["resourceNames"] = names
    if resources is not None:
        r["resources"] = resources
    r["verbs"] = verbs
    return r


EVENTS = rule(["create", "patch", "update"], ["", "events.k8s.io"], ["events"])
READ = ["get", "list", "watch"]

# A few roles exactly as upstream 1.32's golden files have them.
GOLDEN_CLUSTER_ROLES = {
    "cluster-admin": [rule(["*"], ["*"], ["*"]), rule(["*"], urls=["*"])],
    "system:basic-user": [
        rule(["create"], ["authorization.k8s.io"],
             ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
        rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ],
    "system:discovery": [rule(["get"], urls=["/api", "/api/*", "/apis", "/apis/*", "/healthz",
                                             "/livez", "/openapi", "/openapi/*", "/readyz",
                                             "/version", "/version/"])],
    "system:monitoring": [rule(["get"], urls=["/healthz", "/healthz/*", "/livez", "/livez/*",
                                              "/metrics", "/metrics/slis", "/readyz",
                                              "/readyz/*"])],
    "system:aggregate-to-admin": [
        rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
        rule(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
             [RBAC], ["rolebindings", "roles"]),
    ],
    "system:kube-controller-manager": [
        EVENTS,
        rule(["create"], ["coordination.k8s.io"], ["leases"]),
        rule(["get", "update"], ["coordination.k8s.io"], ["leases"],
             names=["kube-controller-manager"]),
        rule(["create"], [""], ["secrets", "serviceaccounts"]),
        rule(["delete"], [""], ["secrets"]),
        rule(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
        rule(["update"], [""], ["secrets", "serviceaccounts"]),
        rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
        rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
        rule(["list", "watch"], ["*"], ["*"]),
        rule(["create"], [""], ["serviceaccounts/token"]),
    ],
    "system:service-account-issuer-discovery": [
        rule(["get"], urls=["/.well-known/openid-configuration",
                            "/.well-known/openid-configuration/", "/openid/v1/jwks",
                            "/openid/v1/jwks/"])],
    "system:controller:legacy-service-account-token-cleaner": [
        rule(["get"], [""], ["configmaps"],
             names=["kube-apiserver-legacy-service-account-token-tracking"]),
        rule(["delete", "patch"], [""], ["secrets"]),
    ],
    "system:controller:validatingadmissionpolicy-status-controller": [
        rule(READ, ["admissionregistration.k8s.io"], ["validatingadmissionpolicies"]),
        rule(["get", "patch", "update"], ["admissionregistration.k8s.io"],
             ["validatingadmissionpolicies/status"]),
        EVENTS,
    ],
    "system:controller:certificate-controller": [
        rule(["delete", "get", "list", "watch"], ["certificates.k8s.io"],
             ["certificatesigningrequests"]),
        rule(["update"], ["certificates.k8s.io"],
             ["certificatesigningrequests/approval", "certificatesigningrequests/status"]),
        rule(["approve"], ["certificates.k8s.io"], ["signers"],
             names=["kubernetes.io/kube-apiserver-client-kubelet"]),
        rule(["sign"], ["certificates.k8s.io"], ["signers"],
             names=["kubernetes.io/kube-apiserver-client",
                    "kubernetes.io/kube-apiserver-client-kubelet",
                    "kubernetes.io/kubelet-serving", "kubernetes.io/legacy-unknown"]),
        rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
        EVENTS,
    ],
}
GOLDEN_ROLES = {
    ("kube-system", "system::leader-locking-kube-scheduler"): [
        rule(["watch"], [""], ["configmaps"]),
        rule(["get", "update"], [""], ["configmaps"], names=["kube-scheduler"]),
        rule(["create", "get", "list", "update", "watch"], ["coordination.k8s.io"], ["leases"]),
        rule(["create", "get", "list", "update", "watch"], ["coordination.k8s.io"],
             ["leasecandidates"]),
    ],
    ("kube-system", "extension-apiserver-authentication-reader"): [
        rule(READ, [""], ["configmaps"], names=["extension-apiserver-authentication"])],
    ("kube-public", "system:controller:bootstrap-signer"): [
        rule(READ, [""], ["configmaps"]),
        rule(["update"], [""], ["configmaps"], names=["cluster-info"]),
        EVENTS,
    ],
}


def names_of(out):
    return sorted(line.split("/", 1)[1] for line in out.split())


class _Server(unittest.TestCase):
    def kubectl(self, *args):
        r = self.server.kubectl(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def get(self, *args):
        return json.loads(self.kubectl("get", *args, "-o", "json"))


class BootstrapObjectsTest(_Server):
    """A fresh server: every bootstrap object exists, as upstream's."""

    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_cluster_roles_listed_with_the_bootstrapping_label(self):
        out = self.kubectl("get", "clusterroles", "-l", "kubernetes.io/bootstrapping=rbac-defaults",
                           "-o", "name")
        want = CLUSTER_ROLES + ["system:controller:" + c for c in CONTROLLERS]
        self.assertEqual(names_of(out), sorted(want))
        # The table kubectl prints: NAME and CREATED AT.
        table = self.kubectl("get", "clusterroles", "cluster-admin", "view")
        self.assertEqual(table.split("\n")[0].split(), ["NAME", "CREATED", "AT"])

    def test_bindings_and_namespaced_objects(self):
        out = self.kubectl("get", "clusterrolebindings",
                           "-l", "kubernetes.io/bootstrapping=rbac-defaults", "-o", "name")
        want = CLUSTER_ROLE_BINDINGS + ["system:controller:" + c for c in CONTROLLERS]
        self.assertEqual(names_of(out), sorted(want))
        for ns, names in ROLES.items():
            self.assertEqual(names_of(self.kubectl("get", "roles", "-n", ns, "-o", "name")),
                             sorted(names))
        for ns, names in ROLE_BINDINGS.items():
            self.assertEqual(names_of(self.kubectl("get", "rolebindings", "-n", ns, "-o", "name")),
                             sorted(names))
        # Every controller's role is bound to its service account.
        binding = self.get("clusterrolebinding", "system:controller:namespace-controller")
        self.assertEqual(binding["roleRef"], {"apiGroup": RBAC, "kind": "ClusterRole",
                                              "name": "system:controller:namespace-controller"})
        self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount",
                                                "name": "namespace-controller",
                                                "namespace": "kube-system"}])
        leader = self.get("rolebinding", "-n", "kube-system",
                          "system::leader-locking-kube-controller-manager")
        self.assertEqual(leader["subjects"], [
            {"apiGroup": RBAC, "kind": "User", "name": "system:kube-controller-manager"},
            {"kind": "ServiceAccount", "name": "kube-controller-manager",
             "namespace": "kube-system"},
            {"kind": "ServiceAccount", "name": "leader-election-controller",
             "namespace": "kube-system"}])

    def test_view_has_upstreams_aggregation_rule(self):
        out = self.kubectl("get", "clusterrole", "view", "-o", "yaml")
        self.assertTrue(out.startswith(
            "aggregationRule:\n"
            "  clusterRoleSelectors:\n"
            "  - matchLabels:\n"
            "      rbac.authorization.k8s.io/aggregate-to-view: \"true\"\n"), out)
        self.assertIn("  annotations:\n"
                      "    rbac.authorization.kubernetes.io/autoupdate: \"true\"\n", out)
        self.assertIn("  labels:\n"
                      "    kubernetes.io/bootstrapping: rbac-defaults\n"
                      "    rbac.authorization.k8s.io/aggregate-to-edit: \"true\"\n"
                      "  name: view\n", out)
        for name, label in (("edit", "admin"), ("admin", None)):
            role = self.get("clusterrole", name)
            self.assertEqual(role["aggregationRule"], {"clusterRoleSelectors": [
                {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-" + name: "true"}}]})
            labels = role["metadata"]["labels"]
            if label:
                self.assertEqual(labels["rbac.authorization.k8s.io/aggregate-to-" + label], "true")
            else:
                self.assertEqual(labels, {"kubernetes.io/bootstrapping": "rbac-defaults"})
        parts = self.get("clusterroles", "-l", "rbac.authorization.k8s.io/aggregate-to-view=true")
        self.assertEqual([r["metadata"]["name"] for r in parts["items"]],
                         ["system:aggregate-to-view"])

    def test_cluster_admin_is_bound_to_system_masters(self):
        role = self.get("clusterrole", "cluster-admin")
        self.assertEqual(role["rules"], GOLDEN_CLUSTER_ROLES["cluster-admin"])
        self.assertEqual(role["metadata"]["annotations"],
                         {"rbac.authorization.kubernetes.io/autoupdate": "true"})
        binding = self.get("clusterrolebinding", "cluster-admin")
        self.assertEqual(binding["roleRef"],
                         {"apiGroup": RBAC, "kind": "ClusterRole", "name": "cluster-admin"})
        self.assertEqual(binding["subjects"],
                         [{"apiGroup": RBAC, "kind": "Group", "name": "system:masters"}])
        wide = self.kubectl("get", "clusterrolebinding", "cluster-admin", "-o", "wide")
        row = wide.split("\n")[1].split()
        self.assertEqual(row[:2], ["cluster-admin", "ClusterRole/cluster-admin"])
        self.assertIn("system:masters", row)
        # The other bindings' subjects.
        viewer = self.get("clusterrolebinding", "system:public-info-viewer")
        self.assertEqual(viewer["subjects"], [
            {"apiGroup": RBAC, "kind": "Group", "name": "system:authenticated"},
            {"apiGroup": RBAC, "kind": "Group", "name": "system:unauthenticated"}])
        self.assertNotIn("subjects", self.get("clusterrolebinding", "system:node"))

    def test_rules_are_the_golden_files(self):
        for name, rules in GOLDEN_CLUSTER_ROLES.items():
            with self.subTest(name=name):
                role = self.get("clusterrole", name)
                # Byte for byte, in upstream's order.
                self.assertEqual(json.dumps(role["rules"]), json.dumps(rules))
                self.assertEqual(role["metadata"]["labels"]["kubernetes.io/bootstrapping"],
                                 "rbac-defaults")
        for (ns, name), rules in GOLDEN_ROLES.items():
            with self.subTest(name=name, namespace=ns):
                role = self.get("role", "-n", ns, name)
                self.assertEqual(json.dumps(role["rules"]), json.dumps(rules))

    def test_health_checks_list_the_hook(self):
        for path in ("/healthz", "/livez", "/readyz"):
            status, _, body = self.server.request("GET", path + "?verbose")
            self.assertEqual(status, 200, body)
            self.assertIn("[+]poststarthook/rbac/bootstrap-roles ok\n", body.decode())
        status, _, body = self.server.request("GET", "/readyz/poststarthook/rbac/bootstrap-roles")
        self.assertEqual((status, body), (200, b"ok"))
        _, _, body = self.server.request("GET", "/readyz?verbose")
        lines = body.decode().split("\n")
        at = lines.index("[+]poststarthook/rbac/bootstrap-roles ok")
        self.assertEqual(lines[at - 1],
                         "[+]poststarthook/start-cluster-authentication-info-controller ok")
        self.assertEqual(lines[at + 1],
                         "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok")


class ReconcileAtStartTest(_Server):
    """Changes users make to bootstrap objects, then a restart on the same data; under RBAC,
    so what the policy loses and gets back is enforced."""

    ARGS = ("--authorization-mode=RBAC",)

    def setUp(self):
        self.server = harness.Server(*self.ARGS)
        self.first = None

    def tearDown(self):
        self.server.stop()
        if self.first:
            self.first.cleanup()  # its temporary directory holds the data

    def restart(self):
        """The server stopped and started again on the same data directory."""
        self.server.stop(cleanup=False)
        self.first = self.server
        self.server = harness.Server(*self.ARGS, data_dir=self.first.data_dir)

    def patch(self, kind, name, ops, *ns):
        self.kubectl("patch", kind, name, *ns, "--type=json", "-p", json.dumps(ops))

    def test_a_removed_rule_comes_back_unless_autoupdate_is_false(self):
        proxier = self.get("clusterrole", "system:node-proxier")
        upstream_rules = proxier["rules"]
        # Rule 1 is nodes get/list/watch; an extra rule and label of the user's.
        self.patch("clusterrole", "system:node-proxier", [
            {"op": "remove", "path": "/rules/1"},
            {"op": "add", "path": "/rules/-",
             "value": {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}},
            {"op": "add", "path": "/metadata/labels/team", "value": "network"}])
        # The same edit on a protected role.
        self.patch("clusterrole", "system:kube-dns", [{"op": "remove", "path": "/rules/0"}])
        self.kubectl("annotate", "clusterrole", "system:kube-dns", "--overwrite",
                     "rbac.authorization.kubernetes.io/autoupdate=false")
        # A subject removed from a binding; a role and a binding deleted; a binding made
        # again with another role.
        self.patch("clusterrolebinding", "system:public-info-viewer",
                   [{"op": "remove", "path": "/subjects/1"}])
        self.kubectl("delete", "clusterrole", "system:heapster")
        self.kubectl("delete", "rolebinding", "-n", "kube-system",
                     "system:controller:token-cleaner")
        self.kubectl("delete", "clusterrolebinding", "system:monitoring")
        self.kubectl("create", "clusterrolebinding", "system:monitoring", "--clusterrole=view",
                     "--group=system:monitoring")
        untouched = self.get("clusterrole", "cluster-admin")["metadata"]["resourceVersion"]
        # Without system:unauthenticated in the binding, anonymous users lose /version.
        wait_for(lambda: (self.server.request("GET", "/version", cert=False)[0] == 403, None),
                 30, "anonymous /version refused")

        self.restart()
        status, _, body = self.server.request("GET", "/version", cert=False)
        self.assertEqual(status, 200, body)

        proxier = self.get("clusterrole", "system:node-proxier")
        # Upstream appends what is missing broken down to one verb each; the user's rule and
        # label stay.
        self.assertEqual(proxier["rules"], [upstream_rules[0]] + upstream_rules[2:] + [
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]},
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["watch"]}])
        self.assertEqual(proxier["metadata"]["labels"]["team"], "network")
        dns = self.get("clusterrole", "system:kube-dns")
        self.assertFalse(dns.get("rules"))
        self.assertEqual(dns["metadata"]["annotations"],
                         {"rbac.authorization.kubernetes.io/autoupdate": "false"})
        viewer = self.get("clusterrolebinding", "system:public-info-viewer")
        self.assertEqual([s["name"] for s in viewer["subjects"]],
                         ["system:authenticated", "system:unauthenticated"])
        self.assertEqual(self.get("clusterrole", "system:heapster")["metadata"]["labels"],
                         {"kubernetes.io/bootstrapping": "rbac-defaults"})
        self.get("rolebinding", "-n", "kube-system", "system:controller:token-cleaner")
        monitoring = self.get("clusterrolebinding", "system:monitoring")
        self.assertEqual(monitoring["roleRef"]["name"], "system:monitoring")
        self.assertEqual(monitoring["metadata"]["labels"],
                         {"kubernetes.io/bootstrapping": "rbac-defaults"})
        # What was as the policy wants was not written again.
        self.assertEqual(self.get("clusterrole", "cluster-admin")["metadata"]["resourceVersion"],
                         untouched)
        self.assertIn("skipped reconcile-protected clusterrole.rbac.authorization.k8s.io/"
                      "system:kube-dns with missing permissions", self.server.log())


class AggregationWithControllerManagerTest(kcm_cluster.ClusterTestCase):
    """With the real kube-controller-manager, view, edit and admin carry the union of the
    rules of the roles they aggregate, as upstream's."""

    def rules(self, name):
        role = self.get_json("clusterrole", name)
        self.assertIsNotNone(role, name)
        return role.get("rules") or []

    def test_view_edit_admin_are_filled(self):
        parts = self.rules("system:aggregate-to-view")
        self.assertGreater(len(parts), 5)
        wait_for(lambda: (self.rules("view") == parts, self.rules("view")), 30,
                 "view aggregated")
        for outer, inner in (("edit", ["system:aggregate-to-edit", "view"]),
                             ("admin", ["edit", "system:aggregate-to-admin"])):
            # Name order, duplicates once.
            want = []
            for name in inner:
                want += [r for r in self.rules(name) if r not in want]
            wait_for(lambda: (self.rules(outer) == want, self.rules(outer)), 30,
                     outer + " aggregated")
            for r in self.rules("view"):
                self.assertIn(r, self.rules(outer))


if __name__ == "__main__":
    unittest.main()
