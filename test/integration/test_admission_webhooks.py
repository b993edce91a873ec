"""Integration tests: mutating and validating admission webhooks through the real binary,
real kubectl and a real HTTPS webhook server the test starts.

What a webhook author sees: the AdmissionReview (v1 and v1beta1) with the request's kind,
resource, operation, user, objects and options; JSON patches applied in order, with
reinvocation; refusals passed through as upstream words them; rules, namespace and object
selectors, matchConditions; failurePolicy on a webhook that is down or slow; dry runs and
sideEffects; deletions; custom resources; webhooks reached through a Service; Warning
headers.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_admission_webhooks -v
"""

import base64
import json
import os
import tempfile
import threading
import time
import unittest

import harness

UUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def patch_of(*operations):
    return base64.b64encode(json.dumps(list(operations)).encode()).decode()


class Hooks:
    """One HTTPS server for every webhook of a test class: the path names the behaviour
    (set per path by the tests), every review is kept."""

    def __init__(self):
        self.lock = threading.Lock()
        self.behaviour = {}
        self.reviews = []
        self.server = harness.Webhook(self.respond, dns_names=["hooks.hooks.svc"])

    def respond(self, path, review):
        path = path.split("?")[0]
        with self.lock:
            self.reviews.append((path, review))
            behave = self.behaviour.get(path)
        if behave is None:
            return 404, None
        return behave(review)

    def reviews_at(self, path):
        with self.lock:
            return [r for p, r in self.reviews if p == path]

    def clear(self):
        with self.lock:
            self.reviews.clear()


def allow(review, **response):
    body = {"uid": review["request"]["uid"], "allowed": True}
    body.update(response)
    return 200, {"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                 "response": body}


def deny(review, status, **response):
    body = {"uid": review["request"]["uid"], "allowed": False, "status": status}
    body.update(response)
    return 200, {"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                 "response": body}


class AdmissionWebhooksTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.hooks = Hooks()
        cls.server = harness.Server()
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-admission-webhooks-")
        for ns in ("hooked", "plain"):
            cls.call("POST", "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns, "labels": {"webhooks": "on" if ns == "hooked" else "off"}}})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.hooks.server.stop()

    def setUp(self):
        self.hooks.clear()
        self.configurations = []

    def tearDown(self):
        for kind, name in self.configurations:
            self.call("DELETE", "%s/%s/%s" % (ADMISSION, kind, name))

    @classmethod
    def call(cls, method, path, body=None, headers=None):
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        status, _, data = cls.server.request(
            method, path, None if body is None else json.dumps(body).encode(), headers=hdrs)
        return status, json.loads(data) if data else None

    def kubectl(self, *args, stdin=None):
        return self.server.kubectl(*args, stdin=stdin)

    def webhook(self, name, path, behave, **fields):
        """A webhook of the test's server at `path`, for configmaps in namespaces
        labelled webhooks=on unless fields say otherwise."""
        self.hooks.behaviour[path] = behave
        hook = {"name": name,
                "clientConfig": {"url": self.hooks.server.url + path,
                                 "caBundle": self.hooks.server.ca_bundle},
                "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""],
                           "apiVersions": ["v1"], "resources": ["configmaps"]}],
                "namespaceSelector": {"matchLabels": {"webhooks": "on"}},
                "sideEffects": "None", "admissionReviewVersions": ["v1"]}
        hook.update(fields)
        return hook

    def configure(self, kind, name, *webhooks):
        plural = kind.lower() + "s"
        status, body = self.call("POST", "%s/%s" % (ADMISSION, plural), {
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": name}, "webhooks": list(webhooks)})
        self.assertEqual(status, 201, body)
        self.configurations.append((plural, name))

    def until(self, attempt, what):
        """Repeats attempt() until it returns a truthy value: configurations take effect
        when the watch cache has them, as upstream's informers do."""
        last = [None]

        def probe():
            last[0] = attempt()
            return bool(last[0]), last[0]

        harness.wait_for(probe, 10, what)
        return last[0]

    def configmap(self, name, ns="hooked", data=None, labels=None, query=""):
        meta = {"name": name}
        if labels:
            meta["labels"] = labels
        return self.call("POST", "/api/v1/namespaces/%s/configmaps%s" % (ns, query), {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {}})

    def create_until_called(self, path, name_prefix, **kwargs):
        """Creates configmaps until the webhook at path sees one; returns the answer."""
        count = [0]

        def attempt():
            count[0] += 1
            name = "%s-%d" % (name_prefix, count[0])
            status, body = self.configmap(name, **kwargs)
            called = any(r["request"].get("name") == name for r in self.hooks.reviews_at(path))
            return (status, body, name) if called else None

        return self.until(attempt, "webhook %s to be called" % path)

    def test_mutating_webhook_patches_and_sees_the_request(self):
        def add_label(review):
            return allow(review, patchType="JSONPatch", patch=patch_of(
                {"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}))

        self.configure("MutatingWebhookConfiguration", "label-adder",
                       self.webhook("label.hooks.example.com", "/mutate", add_label))
        status, body, name = self.create_until_called("/mutate", "m")
        self.assertEqual(status, 201, body)
        self.assertEqual(body["metadata"]["labels"], {"mutated": "yes"})
        out = self.kubectl("get", "configmap", name, "-n", "hooked", "-o",
                           "jsonpath={.metadata.labels.mutated}")
        self.assertEqual(out.stdout, "yes", out.stderr)
        review = [r for r in self.hooks.reviews_at("/mutate")
                  if r["request"]["name"] == name][0]
        self.assertEqual(review["apiVersion"], "admission.k8s.io/v1")
        self.assertEqual(review["kind"], "AdmissionReview")
        request = review["request"]
        self.assertRegex(request["uid"], UUID)
        self.assertEqual(request["kind"], {"group": "", "version": "v1", "kind": "ConfigMap"})
        self.assertEqual(request["resource"],
                         {"group": "", "version": "v1", "resource": "configmaps"})
        self.assertEqual(request["requestKind"], request["kind"])
        self.assertEqual(request["requestResource"], request["resource"])
        self.assertNotIn("subResource", request)
        self.assertEqual((request["operation"], request["namespace"]), ("CREATE", "hooked"))
        self.assertEqual(request["userInfo"]["username"], "admin")
        self.assertIn("system:masters", request["userInfo"]["groups"])
        self.assertEqual(request["object"]["metadata"]["name"], name)
        self.assertIsNone(request["oldObject"])
        self.assertIs(request["dryRun"], False)
        self.assertEqual(request["options"], {"apiVersion": "meta.k8s.io/v1",
                                              "kind": "CreateOptions"})
        # An update through kubectl: UPDATE, with the stored object as oldObject.
        out = self.kubectl("label", "configmap", name, "-n", "hooked", "extra=1")
        self.assertEqual(out.returncode, 0, out.stderr)
        update = self.hooks.reviews_at("/mutate")[-1]["request"]
        self.assertEqual(update["operation"], "UPDATE")
        self.assertEqual(update["oldObject"]["metadata"]["labels"], {"mutated": "yes"})
        self.assertEqual(update["options"]["kind"], "UpdateOptions")
        self.assertEqual(update["options"]["fieldManager"], "kubectl-label")
        # Not called for a namespace the selector leaves out.
        self.hooks.clear()
        status, body = self.configmap("other", ns="plain")
        self.assertEqual(status, 201, body)
        self.assertNotIn("labels", body["metadata"])
        self.assertEqual(self.hooks.reviews_at("/mutate"), [])

    def test_validating_webhook_refusal_and_warnings_reach_kubectl(self):
        def judge(review):
            if "forbidden" in (review["request"]["object"].get("data") or {}):
                return deny(review, {"code": 403, "reason": "Forbidden",
                                     "message": "no forbidden keys here"},
                            warnings=["think again"])
            return allow(review, warnings=["looked at it"])

        self.configure("ValidatingWebhookConfiguration", "judge",
                       self.webhook("judge.hooks.example.com", "/validate", judge))
        self.create_until_called("/validate", "v")
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "bad", "namespace": "hooked"}, "data": {"forbidden": "x"}}
        out = self.kubectl("create", stdin=cm)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('Error from server (Forbidden): error when creating', out.stderr)
        self.assertIn('admission webhook "judge.hooks.example.com" denied the request: '
                      'no forbidden keys here', out.stderr)
        self.assertIn("Warning: think again", out.stderr)
        status, body = self.configmap("bad", data={"forbidden": "x"})
        self.assertEqual((status, body["reason"], body["code"]), (403, "Forbidden", 403))
        self.assertEqual(body["message"], 'admission webhook "judge.hooks.example.com" denied '
                                          'the request: no forbidden keys here')
        cm["metadata"]["name"] = "good"
        cm["data"] = {"fine": "x"}
        out = self.kubectl("create", stdin=cm)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("Warning: looked at it", out.stderr)
        # The validating webhook sees the object as stored.
        review = self.hooks.reviews_at("/validate")[-1]["request"]
        self.assertRegex(review["object"]["metadata"]["uid"], UUID)
        self.assertEqual(self.call("GET", "/api/v1/namespaces/hooked/configmaps/bad")[0], 404)

    def test_validating_webhooks_all_called(self):
        def picky(review):
            if (review["request"]["object"].get("data") or {}).get("colour") == "red":
                return deny(review, {"message": "not red", "code": 422})
            return allow(review, warnings=["picky looked"])

        pair = {"matchLabels": {"hook": "pair"}}
        self.configure("ValidatingWebhookConfiguration", "pair", self.webhook(
            "easy.hooks.example.com", "/easy",
            lambda r: allow(r, warnings=["easy looked"]), objectSelector=pair), self.webhook(
            "picky.hooks.example.com", "/picky", picky, objectSelector=pair))
        self.until(lambda: self.create_until_called("/picky", "pair", labels={"hook": "pair"}),
                   "both")
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "red", "namespace": "hooked", "labels": {"hook": "pair"}},
              "data": {"colour": "red"}}
        out = self.kubectl("create", stdin=cm)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('admission webhook "picky.hooks.example.com" denied the request: not red',
                      out.stderr)
        self.assertEqual(len([r for r in self.hooks.reviews_at("/easy")
                              if r["request"]["name"] == "red"]), 1)
        cm["metadata"]["name"] = "blue"
        cm["data"] = {"colour": "blue"}
        out = self.kubectl("create", stdin=cm)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("Warning: easy looked", out.stderr)
        self.assertIn("Warning: picky looked", out.stderr)

    def test_denial_without_a_code_is_400_and_without_message_says_so(self):
        self.configure("ValidatingWebhookConfiguration", "bare", self.webhook(
            "bare.hooks.example.com", "/bare", lambda r: deny(r, {})))
        status, body, _ = self.create_until_called("/bare", "b")
        self.assertEqual((status, body["code"]), (400, 400))
        self.assertEqual(body["message"], 'admission webhook "bare.hooks.example.com" denied '
                                          'the request without explanation')

    def test_failure_policy_for_a_webhook_that_is_down_or_slow(self):
        port = harness.free_port()
        down = {"name": "down.hooks.example.com",
                "clientConfig": {"url": "https://127.0.0.1:%d/x" % port,
                                 "caBundle": self.hooks.server.ca_bundle},
                "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                           "resources": ["configmaps"]}],
                "objectSelector": {"matchLabels": {"hook": "down"}},
                "sideEffects": "None", "admissionReviewVersions": ["v1"]}
        self.configure("ValidatingWebhookConfiguration", "down", down)

        def refused():
            status, body = self.configmap("d%d" % time.monotonic_ns(), labels={"hook": "down"})
            return body if status == 500 else None

        body = self.until(refused, "the webhook that is down to refuse")
        self.assertEqual(body["reason"], "InternalError")
        self.assertEqual(
            body["message"],
            'Internal error occurred: failed calling webhook "down.hooks.example.com": failed '
            'to call webhook: Post "https://127.0.0.1:%d/x?timeout=10s": dial tcp '
            '127.0.0.1:%d: connect: connection refused' % (port, port))
        # Labels not selected: not called at all.
        self.assertEqual(self.configmap("unselected")[0], 201)
        # failurePolicy Ignore: the write goes on.
        ignore = dict(down, name="ignore.hooks.example.com", failurePolicy="Ignore",
                      objectSelector={"matchLabels": {"hook": "ignored"}})
        self.configure("ValidatingWebhookConfiguration", "ignore", ignore)
        self.assertEqual(self.configmap("ignored", labels={"hook": "ignored"})[0], 201)

        # A slow webhook: its timeoutSeconds bounds the call.
        def slow(review):
            time.sleep(3)
            return allow(review)

        self.configure("MutatingWebhookConfiguration", "slow", self.webhook(
            "slow.hooks.example.com", "/slow", slow, timeoutSeconds=1,
            objectSelector={"matchLabels": {"hook": "slow"}}))

        def timed_out():
            status, body = self.configmap("s%d" % time.monotonic_ns(), labels={"hook": "slow"})
            return body if status == 500 else None

        body = self.until(timed_out, "the slow webhook to time out")
        self.assertRegex(body["message"],
                         r'^Internal error occurred: failed calling webhook '
                         r'"slow.hooks.example.com": failed to call webhook: Post '
                         r'"https://127.0.0.1:\d+/slow\?timeout=1s": context deadline exceeded$')

    def test_connections_are_kept_and_renewed(self):
        kept = harness.Webhook(lambda path, review: allow(review), keep_alive=30)
        try:
            hook = {"name": "kept.hooks.example.com",
                    "clientConfig": {"url": kept.url + "/kept", "caBundle": kept.ca_bundle},
                    "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                               "apiVersions": ["v1"], "resources": ["configmaps"]}],
                    "objectSelector": {"matchLabels": {"hook": "kept"}},
                    "sideEffects": "None", "admissionReviewVersions": ["v1"]}
            self.configure("ValidatingWebhookConfiguration", "kept", hook)
            self.until(lambda: self.configmap("k%d" % time.monotonic_ns(),
                                              labels={"hook": "kept"})[0] == 201 and
                       kept.client_ports, "the kept webhook")
            for i in range(3):
                self.assertEqual(self.configmap("kept-%d" % i, labels={"hook": "kept"})[0], 201)
            # One connection for all of them (each create came on a connection of its own).
            self.assertEqual(len(set(kept.client_ports[-4:])), 1, kept.client_ports)
            # The webhook ends it: the next call is made again on a new one.
            kept.drop_connections()
            self.assertEqual(self.configmap("kept-after", labels={"hook": "kept"})[0], 201)
            self.assertNotEqual(kept.client_ports[-1], kept.client_ports[-2])
        finally:
            kept.stop()

    def test_invalid_answers_are_errors_in_calling(self):
        cases = {
            "/wrong-uid": (lambda r: (200, {"apiVersion": "admission.k8s.io/v1",
                                            "kind": "AdmissionReview",
                                            "response": {"uid": "nope", "allowed": True}}),
                           'received invalid webhook response: expected response.uid='
                           '"%s", got "nope"'),
            "/no-response": (lambda r: (200, {"apiVersion": "admission.k8s.io/v1",
                                              "kind": "AdmissionReview"}),
                             "received invalid webhook response: webhook response was absent"),
            "/patch-no-type": (lambda r: allow(r, patch=patch_of()),
                               "received invalid webhook response: webhook returned "
                               "response.patch but not response.patchType"),
            "/server-error": (lambda r: (500, None),
                              'failed to call webhook: an error on the server ("unknown") has '
                              'prevented the request from succeeding'),
        }
        for path, (behave, message) in cases.items():
            with self.subTest(path):
                label = path.strip("/")
                self.configure("MutatingWebhookConfiguration", label, self.webhook(
                    label + ".hooks.example.com", path, behave,
                    objectSelector={"matchLabels": {"hook": label}}))

                def attempt():
                    name = "%s-%d" % (label, time.monotonic_ns())
                    status, body = self.configmap(name, labels={"hook": label})
                    if status != 500:
                        return None
                    uids = [r["request"]["uid"] for r in self.hooks.reviews_at(path)
                            if r["request"].get("object", {}).get("metadata", {}).get(
                                "labels", {}).get("hook") == label]
                    return body, uids[-1]

                body, uid = self.until(attempt, label)
                expected = message % uid if "%s" in message else message
                self.assertEqual(body["message"],
                                 'Internal error occurred: failed calling webhook "%s.hooks.'
                                 'example.com": %s' % (label, expected))

    def test_reinvocation_if_needed(self):
        def first(review):
            return allow(review)

        def second(review):
            labels = review["request"]["object"]["metadata"].get("labels") or {}
            if "second" in labels:
                return allow(review)
            return allow(review, patchType="JSONPatch", patch=patch_of(
                {"op": "add", "path": "/metadata/labels/second", "value": "done"}))

        self.configure("MutatingWebhookConfiguration", "a-first", self.webhook(
            "first.hooks.example.com", "/first", first, reinvocationPolicy="IfNeeded",
            objectSelector={"matchLabels": {"hook": "reinvoke"}}))
        self.configure("MutatingWebhookConfiguration", "b-second", self.webhook(
            "second.hooks.example.com", "/second", second,
            objectSelector={"matchLabels": {"hook": "reinvoke"}}))
        status, body, name = self.until(
            lambda: self.create_until_called("/second", "r", labels={"hook": "reinvoke"}),
            "both webhooks")
        self.assertEqual(status, 201, body)
        self.assertEqual(body["metadata"]["labels"], {"hook": "reinvoke", "second": "done"})
        firsts = [r["request"] for r in self.hooks.reviews_at("/first")
                  if r["request"]["name"] == name]
        seconds = [r for r in self.hooks.reviews_at("/second") if r["request"]["name"] == name]
        # The first webhook is called again and sees the second one's change; the second,
        # which does not ask for it, once.
        self.assertEqual(len(firsts), 2, firsts)
        self.assertEqual(firsts[1]["object"]["metadata"]["labels"]["second"], "done")
        self.assertEqual(len(seconds), 1)

    def test_dry_run(self):
        # v1 configurations only take sideEffects None and NoneOnDryRun, so every webhook
        # is called for dry runs too.
        status, body = self.call("POST", ADMISSION + "/validatingwebhookconfigurations", {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "effects"},
            "webhooks": [self.webhook("effects.hooks.example.com", "/effects", allow,
                                      sideEffects="Some")]})
        self.assertEqual(status, 422)
        self.assertEqual(body["details"]["causes"][0]["field"], "webhooks[0].sideEffects")
        self.configure("ValidatingWebhookConfiguration", "pure", self.webhook(
            "pure.hooks.example.com", "/pure", allow, sideEffects="NoneOnDryRun",
            objectSelector={"matchLabels": {"hook": "pure"}}))
        status, body, name = self.create_until_called(
            "/pure", "p", labels={"hook": "pure"}, query="?dryRun=All")
        self.assertEqual(status, 201, body)
        review = [r for r in self.hooks.reviews_at("/pure") if r["request"]["name"] == name][0]
        self.assertIs(review["request"]["dryRun"], True)
        self.assertEqual(review["request"]["options"]["dryRun"], ["All"])
        self.assertEqual(self.call("GET", "/api/v1/namespaces/hooked/configmaps/" + name)[0],
                         404)

    def test_deletions_reach_webhooks(self):
        def keep(review):
            old = review["request"]["oldObject"]
            if (old["metadata"].get("labels") or {}).get("keep") == "yes":
                return deny(review, {"message": "kept", "code": 422})
            return allow(review)

        rules = [{"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                  "resources": ["configmaps"]}]
        self.configure("ValidatingWebhookConfiguration", "keeper", self.webhook(
            "keeper.hooks.example.com", "/keep", keep, rules=rules))
        for name, keep_label in (("kept", "yes"), ("gone", "no")):
            self.assertEqual(self.configmap(name, labels={"keep": keep_label})[0], 201)

        def refused():
            status, body = self.call("DELETE", "/api/v1/namespaces/hooked/configmaps/kept")
            return body if status == 422 else None

        body = self.until(refused, "the deletion to be refused")
        self.assertEqual(body["message"],
                         'admission webhook "keeper.hooks.example.com" denied the request: kept')
        review = self.hooks.reviews_at("/keep")[-1]["request"]
        self.assertEqual((review["operation"], review["name"]), ("DELETE", "kept"))
        self.assertIsNone(review["object"])
        self.assertEqual(review["options"]["kind"], "DeleteOptions")
        out = self.kubectl("delete", "configmap", "gone", "-n", "hooked")
        self.assertEqual(out.returncode, 0, out.stderr)
        # A collection deletion asks for each object.
        out = self.kubectl("delete", "configmaps", "-n", "hooked", "-l", "keep")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("denied the request: kept", out.stderr)
        self.assertEqual(self.call("GET", "/api/v1/namespaces/hooked/configmaps/kept")[0], 200)

    def test_match_conditions(self):
        self.configure("ValidatingWebhookConfiguration", "conditional", self.webhook(
            "conditional.hooks.example.com", "/conditional",
            lambda r: deny(r, {"message": "caught"}),
            objectSelector={"matchLabels": {"hook": "conditional"}},
            matchConditions=[
                {"name": "not-exempt", "expression": "object.metadata.name != 'exempt'"},
                {"name": "creates", "expression": "request.operation == 'CREATE'"}]))
        status, body, _ = self.create_until_called("/conditional", "c",
                                                   labels={"hook": "conditional"})
        self.assertEqual(status, 400)
        self.assertIn("caught", body["message"])
        self.hooks.clear()
        self.assertEqual(self.configmap("exempt", labels={"hook": "conditional"})[0], 201)
        self.assertEqual(self.hooks.reviews_at("/conditional"), [])

    def test_v1beta1_reviews(self):
        self.configure("MutatingWebhookConfiguration", "old-style", self.webhook(
            "old.hooks.example.com", "/old", lambda r: allow(r, patch=patch_of(
                {"op": "add", "path": "/data/added", "value": "1"})),
            admissionReviewVersions=["v1beta2", "v1beta1"],
            objectSelector={"matchLabels": {"hook": "old"}}))
        status, body, name = self.create_until_called("/old", "o", labels={"hook": "old"})
        self.assertEqual(status, 201, body)
        self.assertEqual(body["data"], {"added": "1"})
        review = [r for r in self.hooks.reviews_at("/old") if r["request"]["name"] == name][0]
        self.assertEqual(review["apiVersion"], "admission.k8s.io/v1beta1")

    def test_service_webhook_for_custom_resources(self):
        # The webhook's Service: an ExternalName one naming this host (an Endpoints object
        # may not hold a loopback address).
        self.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": "hooks"}})
        status, body = self.call("POST", "/api/v1/namespaces/hooks/services", {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks"},
            "spec": {"type": "ExternalName", "externalName": "localhost"}})
        self.assertEqual(status, 201, body)
        status, body = self.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.hooks.example.com"},
            "spec": {"group": "hooks.example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {
                                       "type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}}}]}})
        self.assertEqual(status, 201, body)
        self.hooks.behaviour["/widgets"] = lambda r: allow(r, patchType="JSONPatch", patch=patch_of(
            {"op": "add", "path": "/spec", "value": {"size": "large"}}))
        self.configure("MutatingWebhookConfiguration", "widgets", {
            "name": "widgets.hooks.example.com",
            "clientConfig": {"service": {"namespace": "hooks", "name": "hooks",
                                         "path": "/widgets", "port": self.hooks.server.port},
                             "caBundle": self.hooks.server.ca_bundle},
            "rules": [{"operations": ["*"], "apiGroups": ["hooks.example.com"],
                       "apiVersions": ["*"], "resources": ["*"], "scope": "Namespaced"}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"]})

        def created():
            status, body = self.call(
                "POST", "/apis/hooks.example.com/v1/namespaces/hooked/widgets",
                {"apiVersion": "hooks.example.com/v1", "kind": "Widget",
                 "metadata": {"generateName": "w-"}})
            if status == 404:  # the CRD is not served yet
                return None
            self.assertEqual(status, 201, body)
            return body if "spec" in body else None

        body = self.until(created, "the widget webhook")
        self.assertEqual(body["spec"], {"size": "large"})
        review = self.hooks.reviews_at("/widgets")[-1]["request"]
        self.assertEqual(review["kind"],
                         {"group": "hooks.example.com", "version": "v1", "kind": "Widget"})
        # Mutating webhooks see no generated name yet, as upstream's.
        self.assertNotIn("name", review)
        self.assertEqual(review["object"]["metadata"]["generateName"], "w-")


if __name__ == "__main__":
    unittest.main()


class WebhookCredentialsTest(unittest.TestCase):
    """--admission-control-config-file's WebhookAdmissionConfiguration: the kubeconfig user
    named by the webhook's host gives the client certificate and token the server presents."""

    def test_client_certificate_and_token_from_the_kubeconfig(self):
        directory = tempfile.mkdtemp(prefix="kas-it-webhook-credentials-")
        ca_key, ca_crt = os.path.join(directory, "ca.key"), os.path.join(directory, "ca.crt")
        key, csr = os.path.join(directory, "client.key"), os.path.join(directory, "client.csr")
        crt = os.path.join(directory, "client.crt")
        for cmd in (["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                     "-subj", "/CN=webhook-client-ca", "-keyout", ca_key, "-out", ca_crt],
                    ["openssl", "req", "-newkey", "rsa:2048", "-nodes",
                     "-subj", "/CN=kube-apiserver-webhook-client", "-keyout", key, "-out", csr],
                    ["openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key,
                     "-CAcreateserial", "-days", "1", "-out", crt]):
            self.assertEqual(harness.run(cmd).returncode, 0, cmd)
        hooks = harness.Webhook(lambda path, review: allow(review), client_ca=ca_crt)
        kubeconfig = os.path.join(directory, "webhooks.kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nusers:\n"
                    "- name: 'other.example.com'\n  user: {token: wrong}\n"
                    "- name: '127.0.0.1:%d'\n  user:\n    client-certificate: client.crt\n"
                    "    client-key: client.key\n    token: webhook-token\n" % hooks.port)
        config = os.path.join(directory, "admission.yaml")
        with open(config, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                    "plugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n"
                    "    apiVersion: apiserver.config.k8s.io/v1\n"
                    "    kind: WebhookAdmissionConfiguration\n"
                    "    kubeConfigFile: %s\n" % kubeconfig)
        server = harness.Server("--admission-control-config-file=" + config)
        try:
            def call(method, path, body):
                status, _, data = server.request(method, path, json.dumps(body).encode(),
                                                 headers={"Content-Type": "application/json"})
                return status, json.loads(data)

            status, body = call("POST", ADMISSION + "/validatingwebhookconfigurations", {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "authenticated"},
                "webhooks": [{"name": "authenticated.example.com",
                              "clientConfig": {"url": hooks.url + "/check",
                                               "caBundle": hooks.ca_bundle},
                              "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                                         "apiVersions": ["v1"], "resources": ["configmaps"]}],
                              "sideEffects": "None", "admissionReviewVersions": ["v1"]}]})
            self.assertEqual(status, 201, body)

            def called():
                status, body = call("POST", "/api/v1/namespaces/default/configmaps", {
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "c%d" % time.monotonic_ns()}})
                return bool(hooks.peers), (status, body)

            status, body = harness.wait_for(called, 10, "the webhook to be called")
            self.assertEqual(status, 201, body)
            self.assertEqual(hooks.peers[-1],
                             ("kube-apiserver-webhook-client", "Bearer webhook-token"))
        finally:
            server.stop()
            hooks.stop()
        # A kubeConfigFile that cannot be read stops the server.
        with open(config, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                    "plugins:\n- name: MutatingAdmissionWebhook\n  configuration:\n"
                    "    apiVersion: apiserver.config.k8s.io/v1\n"
                    "    kind: WebhookAdmissionConfiguration\n"
                    "    kubeConfigFile: %s/missing.kubeconfig\n" % directory)
        broken = harness.Server("--admission-control-config-file=" + config, start=False)
        out = harness.run(broken.command())
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('couldn\'t init admission plugin "MutatingAdmissionWebhook": couldn\'t '
                      'read kubeConfigFile', out.stderr)
        broken.cleanup()


class ReinvocationOfInTreePluginsTest(unittest.TestCase):
    """A mutating webhook that adds a sidecar: the chain runs again, so the ServiceAccount
    plugin (before the webhooks in upstream's order) mounts the token in the sidecar too."""

    def test_sidecar_gets_the_token(self):
        def add_sidecar(path, review):
            containers = review["request"]["object"]["spec"]["containers"]
            response = {"uid": review["request"]["uid"], "allowed": True}
            if not any(c["name"] == "sidecar" for c in containers):
                response.update(patchType="JSONPatch", patch=patch_of(
                    {"op": "add", "path": "/spec/containers/-",
                     "value": {"name": "sidecar", "image": "busybox:1.36"}}))
            return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                         "response": response}

        hook = harness.Webhook(add_sidecar)
        server = harness.Server("--disable-admission-plugins=StorageObjectInUseProtection")
        try:
            def call(method, path, body):
                status, _, data = server.request(method, path, json.dumps(body).encode(),
                                                 headers={"Content-Type": "application/json"})
                return status, json.loads(data)

            self.assertEqual(call("POST", "/api/v1/namespaces/default/serviceaccounts", {
                "apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "default"}})[0], 201)
            self.assertEqual(call("POST", ADMISSION + "/mutatingwebhookconfigurations", {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration", "metadata": {"name": "sidecars"},
                "webhooks": [{"name": "sidecars.example.com",
                              "clientConfig": {"url": hook.url + "/inject",
                                               "caBundle": hook.ca_bundle},
                              "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                                         "apiVersions": ["v1"], "resources": ["pods"]}],
                              "sideEffects": "None",
                              "admissionReviewVersions": ["v1"]}]})[0], 201)
            count = [0]

            def injected():
                count[0] += 1
                status, body = call("POST", "/api/v1/namespaces/default/pods",
                                    harness.pod_manifest("p%d" % count[0]))
                self.assertEqual(status, 201, body)
                return len(body["spec"]["containers"]) == 2, body

            pod = harness.wait_for(injected, 10, "the sidecar")
            mounts = {c["name"]: [m["mountPath"] for m in c.get("volumeMounts", [])]
                      for c in pod["spec"]["containers"]}
            self.assertEqual(mounts, {
                "app": ["/var/run/secrets/kubernetes.io/serviceaccount"],
                "sidecar": ["/var/run/secrets/kubernetes.io/serviceaccount"]})
        finally:
            server.stop()
            hook.stop()
