"""Integration tests: the PodSecurity admission plugin through the real binary and real
kubectl.

Namespace labels choose the levels: pods that break the enforce level are refused with
upstream's message, those that break the warn level (and workloads whose template does)
get a warning; invalid labels are refused; a stricter enforce level warns of the pods that
break it; --admission-control-config-file sets the defaults and exemptions, and a broken
one stops the server.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_pod_security -v
"""

import json
import os
import subprocess
import tempfile
import unittest

import harness

LABEL = "pod-security.kubernetes.io/"


pod = harness.pod_manifest


RESTRICTED_OK = {
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "containers": [{"name": "app", "image": "nginx:1.27", "securityContext": {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}]}


class PodSecurityTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server()
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-pod-security-")
        for ns, labels in (("strict", {LABEL + "enforce": "restricted"}),
                           ("base", {LABEL + "enforce": "baseline",
                                     LABEL + "warn": "restricted",
                                     LABEL + "warn-version": "v1.30"}),
                           ("open", {})):
            status, body = cls.call("POST", "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns, "labels": labels}})
            assert status == 201, body

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    @classmethod
    def call(cls, method, path, body=None, content_type="application/json"):
        status, _, data = cls.server.request(
            method, path, None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": content_type})
        return status, json.loads(data) if data else None

    def kubectl(self, *args, stdin=None):
        return self.server.kubectl(*args, stdin=stdin)

    def test_restricted_refuses_with_upstreams_message(self):
        out = self.kubectl("run", "nginx", "--image=nginx:1.27", "-n", "strict")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn(
            'Error from server (Forbidden): pods "nginx" is forbidden: violates PodSecurity '
            '"restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set '
            'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities '
            '(container "nginx" must set securityContext.capabilities.drop=["ALL"]), '
            'runAsNonRoot != true (pod or container "nginx" must set '
            'securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must '
            'set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
            out.stderr)
        ok = pod("ok")
        ok["spec"] = RESTRICTED_OK
        out = self.kubectl("create", "-n", "strict", stdin=ok)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")
        # The reasons of the restricted-only checks.
        bad = pod("bad", securityContext={"runAsUser": 0, "runAsNonRoot": True,
                                          "seccompProfile": {"type": "RuntimeDefault"}},
                  volumes=[{"name": "host", "hostPath": {"path": "/"}}],
                  containers=[{"name": "app", "image": "nginx:1.27", "securityContext": {
                      "allowPrivilegeEscalation": False,
                      "capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN"]}}}])
        status, body = self.call("POST", "/api/v1/namespaces/strict/pods", bad)
        self.assertEqual((status, body["reason"]), (403, "Forbidden"))
        self.assertEqual(
            body["message"],
            'pods "bad" is forbidden: violates PodSecurity "restricted:latest": unrestricted '
            'capabilities (container "app" must not include "SYS_ADMIN" in '
            'securityContext.capabilities.add), restricted volume types (volume "host" uses '
            'restricted volume type "hostPath"), runAsUser=0 (pod must not set runAsUser=0)')

    def test_baseline_enforced_restricted_warned(self):
        privileged = pod("priv", hostNetwork=True,
                         volumes=[{"name": "data", "hostPath": {"path": "/data"}}],
                         containers=[{"name": "app", "image": "nginx:1.27",
                                      "ports": [{"containerPort": 80, "hostPort": 8080}],
                                      "securityContext": {"privileged": True}}])
        out = self.kubectl("create", "-n", "base", stdin=privileged)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn(
            'pods "priv" is forbidden: violates PodSecurity "baseline:latest": host namespaces '
            '(hostNetwork=true), hostPath volumes (volume "data"), hostPort (container "app" '
            'uses hostPort 8080), privileged (container "app" must not set '
            'securityContext.privileged=true)', out.stderr)
        # Allowed at baseline, warned of at restricted (the version the label pins).
        out = self.kubectl("create", "-n", "base", stdin=pod("plain"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('Warning: would violate PodSecurity "restricted:v1.30": '
                      'allowPrivilegeEscalation != false', out.stderr)
        # Workloads are warned about, never refused.
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                      "metadata": {"name": "web"},
                      "spec": {"selector": {"matchLabels": {"app": "web"}},
                               "template": {"metadata": {"labels": {"app": "web"}},
                                            "spec": privileged["spec"]}}}
        out = self.kubectl("create", "-n", "base", stdin=deployment)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('Warning: would violate PodSecurity "restricted:v1.30": ', out.stderr)
        self.assertIn("privileged (container \"app\" must not set "
                      "securityContext.privileged=true)", out.stderr)
        # A metadata-only update of a pod is not checked again.
        out = self.kubectl("label", "pod", "plain", "-n", "base", "touched=yes")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("Warning", out.stderr)

    def test_namespace_labels(self):
        out = self.kubectl("create", stdin={
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "bogus", "labels": {LABEL + "enforce": "strictest"}}})
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: '
                      '"strictest": must be one of privileged, baseline, restricted', out.stderr)
        # Making a namespace stricter warns of the pods that break the new level.
        self.assertEqual(self.call("POST", "/api/v1/namespaces", {
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tighten"}})[0], 201)
        for name in ("one", "two"):
            out = self.kubectl("create", "-n", "tighten", stdin=pod(name, hostPID=True))
            self.assertEqual(out.returncode, 0, out.stderr)
        out = self.kubectl("label", "namespace", "tighten", LABEL + "enforce=baseline")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('Warning: existing pods in namespace "tighten" violate the new '
                      'PodSecurity enforce level "baseline:latest"', out.stderr)
        self.assertIn("Warning: one (and 1 other pod): host namespaces", out.stderr)
        out = self.kubectl("label", "namespace", "tighten", "--overwrite",
                           LABEL + "enforce-version=v2.0")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("enforce-version", out.stderr)
        # Existing pods stay; new ones are held to the level.
        out = self.kubectl("create", "-n", "tighten", stdin=pod("three", hostPID=True))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('violates PodSecurity "baseline:latest": host namespaces (hostPID=true)',
                      out.stderr)

    def test_unlabelled_namespaces_are_privileged(self):
        out = self.kubectl("create", "-n", "open", stdin=pod(
            "anything", hostNetwork=True,
            containers=[{"name": "app", "image": "nginx:1.27",
                         "securityContext": {"privileged": True}}]))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")


class PodSecurityConfigurationTest(unittest.TestCase):

    def write(self, directory, name, text):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_defaults_and_exemptions_from_the_config_file(self):
        directory = tempfile.mkdtemp(prefix="kas-it-pod-security-config-")
        self.write(directory, "pod-security.yaml", """
apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  enforce: baseline
  enforce-version: latest
exemptions:
  namespaces: [exempt]
  usernames: []
  runtimeClasses: []
""")
        config = self.write(directory, "admission.yaml", """
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  path: pod-security.yaml
""")
        server = harness.Server("--admission-control-config-file=" + config)
        try:
            for ns in ("exempt", "ordinary"):
                out = server.kubectl("create", "namespace", ns)
                self.assertEqual(out.returncode, 0, out.stderr)
            privileged = pod("priv", containers=[{"name": "app", "image": "nginx:1.27",
                                                  "securityContext": {"privileged": True}}])
            path = self.write(directory, "pod.json", json.dumps(privileged))
            out = server.kubectl("create", "-n", "ordinary", "-f", path)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn('violates PodSecurity "baseline:latest": privileged', out.stderr)
            out = server.kubectl("create", "-n", "exempt", "-f", path)
            self.assertEqual(out.returncode, 0, out.stderr)
        finally:
            server.stop()

    def test_a_broken_config_file_stops_the_server(self):
        directory = tempfile.mkdtemp(prefix="kas-it-pod-security-bad-")
        config = self.write(directory, "admission.yaml", """
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: strictest
""")
        server = harness.Server("--admission-control-config-file=" + config, start=False)
        out = subprocess.run(server.command(), capture_output=True, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('couldn\'t init admission plugin "PodSecurity": defaults.enforce: Invalid '
                      'value: "strictest": must be one of privileged, baseline, restricted',
                      out.stderr)
        missing = harness.Server("--admission-control-config-file=" +
                                 os.path.join(directory, "nope.yaml"), start=False)
        out = subprocess.run(missing.command(), capture_output=True, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("failed to read plugin config: unable to read admission control "
                      "configuration from", out.stderr)
        server.cleanup()
        missing.cleanup()


if __name__ == "__main__":
    unittest.main()
