"""Integration tests: the real kube-controller-manager binary against the real
kube-apiserver binary, driven with real kubectl.

What a user sees of a cluster with controllers: new namespaces get their `default`
ServiceAccount and `kube-root-ca.crt`; `kubectl delete namespace` returns once the
namespace's content (configmaps, secrets, custom resources, objects whose finalizers are
removed later) is gone, with upstream's deletion conditions meanwhile; `kubectl delete
--cascade=background|foreground|orphan` collects or keeps dependents; aggregated
ClusterRoles carry the union of the roles they select; two controller managers elect one
leader and the other takes over after a kill -9; and option errors are all listed before
anything starts. Each class starts its own servers on free ports.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_controller_manager -v
"""

import base64
import json
import signal
import subprocess
import time
import unittest

import harness
import kcm_cluster
from harness import wait_for


class NamespaceControllers(kcm_cluster.ClusterTestCase):

    def test_new_namespace_gets_default_service_account_and_root_ca(self):
        self.ok("create", "namespace", "fresh")
        start = time.monotonic()
        wait_for(lambda: (self.exists("-n", "fresh", "serviceaccount", "default"), None),
                 2, "the default ServiceAccount")
        cm = wait_for(lambda: ((lambda c: (c is not None, c))(
            self.get_json("-n", "fresh", "configmap", "kube-root-ca.crt"))), 2,
            "kube-root-ca.crt")
        self.assertLess(time.monotonic() - start, 2.5)
        with open(self.server.ca_file) as f:
            self.assertEqual(cm["data"], {"ca.crt": f.read()})
        self.assertIn("kubernetes.io/description", cm["metadata"]["annotations"])
        # Taken away, it comes back.
        self.ok("-n", "fresh", "delete", "configmap", "kube-root-ca.crt")
        wait_for(lambda: (self.exists("-n", "fresh", "configmap", "kube-root-ca.crt"), None),
                 5, "kube-root-ca.crt again")
        self.ok("-n", "fresh", "delete", "serviceaccount", "default")
        wait_for(lambda: (self.exists("-n", "fresh", "serviceaccount", "default"), None),
                 5, "the default ServiceAccount again")

    def test_delete_namespace_with_content_returns_once_it_is_gone(self):
        self.create_widget_crd()
        self.ok("create", "namespace", "full")
        self.ok("-n", "full", "create", "configmap", "c1", "--from-literal=a=b")
        self.ok("-n", "full", "create", "secret", "generic", "s1", "--from-literal=a=b")
        self.ok("-n", "full", "apply", "-f", "-", stdin=(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 1}\n"))
        self.ok("-n", "full", "apply", "-f", "-", stdin=(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: "
            "[example.com/hold]}\n"))
        # Deleting waits while the finalizer holds the configmap...
        proc = subprocess.Popen([harness.KUBECTL, "--kubeconfig", self.server.kubeconfig,
                                 "delete", "namespace", "full", "--timeout=60s"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ns = wait_for(lambda: ((lambda n: (
                n is not None and any(c["type"] == "NamespaceFinalizersRemaining" and
                                      c["status"] == "True"
                                      for c in n.get("status", {}).get("conditions", [])), n))(
                self.get_json("namespace", "full"))), 30, "the finalizers condition")
            conditions = {c["type"]: c for c in ns["status"]["conditions"]}
            self.assertEqual(conditions["NamespaceFinalizersRemaining"]["reason"],
                             "SomeFinalizerRemain")
            self.assertEqual(conditions["NamespaceFinalizersRemaining"]["message"],
                             "Some finalizers are remaining: example.com/hold in 1 resource "
                             "instances")
            self.assertEqual(conditions["NamespaceContentRemaining"]["message"],
                             "Some resources are remaining: configmaps. has 1 resource instances")
            self.assertEqual(conditions["NamespaceDeletionDiscoveryFailure"]["status"], "False")
            self.assertEqual(ns["status"]["phase"], "Terminating")
            self.assertIsNone(proc.poll())
            self.assertFalse(self.exists("-n", "full", "widgets", "w1"))
            self.assertFalse(self.exists("-n", "full", "configmap", "c1"))
            self.assertFalse(self.exists("-n", "full", "secret", "s1"))
            # ...and returns once it is removed.
            self.ok("-n", "full", "patch", "configmap", "held", "--type=merge", "-p",
                    '{"metadata":{"finalizers":null}}')
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out, 'namespace "full" deleted\n')
        r = self.kubectl("get", "namespace", "full")
        self.assertEqual(r.stderr, 'Error from server (NotFound): namespaces "full" not found\n')


class GarbageCollection(kcm_cluster.ClusterTestCase):

    def make_owner_and_dependents(self, ns, owner, count=2, block=False):
        self.ok("-n", ns, "create", "configmap", owner)
        uid = self.get_json("-n", ns, "configmap", owner)["metadata"]["uid"]
        for i in range(count):
            ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": uid}
            if block:
                ref["blockOwnerDeletion"] = True
            self.ok("-n", ns, "apply", "-f", "-", stdin=json.dumps({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "%s-dep%d" % (owner, i), "ownerReferences": [ref]}}))
        return uid

    def test_background_cascade_collects_dependents(self):
        self.ok("create", "namespace", "gc-bg")
        self.make_owner_and_dependents("gc-bg", "owner")
        self.ok("-n", "gc-bg", "delete", "configmap", "owner", "--cascade=background")
        wait_for(lambda: (not self.exists("-n", "gc-bg", "configmap", "owner-dep0") and
                          not self.exists("-n", "gc-bg", "configmap", "owner-dep1"), None),
                 10, "dependents collected")

    def test_foreground_cascade_deletes_dependents_first(self):
        self.ok("create", "namespace", "gc-fg")
        self.make_owner_and_dependents("gc-fg", "owner", block=True)
        r = self.kubectl("-n", "gc-fg", "delete", "configmap", "owner", "--cascade=foreground",
                         "--timeout=30s")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, 'configmap "owner" deleted\n')
        self.assertFalse(self.exists("-n", "gc-fg", "configmap", "owner"))
        self.assertFalse(self.exists("-n", "gc-fg", "configmap", "owner-dep0"))
        self.assertFalse(self.exists("-n", "gc-fg", "configmap", "owner-dep1"))

    def test_orphan_cascade_keeps_dependents_without_the_reference(self):
        self.ok("create", "namespace", "gc-or")
        self.make_owner_and_dependents("gc-or", "owner")
        r = self.kubectl("-n", "gc-or", "delete", "configmap", "owner", "--cascade=orphan",
                         "--timeout=30s")
        self.assertEqual(r.returncode, 0, r.stderr)
        wait_for(lambda: (not self.exists("-n", "gc-or", "configmap", "owner"), None), 10,
                 "the owner gone")
        for i in range(2):
            dep = self.get_json("-n", "gc-or", "configmap", "owner-dep%d" % i)
            self.assertIsNotNone(dep)
            self.assertNotIn("ownerReferences", dep["metadata"])

    def test_dependent_of_a_missing_owner_is_collected(self):
        self.ok("create", "namespace", "gc-missing")
        self.ok("-n", "gc-missing", "apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "stray", "ownerReferences": [{
                "apiVersion": "v1", "kind": "ConfigMap", "name": "never",
                "uid": "00000000-0000-0000-0000-000000000001"}]}}))
        wait_for(lambda: (not self.exists("-n", "gc-missing", "configmap", "stray"), None), 10,
                 "the stray dependent collected")


class RoleAggregation(kcm_cluster.ClusterTestCase):

    def test_aggregated_role_follows_the_roles_it_selects(self):
        self.ok("apply", "-f", "-", stdin="""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "example:aggregate"}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {example.com/aggregate-to-example: "true"}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "example:b", labels: {example.com/aggregate-to-example: "true"}}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
""")
        rules = lambda: self.get_json("clusterrole", "example:aggregate").get("rules")
        wait_for(lambda: (rules() == [{"apiGroups": [""], "resources": ["configmaps"],
                                       "verbs": ["get", "list"]}], rules()), 5, "aggregated")
        # A new role labelled to aggregate joins (in name order), an unlabelled one leaves.
        self.ok("apply", "-f", "-", stdin="""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "example:a", labels: {example.com/aggregate-to-example: "true"}}
rules:
- {apiGroups: [apps], resources: [deployments], verbs: [get]}
""")
        wait_for(lambda: (rules() == [
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
            rules()), 5, "the new role aggregated")
        self.ok("label", "clusterrole", "example:b", "example.com/aggregate-to-example-")
        wait_for(lambda: (rules() == [
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}], rules()),
            5, "the unlabelled role gone from the union")


class ServingAndOptions(kcm_cluster.ClusterTestCase):

    def test_healthz_lists_leader_election_and_started_controllers(self):
        def probe():
            try:
                status, body = self.kcm.get("/healthz?verbose")
            except OSError as e:  # not listening yet
                return False, repr(e)
            return status == 200 and "[+]namespace-controller ok" in body, body
        body = wait_for(probe, 10, "healthz with the controllers")
        self.assertIn("[+]leaderElection ok\n", body)
        self.assertIn("[+]garbage-collector-controller ok\n", body)
        self.assertTrue(body.endswith("healthz check passed\n"), body)
        # Not always-allowed paths: anonymous requests are refused; the admin's client
        # certificate (the cluster's client CA, read from the API server) is authorized
        # there with a SubjectAccessReview.
        for path in ("/healthz/namespace-controller", "/metrics", "/configz"):
            self.assertEqual(self.kcm.get(path)[0], 401, path)
        self.assertEqual(self.kcm.get("/healthz/namespace-controller", cert=True), (200, "ok"))
        status, body = self.kcm.get("/metrics", cert=True)
        self.assertEqual(status, 200)
        self.assertIn('leader_election_master_status{name="kube-controller-manager"} 1\n', body)
        status, body = self.kcm.get("/configz", cert=True)
        config = json.loads(body)["kubecontrollermanager.config.k8s.io"]
        self.assertEqual(config["Generic"]["ClientConnection"]["QPS"], 20)
        self.assertEqual(config["Generic"]["LeaderElection"]["LeaseDuration"], "15s")

    def test_logs_follow_start_controllers(self):
        expected = ('"Starting controller" controller="serviceaccount-token-controller"',
                    '"Started controller" controller="namespace-controller"',
                    '"Warning: controller is disabled" controller="bootstrap-signer-controller"',
                    '"Skipping a cloud provider controller" controller="service-lb-controller"',
                    '"Started controller" controller="clusterrole-aggregation-controller"')
        # The controllers start one after another once the lease is held: wait for them.
        log = wait_for(lambda: (all(line in self.kcm.log() for line in expected),
                                self.kcm.log()), 20, "the start-up log lines")
        # The token controller comes first.
        first = log.index('"Starting controller"')
        self.assertEqual(log.index('"Starting controller" controller="serviceaccount-token-'
                                   'controller"'), first)

    def test_unknown_controllers_and_bad_durations_are_all_listed(self):
        r = harness.run([harness.KCM_BINARY, "--controllers=*,foo,-bar",
                         "--leader-elect-lease-duration=5s", "--kubeconfig=/nonexistent"])
        self.assertEqual(r.returncode, 1)
        self.assertIn('"foo" is not in the list of known controllers', r.stderr)
        self.assertIn('"bar" is not in the list of known controllers', r.stderr)
        self.assertIn("leaseDuration must be greater than renewDeadline", r.stderr)


class ServiceAccountTokens(kcm_cluster.ClusterTestCase):
    """Secrets of type kubernetes.io/service-account-token: filled by the token controller
    with a legacy token the API server accepts, and deleted with their account."""

    def data(self, ns, name):
        secret = self.get_json("-n", ns, "secret", name) or {}
        return {k: base64.b64decode(v).decode() for k, v in secret.get("data", {}).items()}

    def test_token_secret_is_filled_and_authenticates(self):
        self.ok("create", "namespace", "tokens")
        self.ok("-n", "tokens", "create", "serviceaccount", "robot")
        self.ok("apply", "-f", "-", stdin="""
apiVersion: v1
kind: Secret
metadata:
  name: robot-token
  namespace: tokens
  annotations: {kubernetes.io/service-account.name: robot}
type: kubernetes.io/service-account-token
""")
        data = wait_for(lambda: ("token" in (d := self.data("tokens", "robot-token")), d), 10,
                        "the token filled in")
        with open(self.server.ca_file) as f:
            self.assertEqual(data["ca.crt"], f.read())
        self.assertEqual(data["namespace"], "tokens")
        uid = self.get_json("-n", "tokens", "serviceaccount", "robot")["metadata"]["uid"]
        secret = self.get_json("-n", "tokens", "secret", "robot-token")
        self.assertEqual(secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"],
                         uid)
        # The API server takes the token: the user is the account.
        status, _, body = self.server.request(
            "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", cert=False,
            token=data["token"], headers={"Content-Type": "application/json"},
            body=json.dumps({"apiVersion": "authentication.k8s.io/v1",
                             "kind": "SelfSubjectReview"}))
        self.assertEqual(status, 201, body)
        user = json.loads(body)["status"]["userInfo"]
        self.assertEqual(user["username"], "system:serviceaccount:tokens:robot")
        self.assertEqual(user["uid"], uid)
        self.assertEqual(user["groups"], ["system:serviceaccounts", "system:serviceaccounts:tokens",
                                          "system:authenticated"])
        # The token with its signature altered is refused.
        forged = data["token"][:-4] + ("AAAA" if not data["token"].endswith("AAAA") else "BBBB")
        status, _, _ = self.server.request("GET", "/api", cert=False, token=forged)
        self.assertEqual(status, 401)

        # Deleting the account deletes its token secrets.
        self.ok("-n", "tokens", "delete", "serviceaccount", "robot")
        wait_for(lambda: (not self.exists("-n", "tokens", "secret", "robot-token"), None), 10,
                 "the token secret deleted with its account")

    def test_token_secret_of_a_missing_account_is_deleted(self):
        self.ok("create", "namespace", "orphan-tokens")
        self.ok("apply", "-f", "-", stdin="""
apiVersion: v1
kind: Secret
metadata:
  name: nobody-token
  namespace: orphan-tokens
  annotations: {kubernetes.io/service-account.name: nobody}
type: kubernetes.io/service-account-token
---
apiVersion: v1
kind: Secret
metadata: {name: plain, namespace: orphan-tokens}
stringData: {a: b}
""")
        wait_for(lambda: (not self.exists("-n", "orphan-tokens", "secret", "nobody-token"), None),
                 10, "the token secret of a missing account deleted")
        self.assertTrue(self.exists("-n", "orphan-tokens", "secret", "plain"))


class LeaderElection(unittest.TestCase):

    def test_two_candidates_one_leader_and_failover_after_kill(self):
        server = harness.Server()
        fast = ("--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                "--leader-elect-retry-period=1s")
        a = harness.ControllerManager(server, *fast)
        b = None
        try:
            def holder():
                r = server.kubectl("-n", "kube-system", "get", "lease", "kube-controller-manager",
                                   "-o", "json")
                return json.loads(r.stdout)["spec"] if r.returncode == 0 else None
            spec = wait_for(lambda: (holder() is not None, holder()), 10, "a leader")
            b = harness.ControllerManager(server, *fast)
            time.sleep(3)
            self.assertEqual(holder()["holderIdentity"], spec["holderIdentity"])
            self.assertEqual(holder()["leaseDurationSeconds"], 4)
            self.assertIn("successfully acquired lease kube-system/kube-controller-manager",
                          a.log())
            self.assertNotIn("successfully acquired lease", b.log())
            a.kill(signal.SIGKILL)
            killed = time.monotonic()
            new = wait_for(lambda: ((lambda h: (h["holderIdentity"] != spec["holderIdentity"],
                                                h))(holder())), 20, "a new leader")
            self.assertLess(time.monotonic() - killed, 20)
            self.assertEqual(new["leaseTransitions"], spec.get("leaseTransitions", 0) + 1)
            self.assertIn("successfully acquired lease", b.log())
            # The new leader runs the controllers: a new namespace is served.
            server.kubectl("create", "namespace", "after-failover")
            wait_for(lambda: (server.kubectl("-n", "after-failover", "get", "sa",
                                             "default").returncode == 0, None),
                     10, "the default ServiceAccount from the new leader")
        finally:
            a.stop()
            if b:
                b.stop()
            server.stop()

    def test_losing_the_lease_ends_the_leader(self):
        server = harness.Server()
        kcm = harness.ControllerManager(server, "--leader-elect-lease-duration=4s",
                                        "--leader-elect-renew-deadline=3s",
                                        "--leader-elect-retry-period=1s")
        try:
            wait_for(lambda: ("successfully acquired lease" in kcm.log(), None), 10, "leading")
            # The API server goes away: renewals fail until the renew deadline ends leading.
            server.stop(cleanup=False)
            self.assertEqual(kcm.wait(20), 1, kcm.log()[-2000:])
            self.assertIn('"leaderelection lost"', kcm.log())
            self.assertIn("failed to renew lease kube-system/kube-controller-manager: timed out "
                          "waiting for the condition", kcm.log())
        finally:
            kcm.stop()
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
