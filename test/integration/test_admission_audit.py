"""Integration tests: what admission writes into audit events, through the real binary's
audit log: PodSecurity's enforce-policy and audit-violations, ValidatingAdmissionPolicy's
Audit action and auditAnnotations, and the mutating webhooks' mutation annotations.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_admission_audit -v
"""

import base64
import json
import os
import shutil
import tempfile
import time
import unittest

import harness

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
"""


class AdmissionAuditTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-admission-audit-")
        policy = os.path.join(cls.tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write(POLICY)
        cls.log = os.path.join(cls.tmp, "audit.log")
        cls.server = harness.Server("--audit-policy-file", policy, "--audit-log-path", cls.log)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, True)

    def call(self, method, path, body):
        status, _, data = self.server.request(method, path, json.dumps(body).encode(),
                                              headers={"Content-Type": "application/json"})
        return status, json.loads(data) if data else None

    def annotations_of(self, resource, name, what):
        """The annotations of the create event of `name` (waiting for the log to have it)."""
        def probe():
            with open(self.log) as f:
                events = [json.loads(line) for line in f if line.strip()]
            found = [e for e in events if e.get("verb") == "create" and
                     e.get("stage") == "ResponseComplete" and
                     e.get("objectRef", {}).get("resource") == resource and
                     e.get("objectRef", {}).get("name") == name]
            return bool(found), found
        return harness.wait_for(probe, 10, what)[-1].get("annotations", {})

    def until_created(self, make, check, what):
        """Creates objects (make(i) -> (status, body)) until check(body) holds: what admission
        reads takes effect when the watch cache has it."""
        i = [0]

        def probe():
            i[0] += 1
            status, body = make(i[0])
            return status == 201 and check(body), (status, body)

        return harness.wait_for(probe, 10, what)

    def test_pod_security_annotations(self):
        self.assertEqual(self.call("POST", "/api/v1/namespaces", {
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "audited",
                         "labels": {"pod-security.kubernetes.io/audit": "restricted"}}})[0], 201)
        status, body = self.call("POST", "/api/v1/namespaces/audited/pods", harness.pod_manifest("p"))
        self.assertEqual(status, 201, body)
        annotations = self.annotations_of("pods", "p", "the pod's event")
        self.assertEqual(annotations["pod-security.kubernetes.io/enforce-policy"],
                         "privileged:latest")
        self.assertTrue(annotations["pod-security.kubernetes.io/audit-violations"].startswith(
            'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false '
            '(container "app" must set securityContext.allowPrivilegeEscalation=false)'),
            annotations)

    def test_policy_audit_action_and_audit_annotations(self):
        self.assertEqual(self.call("POST", "/apis/admissionregistration.k8s.io/v1/"
                                           "validatingadmissionpolicies", {
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "audited"},
            "spec": {"matchConstraints": {"resourceRules": [{
                "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["configmaps"]}],
                "objectSelector": {"matchLabels": {"audit": "me"}}},
                "validations": [{"expression": "has(object.data)", "message": "no data"}],
                "auditAnnotations": [{"key": "size", "valueExpression":
                                      "string(size(object.metadata.labels))"}]}})[0], 201)
        self.assertEqual(self.call("POST", "/apis/admissionregistration.k8s.io/v1/"
                                           "validatingadmissionpolicybindings", {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "audited-binding"},
            "spec": {"policyName": "audited", "validationActions": ["Audit"]}})[0], 201)
        names = []

        def make(i):
            names.append("audited-%d" % i)
            return self.call("POST", "/api/v1/namespaces/default/configmaps", {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": names[-1], "labels": {"audit": "me"}}})

        def annotated(_):
            return "audited/size" in self.annotations_of("configmaps", names[-1], "event")

        self.until_created(make, annotated, "the policy's annotations")
        annotations = self.annotations_of("configmaps", names[-1], "the configmap's event")
        self.assertEqual(annotations["audited/size"], "1")
        self.assertEqual(json.loads(
            annotations["validation.policy.admission.k8s.io/validation_failure"]),
            [{"message": "no data", "policy": "audited", "binding": "audited-binding",
              "expressionIndex": 0, "validationActions": ["Audit"]}])

    def test_mutating_webhook_annotations(self):
        def respond(path, review):
            patch = base64.b64encode(json.dumps([
                {"op": "add", "path": "/data", "value": {"added": "yes"}}]).encode()).decode()
            return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                         "response": {"uid": review["request"]["uid"], "allowed": True,
                                      "patchType": "JSONPatch", "patch": patch,
                                      "auditAnnotations": {"seen": "true"}}}

        hook = harness.Webhook(respond)
        try:
            self.assertEqual(self.call("POST", "/apis/admissionregistration.k8s.io/v1/"
                                               "mutatingwebhookconfigurations", {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration", "metadata": {"name": "adder"},
                "webhooks": [{"name": "adder.example.com",
                              "clientConfig": {"url": hook.url + "/add",
                                               "caBundle": hook.ca_bundle},
                              "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                                         "apiVersions": ["v1"], "resources": ["configmaps"]}],
                              "objectSelector": {"matchLabels": {"hook": "adder"}},
                              "sideEffects": "None",
                              "admissionReviewVersions": ["v1"]}]})[0], 201)
            names = []

            def make(i):
                names.append("hooked-%d-%d" % (i, time.monotonic_ns()))
                return self.call("POST", "/api/v1/namespaces/default/configmaps", {
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": names[-1], "labels": {"hook": "adder"}}})

            self.until_created(make, lambda body: body.get("data") == {"added": "yes"},
                               "the webhook")
            annotations = self.annotations_of("configmaps", names[-1], "the configmap's event")
            self.assertEqual(json.loads(
                annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]),
                {"configuration": "adder", "webhook": "adder.example.com", "mutated": True})
            self.assertEqual(annotations["adder.example.com/seen"], "true")
        finally:
            hook.stop()


if __name__ == "__main__":
    unittest.main()
