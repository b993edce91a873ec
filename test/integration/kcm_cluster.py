"""The base class of the controller manager's integration tests (test_controller_manager
and test_kcm_*): an API server and one kube-controller-manager for the test class, and
kubectl helpers that show the controller manager's log when a command fails.

Not a test module itself (its name does not start with test_): test/list_integration_tests.py
lists the classes of the test_*.py files that use it.
"""

import json
import unittest

import harness

# A namespaced custom resource of any shape: widgets.example.com, kind Widget, v1.
WIDGET_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


class ClusterTestCase(unittest.TestCase):
    """An API server (with the extra flags server_args) and one controller manager (with
    kcm_args) for the class, both stopped when the class is done."""

    server_args = ()
    kcm_args = ()

    @classmethod
    def setUpClass(cls):
        # The controller manager makes every namespace's default service account: the
        # default admission plugins, ServiceAccount among them, run as upstream's.
        cls.server = harness.Server("--disable-admission-plugins=", *cls.server_args)
        try:
            cls.kcm = harness.ControllerManager(cls.server, *cls.kcm_args)
        except BaseException:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.kcm.stop()
        cls.server.stop()

    def kubectl(self, *args, stdin=None, env=None, kubeconfig=None, timeout=60):
        """kubectl with the admin kubeconfig (or the one given); the completed process."""
        return harness.run([harness.KUBECTL, "--kubeconfig", kubeconfig or self.server.kubeconfig]
                           + list(args), input=stdin, env=env, timeout=timeout)

    def ok(self, *args, stdin=None, env=None, kubeconfig=None, timeout=60):
        """kubectl that must succeed; its output."""
        r = self.kubectl(*args, stdin=stdin, env=env, kubeconfig=kubeconfig, timeout=timeout)
        self.assertEqual(r.returncode, 0, "kubectl %s: %s%s\n%s" % (
            " ".join(args), r.stdout, r.stderr, self.kcm.log()[-4000:]))
        return r.stdout

    def get_json(self, *args):
        """`kubectl get ARGS -o json` parsed; None when kubectl fails (e.g. not found)."""
        r = self.kubectl("get", *args, "-o", "json")
        return json.loads(r.stdout) if r.returncode == 0 else None

    def exists(self, *args):
        return self.kubectl("get", *args).returncode == 0

    def create_widget_crd(self):
        """Creates WIDGET_CRD and waits until it is Established."""
        self.ok("apply", "-f", "-", stdin=WIDGET_CRD)
        self.ok("wait", "--for=condition=Established", "crd/widgets.example.com")
