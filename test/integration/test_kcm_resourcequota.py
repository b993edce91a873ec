"""Integration tests: the resourcequota-controller of the real kube-controller-manager
against the real kube-apiserver, driven with real kubectl.

What a user sees: a ResourceQuota gets status.hard (its spec.hard) and status.used, which
`kubectl describe quota` prints; the used values follow configmaps, pods (Pending: there
are no nodes), services and PersistentVolumeClaims as they are created, finish or are
deleted, within a few seconds; an edit of spec.hard is mirrored; scopes select the pods
counted; `count/<resource>.<group>` counts custom resources. Each class starts its own
servers on free ports.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_kcm_resourcequota -v
"""

import json
import os
import stat
import tempfile
import unittest

import kcm_cluster
from harness import wait_for

QUOTA = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute}
spec:
  hard:
    pods: "5"
    count/configmaps: "10"
    requests.cpu: "2"
    requests.memory: 2Gi
    services.nodeports: "3"
    requests.storage: 10Gi
"""

WEB = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  initContainers:
  - {name: setup, image: busybox, resources: {requests: {cpu: "1", memory: 64Mi}}}
  containers:
  - {name: a, image: nginx, resources: {requests: {cpu: 250m, memory: 64Mi}}}
  - {name: b, image: nginx, resources: {requests: {cpu: 250m, memory: 128Mi}}}
"""

DB = """
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers:
  - {name: db, image: postgres, resources: {requests: {cpu: 100m, memory: 1Gi}}}
"""

CLAIMS = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: logs}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 512Mi}}
"""

ZERO = {"pods": "0", "count/configmaps": "1", "requests.cpu": "0", "requests.memory": "0",
        "services.nodeports": "0", "requests.storage": "0"}


class ResourceQuotaController(kcm_cluster.ClusterTestCase):

    def quota(self, ns, name):
        r = self.kubectl("-n", ns, "get", "resourcequota", name, "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def wait_used(self, ns, name, expected, what, timeout=10):
        def probe():
            status = self.quota(ns, name).get("status", {})
            return status.get("used") == expected, status
        return wait_for(probe, timeout, what)

    def namespace(self, name):
        """A new namespace, once its ServiceAccount and kube-root-ca.crt exist (pods need the
        one; the other is a configmap the quota counts)."""
        self.ok("create", "namespace", name)
        wait_for(lambda: (self.kubectl("-n", name, "get", "serviceaccount", "default")
                          .returncode == 0 and
                          self.kubectl("-n", name, "get", "configmap", "kube-root-ca.crt")
                          .returncode == 0, None), 10, "the namespace's default objects")

    def describe(self, ns, name):
        """kubectl describe quota: {resource: (used, hard)} from its table."""
        out = self.ok("-n", ns, "describe", "quota", name)
        lines = out.splitlines()
        self.assertIn("Name:", lines[0])
        header = [i for i, line in enumerate(lines) if line.split() == ["Resource", "Used", "Hard"]]
        self.assertEqual(len(header), 1, out)
        self.assertEqual(lines[header[0] + 1].split(), ["--------", "----", "----"], out)
        rows = {}
        for line in lines[header[0] + 2:]:
            if line.strip():
                resource, used, hard = line.split()
                rows[resource] = (used, hard)
        return rows

    def test_used_follows_creates_and_deletes(self):
        self.namespace("quota")
        self.ok("-n", "quota", "apply", "-f", "-", stdin=QUOTA)
        status = self.wait_used("quota", "compute", ZERO, "the first usage")
        self.assertEqual(status["hard"], {
            "pods": "5", "count/configmaps": "10", "requests.cpu": "2", "requests.memory": "2Gi",
            "services.nodeports": "3", "requests.storage": "10Gi"})
        self.assertEqual(self.describe("quota", "compute"), {
            "count/configmaps": ("1", "10"), "pods": ("0", "5"), "requests.cpu": ("0", "2"),
            "requests.memory": ("0", "2Gi"), "requests.storage": ("0", "10Gi"),
            "services.nodeports": ("0", "3")})

        self.ok("-n", "quota", "create", "configmap", "settings", "--from-literal=a=b")
        self.wait_used("quota", "compute", dict(ZERO, **{"count/configmaps": "2"}),
                       "a configmap counted", timeout=5)

        # The init container needs more cpu than the two containers together; memory is
        # the containers' sum.
        self.ok("-n", "quota", "apply", "-f", "-", stdin=WEB)
        self.ok("-n", "quota", "apply", "-f", "-", stdin=DB)
        pods = dict(ZERO, **{"count/configmaps": "2", "pods": "2", "requests.cpu": "1100m",
                             "requests.memory": "1216Mi"})
        self.wait_used("quota", "compute", pods, "two pods counted", timeout=5)
        self.assertEqual(self.ok("-n", "quota", "get", "pod", "web", "-o",
                                 "jsonpath={.status.phase}"), "Pending")

        self.ok("-n", "quota", "create", "service", "nodeport", "public", "--tcp=80:8080",
                "--tcp=443:8443")
        self.ok("-n", "quota", "create", "service", "clusterip", "internal", "--tcp=80:8080")
        services = dict(pods, **{"services.nodeports": "2"})
        self.wait_used("quota", "compute", services, "node ports counted", timeout=5)

        self.ok("-n", "quota", "apply", "-f", "-", stdin=CLAIMS)
        claims = dict(services, **{"requests.storage": "1536Mi"})
        self.wait_used("quota", "compute", claims, "claims counted", timeout=5)
        self.assertEqual(self.describe("quota", "compute"), {
            "count/configmaps": ("2", "10"), "pods": ("2", "5"), "requests.cpu": ("1100m", "2"),
            "requests.memory": ("1216Mi", "2Gi"), "requests.storage": ("1536Mi", "10Gi"),
            "services.nodeports": ("2", "3")})

        # Deletes give the usage back.
        self.ok("-n", "quota", "delete", "pod", "web", "--grace-period=0", "--force")
        self.ok("-n", "quota", "delete", "configmap", "settings")
        self.ok("-n", "quota", "delete", "service", "public")
        self.ok("-n", "quota", "delete", "pvc", "logs")
        self.wait_used("quota", "compute", dict(ZERO, **{
            "pods": "1", "requests.cpu": "100m", "requests.memory": "1Gi",
            "requests.storage": "1Gi"}), "deletes given back", timeout=5)

        # A pod that finished is no longer charged (count/pods would still count it).
        self.ok("-n", "quota", "patch", "pod", "db", "--subresource=status", "--type=merge",
                "-p", '{"status":{"phase":"Succeeded"}}')
        self.wait_used("quota", "compute", dict(ZERO, **{"requests.storage": "1Gi"}),
                       "the finished pod given back", timeout=5)

    def test_admission_refuses_what_would_exceed_a_quota(self):
        """The ResourceQuota admission plugin: a create that would take status.used past
        spec.hard is refused with upstream's message; what it lets through is charged at
        once; a dry run is checked, not charged."""
        self.namespace("full")
        self.ok("-n", "full", "create", "quota", "small", "--hard=count/configmaps=3,pods=1")
        self.ok("-n", "full", "create", "quota", "roomy", "--hard=count/configmaps=10")
        self.wait_used("full", "small", {"count/configmaps": "1", "pods": "0"},
                       "the usage known")  # kube-root-ca.crt is one
        self.wait_used("full", "roomy", {"count/configmaps": "1"}, "the other usage known")
        self.ok("-n", "full", "create", "configmap", "one")
        self.assertEqual(self.quota("full", "small")["status"]["used"]["count/configmaps"], "2")
        r = self.kubectl("-n", "full", "create", "configmap", "dry", "--dry-run=server")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.ok("-n", "full", "create", "configmap", "two")
        r = self.kubectl("-n", "full", "create", "configmap", "three")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('error: failed to create configmap: configmaps "three" is forbidden: '
                      'exceeded quota: small, requested: count/configmaps=1, used: '
                      'count/configmaps=3, limited: count/configmaps=3', r.stderr)
        r = self.kubectl("-n", "full", "create", "configmap", "three", "--dry-run=server")
        self.assertIn("exceeded quota: small", r.stderr)
        # The quota that had room was not charged for what the other refused.
        self.assertEqual(self.quota("full", "roomy")["status"]["used"]["count/configmaps"], "3")
        self.ok("-n", "full", "run", "first", "--image=nginx")
        r = self.kubectl("-n", "full", "run", "second", "--image=nginx")
        self.assertIn('pods "second" is forbidden: exceeded quota: small, requested: pods=1, '
                      'used: pods=1, limited: pods=1', r.stderr)
        # Deleting gives room again, once the controller has counted the delete.
        self.ok("-n", "full", "delete", "configmap", "one")
        self.wait_used("full", "small", {"count/configmaps": "2", "pods": "1"}, "the delete")
        self.ok("-n", "full", "create", "configmap", "three")

    def test_status_hard_mirrors_spec_hard_after_patch_and_edit(self):
        self.namespace("edits")
        self.ok("-n", "edits", "apply", "-f", "-", stdin=QUOTA)
        self.wait_used("edits", "compute", ZERO, "the first usage")
        self.ok("-n", "edits", "create", "secret", "generic", "token", "--from-literal=a=b")

        self.ok("-n", "edits", "patch", "resourcequota", "compute", "--type=merge", "-p",
                '{"spec":{"hard":{"pods":"7","count/secrets":"4","requests.storage":null}}}')
        hard = {"pods": "7", "count/configmaps": "10", "requests.cpu": "2",
                "requests.memory": "2Gi", "services.nodeports": "3", "count/secrets": "4"}
        used = {"pods": "0", "count/configmaps": "1", "requests.cpu": "0",
                "requests.memory": "0", "services.nodeports": "0", "count/secrets": "1"}
        status = self.wait_used("edits", "compute", used, "the patched quota", timeout=5)
        self.assertEqual(status["hard"], hard)

        # kubectl edit, with an editor that raises the pod limit.
        with tempfile.TemporaryDirectory() as tmp:
            editor = os.path.join(tmp, "editor")
            with open(editor, "w") as f:
                f.write("#!/usr/bin/python3\nimport sys\np = sys.argv[1]\ns = open(p).read()\n"
                        "open(p, 'w').write(s.replace('pods: \"7\"', 'pods: \"9\"', 1))\n")
            os.chmod(editor, stat.S_IRWXU)
            out = self.ok("-n", "edits", "edit", "resourcequota", "compute",
                          env=dict(os.environ, KUBE_EDITOR=editor))
        self.assertEqual(out, "resourcequota/compute edited\n")
        wait_for(lambda: ((lambda s: (s.get("hard", {}).get("pods") == "9", s))(
            self.quota("edits", "compute").get("status", {}))), 5, "the edited hard limit")
        self.assertEqual(self.describe("edits", "compute")["pods"], ("0", "9"))

    def test_scopes_select_the_pods_counted(self):
        self.namespace("scopes")
        self.ok("-n", "scopes", "apply", "-f", "-", stdin="""
apiVersion: v1
kind: ResourceQuota
metadata: {name: besteffort}
spec:
  hard: {pods: "10"}
  scopes: [BestEffort]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: burstable}
spec:
  hard: {pods: "10", requests.cpu: "4"}
  scopes: [NotBestEffort, NotTerminating]
""")
        self.wait_used("scopes", "besteffort", {"pods": "0"}, "the best-effort quota")
        self.wait_used("scopes", "burstable", {"pods": "0", "requests.cpu": "0"},
                       "the burstable quota")
        self.ok("-n", "scopes", "apply", "-f", "-", stdin="""
apiVersion: v1
kind: Pod
metadata: {name: idle}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: job}
spec:
  activeDeadlineSeconds: 600
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
""")
        self.ok("-n", "scopes", "apply", "-f", "-", stdin=DB)
        self.wait_used("scopes", "besteffort", {"pods": "1"}, "the best-effort pod", timeout=5)
        self.wait_used("scopes", "burstable", {"pods": "1", "requests.cpu": "100m"},
                       "the long-running burstable pod", timeout=5)
        out = self.ok("-n", "scopes", "describe", "quota", "besteffort")
        self.assertIn("Scopes:", out)
        self.assertIn("BestEffort", out)

    def test_count_of_a_custom_resource(self):
        self.create_widget_crd()
        self.namespace("widgets")
        self.ok("-n", "widgets", "create", "quota", "widgets",
                "--hard=count/widgets.example.com=3,count/deployments.apps=2")
        self.wait_used("widgets", "widgets",
                       {"count/widgets.example.com": "0", "count/deployments.apps": "0"},
                       "the first count")
        for name in ("w1", "w2"):
            self.ok("-n", "widgets", "apply", "-f", "-", stdin=(
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: %s}\n" % name))
        self.wait_used("widgets", "widgets",
                       {"count/widgets.example.com": "2", "count/deployments.apps": "0"},
                       "two widgets counted", timeout=5)
        self.ok("-n", "widgets", "delete", "widget", "w1")
        self.wait_used("widgets", "widgets",
                       {"count/widgets.example.com": "1", "count/deployments.apps": "0"},
                       "a widget given back", timeout=5)
        self.assertIn('"QuotaMonitor created object count evaluator" '
                      'resource="widgets.example.com"', self.kcm.log())


if __name__ == "__main__":
    unittest.main()
