"""Integration tests: the main kubectl flows with the oldest and the newest kubectl here.

The server implements API level 1.32. The clients run against it are:

- kubectl 1.20, Debian's `kubernetes-client` package, unpacked by
  `scripts/install-deps.sh --test` into /opt/kas-test/kubernetes-client (not installed:
  it would clash with /usr/bin/kubectl). It explains and validates from /openapi/v2
  only, validates client-side (`--validate=true`), and asks for `v1beta1` Tables too.
- kubectl 1.27, the oldest build of the google-cloud-sdk dispatcher: explains from
  /openapi/v3, validates on the server (`--validate=strict` sends
  `fieldValidation=Strict`).
- kubectl 1.33, the newest build, one minor version ahead of the server.

Each class starts its own server and runs the same flows with its kubectl: `get` with
server-side tables (`-o wide` too), `create -f` of a `kind: List` file, `apply -f` (created,
unchanged, configured), `explain` of a built-in field and of a custom resource's, the
refusal of an unknown field in a built-in and a custom resource, `delete -f`, `get -w`,
`api-resources`, `api-versions` and `version`. A build that is not on the machine fails
its class: `scripts/install-deps.sh --test` provides 1.20, the machine's kubectl the others.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver \\
        /usr/bin/python3 -m unittest test_kubectl_versions -v
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import Server, run  # noqa: E402

KUBECTL_120 = "/opt/kas-test/kubernetes-client/usr/bin/kubectl"
SDK_BIN = "/usr/lib/google-cloud-sdk/bin"

AGE = re.compile(r"^(\d+s|\d+m\d*s?)$")
CLUSTER_IP = re.compile(r"^10\.\d+\.\d+\.\d+$")

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.skew.example.com
spec:
  group: skew.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wg]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        description: A widget of some color.
        properties:
          spec:
            type: object
            description: What the widget looks like.
            required: [color]
            properties:
              color:
                type: string
                description: The color of the widget.
              size:
                type: integer
                minimum: 0
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {ns}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: main
        image: {image}
"""

LIST = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: listed
    namespace: {ns}
  data:
    key: value
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: listed
    namespace: {ns}
  spec:
    selector:
      matchLabels: {{app: listed}}
    template:
      metadata:
        labels: {{app: listed}}
      spec:
        containers:
        - name: main
          image: registry.k8s.io/pause:3.9
- apiVersion: skew.example.com/v1
  kind: Widget
  metadata:
    name: listed
    namespace: {ns}
  spec:
    color: blue
    size: 3
"""


def table(text):
    """Rows of cells of kubectl's tabwriter output (cells padded by 3 spaces)."""
    return [re.split(r" {3,}", line.rstrip()) for line in text.splitlines() if line.strip()]


class KubectlVersionTestCase(unittest.TestCase):
    """One server and one kubectl build (a private HOME for its caches) per class.

    Subclasses set `binary` and `minor` and name the flows they run; the flows are the
    check_* methods here, where the versions' differences are spelled out.
    """

    maxDiff = None
    binary = None
    minor = None

    @classmethod
    def setUpClass(cls):
        if not os.access(cls.binary, os.X_OK):
            raise AssertionError("%s is not installed (scripts/install-deps.sh --test "
                                 "unpacks kubectl 1.20; the others come with the machine's "
                                 "kubectl)" % cls.binary)
        cls.server = Server()
        cls.home = tempfile.mkdtemp(prefix="kas-it-kubectl-home-")
        cls.workdir = tempfile.mkdtemp(prefix="kas-it-kubectl-files-")
        cls.files = 0
        try:
            t = cls("setUp")
            path = t.write(CRD)
            t.assertEqual(t.ok("create", "-f", path),
                          "customresourcedefinition.apiextensions.k8s.io/"
                          "widgets.skew.example.com created\n")
            t.assertEqual(t.ok("wait", "--for", "condition=established", "--timeout=30s",
                               "crd/widgets.skew.example.com"),
                          "customresourcedefinition.apiextensions.k8s.io/"
                          "widgets.skew.example.com condition met\n")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.home, ignore_errors=True)
        shutil.rmtree(cls.workdir, ignore_errors=True)
        cls.server.stop()

    # ---- running kubectl -------------------------------------------------
    def env(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ("KUBECONFIG", "KUBE_EDITOR", "EDITOR")}
        env["HOME"] = self.home
        return env

    def argv(self, args):
        return [self.binary, "--kubeconfig", self.server.kubeconfig] + list(args)

    def kubectl(self, *args, timeout=30):
        return run(self.argv(args), timeout=timeout, env=self.env(),
                   stdin=subprocess.DEVNULL)

    def describe(self, args, r):
        return "kubectl 1.%d %s\nexit %d\nstdout: %s\nstderr: %s" % (
            self.minor, " ".join(args), r.returncode, r.stdout, r.stderr)

    def ok(self, *args, stderr=""):
        """Run kubectl, expect exit 0 and (unless stderr=None) the stderr given."""
        r = self.kubectl(*args)
        self.assertEqual(r.returncode, 0, self.describe(args, r))
        if stderr is not None:
            self.assertEqual(r.stderr, stderr, self.describe(args, r))
        return r.stdout

    def fails(self, *args, stderr):
        """Run kubectl, expect exit 1, no stdout and this stderr."""
        r = self.kubectl(*args)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, "", stderr),
                         self.describe(args, r))

    def write(self, text):
        type(self).files += 1
        path = os.path.join(self.workdir, "m%03d.yaml" % type(self).files)
        with open(path, "w") as f:
            f.write(text)
        return path

    def namespace(self, name):
        path = self.write("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n" % name)
        self.assertEqual(self.ok("create", "-f", path), "namespace/%s created\n" % name)

    def assert_table(self, out, header, rows):
        """kubectl's table: header and rows, each cell a string or a compiled regex."""
        got = table(out)
        self.assertEqual(got[0], header, out)
        self.assertEqual(len(got) - 1, len(rows), out)
        for want, have in zip(rows, got[1:]):
            self.assertEqual(len(have), len(want), "row %r in\n%s" % (have, out))
            for w, h in zip(want, have):
                if isinstance(w, str):
                    self.assertEqual(h, w, "row %r in\n%s" % (have, out))
                else:
                    self.assertRegex(h, w, "row %r in\n%s" % (have, out))

    # ---- flows -----------------------------------------------------------
    def check_version(self):
        r = self.kubectl("version")
        self.assertEqual(r.returncode, 0, self.describe(["version"], r))
        if self.minor < 28:
            # version.Info{...} structs (1.27 warns that this form is deprecated)
            self.assertRegex(r.stdout, r'^Client Version: version.Info\{Major:"1", '
                             r'Minor:"%d", GitVersion:"v1\.%d\.' % (self.minor, self.minor))
            self.assertRegex(r.stdout, r'\nServer Version: version.Info\{Major:"1", '
                             r'Minor:"32", GitVersion:"v1\.32\.0-cpp\.[^"]+"')
            if self.minor == 27:
                # 1.27 also warns of the skew beyond +/-1 (1.20 does not check it)
                self.assertEqual(r.stderr, "WARNING: This version information is deprecated "
                                 "and will be replaced with the output from kubectl "
                                 "version --short.  Use --output=yaml|json to get the "
                                 "full version.\n"
                                 "WARNING: version difference between client (1.27) and "
                                 "server (1.32) exceeds the supported minor version skew "
                                 "of +/-1\n")
            else:
                self.assertEqual(r.stderr, "")
        else:
            self.assertRegex(r.stdout, r"^Client Version: v1\.%d\.\d+\n"
                             r"Kustomize Version: v[\d.]+\n"
                             r"Server Version: v1\.32\.0-cpp\.\S+\n$" % self.minor)
            self.assertEqual(r.stderr, "")
        skew = ("WARNING: version difference between client (1.27) and server (1.32) "
                "exceeds the supported minor version skew of +/-1\n")
        out = json.loads(self.ok("version", "-o", "json",
                                 stderr=skew if self.minor == 27 else ""))
        self.assertEqual((out["serverVersion"]["major"], out["serverVersion"]["minor"]),
                         ("1", "32"))
        self.assertEqual(out["clientVersion"]["minor"], str(self.minor))

    def check_api_versions(self):
        lines = self.ok("api-versions").splitlines()
        self.assertEqual(lines, sorted(lines))
        for gv in ("v1", "apps/v1", "apiextensions.k8s.io/v1", "skew.example.com/v1",
                   "rbac.authorization.k8s.io/v1", "coordination.k8s.io/v1"):
            self.assertIn(gv, lines)

    def check_api_resources(self):
        out = self.ok("api-resources")
        rows = {}
        header = out.splitlines()[0].split()
        self.assertEqual(header, ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"])
        for line in out.splitlines()[1:]:
            cells = line.split()
            if len(cells) == 4:  # no short names
                cells.insert(1, "")
            rows[(cells[0], cells[2])] = cells
        for want in (["pods", "po", "v1", "true", "Pod"],
                     ["namespaces", "ns", "v1", "false", "Namespace"],
                     ["secrets", "", "v1", "true", "Secret"],
                     ["deployments", "deploy", "apps/v1", "true", "Deployment"],
                     ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1",
                      "false", "CustomResourceDefinition"],
                     ["widgets", "wg", "skew.example.com/v1", "true", "Widget"]):
            self.assertEqual(rows.get((want[0], want[2])), want, out)
        names = [line.split()[0] for line in out.splitlines()[1:]]
        # the core group first
        self.assertLess(names.index("services"), names.index("deployments"))
        self.assertEqual(self.ok("api-resources", "--api-group=skew.example.com",
                                 "-o", "name"), "widgets.skew.example.com\n")
        out = self.ok("api-resources", "--api-group=apps", "-o", "wide")
        deployments = [line for line in out.splitlines() if line.startswith("deployments ")]
        self.assertEqual(len(deployments), 1, out)
        verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update",
                 "watch"]
        if self.minor < 27:
            verbs = "[%s]" % " ".join(verbs)  # a Go slice, as 1.20 prints it
        else:
            verbs = ",".join(verbs)
        self.assertIn(" %s " % verbs, deployments[0] + " ")

    def check_get_tables(self):
        ns = "get-tables"
        self.namespace(ns)
        path = self.write(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: %s\n"
            "spec:\n  containers:\n  - name: c\n    image: nginx:1.27\n"
            "---\n" % ns
            + DEPLOYMENT.format(name="web", ns=ns, replicas=2, image="nginx:1.27")
            + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
            "  namespace: %s\nspec:\n  selector:\n    app: web\n  ports:\n"
            "  - port: 80\n    targetPort: 8080\n" % ns
            + "---\napiVersion: skew.example.com/v1\nkind: Widget\nmetadata:\n"
            "  name: w1\n  namespace: %s\nspec:\n  color: red\n" % ns)
        self.assertEqual(self.ok("create", "-f", path),
                         "pod/p1 created\ndeployment.apps/web created\nservice/web created\n"
                         "widget.skew.example.com/w1 created\n")
        self.assert_table(self.ok("get", "pods", "-n", ns),
                          ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                          [["p1", "0/1", "Pending", "0", AGE]])
        self.assert_table(self.ok("get", "pods", "-n", ns, "-o", "wide"),
                          ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                           "NOMINATED NODE", "READINESS GATES"],
                          [["p1", "0/1", "Pending", "0", AGE, "<none>", "<none>", "<none>",
                            "<none>"]])
        self.assert_table(self.ok("get", "deployments", "-n", ns),
                          ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
                          [["web", "0/2", "0", "0", AGE]])
        self.assert_table(self.ok("get", "deploy", "-n", ns, "-o", "wide"),
                          ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS",
                           "IMAGES", "SELECTOR"],
                          [["web", "0/2", "0", "0", AGE, "main", "nginx:1.27", "app=web"]])
        self.assert_table(self.ok("get", "services", "-n", ns),
                          ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
                          [["web", "ClusterIP", CLUSTER_IP, "<none>", "80/TCP", AGE]])
        self.assert_table(self.ok("get", "svc", "web", "-n", ns, "-o", "wide"),
                          ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE",
                           "SELECTOR"],
                          [["web", "ClusterIP", CLUSTER_IP, "<none>", "80/TCP", AGE,
                            "app=web"]])
        # (other tests of the class add their namespaces)
        out = self.ok("get", "namespaces")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "STATUS", "AGE"], out)
        names = [r[0] for r in rows[1:]]
        self.assertEqual(names, sorted(names), out)
        self.assertLessEqual({"default", ns, "kube-node-lease", "kube-public", "kube-system"},
                             set(names), out)
        for r in rows[1:]:
            self.assertEqual(r[1], "Active", out)
            self.assertRegex(r[2], AGE, out)
        # a custom resource's printer columns (no AGE: the CRD names its columns)
        self.assert_table(self.ok("get", "widgets", "-n", ns),
                          ["NAME", "COLOR"], [["w1", "red"]])
        # several kinds at once: one table per kind, headed by its names
        out = self.ok("get", "deploy,svc", "-n", ns)
        blocks = out.split("\n\n")
        self.assertEqual(len(blocks), 2, out)
        self.assertEqual(table(blocks[0])[1][0], "deployment.apps/web", out)
        self.assertEqual(table(blocks[1])[1][0], "service/web", out)
        self.assertEqual(self.ok("get", "pods", "-n", "default",
                                 stderr="No resources found in default namespace.\n"), "")

    def check_create_list(self):
        ns = "create-list"
        self.namespace(ns)
        path = self.write(LIST.format(ns=ns))
        self.assertEqual(self.ok("create", "-f", path),
                         "configmap/listed created\ndeployment.apps/listed created\n"
                         "widget.skew.example.com/listed created\n")
        self.assertEqual(self.ok("get", "cm,deploy,widgets", "-n", ns, "-o", "name"),
                         "configmap/listed\ndeployment.apps/listed\n"
                         "widget.skew.example.com/listed\n")
        # kubectl 1.20 does not name the file for the items of a List
        source = "" if self.minor < 27 else 'error when creating "%s": ' % path
        self.fails("create", "-f", path, stderr="".join(
            'Error from server (AlreadyExists): %s%s "listed" already exists\n'
            % (source, resource)
            for resource in ("configmaps", "deployments.apps",
                             "widgets.skew.example.com")))
        # delete -f of the same List
        self.assertEqual(self.ok("delete", "-f", path),
                         'configmap "listed" deleted\ndeployment.apps "listed" deleted\n'
                         'widget.skew.example.com "listed" deleted\n')
        self.assertEqual(self.ok("get", "cm,deploy,widgets", "-n", ns, "-o", "name"), "")
        source = "" if self.minor < 27 else 'error when deleting "%s": ' % path
        self.fails("delete", "-f", path, stderr="".join(
            'Error from server (NotFound): %s%s "listed" not found\n' % (source, resource)
            for resource in ("configmaps", "deployments.apps",
                             "widgets.skew.example.com")))

    def check_apply(self):
        ns = "apply"
        self.namespace(ns)
        cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
              "  namespace: %s\ndata:\n  mode: %s\n")
        widget = ("apiVersion: skew.example.com/v1\nkind: Widget\nmetadata:\n"
                  "  name: gear\n  namespace: %s\nspec:\n  color: %s\n")
        first = self.write(cm % (ns, "fast") + "---\n"
                           + DEPLOYMENT.format(name="app", ns=ns, replicas=1,
                                               image="nginx:1.26")
                           + "---\n" + widget % (ns, "green"))
        self.assertEqual(self.ok("apply", "-f", first),
                         "configmap/settings created\ndeployment.apps/app created\n"
                         "widget.skew.example.com/gear created\n")
        self.assertEqual(self.ok("apply", "-f", first),
                         "configmap/settings unchanged\ndeployment.apps/app unchanged\n"
                         "widget.skew.example.com/gear unchanged\n")
        second = self.write(cm % (ns, "slow") + "---\n"
                            + DEPLOYMENT.format(name="app", ns=ns, replicas=3,
                                                image="nginx:1.27")
                            + "---\n" + widget % (ns, "green"))
        self.assertEqual(self.ok("apply", "-f", second),
                         "configmap/settings configured\ndeployment.apps/app configured\n"
                         "widget.skew.example.com/gear unchanged\n")
        self.assertEqual(self.ok("get", "cm", "settings", "-n", ns, "-o",
                                 "jsonpath={.data.mode}"), "slow")
        self.assert_table(self.ok("get", "deploy", "app", "-n", ns, "-o", "wide"),
                          ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS",
                           "IMAGES", "SELECTOR"],
                          [["app", "0/3", "0", "0", AGE, "main", "nginx:1.27", "app=app"]])
        third = self.write(widget % (ns, "black"))
        self.assertEqual(self.ok("apply", "-f", third),
                         "widget.skew.example.com/gear configured\n")
        self.assertEqual(self.ok("get", "widget", "gear", "-n", ns, "-o",
                                 "jsonpath={.spec.color}"), "black")
        self.assertEqual(self.ok("apply", "-f", second),
                         "configmap/settings unchanged\ndeployment.apps/app unchanged\n"
                         "widget.skew.example.com/gear configured\n")

    def check_explain_builtin(self):
        # (the descriptions are the project's own: docs/compatibility.md)
        out = self.ok("explain", "deployment.spec.replicas")
        if self.minor < 27:
            # from /openapi/v2: the group in VERSION
            self.assertEqual(out, "KIND:     Deployment\nVERSION:  apps/v1\n\n"
                             "FIELD:    replicas <integer>\n\n"
                             "DESCRIPTION:\n     How many pods to run (1 by default).\n")
        else:
            # from /openapi/v3 (1.33's template has one more blank line)
            self.assertEqual(out, "GROUP:      apps\nKIND:       Deployment\n"
                             "VERSION:    v1\n\nFIELD: replicas <integer>\n\n%s"
                             "DESCRIPTION:\n    How many pods to run (1 by default).\n    \n\n"
                             % ("" if self.minor == 27 else "\n"))
        out = self.ok("explain", "deployment.spec")
        # v2 names every reference <Object>, v3 the referenced kind
        fields = (("replicas", "integer", ""), ("selector", "LabelSelector", " -required-"),
                  ("template", "PodTemplateSpec", " -required-"))
        for field, kind, required in fields:
            if self.minor < 27 and kind[0].isupper():
                kind = "Object"
            self.assertRegex(out, r"(?m)^ {2,3}%s\t<%s>%s$" % (field, kind, required))
        self.assertIn("Which pods belong to the deployment; fixed once created.", out)

    def check_explain_crd(self):
        out = self.ok("explain", "widgets")
        if self.minor < 27:
            head = ["KIND:     Widget", "VERSION:  skew.example.com/v1"]
        else:
            head = ["GROUP:      skew.example.com", "KIND:       Widget", "VERSION:    v1"]
        self.assertEqual(out.splitlines()[:len(head)], head, out)
        self.assertIn("A widget of some color.", out)
        out = self.ok("explain", "widgets.spec")
        self.assertIn("What the widget looks like.", out)
        self.assertRegex(out, r"(?m)^   ?color\t+<string> -required-$")
        self.assertRegex(out, r"(?m)^   ?size\t+<integer>$")
        self.assertIn("The color of the widget.", out)
        out = self.ok("explain", "widget.spec.color")
        self.assertIn("The color of the widget.", out)

    def check_validation(self):
        ns = "validation"
        self.namespace(ns)
        deployment = self.write(DEPLOYMENT.format(
            name="strict", ns=ns, replicas=1, image="nginx:1.27").replace(
                "  replicas: 1\n", "  replicas: 1\n  replica: 2\n"))
        widget = self.write("apiVersion: skew.example.com/v1\nkind: Widget\nmetadata:\n"
                            "  name: strict\n  namespace: %s\nspec:\n  color: red\n"
                            "  colour: red\n" % ns)
        if self.minor < 27:
            # client-side, from /openapi/v2, before anything is sent
            flag = "--validate=true"
            self.fails("create", "-f", deployment, flag, stderr=(
                'error: error validating "%s": error validating data: '
                'ValidationError(Deployment.spec): unknown field "replica" in '
                'io.k8s.api.apps.v1.DeploymentSpec; if you choose to ignore these errors, '
                'turn validation off with --validate=false\n' % deployment))
            self.fails("create", "-f", widget, flag, stderr=(
                'error: error validating "%s": error validating data: '
                'ValidationError(Widget.spec): unknown field "colour" in '
                'com.example.skew.v1.Widget.spec; if you choose to ignore these errors, '
                'turn validation off with --validate=false\n' % widget))
            # 1.20's flag is a boolean
            r = self.kubectl("create", "-f", widget, "--validate=strict")
            self.assertEqual((r.returncode, r.stdout, r.stderr), (
                1, "", 'Error: invalid argument "strict" for "--validate" flag: '
                'strconv.ParseBool: parsing "strict": invalid syntax\n'
                "See 'kubectl create --help' for usage.\n"), self.describe(["create"], r))
        else:
            # the server's strict field validation
            flag = "--validate=strict"
            self.fails("create", "-f", deployment, flag, stderr=(
                'Error from server (BadRequest): error when creating "%s": Deployment in '
                'version "v1" cannot be handled as a Deployment: strict decoding error: '
                'unknown field "spec.replica"\n' % deployment))
            self.fails("create", "-f", widget, flag, stderr=(
                'Error from server (BadRequest): error when creating "%s": Widget in '
                'version "v1" cannot be handled as a Widget: strict decoding error: '
                'unknown field "spec.colour"\n' % widget))
        # A List is validated client-side by every version: newer ones validate on the
        # server only kinds that /openapi/v3 (or v2) shows taking fieldValidation, and no
        # document has a v1 List; the items are checked against /openapi/v2.
        listed = self.write(
            "apiVersion: v1\nkind: List\nitems:\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: strict\n"
            "    namespace: %s\n  data:\n    a: b\n  extra: 1\n"
            "- apiVersion: skew.example.com/v1\n  kind: Widget\n  metadata:\n"
            "    name: strict\n    namespace: %s\n  spec:\n    color: red\n"
            "    colour: red\n" % (ns, ns))
        for verb in ("create", "apply"):
            self.fails(verb, "-f", listed, "--validate=true", stderr=(
                'error: error validating "%s": error validating data: ['
                'ValidationError(ConfigMap): unknown field "extra" in '
                'io.k8s.api.core.v1.ConfigMap, ValidationError(Widget.spec): unknown field '
                '"colour" in com.example.skew.v1.Widget.spec]; if you choose to ignore these '
                'errors, turn validation off with --validate=false\n' % listed))
        self.assertEqual(self.ok("get", "cm,deploy,widgets", "-n", ns, "-o", "name"), "")
        # Without validation the unknown field is dropped. kubectl 1.20 sends no
        # fieldValidation, so the server's default (Warn) reports it; newer ones send Ignore.
        warning = 'Warning: unknown field "spec.colour"\n' if self.minor < 27 else ""
        self.assertEqual(self.ok("create", "-f", widget, "--validate=false", stderr=warning),
                         "widget.skew.example.com/strict created\n")
        self.assertEqual(json.loads(self.ok("get", "widget", "strict", "-n", ns, "-o",
                                            "json"))["spec"], {"color": "red"})

    def check_watch(self):
        ns = "watch"
        self.namespace(ns)
        self.server.wait_watches("configmaps", 0)
        proc = subprocess.Popen(self.argv(["get", "configmaps", "-n", ns, "-w"]),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, env=self.env())
        lines, cond = [], threading.Condition()

        def read():
            for line in proc.stdout:
                with cond:
                    lines.append(line.rstrip("\n"))
                    cond.notify_all()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            self.server.wait_watches("configmaps", 1)
            path = self.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seen\n"
                              "  namespace: %s\ndata:\n  a: b\n  c: d\n" % ns)
            self.assertEqual(self.ok("create", "-f", path), "configmap/seen created\n")
            self.assertEqual(self.ok("patch", "cm", "seen", "-n", ns, "-p",
                                     '{"data":{"e":"f"}}'), "configmap/seen patched\n")
            deadline = time.monotonic() + 10
            with cond:
                while len(lines) < 3 and time.monotonic() < deadline:
                    cond.wait(0.1)
                seen = list(lines)
        finally:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
            reader.join(timeout=5)
            err = proc.stderr.read()
            proc.stdout.close()
            proc.stderr.close()
        self.assert_table("\n".join(seen), ["NAME", "DATA", "AGE"],
                          [["seen", "2", AGE], ["seen", "3", AGE]])
        # (a watch prints no "No resources found" for the empty list it starts from)
        self.assertEqual(err, "")
        # the server notices the client left
        self.server.wait_watches("configmaps", 0)


class _Flows:
    """The flows, one test each; mixed into a class per kubectl version (not a TestCase itself,
    so it never runs without a binary)."""

    def test_version(self):
        self.check_version()

    def test_api_versions(self):
        self.check_api_versions()

    def test_api_resources(self):
        self.check_api_resources()

    def test_get_tables(self):
        self.check_get_tables()

    def test_create_and_delete_list(self):
        self.check_create_list()

    def test_apply(self):
        self.check_apply()

    def test_explain_builtin(self):
        self.check_explain_builtin()

    def test_explain_crd(self):
        self.check_explain_crd()

    def test_validation(self):
        self.check_validation()

    def test_watch(self):
        self.check_watch()


class Kubectl120Tests(_Flows, KubectlVersionTestCase):
    """kubectl 1.20: /openapi/v2 for explain and client-side validation."""

    binary = KUBECTL_120
    minor = 20


class Kubectl127Tests(_Flows, KubectlVersionTestCase):
    """kubectl 1.27, the oldest build of the dispatcher: /openapi/v3 for explain, the server's
    strict field validation."""

    binary = SDK_BIN + "/kubectl.1.27"
    minor = 27


class Kubectl133Tests(_Flows, KubectlVersionTestCase):
    """kubectl 1.33, the newest build, a minor version ahead of the server."""

    binary = SDK_BIN + "/kubectl.1.33"
    minor = 33
