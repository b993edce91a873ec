"""Integration tests: ValidatingAdmissionPolicy and its bindings through the real binary and
real kubectl.

Policies' CEL validations refuse what they fail with upstream's messages and codes (the
reason's), or warn (validationActions Warn); messages from message and messageExpression;
parameters from ConfigMaps and from custom resources, by name or selector, and
parameterNotFoundAction; variables, matchConditions, namespaceObject; failurePolicy for
expressions that err; deletions; a binding's matchResources narrowing its policy.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_admission_policies -v
"""

import json
import os
import tempfile
import time
import unittest

import harness

ADMISSION = "/apis/admissionregistration.k8s.io/v1"


class AdmissionPoliciesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server()
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-admission-policies-")
        for ns, tier in (("gold", "gold"), ("free", "free")):
            cls.call("POST", "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns, "labels": {"tier": tier}}})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.made = []

    def tearDown(self):
        for path in reversed(self.made):
            self.call("DELETE", path)

    @classmethod
    def call(cls, method, path, body=None):
        status, _, data = cls.server.request(
            method, path, None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        return status, json.loads(data) if data else None

    def make(self, collection, body):
        status, answer = self.call("POST", collection, body)
        self.assertEqual(status, 201, answer)
        self.made.append(collection + "/" + body["metadata"]["name"])
        return answer

    def policy(self, name, validations, rules=None, **spec):
        body = {"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                "spec": {"failurePolicy": "Fail",
                         "matchConstraints": {"resourceRules": rules or [{
                             "apiGroups": [""], "apiVersions": ["v1"],
                             "operations": ["CREATE", "UPDATE"],
                             "resources": ["configmaps"]}]},
                         "validations": validations}}
        body["spec"].update(spec)
        self.make(ADMISSION + "/validatingadmissionpolicies", body)

    def binding(self, name, policy, actions=("Deny",), **spec):
        body = {"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
                "spec": {"policyName": policy, "validationActions": list(actions)}}
        body["spec"].update(spec)
        self.make(ADMISSION + "/validatingadmissionpolicybindings", body)

    def configmap(self, name, ns="gold", data=None, labels=None, method="POST"):
        meta = {"name": name}
        if labels:
            meta["labels"] = labels
        path = "/api/v1/namespaces/%s/configmaps" % ns
        if method == "PUT":
            path += "/" + name
        return self.call(method, path, {"apiVersion": "v1", "kind": "ConfigMap",
                                        "metadata": meta, "data": data or {}})

    def until_refused(self, make, code):
        """Policies take effect when the watch cache has them: tries until refused."""
        answer = [None]

        def probe():
            status, body = make()
            answer[0] = body
            return status == code, (status, body)

        harness.wait_for(probe, 10, "a refusal with %d" % code)
        return answer[0]

    def unique(self, prefix):
        return "%s-%d" % (prefix, time.monotonic_ns())

    def test_denial_with_upstream_message_and_code(self):
        self.policy("small", [{"expression": "size(object.data) <= 2"}])
        self.binding("small-binding", "small")
        body = self.until_refused(
            lambda: self.configmap(self.unique("big"), data={"a": "1", "b": "2", "c": "3"}), 422)
        self.assertEqual(body["reason"], "Invalid")
        self.assertRegex(
            body["message"],
            r'^configmaps "big-\d+" is forbidden: ValidatingAdmissionPolicy \'small\' with '
            r'binding \'small-binding\' denied request: failed expression: '
            r'size\(object.data\) <= 2$')
        self.assertEqual(body["details"]["kind"], "configmaps")
        self.assertEqual(self.configmap("fits", data={"a": "1"})[0], 201)
        # Through kubectl: the same refusal.
        path = os.path.join(self.tmp, "cm.json")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "kubectl-big", "namespace": "gold"},
                       "data": {"a": "1", "b": "2", "c": "3"}}, f)
        out = self.server.kubectl("create", "-f", path)
        self.assertNotEqual(out.returncode, 0)
        # kubectl prints a cause without a field so, as it does for upstream's.
        self.assertIn('The configmaps "kubectl-big" is invalid: : ValidatingAdmissionPolicy '
                      "'small' with binding 'small-binding' denied request: failed expression: "
                      "size(object.data) <= 2", out.stderr)
        # Updates too.
        status, body = self.configmap("fits", data={"a": "1", "b": "2", "c": "3"}, method="PUT")
        self.assertEqual(status, 422, body)

    def test_messages_reasons_and_warnings(self):
        self.policy("named", [
            {"expression": "!has(object.data) || !('secret' in object.data)",
             "message": "no secrets in configmaps", "reason": "Forbidden"},
            {"expression": "object.metadata.name.size() < 20",
             "messageExpression": "'name ' + object.metadata.name + ' is too long'"}],
            matchConditions=[{"name": "labelled", "expression":
                              "has(object.metadata.labels) && 'checked' in object.metadata.labels"}])
        self.binding("named-binding", "named")
        body = self.until_refused(lambda: self.configmap(
            self.unique("s"), data={"secret": "x"}, labels={"checked": "yes"}), 403)
        self.assertEqual(body["reason"], "Forbidden")
        self.assertTrue(body["message"].endswith(
            "denied request: no secrets in configmaps"), body["message"])
        status, body = self.configmap("a-rather-long-name-indeed", labels={"checked": "yes"})
        self.assertEqual(status, 422)
        self.assertTrue(body["message"].endswith(
            "denied request: name a-rather-long-name-indeed is too long"), body["message"])
        # The match condition leaves unlabelled ones alone.
        self.assertEqual(self.configmap("unlabelled", data={"secret": "x"})[0], 201)
        # Warn instead of Deny: the write goes on, kubectl prints the warning.
        self.policy("warned", [{"expression": "object.metadata.name != 'odd'",
                                "message": "odd name"}])
        self.binding("warned-binding", "warned", actions=("Warn",))
        path = os.path.join(self.tmp, "odd.json")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "odd", "namespace": "free"}}, f)

        def warned():
            out = self.server.kubectl("apply", "-f", path)
            self.assertEqual(out.returncode, 0, out.stderr)
            return "Warning" in out.stderr, out.stderr

        stderr = harness.wait_for(warned, 10, "the warning")
        self.assertIn("Warning: Validation failed for ValidatingAdmissionPolicy 'warned' with "
                      "binding 'warned-binding': odd name", stderr)

    def test_params_from_configmaps(self):
        self.policy("limit", [{"expression": "size(object.data) <= int(params.data.max)",
                               "messageExpression": "'at most ' + params.data.max + ' keys'"}],
                    paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
                    matchConstraints={"resourceRules": [{
                        "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                        "resources": ["configmaps"]}],
                        "objectSelector": {"matchLabels": {"limited": "yes"}}})
        self.make("/api/v1/namespaces/gold/configmaps", {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "limit-params", "labels": {"role": "limit"}},
            "data": {"max": "1"}})
        self.binding("limit-binding", "limit", paramRef={
            "name": "limit-params", "parameterNotFoundAction": "Deny"})
        body = self.until_refused(lambda: self.configmap(
            self.unique("p"), data={"a": "1", "b": "2"}, labels={"limited": "yes"}), 422)
        self.assertTrue(body["message"].endswith("denied request: at most 1 keys"),
                        body["message"])
        # In a namespace without the parameter: Deny's message.
        status, body = self.configmap("p", ns="free", labels={"limited": "yes"})
        self.assertEqual(status, 422)
        self.assertTrue(body["message"].endswith(
            "denied request: failed to configure binding: no params found for policy binding "
            "with `Deny` parameterNotFoundAction"), body["message"])
        # By selector, Allow when none: the free namespace passes, gold's still limits.
        self.call("DELETE", ADMISSION + "/validatingadmissionpolicybindings/limit-binding")
        self.made.remove(ADMISSION + "/validatingadmissionpolicybindings/limit-binding")
        self.binding("limit-by-selector", "limit", paramRef={
            "selector": {"matchLabels": {"role": "limit"}}, "parameterNotFoundAction": "Allow"})

        def free_allowed():
            status, body = self.configmap(self.unique("q"), ns="free", labels={"limited": "yes"})
            return status == 201, (status, body)

        harness.wait_for(free_allowed, 10, "the selector binding")
        status, body = self.configmap("q", data={"a": "1", "b": "2"}, labels={"limited": "yes"})
        self.assertEqual(status, 422, body)

    def test_params_from_custom_resources_and_variables(self):
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "quotas.policy.example.com"},
               "spec": {"group": "policy.example.com", "scope": "Cluster",
                        "names": {"plural": "quotas", "singular": "quota", "kind": "Quota"},
                        "versions": [{"name": "v1", "served": True, "storage": True,
                                      "schema": {"openAPIV3Schema": {
                                          "type": "object", "properties": {
                                              "maxKeys": {"type": "integer"}}}}}]}}
        self.make("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)

        def served():
            status, body = self.call("POST", "/apis/policy.example.com/v1/quotas", {
                "apiVersion": "policy.example.com/v1", "kind": "Quota",
                "metadata": {"name": "gold-quota"}, "maxKeys": 1})
            return status == 201, (status, body)

        harness.wait_for(served, 10, "the quota CRD")
        self.made.append("/apis/policy.example.com/v1/quotas/gold-quota")
        self.policy("quota", [
            {"expression": "variables.keys <= params.maxKeys",
             "messageExpression": "('%d keys in ' + namespaceObject.metadata.name)"
                                  ".format([variables.keys])"}],
            paramKind={"apiVersion": "policy.example.com/v1", "kind": "Quota"},
            variables=[{"name": "keys",
                        "expression": "has(object.data) ? size(object.data) : 0"}],
            matchConstraints={"resourceRules": [{
                "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["configmaps"]}],
                "namespaceSelector": {"matchLabels": {"tier": "gold"}}})
        self.binding("quota-binding", "quota", paramRef={
            "name": "gold-quota", "parameterNotFoundAction": "Deny"})
        body = self.until_refused(
            lambda: self.configmap(self.unique("v"), data={"a": "1", "b": "2"}), 422)
        self.assertTrue(body["message"].endswith("denied request: 2 keys in gold"),
                        body["message"])
        # The namespaceSelector leaves the free tier alone.
        self.assertEqual(self.configmap("v", ns="free", data={"a": "1", "b": "2"})[0], 201)

    def test_failure_policy_and_deletions(self):
        erring = [{"expression": "object.data.missing == 'x'"}]
        self.policy("erring-fail", erring,
                    matchConstraints={"resourceRules": [{
                        "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                        "resources": ["configmaps"], "resourceNames": ["strict"]}]})
        self.binding("erring-fail-binding", "erring-fail")
        body = self.until_refused(lambda: self.configmap("strict", data={"a": "1"}), 422)
        self.assertTrue(body["message"].endswith(
            "denied request: expression 'object.data.missing == 'x'' resulted in error: "
            "no such key: missing"), body["message"])
        # Names the rules do not list are not checked.
        self.assertEqual(self.configmap("lenient", data={"a": "1"})[0], 201)
        # failurePolicy Ignore: the erring expression is passed over; the one that works
        # shows when the policy is in force.
        self.policy("erring-ignore", erring + [
            {"expression": "!object.metadata.name.startsWith('probe')", "message": "probed"}],
            failurePolicy="Ignore")
        self.binding("erring-ignore-binding", "erring-ignore")
        body = self.until_refused(lambda: self.configmap(self.unique("probe")), 422)
        self.assertTrue(body["message"].endswith("denied request: probed"), body["message"])
        self.assertEqual(self.configmap("ignored", data={"a": "1"})[0], 201)
        # Deletions: the object is null, the old object the stored one.
        self.policy("keep", [{"expression": "oldObject.metadata.name != 'kept'",
                              "message": "kept forever"}],
                    rules=[{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"],
                            "resources": ["configmaps"]}])
        self.binding("keep-binding", "keep")
        self.assertEqual(self.configmap("kept", ns="free")[0], 201)
        body = self.until_refused(
            lambda: self.call("DELETE", "/api/v1/namespaces/free/configmaps/kept"), 422)
        self.assertTrue(body["message"].endswith("denied request: kept forever"))
        self.assertEqual(self.call("GET", "/api/v1/namespaces/free/configmaps/kept")[0], 200)

    def test_binding_match_resources_narrow_the_policy(self):
        self.policy("narrow", [{"expression": "false", "message": "not here"}])
        self.binding("narrow-binding", "narrow", matchResources={
            "namespaceSelector": {"matchLabels": {"tier": "free"}}})
        body = self.until_refused(lambda: self.configmap(self.unique("n"), ns="free"), 422)
        self.assertIn("not here", body["message"])
        self.assertEqual(self.configmap("n", ns="gold")[0], 201)
        # A policy over everything: the policies and bindings themselves are still written.
        self.policy("everything", [{"expression": "false", "message": "nothing"}],
                    rules=[{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"],
                            "resources": ["*"]}])
        self.binding("everything-binding", "everything")
        body = self.until_refused(lambda: self.configmap(self.unique("e"), ns="gold"), 422)
        self.assertIn("nothing", body["message"])
        self.policy("after-everything", [{"expression": "true"}])


if __name__ == "__main__":
    unittest.main()


# Gateway API v1.5.0's standard channel bundle ships this policy and binding to guard its CRDs
# (safe-upgrades.gateway.networking.k8s.io), as the project publishes them.
GATEWAY_API_SAFE_UPGRADES = r"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: safe-upgrades.gateway.networking.k8s.io
  annotations:
    gateway.networking.k8s.io/bundle-version: v1.5.0
    gateway.networking.k8s.io/channel: standard
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apiextensions.k8s.io]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: ["*"]
  validations:
  - expression: "object.spec.group != 'gateway.networking.k8s.io' || oldObject == null || (
      has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == 'gateway.networking.k8s.io/channel') &&
      object.metadata.annotations['gateway.networking.k8s.io/channel'] == 'standard' ) || (
      oldObject != null && has(oldObject.metadata.annotations) && oldObject.metadata.annotations.exists(k, k == 'gateway.networking.k8s.io/channel') &&
      oldObject.metadata.annotations['gateway.networking.k8s.io/channel'] == 'experimental' )"
    message: "Installing experimental CRDs on top of standard channel CRDs is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install experimental CRDs on top of standard channel CRDs."
    reason: Invalid
  - expression: "object.spec.group != 'gateway.networking.k8s.io' ||
      (has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == 'gateway.networking.k8s.io/bundle-version') &&
      !matches(object.metadata.annotations['gateway.networking.k8s.io/bundle-version'], 'v1.[0-3].\\\\d+') &&
      !matches(object.metadata.annotations['gateway.networking.k8s.io/bundle-version'], 'v0'))"
    message: "Installing CRDs with version before v1.5.0 is prohibited by default. Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install older versions."
    reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: safe-upgrades.gateway.networking.k8s.io
  annotations:
    gateway.networking.k8s.io/bundle-version: v1.5.0
    gateway.networking.k8s.io/channel: standard
spec:
  policyName: safe-upgrades.gateway.networking.k8s.io
  validationActions: [Deny]
  matchResources:
    resourceRules:
    - apiGroups: [apiextensions.k8s.io]
      apiVersions: [v1]
      resources: [customresourcedefinitions]
      operations: [CREATE, UPDATE]
"""


def gateway_crd(channel, version, name="httproutes", group="gateway.networking.k8s.io"):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (name, group),
                         "annotations": {
                             "api-approved.kubernetes.io":
                                 "https://github.com/kubernetes-sigs/gateway-api/pull/3328",
                             "gateway.networking.k8s.io/channel": channel,
                             "gateway.networking.k8s.io/bundle-version": version}},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": name, "singular": name[:-1], "kind": "HTTPRoute"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {
                                       "type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}}}]}}


class RealProjectPolicyTest(unittest.TestCase):
    """A real project's policy, applied with kubectl as users install it, enforced."""

    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server()
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-gateway-api-policy-")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def apply(self, obj):
        path = os.path.join(self.tmp, "object.json")
        with open(path, "w") as f:
            json.dump(obj, f)
        return self.server.kubectl("apply", "-f", path)

    def test_gateway_api_safe_upgrades(self):
        path = os.path.join(self.tmp, "safe-upgrades.yaml")
        with open(path, "w") as f:
            f.write(GATEWAY_API_SAFE_UPGRADES)
        out = self.server.kubectl("apply", "-f", path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("validatingadmissionpolicy.admissionregistration.k8s.io/"
                      "safe-upgrades.gateway.networking.k8s.io created", out.stdout)

        # Older bundles are refused (once the policy is in force).
        def refused():
            out = self.apply(gateway_crd("standard", "v1.3.0"))
            return out.returncode != 0, out

        out = harness.wait_for(refused, 10, "the policy in force")
        self.assertIn('The customresourcedefinitions "httproutes.gateway.networking.k8s.io" is '
                      'invalid: : ValidatingAdmissionPolicy '
                      "'safe-upgrades.gateway.networking.k8s.io' with binding "
                      "'safe-upgrades.gateway.networking.k8s.io' denied request: Installing CRDs "
                      "with version before v1.5.0 is prohibited by default.", out.stderr)
        # The standard channel installs and upgrades; experimental on top of it is refused.
        out = self.apply(gateway_crd("standard", "v1.5.0"))
        self.assertEqual(out.returncode, 0, out.stderr)
        out = self.apply(gateway_crd("standard", "v1.5.1"))
        self.assertEqual(out.returncode, 0, out.stderr)
        out = self.apply(gateway_crd("experimental", "v1.5.1"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("denied request: Installing experimental CRDs on top of standard channel "
                      "CRDs is prohibited by default.", out.stderr)
        # Other groups' CRDs are none of its business.
        out = self.apply(gateway_crd("experimental", "v0.1", name="widgets",
                                     group="example.com"))
        self.assertEqual(out.returncode, 0, out.stderr)
