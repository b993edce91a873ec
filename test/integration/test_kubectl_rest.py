"""Integration tests: real kubectl (v1.32) against the binary's REST API.

Every test runs /usr/bin/kubectl against a freshly started server over real
TLS and asserts what a user sees: stdout, stderr and the exit code, as real
kubectl prints them against a real kube-apiserver 1.32.

Run with:
    KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest \
        test.integration.test_kubectl_rest -v

kubectl runs with HOME pointing at a temporary directory (its discovery cache
lives in ~/.kube/cache), removed when the server stops.
"""

import base64
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import KUBECTL, Server, run  # noqa: E402

try:
    import yaml
except ImportError:  # pragma: no cover - Debian python3-yaml is installed
    yaml = None

AGE = re.compile(r"^(\d+s|\d+m\d*s?|\d+h\d*m?|\d+d\d*h?|\d+y\d*d?)$")
UUID = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
CONFLICT_TAIL = ("the object has been modified; please apply your changes "
                 "to the latest version and try again")
OBJ_REGEX_DNS1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def human_duration(seconds):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return "%ds" % seconds
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return "%dm" % minutes if s == 0 else "%dm%ds" % (minutes, s)
    if minutes < 60 * 3:
        return "%dm" % minutes
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return "%dh" % hours if m == 0 else "%dh%dm" % (hours, m)
    if hours < 48:
        return "%dh" % hours
    if hours < 24 * 8:
        h = hours % 24
        return "%dd" % (hours // 24) if h == 0 else "%dd%dh" % (hours // 24, h)
    if hours < 24 * 365 * 2:
        return "%dd" % (hours // 24)
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        if dy == 0:
            return "%dy" % (hours // 24 // 365)
        return "%dy%dd" % (hours // 24 // 365, dy)
    return "%dy" % (hours // 24 // 365)


def rfc3339(ts):
    return datetime.datetime.fromtimestamp(
        int(ts), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# What kubectl 1.32 prints for `ev` against upstream too: events.k8s.io/v1 events share
# the core events' short name.
EV_WARNING = ('Warning: short name "ev" could also match lower priority resource '
              'events.events.k8s.io\n')


def b64(s):
    return base64.b64encode(s.encode()).decode()


def split_row(line):
    """Cells of one line of kubectl's tabwriter output (padding 3)."""
    return re.split(r" {3,}", line.rstrip())


def table(text):
    return [split_row(line) for line in text.splitlines() if line.strip()]


class Kubectl:
    """Runs /usr/bin/kubectl against one server with a private HOME."""

    def __init__(self, server):
        self.server = server
        self.home = tempfile.mkdtemp(prefix="kas-it-kubectl-home-")
        self.workdir = tempfile.mkdtemp(prefix="kas-it-kubectl-files-")
        self._n = 0

    def env(self, extra=None):
        env = {k: v for k, v in os.environ.items()
               if k not in ("KUBECONFIG", "KUBE_EDITOR", "EDITOR")}
        env["HOME"] = self.home
        env.update(extra or {})
        return env

    def argv(self, args):
        return [KUBECTL, "--kubeconfig", self.server.kubeconfig] + list(args)

    def __call__(self, *args, input=None, env=None, timeout=30):
        return run(self.argv(args), timeout=timeout, input=input,
                   env=self.env(env))

    def popen(self, *args):
        return subprocess.Popen(self.argv(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL, env=self.env())

    def write(self, text, name=None, mode=0o644):
        self._n += 1
        path = os.path.join(self.workdir, name or ("m%03d.yaml" % self._n))
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def cleanup(self):
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.workdir, ignore_errors=True)


class StreamReader:
    """Collects the stdout lines of a long-running process in a thread."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, n, timeout=10):
        """Wait until n lines were read; return a copy of the lines."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.lines) < n:
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None
                                 and not self.thread.is_alive()):
                    break
                self.cond.wait(min(left, 0.1))
            return list(self.lines)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.thread.join(timeout=5)
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return err


class KubectlTestCase(unittest.TestCase):
    """One server (and one kubectl HOME) per test class."""

    maxDiff = None
    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = Server(*cls.server_args)
        cls.kubectl = Kubectl(cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.kubectl.cleanup()
        cls.server.stop()

    # ---- raw API (JSON over TLS, independent of kubectl) -----------------
    def api(self, method, path, body=None, ctype="application/json",
            expect=None):
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = ctype
            if not isinstance(body, (str, bytes)):
                body = json.dumps(body)
        status, _, data = self.server.request(method, path, body=body,
                                              headers=headers)
        obj = json.loads(data) if data else None
        if expect is not None:
            self.assertEqual(status, expect, data[:2000])
        return status, obj

    def make_ns(self, name):
        self.api("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace",
                  "metadata": {"name": name}}, expect=201)

    def make(self, ns, resource, obj, group="api/v1"):
        path = "/%s/namespaces/%s/%s" % (group, ns, resource)
        return self.api("POST", path, obj, expect=201)[1]

    def get_obj(self, ns, resource, name, group="api/v1", expect=200):
        if ns is None:
            path = "/%s/%s/%s" % (group, resource, name)
        else:
            path = "/%s/namespaces/%s/%s/%s" % (group, ns, resource, name)
        return self.api("GET", path, expect=expect)[1]

    def cm(self, name, data=None, labels=None, **extra):
        meta = {"name": name}
        if labels:
            meta["labels"] = labels
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
        if data is not None:
            obj["data"] = data
        obj.update(extra)
        return obj

    # ---- kubectl ---------------------------------------------------------
    def k(self, *args, **kw):
        return self.kubectl(*args, **kw)

    def ok(self, *args, stderr="", **kw):
        """Run kubectl, expect exit 0 and (by default) empty stderr."""
        r = self.kubectl(*args, **kw)
        self.assertEqual(r.returncode, 0,
                         "kubectl %s\nstdout: %s\nstderr: %s"
                         % (" ".join(args), r.stdout, r.stderr))
        if stderr is not None:
            self.assertEqual(r.stderr, stderr, "kubectl %s" % " ".join(args))
        return r.stdout

    def fails(self, *args, stderr=None, rc=1, **kw):
        """Run kubectl, expect exit rc, empty stdout; check/return stderr."""
        r = self.kubectl(*args, **kw)
        self.assertEqual(r.returncode, rc,
                         "kubectl %s\nstdout: %s\nstderr: %s"
                         % (" ".join(args), r.stdout, r.stderr))
        self.assertEqual(r.stdout, "", "kubectl %s" % " ".join(args))
        if stderr is not None:
            self.assertEqual(r.stderr, stderr, "kubectl %s" % " ".join(args))
        return r.stderr

    def assert_table(self, out, header, rows):
        """Compare kubectl table output; cells may be str or compiled re."""
        got = table(out)
        self.assertTrue(got, "no table in output: %r" % out)
        self.assertEqual(got[0], header, out)
        self.assertEqual(len(got) - 1, len(rows), out)
        for want, have in zip(rows, got[1:]):
            self.assertEqual(len(have), len(want), "row %r in\n%s"
                             % (have, out))
            for w, h in zip(want, have):
                if isinstance(w, str):
                    self.assertEqual(h, w, "row %r in\n%s" % (have, out))
                else:
                    self.assertRegex(h, w, "row %r in\n%s" % (have, out))
        # kubectl aligns columns: each header cell starts where its column
        # starts, so the header line tells us the server sent real cells.
        return got


# ---------------------------------------------------------------------------
# kubectl get
# ---------------------------------------------------------------------------

class GetTests(KubectlTestCase):
    """Read-only flows over a fixed set of objects (own server)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        t = cls("setUp")  # a throwaway instance for the API helpers
        try:
            t.make_ns("gt")
            t.make_ns("gt2")
            for name, data, labels, extra in [
                    ("cm-a", {"k1": "v1", "k2": "v2"},
                     {"app": "web", "tier": "fe"}, {}),
                    ("cm-b", {"k1": "v1"}, {"app": "web", "tier": "be"},
                     {"binaryData": {"b1": b64("bin")}}),
                    ("cm-c", None, {"app": "db"}, {}),
                    ("cm-d", {"k": "v"}, None, {}),
                    ("cm-e", {"x": "1", "y": "2", "z": "3"}, {"env": "prod"},
                     {})]:
                t.make("gt", "configmaps", t.cm(name, data, labels, **extra))
            t.make("gt2", "configmaps", t.cm("cm-z", {"a": "b"}))
            t.make("gt", "secrets", {
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "s-opaque"},
                "data": {"d1": b64("one")},
                "stringData": {"s1": "two", "s2": "three"}})
            t.make("gt", "secrets", {
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "s-custom"}, "type": "example.com/custom",
                "data": {"only": b64("x")}})
            for name, holder in (("l1", "node-1"), ("l2", "node-2")):
                t.make("gt", "leases", {
                    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": name},
                    "spec": {"holderIdentity": holder,
                             "leaseDurationSeconds": 40,
                             "acquireTime": "2024-01-02T03:04:05.123456Z",
                             "renewTime": "2024-01-02T03:04:15.654321Z"}},
                    group="apis/coordination.k8s.io/v1")
            now = time.time()
            cls.ev1_first = now - 10 * 86400 - 3600
            cls.ev1_last = now - 3 * 86400 - 5 * 3600 - 1800
            cls.ev2_first = now - 86400 - 7200
            t.make("gt", "events", {
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "ev1"},
                "involvedObject": {"kind": "ConfigMap", "name": "cm-a",
                                   "namespace": "gt", "apiVersion": "v1",
                                   "fieldPath": "data.k1"},
                "reason": "Tested", "message": "hello from the test",
                "type": "Normal",
                "source": {"component": "tester", "host": "node-1"},
                "firstTimestamp": rfc3339(cls.ev1_first),
                "lastTimestamp": rfc3339(cls.ev1_last), "count": 3})
            t.make("gt", "events", {
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "ev2"},
                "involvedObject": {"kind": "Lease", "name": "l1",
                                   "namespace": "gt",
                                   "apiVersion": "coordination.k8s.io/v1",
                                   "fieldPath": "spec"},
                "reason": "Failed", "message": "it broke",
                "type": "Warning", "source": {"component": "other"},
                "firstTimestamp": rfc3339(cls.ev2_first)})
        except BaseException:
            cls.tearDownClass()
            raise

    # -- tables ------------------------------------------------------------
    def test_get_namespaces_table(self):
        out = self.ok("get", "namespaces")
        self.assert_table(out, ["NAME", "STATUS", "AGE"], [
            ["default", "Active", AGE],
            ["gt", "Active", AGE],
            ["gt2", "Active", AGE],
            ["kube-node-lease", "Active", AGE],
            ["kube-public", "Active", AGE],
            ["kube-system", "Active", AGE]])
        # the short name works too
        self.assertEqual(self.ok("get", "ns", "kube-system", "-o", "name"),
                         "namespace/kube-system\n")

    def test_get_configmaps_table(self):
        out = self.ok("get", "configmaps", "-n", "gt")
        self.assert_table(out, ["NAME", "DATA", "AGE"], [
            ["cm-a", "2", AGE], ["cm-b", "2", AGE], ["cm-c", "0", AGE],
            ["cm-d", "1", AGE], ["cm-e", "3", AGE]])
        # the columns are aligned by kubectl's tabwriter
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("NAME   DATA   AGE"), out)
        self.assertTrue(lines[1].startswith("cm-a   2      "), out)

    def test_get_single_configmap_table(self):
        out = self.ok("get", "cm", "cm-e", "-n", "gt")
        self.assert_table(out, ["NAME", "DATA", "AGE"], [["cm-e", "3", AGE]])

    def test_get_secrets_table(self):
        out = self.ok("get", "secrets", "-n", "gt")
        self.assert_table(out, ["NAME", "TYPE", "DATA", "AGE"], [
            ["s-custom", "example.com/custom", "1", AGE],
            ["s-opaque", "Opaque", "3", AGE]])

    def test_get_leases_table(self):
        out = self.ok("get", "leases", "-n", "gt")
        self.assert_table(out, ["NAME", "HOLDER", "AGE"], [
            ["l1", "node-1", AGE], ["l2", "node-2", AGE]])
        out = self.ok("get", "lease.coordination.k8s.io", "l2", "-n", "gt")
        self.assert_table(out, ["NAME", "HOLDER", "AGE"],
                          [["l2", "node-2", AGE]])

    def _event_ages(self, before, after):
        def ages(ts):
            return {human_duration(int(before - ts)),
                    human_duration(int(after - ts))}
        return ages

    def _assert_age_in(self, cell, choices, out):
        self.assertIn(cell, choices, out)

    def test_get_events_table(self):
        before = time.time()
        out = self.ok("get", "events", "-n", "gt")
        after = time.time() + 1
        ages = self._event_ages(before - 1, after)
        rows = self.assert_table(
            out, ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], [
                [re.compile("."), "Normal", "Tested", "configmap/cm-a",
                 "hello from the test"],
                [re.compile("."), "Warning", "Failed", "lease/l1",
                 "it broke"]])
        # LAST SEEN is lastTimestamp, or firstTimestamp when unset
        self._assert_age_in(rows[1][0], ages(self.ev1_last), out)
        self._assert_age_in(rows[2][0], ages(self.ev2_first), out)

    def test_get_events_wide(self):
        before = time.time()
        out = self.ok("get", "ev", "-n", "gt", "-o", "wide", stderr=EV_WARNING)
        after = time.time() + 1
        ages = self._event_ages(before - 1, after)
        rows = self.assert_table(
            out, ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT",
                  "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"], [
                [re.compile("."), "Normal", "Tested", "configmap/cm-a",
                 "data.k1", "tester, node-1", "hello from the test",
                 re.compile("."), "3", "ev1"],
                [re.compile("."), "Warning", "Failed", "lease/l1", "spec",
                 "other", "it broke", re.compile("."), "1", "ev2"]])
        self._assert_age_in(rows[1][0], ages(self.ev1_last), out)
        self._assert_age_in(rows[1][7], ages(self.ev1_first), out)
        self._assert_age_in(rows[2][0], ages(self.ev2_first), out)
        self._assert_age_in(rows[2][7], ages(self.ev2_first), out)

    def test_get_all_namespaces(self):
        out = self.ok("get", "cm", "-A")
        got = table(out)
        self.assertEqual(got[0], ["NAMESPACE", "NAME", "DATA", "AGE"], out)
        mine = [r[:3] for r in got[1:] if r[0] in ("gt", "gt2")]
        self.assertEqual(mine, [
            ["gt", "cm-a", "2"], ["gt", "cm-b", "2"], ["gt", "cm-c", "0"],
            ["gt", "cm-d", "1"], ["gt", "cm-e", "3"], ["gt2", "cm-z", "1"]])
        for r in got[1:]:
            self.assertEqual(len(r), 4, out)
            self.assertRegex(r[3], AGE)
        out = self.ok("get", "secrets", "--all-namespaces", "-o", "name")
        self.assertEqual(out, "secret/s-custom\nsecret/s-opaque\n")

    def test_get_empty_list(self):
        r = self.k("get", "configmaps")
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "", "No resources found in default namespace.\n"))
        r = self.k("get", "leases", "-n", "gt2")
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "", "No resources found in gt2 namespace.\n"))
        r = self.k("get", "cm", "-n", "gt", "-l", "app=nothing")
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "", "No resources found in gt namespace.\n"))

    def test_get_missing(self):
        self.fails("get", "cm", "nope", "-n", "gt", stderr=
                   'Error from server (NotFound): configmaps "nope" '
                   'not found\n')
        self.fails("get", "lease", "nope", "-n", "gt", stderr=
                   'Error from server (NotFound): leases.coordination.k8s.io '
                   '"nope" not found\n')
        self.fails("get", "ns", "nope", stderr=
                   'Error from server (NotFound): namespaces "nope" '
                   'not found\n')
        # several names: found ones printed, then the error
        r = self.k("get", "cm", "cm-d", "nope", "-n", "gt", "-o", "name")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "configmap/cm-d\n")
        self.assertEqual(r.stderr, 'Error from server (NotFound): '
                         'configmaps "nope" not found\n')

    # -- output formats ------------------------------------------------------
    def test_get_yaml(self):
        live = self.get_obj("gt", "configmaps", "cm-a")
        out = self.ok("get", "cm", "cm-a", "-n", "gt", "-o", "yaml")
        self.assertTrue(out.startswith("apiVersion: v1\ndata:\n"), out)
        obj = yaml.safe_load(out)
        self.assertEqual(obj["kind"], "ConfigMap")
        self.assertEqual(obj["data"], {"k1": "v1", "k2": "v2"})
        md = obj["metadata"]
        self.assertEqual(md["name"], "cm-a")
        self.assertEqual(md["namespace"], "gt")
        self.assertEqual(md["labels"], {"app": "web", "tier": "fe"})
        self.assertRegex(md["uid"], UUID)
        self.assertRegex(md["resourceVersion"], r"^[1-9][0-9]*$")
        self.assertRegex(md["creationTimestamp"], RFC3339)
        self.assertNotIn("managedFields", md)  # hidden by kubectl
        live["metadata"].pop("managedFields", None)
        self.assertEqual(obj, live)
        lines = out.splitlines()
        self.assertIn('  resourceVersion: "%s"' % md["resourceVersion"], lines)
        self.assertIn('  creationTimestamp: "%s"' % md["creationTimestamp"],
                      lines)

    def test_get_json_list(self):
        out = self.ok("get", "secrets", "-n", "gt", "-o", "json")
        obj = json.loads(out)
        self.assertEqual(obj["kind"], "List")
        self.assertEqual(obj["apiVersion"], "v1")
        self.assertEqual([i["metadata"]["name"] for i in obj["items"]],
                         ["s-custom", "s-opaque"])
        opaque = obj["items"][1]
        self.assertEqual(opaque["kind"], "Secret")
        self.assertEqual(opaque["apiVersion"], "v1")
        self.assertEqual(opaque["type"], "Opaque")
        # stringData was merged into data on create and is not stored
        self.assertEqual(opaque["data"], {"d1": b64("one"), "s1": b64("two"),
                                          "s2": b64("three")})
        self.assertNotIn("stringData", opaque)

    def test_get_json_lease_microtime(self):
        out = self.ok("get", "lease", "l1", "-n", "gt", "-o", "json")
        spec = json.loads(out)["spec"]
        self.assertEqual(spec, {"holderIdentity": "node-1",
                                "leaseDurationSeconds": 40,
                                "acquireTime": "2024-01-02T03:04:05.123456Z",
                                "renewTime": "2024-01-02T03:04:15.654321Z"})

    def test_get_name(self):
        out = self.ok("get", "cm", "-n", "gt", "-o", "name")
        self.assertEqual(out, "configmap/cm-a\nconfigmap/cm-b\nconfigmap/cm-c"
                         "\nconfigmap/cm-d\nconfigmap/cm-e\n")
        out = self.ok("get", "leases", "-n", "gt", "-o", "name")
        self.assertEqual(out, "lease.coordination.k8s.io/l1\n"
                         "lease.coordination.k8s.io/l2\n")
        out = self.ok("get", "cm,secrets", "-n", "gt", "-o", "name")
        self.assertEqual(out.splitlines()[-2:],
                         ["secret/s-custom", "secret/s-opaque"])

    def test_get_jsonpath(self):
        self.assertEqual(self.ok("get", "cm", "cm-a", "-n", "gt", "-o",
                                 "jsonpath={.data.k2}"), "v2")
        out = self.ok("get", "cm", "-n", "gt", "-o",
                      'jsonpath={range .items[*]}{.metadata.name}='
                      '{.metadata.labels.app}{"\\n"}{end}')
        self.assertEqual(out, "cm-a=web\ncm-b=web\ncm-c=db\ncm-d=\ncm-e=\n")
        out = self.ok("get", "ns", "kube-public", "-o",
                      "jsonpath={.status.phase} {.spec.finalizers}")
        self.assertEqual(out, 'Active ["kubernetes"]')
        out = self.ok("get", "secret", "s-opaque", "-n", "gt", "-o",
                      "jsonpath={.data.s2}")
        self.assertEqual(base64.b64decode(out).decode(), "three")

    def test_get_custom_columns_and_labels(self):
        out = self.ok("get", "cm", "-n", "gt", "-l", "app", "--show-labels")
        self.assert_table(out, ["NAME", "DATA", "AGE", "LABELS"], [
            ["cm-a", "2", AGE, "app=web,tier=fe"],
            ["cm-b", "2", AGE, "app=web,tier=be"],
            ["cm-c", "0", AGE, "app=db"]])
        out = self.ok("get", "cm", "-n", "gt", "-L", "tier", "-l", "tier")
        self.assert_table(out, ["NAME", "DATA", "AGE", "TIER"], [
            ["cm-a", "2", AGE, "fe"], ["cm-b", "2", AGE, "be"]])
        out = self.ok("get", "cm", "-n", "gt", "--sort-by=.metadata.name",
                      "-o", "custom-columns=N:.metadata.name,NS:.metadata."
                      "namespace", "-l", "app=web")
        self.assertEqual(table(out), [["N", "NS"], ["cm-a", "gt"],
                                      ["cm-b", "gt"]])

    def test_get_sort_by_table(self):
        # --sort-by asks for includeObject=Object (full objects in rows)
        out = self.ok("get", "cm", "-n", "gt",
                      "--sort-by=.metadata.labels.app", "-l", "app")
        names = [r[0] for r in table(out)[1:]]
        self.assertEqual(names[0], "cm-c")  # db < web
        self.assertEqual(sorted(names[1:]), ["cm-a", "cm-b"])

    # -- selectors ------------------------------------------------------------
    def names(self, *args):
        out = self.ok("get", *args, "-o", "name",
                      stderr=EV_WARNING if args[0] == "ev" else "")
        return [line.split("/", 1)[1] for line in out.splitlines()]

    def test_label_selectors(self):
        cases = [
            ("app=web", ["cm-a", "cm-b"]),
            ("app==web", ["cm-a", "cm-b"]),
            ("app!=web", ["cm-c", "cm-d", "cm-e"]),
            ("app in (web,db)", ["cm-a", "cm-b", "cm-c"]),
            ("app notin (web)", ["cm-c", "cm-d", "cm-e"]),
            ("tier", ["cm-a", "cm-b"]),
            ("!tier", ["cm-c", "cm-d", "cm-e"]),
            ("app=web,tier=fe", ["cm-a"]),
            ("app,!tier", ["cm-c"]),
            ("env in (prod),app notin (web)", ["cm-e"]),
        ]
        for sel, want in cases:
            with self.subTest(selector=sel):
                self.assertEqual(self.names("cm", "-n", "gt", "-l", sel), want)
        self.assertEqual(self.names("cm", "-A", "-l", "!app,!env",
                                    "--field-selector",
                                    "metadata.namespace!=kube-system"),
                         ["cm-d", "cm-z"])

    def test_field_selectors(self):
        self.assertEqual(self.names("cm", "-n", "gt", "--field-selector",
                                    "metadata.name=cm-b"), ["cm-b"])
        self.assertEqual(self.names("cm", "-n", "gt", "--field-selector",
                                    "metadata.name!=cm-b"),
                         ["cm-a", "cm-c", "cm-d", "cm-e"])
        self.assertEqual(self.names("cm", "-A", "--field-selector",
                                    "metadata.namespace=gt2"), ["cm-z"])
        self.assertEqual(self.names("cm", "-n", "gt", "--field-selector",
                                    "metadata.name=cm-a", "-l", "tier=be"), [])
        self.assertEqual(self.names("secrets", "-n", "gt", "--field-selector",
                                    "type=Opaque"), ["s-opaque"])
        self.assertEqual(self.names("ns", "--field-selector",
                                    "status.phase=Active,metadata.name=gt2"),
                         ["gt2"])
        self.assertEqual(self.names("ev", "-n", "gt", "--field-selector",
                                    "involvedObject.name=cm-a"), ["ev1"])
        self.assertEqual(self.names("ev", "-n", "gt", "--field-selector",
                                    "involvedObject.kind=Lease,type=Warning"),
                         ["ev2"])
        self.assertEqual(self.names("ev", "-n", "gt", "--field-selector",
                                    "reason=Tested"), ["ev1"])
        self.assertEqual(self.names("leases", "-n", "gt", "--field-selector",
                                    "metadata.name=l2"), ["l2"])

    def test_field_selector_unsupported(self):
        # The server's 400 message; kubectl prefixes it with "Unable to find
        # <resource> that match label selector ..., field selector ...".
        def msg(resource, fsel, server_msg, lsel=""):
            return ('Error from server (BadRequest): Unable to find "%s" that '
                    'match label selector "%s", field selector "%s": %s\n'
                    % (resource, lsel, fsel, server_msg))
        only = '"%s" is not a known field selector: only "metadata.name", ' \
               '"metadata.namespace"'
        self.fails("get", "cm", "-n", "gt", "--field-selector", "foo=bar",
                   stderr=msg("/v1, Resource=configmaps", "foo=bar",
                              only % "foo"))
        self.fails("get", "cm", "-n", "gt", "--field-selector", "data.k1=v1",
                   "-l", "app", stderr=msg("/v1, Resource=configmaps",
                                           "data.k1=v1", only % "data.k1",
                                           lsel="app"))
        self.fails("get", "leases", "-n", "gt", "--field-selector",
                   "spec.holderIdentity=node-1",
                   stderr=msg("coordination.k8s.io/v1, Resource=leases",
                              "spec.holderIdentity=node-1",
                              only % "spec.holderIdentity"))
        self.fails("get", "secrets", "-n", "gt", "--field-selector", "foo=bar",
                   stderr=msg("/v1, Resource=secrets", "foo=bar",
                              "field label not supported: foo"))
        self.fails("get", "ns", "--field-selector", "metadata.namespace=x",
                   stderr=msg("/v1, Resource=namespaces",
                              "metadata.namespace=x",
                              "field label not supported: metadata.namespace"))
        self.fails("get", "events", "-n", "gt", "--field-selector",
                   "message=x", stderr=msg("/v1, Resource=events", "message=x",
                                           "field label not supported: "
                                           "message"))
        # the raw server answer: 400 Status with the unprefixed message
        status, obj = self.api(
            "GET", "/api/v1/namespaces/gt/configmaps?fieldSelector=foo%3Dbar")
        self.assertEqual(status, 400, obj)
        self.assertEqual((obj["kind"], obj["status"], obj["reason"],
                          obj["code"], obj["message"]),
                         ("Status", "Failure", "BadRequest", 400,
                          only % "foo"))
        # and the same for a watch
        status, obj = self.api(
            "GET", "/api/v1/namespaces/gt/secrets?watch=true&fieldSelector="
            "foo%3Dbar")
        self.assertEqual(status, 400, obj)
        self.assertEqual(obj["message"], "field label not supported: foo")

    def test_chunked_list(self):
        r = self.k("get", "cm", "-n", "gt", "--chunk-size=2", "-v=6")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_table(r.stdout, ["NAME", "DATA", "AGE"], [
            ["cm-a", "2", AGE], ["cm-b", "2", AGE], ["cm-c", "0", AGE],
            ["cm-d", "1", AGE], ["cm-e", "3", AGE]])
        gets = re.findall(r"GET (https://\S+/api/v1/namespaces/gt/configmaps"
                          r"\?\S*) 200 OK", r.stderr)
        self.assertEqual(len(gets), 3, r.stderr)
        self.assertTrue(gets[0].endswith("configmaps?limit=2"), gets)
        for g in gets[1:]:
            self.assertRegex(g, r"[?&]continue=[^&]+", gets)
            self.assertIn("limit=2", g)
        # the same through -o name (plain lists, not tables)
        r = self.k("get", "cm", "-A", "--chunk-size=2", "-o", "name")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = r.stdout.splitlines()
        for n in ("cm-a", "cm-b", "cm-c", "cm-d", "cm-e", "cm-z"):
            self.assertIn("configmap/" + n, names)
        self.assertEqual(len(names), len(set(names)), r.stdout)

    def test_chunked_list_json(self):
        out = self.ok("get", "cm", "-n", "gt", "--chunk-size=3", "-o", "json")
        obj = json.loads(out)
        self.assertEqual([i["metadata"]["name"] for i in obj["items"]],
                         ["cm-a", "cm-b", "cm-c", "cm-d", "cm-e"])


# ---------------------------------------------------------------------------
# write flows (one server per class, each class in its own namespace)
# ---------------------------------------------------------------------------

class WriteTestCase(KubectlTestCase):
    namespace = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cls.namespace:
            try:
                cls("setUp").make_ns(cls.namespace)
            except BaseException:
                cls.tearDownClass()
                raise


class CreateTests(WriteTestCase):
    namespace = "ct"

    def test_create_single(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n"
            "  labels:\n    made-by: create\ndata:\n  k: v\n")
        self.assertEqual(self.ok("create", "-f", path, "-n", "ct"),
                         "configmap/c1 created\n")
        live = self.get_obj("ct", "configmaps", "c1")
        self.assertEqual(live["data"], {"k": "v"})
        self.assertEqual(live["metadata"]["labels"], {"made-by": "create"})
        self.assertNotIn("annotations", live["metadata"])
        # create again: AlreadyExists
        self.fails("create", "-f", path, "-n", "ct", stderr=
                   'Error from server (AlreadyExists): error when creating '
                   '"%s": configmaps "c1" already exists\n' % path)

    def test_create_from_stdin(self):
        text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: cs1\n"
                "stringData:\n  user: admin\n")
        self.assertEqual(self.ok("create", "-n", "ct", "-f", "-",
                                 input=text), "secret/cs1 created\n")
        live = self.get_obj("ct", "secrets", "cs1")
        self.assertEqual(live["data"], {"user": b64("admin")})
        self.assertEqual(live["type"], "Opaque")

    def test_create_multi_document(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ct-multi\n"
            "---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mc\n"
            "  namespace: ct-multi\ndata:\n  a: b\n"
            "---\n"
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ms\n"
            "  namespace: ct-multi\ntype: example.com/thing\n"
            "data:\n  a: %s\n"
            "---\n"
            "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n"
            "  name: ml\n  namespace: ct-multi\nspec:\n"
            "  holderIdentity: me\n  leaseDurationSeconds: 15\n"
            "  renewTime: \"2025-05-06T07:08:09.000001Z\"\n" % b64("b"))
        self.assertEqual(self.ok("create", "-f", path),
                         "namespace/ct-multi created\n"
                         "configmap/mc created\n"
                         "secret/ms created\n"
                         "lease.coordination.k8s.io/ml created\n")
        self.assertEqual(self.ok("get", "cm,secret,lease", "-n", "ct-multi",
                                 "-o", "name"),
                         "configmap/mc\nsecret/ms\n"
                         "lease.coordination.k8s.io/ml\n")
        lease = self.get_obj("ct-multi", "leases", "ml",
                             group="apis/coordination.k8s.io/v1")
        self.assertEqual(lease["spec"]["renewTime"],
                         "2025-05-06T07:08:09.000001Z")

    def test_create_in_missing_namespace(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            "  namespace: no-such-ns\ndata:\n  k: v\n")
        self.fails("create", "-f", path, stderr=
                   'Error from server (NotFound): error when creating "%s": '
                   'namespaces "no-such-ns" not found\n' % path)
        self.fails("create", "-f", path, "--dry-run=server", stderr=
                   'Error from server (NotFound): error when creating "%s": '
                   'namespaces "no-such-ns" not found\n' % path)

    def test_create_dry_run_server(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n"
            "data:\n  k: v\n")
        self.assertEqual(
            self.ok("create", "-f", path, "-n", "ct", "--dry-run=server"),
            "configmap/dry created (server dry run)\n")
        self.fails("get", "cm", "dry", "-n", "ct", stderr=
                   'Error from server (NotFound): configmaps "dry" '
                   'not found\n')
        out = self.ok("create", "-f", path, "-n", "ct", "--dry-run=server",
                      "-o", "json")
        obj = json.loads(out)
        self.assertEqual(obj["metadata"]["name"], "dry")
        self.assertEqual(obj["metadata"]["namespace"], "ct")
        self.assertRegex(obj["metadata"]["uid"], UUID)
        self.fails("get", "cm", "dry", "-n", "ct")

    def test_create_invalid(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n"
            "data:\n  k: v\n")
        self.fails("create", "-f", path, "-n", "ct", stderr=
                   'The ConfigMap "Bad_Name" is invalid: metadata.name: '
                   'Invalid value: "Bad_Name": ' + OBJ_REGEX_DNS1123 + "\n")
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: badkey\n"
            "data:\n  bad key: v\n")
        self.fails("create", "-f", path, "-n", "ct", stderr=
                   'The ConfigMap "badkey" is invalid: data[bad key]: Invalid '
                   'value: "bad key": a valid config key must consist of '
                   "alphanumeric characters, '-', '_' or '.' (e.g. "
                   "'key.name',  or 'KEY_NAME',  or 'key-name', regex used "
                   "for validation is '[-._a-zA-Z0-9]+')\n")

    def test_create_unknown_field_strict_and_warn(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unk\n"
            "data:\n  k: v\nspec:\n  x: 1\n")
        self.fails("create", "-f", path, "-n", "ct", stderr=
                   'Error from server (BadRequest): error when creating "%s": '
                   'ConfigMap in version "v1" cannot be handled as a '
                   'ConfigMap: strict decoding error: unknown field "spec"\n'
                   % path)
        out = self.ok("create", "-f", path, "-n", "ct", "--validate=warn",
                      stderr='Warning: unknown field "spec"\n')
        self.assertEqual(out, "configmap/unk created\n")
        self.assertNotIn("spec", self.get_obj("ct", "configmaps", "unk"))
        # --validate=false: dropped silently
        path2 = self.kubectl.write(open(path).read().replace("unk", "unk2"))
        self.assertEqual(self.ok("create", "-f", path2, "-n", "ct",
                                 "--validate=false"),
                         "configmap/unk2 created\n")

    def test_create_namespace_mismatch(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mm\n"
            "  namespace: ct\ndata:\n  k: v\n")
        self.fails("create", "-f", path, "-n", "default", stderr=
                   "error: the namespace from the provided object \"ct\" does "
                   "not match the namespace \"default\". You must pass "
                   "'--namespace=ct' to perform this operation.\n")


class ApplyTests(WriteTestCase):
    namespace = "at"

    CM_V1 = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap1\n"
             "  labels:\n    app: one\ndata:\n  k1: v1\n  k2: v2\n")
    CM_V2 = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap1\n"
             "  labels:\n    app: two\ndata:\n  k1: v1-changed\n  k3: v3\n")

    def last_applied(self, obj):
        return obj["metadata"]["annotations"][
            "kubectl.kubernetes.io/last-applied-configuration"]

    def test_apply_configmap(self):
        p1 = self.kubectl.write(self.CM_V1)
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "configmap/ap1 created\n")
        live = self.get_obj("at", "configmaps", "ap1")
        self.assertEqual(live["data"], {"k1": "v1", "k2": "v2"})
        self.assertEqual(self.last_applied(live),
                         '{"apiVersion":"v1","data":{"k1":"v1","k2":"v2"},'
                         '"kind":"ConfigMap","metadata":{"annotations":{},'
                         '"labels":{"app":"one"},"name":"ap1",'
                         '"namespace":"at"}}\n')
        rv1 = live["metadata"]["resourceVersion"]
        # unchanged: nothing is sent, nothing changes
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "configmap/ap1 unchanged\n")
        self.assertEqual(self.get_obj("at", "configmaps", "ap1")
                         ["metadata"]["resourceVersion"], rv1)
        # changed value, removed key, added key, changed label
        p2 = self.kubectl.write(self.CM_V2)
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "configmap/ap1 configured\n")
        live = self.get_obj("at", "configmaps", "ap1")
        self.assertEqual(live["data"], {"k1": "v1-changed", "k3": "v3"})
        self.assertEqual(live["metadata"]["labels"], {"app": "two"})
        self.assertEqual(list(live["metadata"]["annotations"]),
                         ["kubectl.kubernetes.io/last-applied-configuration"])
        self.assertEqual(json.loads(self.last_applied(live)),
                         {"apiVersion": "v1", "kind": "ConfigMap",
                          "data": {"k1": "v1-changed", "k3": "v3"},
                          "metadata": {"annotations": {},
                                       "labels": {"app": "two"},
                                       "name": "ap1", "namespace": "at"}})
        self.assertNotEqual(live["metadata"]["resourceVersion"], rv1)
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "configmap/ap1 unchanged\n")
        # a label removed from the manifest is removed from the object
        p3 = self.kubectl.write(self.CM_V2.replace(
            "  labels:\n    app: two\n", ""))
        self.assertEqual(self.ok("apply", "-f", p3, "-n", "at"),
                         "configmap/ap1 configured\n")
        live = self.get_obj("at", "configmaps", "ap1")
        self.assertNotIn("labels", live["metadata"])
        self.assertEqual(live["data"], {"k1": "v1-changed", "k3": "v3"})

    def test_apply_keeps_fields_set_by_others(self):
        p1 = self.kubectl.write(self.CM_V1.replace("ap1", "ap2"))
        self.ok("apply", "-f", p1, "-n", "at")
        self.ok("label", "cm", "ap2", "-n", "at", "extra=kept")
        self.ok("patch", "cm", "ap2", "-n", "at", "--type", "merge", "-p",
                '{"data":{"other":"x"}}')
        p2 = self.kubectl.write(self.CM_V2.replace("ap1", "ap2"))
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "configmap/ap2 configured\n")
        live = self.get_obj("at", "configmaps", "ap2")
        self.assertEqual(live["data"],
                         {"k1": "v1-changed", "k3": "v3", "other": "x"})
        self.assertEqual(live["metadata"]["labels"],
                         {"app": "two", "extra": "kept"})

    def test_apply_secret(self):
        s1 = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: as1\n"
              "  labels:\n    app: one\ntype: Opaque\ndata:\n"
              "  user: %s\n  pass: %s\n" % (b64("admin"), b64("s3cret")))
        p1 = self.kubectl.write(s1)
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "secret/as1 created\n")
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "secret/as1 unchanged\n")
        s2 = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: as1\n"
              "  labels:\n    app: two\ntype: Opaque\ndata:\n"
              "  user: %s\n  token: %s\n" % (b64("root"), b64("t0k")))
        p2 = self.kubectl.write(s2)
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "secret/as1 configured\n")
        live = self.get_obj("at", "secrets", "as1")
        self.assertEqual(live["data"], {"user": b64("root"),
                                        "token": b64("t0k")})
        self.assertEqual(live["metadata"]["labels"], {"app": "two"})
        self.assertEqual(live["type"], "Opaque")
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "secret/as1 unchanged\n")

    def test_apply_secret_string_data(self):
        p1 = self.kubectl.write(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: as2\n"
            "stringData:\n  plain: text\n")
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "secret/as2 created\n")
        live = self.get_obj("at", "secrets", "as2")
        self.assertEqual(live["data"], {"plain": b64("text")})
        self.assertNotIn("stringData", live)
        p2 = self.kubectl.write(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: as2\n"
            "stringData:\n  plain: changed\n")
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "secret/as2 configured\n")
        self.assertEqual(self.get_obj("at", "secrets", "as2")["data"],
                         {"plain": b64("changed")})

    def test_apply_lease(self):
        text = ("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n"
                "  name: al\nspec:\n  holderIdentity: a\n"
                "  leaseDurationSeconds: 10\n")
        p1 = self.kubectl.write(text)
        self.assertEqual(self.ok("apply", "-f", p1, "-n", "at"),
                         "lease.coordination.k8s.io/al created\n")
        p2 = self.kubectl.write(text.replace("holderIdentity: a",
                                             "holderIdentity: b"))
        self.assertEqual(self.ok("apply", "-f", p2, "-n", "at"),
                         "lease.coordination.k8s.io/al configured\n")
        self.assertEqual(self.get_obj("at", "leases", "al",
                                      group="apis/coordination.k8s.io/v1")
                         ["spec"], {"holderIdentity": "b",
                                    "leaseDurationSeconds": 10})

    def test_apply_namespace_and_contents(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: at-ns\n"
            "  labels:\n    team: x\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inside\n"
            "  namespace: at-ns\ndata:\n  a: b\n")
        self.assertEqual(self.ok("apply", "-f", path),
                         "namespace/at-ns created\nconfigmap/inside created\n")
        self.assertEqual(self.ok("apply", "-f", path),
                         "namespace/at-ns unchanged\n"
                         "configmap/inside unchanged\n")


class EditReplaceTests(WriteTestCase):
    namespace = "et"

    def editor(self, script):
        return self.kubectl.write("#!/bin/sh\n" + script, mode=0o755,
                                  name="editor-%d.sh" % time.monotonic_ns())

    def test_edit(self):
        self.make("et", "configmaps", self.cm("e1", {"k1": "v1", "k2": "v2"}))
        ed = self.editor('sed -i -e "s/^  k1: v1$/  k1: edited/" "$1"\n')
        r = self.k("edit", "cm", "e1", "-n", "et", env={"KUBE_EDITOR": ed})
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "configmap/e1 edited\n", ""))
        live = self.get_obj("et", "configmaps", "e1")
        self.assertEqual(live["data"], {"k1": "edited", "k2": "v2"})
        rv = live["metadata"]["resourceVersion"]
        # an editor that changes nothing
        noop = self.editor("exit 0\n")
        r = self.k("edit", "cm", "e1", "-n", "et", env={"KUBE_EDITOR": noop})
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "", "Edit cancelled, no changes made.\n"))
        self.assertEqual(self.get_obj("et", "configmaps", "e1")
                         ["metadata"]["resourceVersion"], rv)

    def test_edit_secret_and_labels(self):
        self.make("et", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "es"},
                                    "data": {"a": b64("old")}})
        ed = self.editor(
            'sed -i -e "s/^  a: %s$/  a: %s/" -e "s/^  name: es$/  name: es\\n'
            '  labels:\\n    edited: \\"yes\\"/" "$1"\n' % (b64("old"),
                                                         b64("new")))
        r = self.k("edit", "secret", "es", "-n", "et",
                   env={"KUBE_EDITOR": ed})
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "secret/es edited\n", ""))
        live = self.get_obj("et", "secrets", "es")
        self.assertEqual(live["data"], {"a": b64("new")})
        self.assertEqual(live["metadata"]["labels"], {"edited": "yes"})

    def test_edit_missing(self):
        self.fails("edit", "cm", "nope", "-n", "et",
                   env={"KUBE_EDITOR": "/bin/true"}, stderr=
                   'Error from server (NotFound): configmaps "nope" '
                   'not found\n')

    def test_replace_stale_resource_version(self):
        self.make("et", "configmaps", self.cm("r1", {"k": "v"}))
        stale = self.get_obj("et", "configmaps", "r1")
        self.ok("label", "cm", "r1", "-n", "et", "bump=1")
        stale["data"] = {"k": "from-stale"}
        path = self.kubectl.write(json.dumps(stale), name="r1-stale.json")
        self.fails("replace", "-f", path, stderr=
                   'Error from server (Conflict): error when replacing "%s": '
                   'Operation cannot be fulfilled on configmaps "r1": %s\n'
                   % (path, CONFLICT_TAIL))
        self.assertEqual(self.get_obj("et", "configmaps", "r1")["data"],
                         {"k": "v"})
        # with the current resourceVersion it goes through
        cur = self.get_obj("et", "configmaps", "r1")
        cur["data"] = {"k": "replaced"}
        path = self.kubectl.write(json.dumps(cur), name="r1-cur.json")
        self.assertEqual(self.ok("replace", "-f", path),
                         "configmap/r1 replaced\n")
        live = self.get_obj("et", "configmaps", "r1")
        self.assertEqual(live["data"], {"k": "replaced"})
        self.assertEqual(live["metadata"]["labels"], {"bump": "1"})
        # without resourceVersion: unconditional
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r1\n"
            "  namespace: et\ndata:\n  only: this\n")
        self.assertEqual(self.ok("replace", "-f", path),
                         "configmap/r1 replaced\n")
        live = self.get_obj("et", "configmaps", "r1")
        self.assertEqual(live["data"], {"only": "this"})
        self.assertNotIn("labels", live["metadata"])

    def test_replace_missing(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nothere\n"
            "  namespace: et\ndata:\n  k: v\n")
        self.fails("replace", "-f", path, stderr=
                   'Error from server (NotFound): error when replacing "%s": '
                   'configmaps "nothere" not found\n' % path)

    def test_secret_invalid_base64(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad64\n"
            "data:\n  k: abc$\n")
        self.fails("create", "-f", path, "-n", "et", stderr=
                   'Error from server (BadRequest): error when creating "%s": '
                   'Secret in version "v1" cannot be handled as a Secret: '
                   'illegal base64 data at input byte 3\n' % path)
        path = self.kubectl.write(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad64b\n"
            "data:\n  ok: %s\n  k: %s!x\n" % (b64("fine"), b64("abcdef")))
        self.fails("create", "-f", path, "-n", "et", stderr=
                   'Error from server (BadRequest): error when creating "%s": '
                   'Secret in version "v1" cannot be handled as a Secret: '
                   'illegal base64 data at input byte 8\n' % path)

    def test_secret_type_immutable(self):
        self.make("et", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "st"},
                                    "data": {"a": b64("x")}})
        cur = self.get_obj("et", "secrets", "st")
        self.assertEqual(cur["type"], "Opaque")
        cur["type"] = "example.com/other"
        path = self.kubectl.write(json.dumps(cur), name="st.json")
        self.fails("replace", "-f", path, stderr=
                   'The Secret "st" is invalid: type: Invalid value: '
                   '"example.com/other": field is immutable\n')
        self.fails("patch", "secret", "st", "-n", "et", "-p",
                   '{"type":"example.com/other"}', stderr=
                   'The Secret "st" is invalid: type: Invalid value: '
                   '"example.com/other": field is immutable\n')
        self.assertEqual(self.get_obj("et", "secrets", "st")["type"], "Opaque")

    def test_immutable_configmap_and_secret(self):
        self.make("et", "configmaps", self.cm("imm", {"k": "v"},
                                              immutable=True))
        self.fails("patch", "cm", "imm", "-n", "et", "-p",
                   '{"data":{"k":"w"}}', stderr=
                   'The ConfigMap "imm" is invalid: data: Forbidden: field is '
                   'immutable when `immutable` is set\n')
        # metadata may still change
        self.assertEqual(self.ok("label", "cm", "imm", "-n", "et", "a=b"),
                         "configmap/imm labeled\n")
        self.make("et", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "imms"},
                                    "immutable": True,
                                    "data": {"a": b64("x")}})
        self.fails("patch", "secret", "imms", "-n", "et", "--type", "merge",
                   "-p", '{"data":{"a":"%s"}}' % b64("y"), stderr=
                   'The Secret "imms" is invalid: data: Forbidden: field is '
                   'immutable when `immutable` is set\n')


class DeleteTests(WriteTestCase):
    namespace = "dt"

    def test_delete_waits(self):
        self.make("dt", "configmaps", self.cm("d1", {"k": "v"}))
        self.assertEqual(self.ok("delete", "cm", "d1", "-n", "dt"),
                         'configmap "d1" deleted\n')
        self.get_obj("dt", "configmaps", "d1", expect=404)
        self.fails("get", "cm", "d1", "-n", "dt", stderr=
                   'Error from server (NotFound): configmaps "d1" not found\n')

    def test_delete_no_wait(self):
        self.make("dt", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "d2"}})
        self.assertEqual(self.ok("delete", "secret", "d2", "-n", "dt",
                                 "--wait=false"), 'secret "d2" deleted\n')
        self.get_obj("dt", "secrets", "d2", expect=404)

    def test_delete_lease_and_event(self):
        self.make("dt", "leases", {"apiVersion": "coordination.k8s.io/v1",
                                   "kind": "Lease", "metadata": {"name": "dl"},
                                   "spec": {}},
                  group="apis/coordination.k8s.io/v1")
        self.assertEqual(self.ok("delete", "lease", "dl", "-n", "dt"),
                         'lease.coordination.k8s.io "dl" deleted\n')
        self.make("dt", "events", {
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "de"},
            "involvedObject": {"kind": "ConfigMap", "name": "x",
                               "namespace": "dt"},
            "reason": "R", "message": "m", "type": "Normal"})
        self.assertEqual(self.ok("delete", "ev", "de", "-n", "dt",
                                 stderr=EV_WARNING),
                         'event "de" deleted\n')

    def test_delete_missing(self):
        self.fails("delete", "cm", "nope", "-n", "dt", stderr=
                   'Error from server (NotFound): configmaps "nope" '
                   'not found\n')
        r = self.k("delete", "cm", "nope", "-n", "dt", "--ignore-not-found")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))

    def test_delete_by_label_and_dry_run(self):
        for n in ("dl1", "dl2", "dl3"):
            self.make("dt", "configmaps", self.cm(n, {"k": "v"},
                                                  {"grp": "del"}))
        self.assertEqual(self.ok("delete", "cm", "dl2", "-n", "dt",
                                 "--dry-run=server"),
                         'configmap "dl2" deleted (server dry run)\n')
        self.get_obj("dt", "configmaps", "dl2")
        self.assertEqual(self.ok("delete", "cm", "-n", "dt", "-l", "grp=del"),
                         'configmap "dl1" deleted\nconfigmap "dl2" deleted\n'
                         'configmap "dl3" deleted\n')
        r = self.k("get", "cm", "-n", "dt", "-l", "grp=del")
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "", "No resources found in dt namespace.\n"))

    def test_delete_from_file(self):
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: df\n"
            "  namespace: dt\n---\n"
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: df\n"
            "  namespace: dt\n")
        self.make("dt", "configmaps", self.cm("df"))
        self.make("dt", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "df"}})
        self.assertEqual(self.ok("delete", "-f", path),
                         'configmap "df" deleted\nsecret "df" deleted\n')

    def test_delete_namespace_terminating(self):
        self.make_ns("dt-gone")
        self.make("dt-gone", "configmaps", self.cm("left", {"k": "v"}))
        self.assertEqual(self.ok("delete", "ns", "dt-gone", "--wait=false"),
                         'namespace "dt-gone" deleted\n')
        # no namespace controller: it stays Terminating, with its finalizer
        out = self.ok("get", "ns", "dt-gone")
        self.assert_table(out, ["NAME", "STATUS", "AGE"],
                          [["dt-gone", "Terminating", AGE]])
        ns = self.get_obj(None, "namespaces", "dt-gone")
        self.assertEqual(ns["status"]["phase"], "Terminating")
        self.assertRegex(ns["metadata"]["deletionTimestamp"], RFC3339)
        self.assertEqual(ns["spec"]["finalizers"], ["kubernetes"])
        # the content is still there and readable
        self.assertEqual(self.ok("get", "cm", "-n", "dt-gone", "-o", "name"),
                         "configmap/left\n")
        # creating in a terminating namespace is forbidden
        path = self.kubectl.write(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n"
            "  namespace: dt-gone\n")
        self.fails("create", "-f", path, stderr=
                   'Error from server (Forbidden): error when creating "%s": '
                   'configmaps "late" is forbidden: unable to create new '
                   'content in namespace dt-gone because it is being '
                   'terminated\n' % path)
        # updates are still allowed
        self.assertEqual(self.ok("label", "cm", "left", "-n", "dt-gone",
                                 "a=b"), "configmap/left labeled\n")
        # deleting again: the upstream Conflict
        self.fails("delete", "ns", "dt-gone", "--wait=false", stderr=
                   'Error from server (Conflict): Operation cannot be '
                   'fulfilled on namespaces "dt-gone": The system is ensuring '
                   'all content is removed from this namespace.  Upon '
                   'completion, this namespace will automatically be purged '
                   'by the system.\n')

    def test_delete_immortal_namespaces(self):
        for ns in ("default", "kube-system", "kube-public"):
            with self.subTest(ns=ns):
                self.fails("delete", "ns", ns, stderr=
                           'Error from server (Forbidden): namespaces "%s" is '
                           'forbidden: this namespace may not be deleted\n'
                           % ns)
                self.assertEqual(self.get_obj(None, "namespaces", ns)
                                 ["status"]["phase"], "Active")


class WatchTests(WriteTestCase):
    namespace = "wt"

    def start(self, *args):
        proc = self.kubectl.popen(*args)
        return StreamReader(proc)

    def test_watch_list_table_events(self):
        self.make("wt", "configmaps", self.cm("w0", {"k": "v"}))
        w = self.start("get", "cm", "-n", "wt", "-w", "--output-watch-events")
        try:
            lines = w.wait_for(2)
            self.assertEqual([r[:3] for r in table("\n".join(lines))],
                             [["EVENT", "NAME", "DATA"], ["ADDED", "w0", "1"]])
            self.make("wt", "configmaps", self.cm("w1", {"a": "1"}))
            self.ok("label", "cm", "w1", "-n", "wt", "x=y")
            self.ok("patch", "cm", "w1", "-n", "wt", "-p",
                    '{"data":{"b":"2"}}')
            self.ok("delete", "cm", "w1", "-n", "wt")
            lines = w.wait_for(6)
        finally:
            err = w.stop()
        rows = table("\n".join(lines))
        self.assertEqual([r[:3] for r in rows[1:]], [
            ["ADDED", "w0", "1"], ["ADDED", "w1", "1"],
            ["MODIFIED", "w1", "1"], ["MODIFIED", "w1", "2"],
            ["DELETED", "w1", "2"]], "\n".join(lines) + "\n" + err)
        for r in rows[1:]:
            self.assertRegex(r[3], AGE)
        self.assertEqual(err, "")

    def wait_json_events(self, w, n, timeout=10):
        deadline = time.monotonic() + timeout
        events, text = [], ""
        while time.monotonic() < deadline:
            text = "\n".join(w.wait_for(len(w.lines) + 1, timeout=0.5))
            events = self._json_stream(text)
            if len(events) >= n:
                break
        return events, text

    def test_watch_json_events(self):
        self.make("wt", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "ws0"}})
        w = self.start("get", "secrets", "-n", "wt", "-w",
                       "--output-watch-events", "-o", "json")
        try:
            # the initial list is printed as ADDED events; once it is out,
            # the watch resumes from the list's resourceVersion
            events, text = self.wait_json_events(w, 1)
            self.assertEqual([(e["type"], e["object"]["metadata"]["name"])
                              for e in events], [("ADDED", "ws0")], text)
            self.make("wt", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                        "metadata": {"name": "ws"},
                                        "stringData": {"a": "b"}})
            self.ok("annotate", "secret", "ws", "-n", "wt", "note=1")
            self.ok("delete", "secret", "ws", "-n", "wt", "--wait=false")
            events, text = self.wait_json_events(w, 4)
        finally:
            err = w.stop()
        events = events[1:]
        self.assertEqual([e["type"] for e in events],
                         ["ADDED", "MODIFIED", "DELETED"], text + err)
        for e in events:
            self.assertEqual(e["object"]["kind"], "Secret")
            self.assertEqual(e["object"]["apiVersion"], "v1")
            self.assertEqual(e["object"]["metadata"]["name"], "ws")
            self.assertEqual(e["object"]["data"], {"a": b64("b")})
        self.assertNotIn("annotations", events[0]["object"]["metadata"])
        self.assertEqual(events[1]["object"]["metadata"]["annotations"],
                         {"note": "1"})
        rvs = [int(e["object"]["metadata"]["resourceVersion"])
               for e in events]
        self.assertEqual(rvs, sorted(set(rvs)), rvs)
        self.assertEqual(err, "")

    @staticmethod
    def _json_stream(text):
        dec = json.JSONDecoder()
        out, i = [], 0
        text = text.strip()
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            try:
                obj, i = dec.raw_decode(text, i)
            except ValueError:
                break
            out.append(obj)
        return out

    def test_watch_single_object(self):
        self.make("wt", "configmaps", self.cm("wone", {"k": "v"}))
        self.make("wt", "configmaps", self.cm("wother", {"k": "v"}))
        self.server.wait_watches("configmaps", 0)  # earlier tests' watches ended
        w = self.start("get", "cm", "wone", "-n", "wt", "-w")
        try:
            lines = w.wait_for(2)
            self.assertEqual([r[:2] for r in table("\n".join(lines))],
                             [["NAME", "DATA"], ["wone", "1"]])
            # the watch starts after the GET: wait until the server serves
            # it, so that the change is not folded into the initial ADDED
            self.server.wait_watches("configmaps", 1)
            self.ok("patch", "cm", "wother", "-n", "wt", "-p",
                    '{"data":{"x":"1"}}')
            self.ok("patch", "cm", "wone", "-n", "wt", "-p",
                    '{"data":{"k2":"v2"}}')
            self.ok("patch", "cm", "wone", "-n", "wt", "-p",
                    '{"data":{"k3":"v3"}}')
            # a last change: once it arrived, everything before it has too,
            # and any event of the other object would be among the lines
            self.ok("patch", "cm", "wone", "-n", "wt", "-p",
                    '{"data":{"k4":"v4"}}')
            lines = w.wait_for(5)
        finally:
            err = w.stop()
        self.assertEqual([r[:2] for r in table("\n".join(lines))],
                         [["NAME", "DATA"], ["wone", "1"], ["wone", "2"],
                          ["wone", "3"], ["wone", "4"]], "\n".join(lines) + err)
        self.assertEqual(err, "")

    def test_watch_ends_when_client_leaves(self):
        """A watch whose client went away is released at once, not at its next
        event or its timeout."""
        self.server.wait_watches("secrets", 0)
        w = self.start("get", "secrets", "-n", "wt", "-w")
        try:
            self.server.wait_watches("secrets", 1)
        finally:
            w.stop()
        self.server.wait_watches("secrets", 0, timeout=5)

    def test_watch_namespaces_terminating(self):
        self.make_ns("wt-ns")
        self.server.wait_watches("namespaces", 0)
        w = self.start("get", "ns", "wt-ns", "-w", "--output-watch-events")
        try:
            lines = w.wait_for(2)
            self.server.wait_watches("namespaces", 1)
            self.ok("delete", "ns", "wt-ns", "--wait=false")
            lines = w.wait_for(3)
        finally:
            err = w.stop()
        rows = table("\n".join(lines))
        self.assertEqual([r[:3] for r in rows],
                         [["EVENT", "NAME", "STATUS"],
                          ["ADDED", "wt-ns", "Active"],
                          ["MODIFIED", "wt-ns", "Terminating"]],
                         "\n".join(lines) + err)


class LabelPatchTests(WriteTestCase):
    namespace = "lp"

    def test_label_annotate(self):
        self.make("lp", "configmaps", self.cm("l1", {"k": "v"}))
        self.assertEqual(self.ok("label", "cm", "l1", "-n", "lp", "tier=web"),
                         "configmap/l1 labeled\n")
        self.fails("label", "cm", "l1", "-n", "lp", "tier=db", stderr=
                   "error: 'tier' already has a value (web), and --overwrite "
                   "is false\n")
        self.assertEqual(self.ok("label", "cm", "l1", "-n", "lp", "tier=db",
                                 "--overwrite"), "configmap/l1 labeled\n")
        self.assertEqual(self.get_obj("lp", "configmaps", "l1")
                         ["metadata"]["labels"], {"tier": "db"})
        self.assertEqual(self.ok("label", "cm", "l1", "-n", "lp", "tier-"),
                         "configmap/l1 unlabeled\n")
        self.assertNotIn("labels", self.get_obj("lp", "configmaps", "l1")
                         ["metadata"])
        self.assertEqual(self.ok("annotate", "cm", "l1", "-n", "lp",
                                 "note=hello world"),
                         "configmap/l1 annotated\n")
        self.assertEqual(self.get_obj("lp", "configmaps", "l1")
                         ["metadata"]["annotations"], {"note": "hello world"})
        self.assertEqual(self.ok("annotate", "cm", "l1", "-n", "lp", "note-"),
                         "configmap/l1 annotated\n")
        self.assertNotIn("annotations", self.get_obj("lp", "configmaps", "l1")
                         ["metadata"])
        self.fails("label", "cm", "nope", "-n", "lp", "a=b", stderr=
                   'Error from server (NotFound): configmaps "nope" '
                   'not found\n')

    def test_label_many_and_other_kinds(self):
        for n in ("lm1", "lm2"):
            self.make("lp", "configmaps", self.cm(n, labels={"set": "m"}))
        self.assertEqual(self.ok("label", "cm", "-n", "lp", "-l", "set=m",
                                 "seen=yes"),
                         "configmap/lm1 labeled\nconfigmap/lm2 labeled\n")
        self.assertEqual(self.ok("label", "ns", "lp", "team=a"),
                         "namespace/lp labeled\n")
        self.make("lp", "leases", {"apiVersion": "coordination.k8s.io/v1",
                                   "kind": "Lease", "metadata": {"name": "ll"},
                                   "spec": {"holderIdentity": "h"}},
                  group="apis/coordination.k8s.io/v1")
        self.assertEqual(self.ok("annotate", "lease", "ll", "-n", "lp", "a=b"),
                         "lease.coordination.k8s.io/ll annotated\n")
        self.assertEqual(self.ok("get", "lease", "-n", "lp", "-l", "x",
                                 "-o", "name", stderr=None), "")

    def test_patch_types(self):
        self.make("lp", "configmaps", self.cm("p1", {"a": "1", "b": "2"}))
        rv0 = self.get_obj("lp", "configmaps", "p1")["metadata"][
            "resourceVersion"]
        self.assertEqual(self.ok("patch", "cm", "p1", "-n", "lp", "-p",
                                 '{"data":{"a":"10"}}'),
                         "configmap/p1 patched\n")
        self.assertEqual(self.ok("patch", "cm", "p1", "-n", "lp", "-p",
                                 '{"data":{"a":"10"}}'),
                         "configmap/p1 patched (no change)\n")
        live = self.get_obj("lp", "configmaps", "p1")
        self.assertEqual(live["data"], {"a": "10", "b": "2"})
        rv1 = live["metadata"]["resourceVersion"]
        self.assertNotEqual(rv1, rv0)
        # merge patch: null deletes
        self.assertEqual(self.ok("patch", "cm", "p1", "-n", "lp", "--type",
                                 "merge", "-p", '{"data":{"b":null,"c":"3"}}'),
                         "configmap/p1 patched\n")
        self.assertEqual(self.get_obj("lp", "configmaps", "p1")["data"],
                         {"a": "10", "c": "3"})
        self.assertEqual(self.ok("patch", "cm", "p1", "-n", "lp", "--type",
                                 "merge", "-p", '{"data":{"b":null}}'),
                         "configmap/p1 patched (no change)\n")
        # json patch
        self.assertEqual(self.ok(
            "patch", "cm", "p1", "-n", "lp", "--type", "json", "-p",
            '[{"op":"test","path":"/data/a","value":"10"},'
            '{"op":"replace","path":"/data/a","value":"11"},'
            '{"op":"remove","path":"/data/c"},'
            '{"op":"add","path":"/metadata/labels","value":{"j":"p"}}]'),
            "configmap/p1 patched\n")
        live = self.get_obj("lp", "configmaps", "p1")
        self.assertEqual(live["data"], {"a": "11"})
        self.assertEqual(live["metadata"]["labels"], {"j": "p"})
        rv2 = live["metadata"]["resourceVersion"]
        # failing test op: 422 without details → "The request is invalid"
        self.fails("patch", "cm", "p1", "-n", "lp", "--type", "json", "-p",
                   '[{"op":"test","path":"/data/a","value":"nope"},'
                   '{"op":"replace","path":"/data/a","value":"12"}]', stderr=
                   "The request is invalid: the server rejected our request "
                   "due to an error in our request\n")
        self.fails("patch", "cm", "p1", "-n", "lp", "--type", "json", "-p",
                   '[{"op":"remove","path":"/data/missing"}]', stderr=
                   "The request is invalid: the server rejected our request "
                   "due to an error in our request\n")
        live = self.get_obj("lp", "configmaps", "p1")
        self.assertEqual(live["data"], {"a": "11"})
        self.assertEqual(live["metadata"]["resourceVersion"], rv2)
        # a json patch that changes nothing
        self.assertEqual(self.ok(
            "patch", "cm", "p1", "-n", "lp", "--type", "json", "-p",
            '[{"op":"replace","path":"/data/a","value":"11"}]'),
            "configmap/p1 patched (no change)\n")
        self.fails("patch", "cm", "nope", "-n", "lp", "-p", '{"data":{}}',
                   stderr='Error from server (NotFound): configmaps "nope" '
                   'not found\n')

    def test_patch_dry_run_and_secret_string_data(self):
        self.make("lp", "secrets", {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "ps"},
                                    "data": {"a": b64("1")}})
        self.assertEqual(self.ok("patch", "secret", "ps", "-n", "lp", "-p",
                                 '{"stringData":{"b":"2"}}'),
                         "secret/ps patched\n")
        out = self.ok("patch", "secret", "ps", "-n", "lp", "--dry-run=server",
                      "-p", '{"data":{"a":null}}', "-o", "json")
        self.assertEqual(json.loads(out)["data"], {"b": b64("2")})
        self.assertEqual(self.get_obj("lp", "secrets", "ps")["data"],
                         {"a": b64("1"), "b": b64("2")})
        # (kubectl patch overwrites its "(server dry run)" suffix: it prints
        # a plain "patched" for server dry runs)
        self.assertEqual(self.ok("patch", "secret", "ps", "-n", "lp",
                                 "--dry-run=server", "-p",
                                 '{"data":{"a":null}}'),
                         "secret/ps patched\n")
        out = self.ok("patch", "secret", "ps", "-n", "lp", "--dry-run=server",
                      "-p", '{"data":{"a":null}}', "-o", "json")
        self.assertEqual(json.loads(out)["data"], {"b": b64("2")})
        self.assertEqual(self.get_obj("lp", "secrets", "ps")["data"],
                         {"a": b64("1"), "b": b64("2")})

    def test_patch_lease_microtime(self):
        self.make("lp", "leases", {"apiVersion": "coordination.k8s.io/v1",
                                   "kind": "Lease", "metadata": {"name": "pl"},
                                   "spec": {"holderIdentity": "a"}},
                  group="apis/coordination.k8s.io/v1")
        self.assertEqual(self.ok(
            "patch", "lease", "pl", "-n", "lp", "--type", "merge", "-p",
            '{"spec":{"holderIdentity":"b","renewTime":'
            '"2025-01-02T03:04:05.000006Z","leaseTransitions":1}}'),
            "lease.coordination.k8s.io/pl patched\n")
        self.assertEqual(self.ok("get", "lease", "pl", "-n", "lp", "-o",
                                 "jsonpath={.spec.renewTime}"),
                         "2025-01-02T03:04:05.000006Z")


class DiscoveryTests(KubectlTestCase):

    def test_api_resources(self):
        out = self.ok("api-resources")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "SHORTNAMES", "APIVERSION",
                                   "NAMESPACED", "KIND"])
        mine = {}
        for line in out.splitlines()[1:]:
            cells = line.split()
            if len(cells) == 4:  # no short names
                cells.insert(1, "")
            mine[(cells[0], cells[2])] = cells
        self.assertEqual(mine[("configmaps", "v1")],
                         ["configmaps", "cm", "v1", "true", "ConfigMap"])
        self.assertEqual(mine[("events", "v1")],
                         ["events", "ev", "v1", "true", "Event"])
        self.assertEqual(mine[("namespaces", "v1")],
                         ["namespaces", "ns", "v1", "false", "Namespace"])
        self.assertEqual(mine[("secrets", "v1")],
                         ["secrets", "", "v1", "true", "Secret"])
        self.assertEqual(mine[("serviceaccounts", "v1")],
                         ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"])
        self.assertEqual(mine[("leases", "coordination.k8s.io/v1")],
                         ["leases", "", "coordination.k8s.io/v1", "true",
                          "Lease"])
        # core group first, then groups alphabetically
        versions = [c[2] for c in mine.values()]
        names = [line.split()[0] for line in out.splitlines()[1:]]
        self.assertLess(names.index("secrets"), names.index("leases"))
        self.assertIn("v1", versions)
        out = self.ok("api-resources", "--api-group=coordination.k8s.io",
                      "-o", "name")
        self.assertEqual(out, "leases.coordination.k8s.io\n")
        out = self.ok("api-resources", "--namespaced=false", "-o", "name")
        self.assertIn("namespaces\n", out)
        self.assertNotIn("configmaps", out)
        out = self.ok("api-resources", "--api-group=", "--verbs=list,watch",
                      "-o", "wide")
        self.assertIn("VERBS", out.splitlines()[0])
        cm = [line for line in out.splitlines()
              if line.startswith("configmaps ")][0]
        self.assertIn(" create,delete,deletecollection,get,list,patch,update,"
                      "watch ", cm + " ")

    def test_api_versions(self):
        out = self.ok("api-versions")
        lines = out.splitlines()
        self.assertEqual(lines, sorted(lines))
        self.assertIn("v1", lines)
        self.assertIn("coordination.k8s.io/v1", lines)

    def test_explain_configmap(self):
        out = self.ok("explain", "configmap")
        lines = out.splitlines()
        self.assertEqual(lines[0], "KIND:       ConfigMap")
        self.assertEqual(lines[1], "VERSION:    v1")
        self.assertIn("DESCRIPTION:", lines)
        # Upstream's description prose is not copied (docs/compatibility.md): the project's
        # own sentences are shown.
        desc = out.split("DESCRIPTION:", 1)[1].split("FIELDS:", 1)[0]
        self.assertEqual(" ".join(desc.split()),
                         "Configuration data for workloads to read, as key/value pairs.")
        fields = out.split("FIELDS:", 1)[1]
        for f, t in (("apiVersion", "string"), ("binaryData",
                                                 "map[string]string"),
                     ("data", "map[string]string"), ("immutable", "boolean"),
                     ("kind", "string"), ("metadata", "ObjectMeta")):
            self.assertRegex(fields, r"(?m)^  %s\t<%s>$"
                             % (re.escape(f), re.escape(t)))
        flat = " ".join(fields.split())
        self.assertIn("data <map[string]string> UTF-8 values by key.", flat)
        out = self.ok("explain", "configmap.metadata.name")
        self.assertIn("FIELD: name <string>", " ".join(out.split()))

    def test_explain_lease_spec(self):
        out = self.ok("explain", "lease.spec")
        self.assertEqual(out.splitlines()[:3],
                         ["GROUP:      coordination.k8s.io",
                          "KIND:       Lease", "VERSION:    v1"])
        self.assertRegex(out, r"(?m)^  holderIdentity\t<string>$")
        self.assertRegex(out, r"(?m)^  renewTime\t<string>$")

    def test_unknown_resource_type(self):
        self.fails("get", "widgets", stderr=
                   'error: the server doesn\'t have a resource type '
                   '"widgets"\n')


class GeneratorTests(WriteTestCase):
    """kubectl create <generator> sends protobuf request bodies (1.32)."""

    namespace = "gen"

    def test_create_configmap(self):
        self.assertEqual(self.ok("create", "configmap", "g1", "-n", "gen",
                                 "--from-literal=a=b",
                                 "--from-literal=c=d"),
                         "configmap/g1 created\n")
        live = self.get_obj("gen", "configmaps", "g1")
        self.assertEqual(live["data"], {"a": "b", "c": "d"})
        self.fails("create", "configmap", "g1", "-n", "gen",
                   "--from-literal=a=b", stderr=
                   'error: failed to create configmap: configmaps "g1" '
                   'already exists\n')

    def test_create_configmap_from_file_binary(self):
        txt = self.kubectl.write("hello\n", name="greeting.txt")
        binf = os.path.join(self.kubectl.workdir, "blob.bin")
        with open(binf, "wb") as f:
            f.write(b"\xff\x00\xfe")
        self.assertEqual(self.ok("create", "cm", "g2", "-n", "gen",
                                 "--from-file=" + txt,
                                 "--from-file=" + binf),
                         "configmap/g2 created\n")
        live = self.get_obj("gen", "configmaps", "g2")
        self.assertEqual(live["data"], {"greeting.txt": "hello\n"})
        self.assertEqual(live["binaryData"],
                         {"blob.bin": base64.b64encode(b"\xff\x00\xfe")
                          .decode()})

    def test_create_secret(self):
        self.assertEqual(self.ok("create", "secret", "generic", "gs", "-n",
                                 "gen", "--from-literal=p=q",
                                 "--type=example.com/gen"),
                         "secret/gs created\n")
        live = self.get_obj("gen", "secrets", "gs")
        self.assertEqual(live["data"], {"p": b64("q")})
        self.assertEqual(live["type"], "example.com/gen")

    def test_create_serviceaccount(self):
        self.assertEqual(self.ok("create", "serviceaccount", "robot", "-n", "gen"),
                         "serviceaccount/robot created\n")
        live = self.get_obj("gen", "serviceaccounts", "robot")
        self.assertEqual(live["kind"], "ServiceAccount")
        self.assertNotIn("secrets", live)
        self.assert_table(self.ok("get", "sa", "robot", "-n", "gen"),
                          ["NAME", "SECRETS", "AGE"], [["robot", "0", AGE]])
        self.fails("create", "sa", "robot", "-n", "gen", stderr=
                   'error: failed to create serviceaccount: serviceaccounts "robot" '
                   'already exists\n')

    def test_create_namespace(self):
        self.assertEqual(self.ok("create", "namespace", "gen-ns"),
                         "namespace/gen-ns created\n")
        ns = self.get_obj(None, "namespaces", "gen-ns")
        self.assertEqual(ns["status"]["phase"], "Active")
        self.fails("create", "namespace", "gen-ns", stderr=
                   'Error from server (AlreadyExists): namespaces "gen-ns" '
                   'already exists\n')

    def test_create_configmap_dry_run_and_missing_ns(self):
        self.assertEqual(self.ok("create", "cm", "gdry", "-n", "gen",
                                 "--from-literal=a=b", "--dry-run=server"),
                         "configmap/gdry created (server dry run)\n")
        self.get_obj("gen", "configmaps", "gdry", expect=404)
        self.fails("create", "cm", "gx", "-n", "gen-missing",
                   "--from-literal=a=b", stderr=
                   'error: failed to create configmap: namespaces '
                   '"gen-missing" not found\n')

    def test_create_workload_generators(self):
        """The generators of other kinds send protobuf too: every built-in kind decodes."""
        self.assertEqual(self.ok("create", "deployment", "web", "-n", "gen",
                                 "--image=nginx:1.27", "--replicas=0", "--port=80"),
                         "deployment.apps/web created\n")
        live = self.get_obj("gen", "deployments", "web", group="apis/apps/v1")
        # A pointer set to zero survives the protobuf body (replicas: 0, not defaulted to 1).
        self.assertEqual(live["spec"]["replicas"], 0)
        container = live["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(container["ports"], [{"containerPort": 80, "protocol": "TCP"}])
        self.assertEqual(container["imagePullPolicy"], "IfNotPresent")
        self.assertEqual(live["spec"]["strategy"]["rollingUpdate"],
                         {"maxSurge": "25%", "maxUnavailable": "25%"})
        for args, created in (
                (("service", "clusterip", "web", "--tcp=80:8080"), "service/web created"),
                (("service", "nodeport", "np", "--tcp=80:8080"), "service/np created"),
                (("job", "j1", "--image=busybox", "--", "echo", "hi"), "job.batch/j1 created"),
                (("cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *"),
                 "cronjob.batch/cj created"),
                (("role", "r1", "--verb=get,list", "--resource=pods"),
                 "role.rbac.authorization.k8s.io/r1 created"),
                (("rolebinding", "rb1", "--role=r1", "--user=alice"),
                 "rolebinding.rbac.authorization.k8s.io/rb1 created"),
                (("quota", "q1", "--hard=pods=10,cpu=4"), "resourcequota/q1 created"),
                (("poddisruptionbudget", "pdb1", "--selector=app=web", "--min-available=1"),
                 "poddisruptionbudget.policy/pdb1 created"),
                (("ingress", "ing1", "--rule=foo.com/bar=web:80"),
                 "ingress.networking.k8s.io/ing1 created"),
                (("secret", "docker-registry", "reg", "--docker-server=r.io",
                  "--docker-username=u", "--docker-password=p"), "secret/reg created")):
            self.assertEqual(self.ok("create", "-n", "gen", *args), created + "\n")
        svc = self.get_obj("gen", "services", "np")
        self.assertEqual(svc["spec"]["ports"][0]["targetPort"], 8080)
        self.assertTrue(30000 <= svc["spec"]["ports"][0]["nodePort"] <= 32767)
        job = self.get_obj("gen", "jobs", "j1", group="apis/batch/v1")
        self.assertEqual(job["spec"]["template"]["spec"]["containers"][0]["command"],
                         ["echo", "hi"])
        quota = self.get_obj("gen", "resourcequotas", "q1")
        self.assertEqual(quota["spec"]["hard"], {"cpu": "4", "pods": "10"})
        self.fails("create", "deployment", "web", "-n", "gen", "--image=x", stderr=
                   'error: failed to create deployment: deployments.apps "web" '
                   'already exists\n')

    def test_create_token(self):
        """kubectl create token: a TokenRequest in protobuf; the token then authenticates."""
        self.ok("create", "serviceaccount", "tok", "-n", "gen")
        token = self.ok("create", "token", "tok", "-n", "gen", "--duration=15m").strip()
        self.assertEqual(token.count("."), 2, token)
        status, _, body = self.server.request(
            "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
            {"Content-Type": "application/json"}, cert=False, token=token)
        self.assertEqual(status, 201, body)
        user = json.loads(body)["status"]["userInfo"]
        self.assertEqual(user["username"], "system:serviceaccount:gen:tok")
        self.assertEqual(user["uid"], self.get_obj("gen", "serviceaccounts", "tok")["metadata"]["uid"])
        self.assertEqual(user["groups"], ["system:serviceaccounts", "system:serviceaccounts:gen",
                                          "system:authenticated"])
        self.fails("create", "token", "ghost", "-n", "gen", stderr=
                   'error: failed to create token: serviceaccounts "ghost" not found\n')
        self.fails("create", "token", "tok", "-n", "gen", "--duration=5m", stderr=
                   'error: failed to create token: TokenRequest.authentication.k8s.io "tok" is '
                   'invalid: spec.expirationSeconds: Invalid value: 300: may not specify a '
                   'duration less than 10 minutes\n')


class AuthCommandTests(KubectlTestCase):
    """kubectl auth can-i / whoami: protobuf reviews answered by the authorizer."""

    def test_can_i(self):
        self.assertEqual(self.ok("auth", "can-i", "create", "pods"), "yes\n")
        self.assertEqual(self.ok("auth", "can-i", "get", "/healthz"), "yes\n")
        self.assertEqual(self.ok("auth", "can-i", "delete", "deployments.apps",
                                 "-n", "kube-system"), "yes\n")

    def test_can_i_list(self):
        self.assert_table(self.ok("auth", "can-i", "--list"),
                          ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"],
                          [["*.*", "[]", "[]", "[*]"], ["", "[*]", "[]", "[*]"],
                           ["", "[/healthz]", "[]", "[get]"], ["", "[/livez]", "[]", "[get]"],
                           ["", "[/readyz]", "[]", "[get]"], ["", "[/version/]", "[]", "[get]"],
                           ["", "[/version]", "[]", "[get]"]])

    def test_whoami(self):
        self.assert_table(self.ok("auth", "whoami"), ["ATTRIBUTE", "VALUE"],
                          [["Username", "admin"],
                           ["Groups", "[system:masters system:authenticated]"]])
        review = json.loads(self.ok("auth", "whoami", "-o", "json"))
        self.assertEqual(review, {
            "kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "status": {"userInfo": {"username": "admin",
                                    "groups": ["system:masters", "system:authenticated"]}}})


if __name__ == "__main__":
    unittest.main()
