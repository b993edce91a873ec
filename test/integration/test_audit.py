"""Integration tests: auditing in the real kube-apiserver binary, driven by real kubectl and
curl over TLS, read back from the audit log file and from a real HTTPS webhook the test runs.

What a user sees: with --audit-policy-file and --audit-log-path, each request the policy
records is one JSON line per stage, an audit.k8s.io/v1 Event as upstream writes it (a
create with its request and response objects at RequestResponse, a get and a watch at
Metadata, the watch also at ResponseStarted, a refused impersonation with the authorization
decision, a failed authentication without a user); the log is rotated by size; a policy that
does not parse stops the server at start; --audit-webhook-config-file posts EventLists.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_audit -v
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import harness
from harness import wait_for

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/version"]
- level: None
  users: ["system:apiserver"]
- level: RequestResponse
  omitManagedFields: true
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
"""

# Every field of upstream's audit.k8s.io/v1 Event.
EVENT_FIELDS = {"kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb",
                "user", "impersonatedUser", "sourceIPs", "userAgent", "objectRef",
                "responseStatus", "requestObject", "responseObject",
                "requestReceivedTimestamp", "stageTimestamp", "annotations"}
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def read_events(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class AuditLogTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-audit-")
        policy = os.path.join(cls.tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write(POLICY)
        cls.log = os.path.join(cls.tmp, "audit", "audit.log")
        cls.server = harness.Server("--authorization-mode=RBAC", "--anonymous-auth=false",
                                    "--audit-policy-file", policy, "--audit-log-path", cls.log)
        try:
            cls.server.wait_ready()
        except BaseException:
            cls.server.stop()
            shutil.rmtree(cls.tmp, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, True)

    def events_of(self, match, count=1, what="audit events"):
        def probe():
            found = [e for e in read_events(self.log) if match(e)]
            return len(found) >= count, found
        return wait_for(probe, 10, what)

    def check_event(self, e):
        self.assertLessEqual(set(e), EVENT_FIELDS, e)
        self.assertEqual((e["kind"], e["apiVersion"]), ("Event", "audit.k8s.io/v1"))
        self.assertIn(e["stage"], ("ResponseStarted", "ResponseComplete"))
        self.assertRegex(e["auditID"], r"^[0-9a-f-]{36}$")
        self.assertRegex(e["requestReceivedTimestamp"], MICRO_TIME)
        self.assertRegex(e["stageTimestamp"], MICRO_TIME)
        self.assertLessEqual(e["requestReceivedTimestamp"], e["stageTimestamp"])
        self.assertEqual(e["sourceIPs"], ["127.0.0.1"])

    def test_create_get_and_watch(self):
        out = self.server.kubectl("create", "configmap", "audited", "--from-literal=k=v")
        self.assertEqual(out.returncode, 0, out.stderr)
        create = self.events_of(lambda e: e["verb"] == "create" and
                                e.get("objectRef", {}).get("name") == "audited")[0]
        self.check_event(create)
        self.assertEqual(create["level"], "RequestResponse")
        self.assertEqual(create["stage"], "ResponseComplete")
        self.assertEqual(create["user"]["username"], "admin")
        self.assertIn("system:masters", create["user"]["groups"])
        self.assertTrue(create["userAgent"].startswith("kubectl/"))
        self.assertEqual(create["objectRef"], {"resource": "configmaps", "namespace": "default",
                                               "name": "audited", "apiVersion": "v1"})
        self.assertEqual(create["responseStatus"], {"metadata": {}, "code": 201})
        self.assertEqual(create["requestObject"]["data"], {"k": "v"})
        self.assertEqual(create["responseObject"]["metadata"]["name"], "audited")
        self.assertNotIn("managedFields", create["responseObject"]["metadata"])
        self.assertEqual(create["annotations"]["authorization.k8s.io/decision"], "allow")
        self.assertTrue(create["requestURI"].startswith("/api/v1/namespaces/default/configmaps?"))

        out = self.server.kubectl("get", "secrets", "-n", "kube-system", "-o", "name")
        self.assertEqual(out.returncode, 0, out.stderr)
        listed = self.events_of(lambda e: e["verb"] == "list" and
                                e.get("objectRef", {}).get("resource") == "secrets")[0]
        self.check_event(listed)
        self.assertEqual(listed["level"], "Metadata")
        self.assertNotIn("responseObject", listed)
        self.assertEqual(listed["objectRef"]["namespace"], "kube-system")

        watch = subprocess.Popen([harness.KUBECTL, "--kubeconfig", self.server.kubeconfig,
                                  "get", "secrets", "--watch", "-o", "name"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            started = self.events_of(lambda e: e["verb"] == "watch" and
                                     e["stage"] == "ResponseStarted", what="watch started")[0]
        finally:
            watch.kill()
            watch.communicate()
        self.check_event(started)
        self.assertEqual(started["responseStatus"]["code"], 200)
        done = self.events_of(lambda e: e["auditID"] == started["auditID"] and
                              e["stage"] == "ResponseComplete", what="watch complete")[0]
        self.assertGreaterEqual(done["stageTimestamp"], started["stageTimestamp"])
        # The policy omits RequestReceived, and the server's own requests are not recorded.
        events = read_events(self.log)
        self.assertFalse([e for e in events if e["stage"] == "RequestReceived"])
        self.assertFalse([e for e in events if e["user"].get("username") == "system:apiserver"])
        self.assertFalse([e for e in events if e["requestURI"].startswith("/readyz")])

    def test_refused_impersonation_and_failed_authentication(self):
        out = self.server.kubectl("get", "pods", "--as=jane")
        self.assertNotEqual(out.returncode, 0)
        refused = self.events_of(lambda e: e.get("impersonatedUser", {}).get("username") ==
                                 "jane")[0]
        self.check_event(refused)
        self.assertEqual(refused["user"]["username"], "admin")
        self.assertEqual(refused["annotations"]["authorization.k8s.io/decision"], "forbid")
        status = refused["responseStatus"]
        self.assertEqual((status["code"], status["reason"], status["status"]),
                         (403, "Forbidden", "Failure"))
        self.assertIn('User "jane" cannot list resource "pods"', status["message"])

        out = harness.run(["curl", "-s", "--cacert", self.server.ca_file,
                           self.server.url + "/api/v1/namespaces/default/pods?limit=7"])
        self.assertEqual(json.loads(out.stdout)["code"], 401)
        failed = self.events_of(lambda e: e["requestURI"] ==
                                "/api/v1/namespaces/default/pods?limit=7")[0]
        self.check_event(failed)
        self.assertEqual(failed["stage"], "ResponseStarted")
        self.assertEqual(failed["user"], {})
        self.assertEqual(failed["responseStatus"]["code"], 401)
        self.assertEqual(failed["responseStatus"]["reason"], "Unauthorized")

    def test_metrics(self):
        out = self.server.kubectl("get", "--raw", "/metrics")
        self.assertEqual(out.returncode, 0, out.stderr)
        total = re.search(r"^apiserver_audit_event_total (\d+)$", out.stdout, re.M)
        self.assertIsNotNone(total, out.stdout[-2000:])
        self.assertGreater(int(total.group(1)), 0)
        self.assertRegex(out.stdout, r'apiserver_audit_error_total\{plugin="log"\} 0')
        self.assertRegex(out.stdout, r'apiserver_audit_level_total\{level="Metadata"\} [1-9]')


class AuditRotationTest(unittest.TestCase):
    def test_rotated_by_size_and_backups_limited(self):
        tmp = tempfile.mkdtemp(prefix="kas-it-audit-rot-")
        self.addCleanup(shutil.rmtree, tmp, True)
        policy = os.path.join(tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write(POLICY)
        log = os.path.join(tmp, "audit.log")
        server = harness.Server("--audit-policy-file", policy, "--audit-log-path", log,
                                "--audit-log-maxsize=1", "--audit-log-maxbackup=2")
        self.addCleanup(server.stop)
        server.wait_ready()
        blob = os.path.join(tmp, "blob")
        with open(blob, "w") as f:
            f.write("x" * 300000)
        # Each create logs the 300 kB value twice (request and response): about 0.6 MB.
        for i in range(8):
            out = server.kubectl("create", "configmap", "big-%d" % i, "--from-file=blob=" + blob)
            self.assertEqual(out.returncode, 0, out.stderr)

        # The buffered backend may still be writing (and rotating, and removing the
        # oldest backup) when the last kubectl returns: a backup that vanishes
        # between listing and reading means "not settled yet", so read it again.
        def backups():
            names = sorted(n for n in os.listdir(tmp)
                           if re.match(r"^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$", n))
            try:
                found = []
                for n in names:
                    with open(os.path.join(tmp, n)) as f:
                        text = f.read()
                    found.append((n, len(text.encode()),
                                  [json.loads(line) for line in text.splitlines() if line.strip()]))
                done = len(names) == 2 and os.path.getsize(log) > 0
            except FileNotFoundError:
                return False, names
            return done, found
        found = wait_for(backups, 10, "two rotated audit logs")
        for name, size, events in found:
            self.assertLessEqual(size, 1 << 20, name)
            self.assertTrue(events, name)


class AuditPolicyErrorTest(unittest.TestCase):
    def test_bad_policy_stops_the_server(self):
        tmp = tempfile.mkdtemp(prefix="kas-it-audit-bad-")
        self.addCleanup(shutil.rmtree, tmp, True)
        policy = os.path.join(tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n")
        server = harness.Server("--audit-policy-file", policy, "--audit-log-path",
                                os.path.join(tmp, "audit.log"), start=False)
        self.addCleanup(server.stop)
        out = harness.run(server.command(), timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn('rules[0].level: Unsupported value: "Loud"', out.stderr)


class AuditWebhookTest(unittest.TestCase):
    def test_event_lists_posted(self):
        tmp = tempfile.mkdtemp(prefix="kas-it-audit-hook-")
        self.addCleanup(shutil.rmtree, tmp, True)
        hook = harness.Webhook(url_path="/audit")
        self.addCleanup(hook.stop)
        config = hook.write_kubeconfig(os.path.join(tmp, "webhook.kubeconfig"))
        policy = os.path.join(tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write(POLICY)
        server = harness.Server("--audit-policy-file", policy, "--audit-webhook-config-file",
                                config, "--audit-webhook-batch-max-wait=200ms")
        self.addCleanup(server.stop)
        server.wait_ready()
        out = server.kubectl("create", "configmap", "hooked", "--from-literal=a=b")
        self.assertEqual(out.returncode, 0, out.stderr)

        def created():
            for path, content_type, body in list(hook.received):
                for e in body["items"]:
                    if e["verb"] == "create" and e.get("objectRef", {}).get("name") == "hooked":
                        return True, (path, content_type, body, e)
            return False, len(hook.received)
        path, content_type, body, event = wait_for(created, 15, "the create posted")
        self.assertEqual(path, "/audit")
        self.assertEqual(content_type, "application/json")
        self.assertEqual((body["kind"], body["apiVersion"]), ("EventList", "audit.k8s.io/v1"))
        self.assertEqual(event["requestObject"]["data"], {"a": "b"})
        self.assertEqual(event["stage"], "ResponseComplete")


if __name__ == "__main__":
    unittest.main()
