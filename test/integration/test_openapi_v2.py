"""Integration tests: /openapi/v2 as upstream serves it, and what kubectl does with it.

kubectl only ever asks for the protobuf form of /openapi/v2 (client-go's OpenAPISchema):
kubectl 1.27+ for every `kind: List` file, for explain --output=plaintext-openapiv2 and for
client-side patches of custom resources; kubectl 1.26 and older for every apply. One
malformed definition anywhere makes kubectl's parser refuse the whole document. These
tests run the real binary with real kubectl (the 1.32 build the dispatcher picks, and
1.27, the oldest build on this machine) and check the HTTP behaviour (forms, ETag, 304,
406), built-in and custom resource definitions, and how soon CRD changes show.

When the build made test/tools/openapi_v2_check (Go, from Debian's gnostic and
kube-openapi packages), its path is in KAS_OPENAPI_V2_CHECK and the served protobuf is
also decoded and parsed exactly as kubectl does, and compared with gnostic's conversion of
the served JSON.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver \\
        KAS_OPENAPI_V2_CHECK=.../build/test/tools/openapi_v2_check \\
        /usr/bin/python3 -m unittest test_openapi_v2 -v
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_kubectl_rest import Kubectl, KubectlTestCase  # noqa: E402

KUBECTL_127 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.27"
PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTOBUF_DOTTED = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
CHECK = os.environ.get("KAS_OPENAPI_V2_CHECK")
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
# How soon a CRD change must show in /openapi/v2 (upstream: on the next request after its
# controller synced, milliseconds).
CRD_VISIBLE_WITHIN = 3.0

LIST = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}-cm
    namespace: default
  data:
    key: "{value}"
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata:
    name: {name}-role
  rules:
  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["get", "list"]
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: {name}-deploy
    namespace: default
  spec:
    replicas: 1
    selector:
      matchLabels: {{app: {name}}}
    template:
      metadata:
        labels: {{app: {name}}}
      spec:
        containers:
        - name: main
          image: registry.k8s.io/pause:3.9
"""


def list_lines(name, verb):
    return "".join(line % name + "\n" for line in (
        "configmap/%%s-cm %s" % verb,
        "clusterrole.rbac.authorization.k8s.io/%%s-role %s" % verb,
        "deployment.apps/%%s-deploy %s" % verb))


def deleted_lines(name):
    return ('configmap "%s-cm" deleted\n'
            'clusterrole.rbac.authorization.k8s.io "%s-role" deleted\n'
            'deployment.apps "%s-deploy" deleted\n' % (name, name, name))


def crd(group, kind, plural, schema, scope="Namespaced"):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, group)},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def definition_name(group, kind):
    """com.example.<...>.v1.<Kind>: the group reversed, as upstream names CRD definitions."""
    return ".".join(reversed(group.split("."))) + ".v1." + kind


CRONTAB_SCHEMA = {
    "type": "object", "description": "A CronTab runs a command on a schedule.",
    "properties": {"spec": {
        "type": "object", "description": "What to run and when.", "required": ["cronSpec"],
        "properties": {
            "cronSpec": {"type": "string", "description": "The schedule, in cron format."},
            "replicas": {"type": "integer", "minimum": 0, "default": 1},
            "port": {"x-kubernetes-int-or-string": True},
            "note": {"type": "string", "nullable": True},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}


class Kubectl127(Kubectl):
    """kubectl 1.27, the oldest build here: the last to validate every apply from v2."""

    def argv(self, args):
        return [KUBECTL_127, "--kubeconfig", self.server.kubeconfig] + list(args)


class OpenAPIV2TestCase(KubectlTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.kubectl127 = Kubectl127(cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.kubectl127.cleanup()
        super().tearDownClass()

    def ok127(self, *args, stderr=""):
        r = self.kubectl127(*args)
        self.assertEqual(r.returncode, 0, "kubectl.1.27 %s\nstdout: %s\nstderr: %s"
                         % (" ".join(args), r.stdout, r.stderr))
        if stderr is not None:
            self.assertEqual(r.stderr, stderr, "kubectl.1.27 %s" % " ".join(args))
        return r.stdout

    def v2(self, accept=None, **headers):
        hdrs = {k.replace("_", "-"): v for k, v in headers.items()}
        if accept is not None:
            hdrs["Accept"] = accept
        return self.server.request("GET", "/openapi/v2", headers=hdrs)

    def document(self):
        status, _, body = self.v2("application/json")
        self.assertEqual(status, 200, body[:500])
        return json.loads(body)

    def install_crd(self, obj):
        status, _, body = self.server.request(
            "POST", CRDS, body=json.dumps(obj),
            headers={"Content-Type": "application/json", "Accept": "application/json"})
        self.assertEqual(status, 201, body[:2000])
        name = obj["metadata"]["name"]
        self.addCleanup(self.server.request, "DELETE", CRDS + "/" + name)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            _, _, body = self.server.request("GET", CRDS + "/" + name,
                                             headers={"Accept": "application/json"})
            conditions = json.loads(body).get("status", {}).get("conditions", [])
            if any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                return
            time.sleep(0.05)
        self.fail("CRD %s not Established" % name)

    def wait_definition(self, name, present, timeout=CRD_VISIBLE_WITHIN):
        """Seconds until /openapi/v2 has (or no longer has) the definition."""
        start = time.monotonic()
        while True:
            definitions = self.document()["definitions"]
            if (name in definitions) == present:
                return definitions.get(name)
            if time.monotonic() - start > timeout:
                self.fail("%s %s /openapi/v2 after %.1fs" % (
                    name, "not in" if present else "still in", timeout))
            time.sleep(0.05)

    def check_with_kubectls_parser(self):
        """The protobuf body through kubectl's decoding and parsing (openapi_v2_check)."""
        if not CHECK:
            return
        status, headers, pb = self.v2(PROTOBUF)
        self.assertEqual(status, 200)
        _, json_headers, body = self.v2("application/json")
        self.assertEqual(headers["etag"], json_headers["etag"], "changed in between")
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            f.write(body)
            f.flush()
            r = subprocess.run([CHECK, "-json", f.name], input=pb, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
        out = r.stdout.decode()
        self.assertEqual(r.returncode, 0, out)
        self.assertEqual(out, "ok models: %d\n" % len(json.loads(body)["definitions"]))


class OpenAPIV2HTTPTests(OpenAPIV2TestCase):

    def test_json_and_protobuf_forms(self):
        status, headers, body = self.v2()
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/json")
        etag = '"%s"' % hashlib.sha512(body).hexdigest().upper()
        self.assertEqual(headers["etag"], etag)
        self.assertEqual(headers["vary"], "Accept")
        self.assertEqual(headers["cache-control"], "no-cache, private")
        self.assertRegex(headers["last-modified"],
                         r"^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$")
        for accept in ("*/*", "application/*", "application/json",
                       "application/json, " + PROTOBUF):
            status, _, same = self.v2(accept)
            self.assertEqual((status, same), (200, body), accept)
        for accept in (PROTOBUF, PROTOBUF_DOTTED, PROTOBUF + ";q=0.9, text/html;q=0.1"):
            status, headers, pb = self.v2(accept)
            self.assertEqual(status, 200, accept)
            self.assertEqual(headers["content-type"], PROTOBUF_DOTTED)
            self.assertEqual(headers["etag"], etag)
            self.assertEqual(headers["vary"], "Accept")
            self.assertTrue(pb.startswith(b"\x0a\x032.0\x12"), pb[:20])
        self.check_with_kubectls_parser()

    def test_not_modified_and_not_acceptable(self):
        _, headers, _ = self.v2()
        etag = headers["etag"]
        for accept in ("application/json", PROTOBUF):
            status, headers, body = self.v2(accept, If_None_Match=etag)
            self.assertEqual((status, body), (304, b""), accept)
            self.assertEqual(headers["etag"], etag)
            self.assertNotIn("last-modified", headers)
            status, _, _ = self.v2(accept, If_None_Match='W/"x", ' + etag)
            self.assertEqual(status, 304)
        status, _, body = self.v2(PROTOBUF, If_None_Match='"other"')
        self.assertEqual(status, 200)
        for accept in ("text/html", "application/yaml", "application/vnd.kubernetes.protobuf"):
            status, headers, body = self.v2(accept)
            self.assertEqual((status, body), (406, b""), accept)

    def test_document_as_upstream_publishes_it(self):
        doc = self.document()
        self.assertEqual(doc["swagger"], "2.0")
        self.assertEqual(doc["info"]["title"], "Kubernetes")
        self.assertRegex(doc["info"]["version"], r"^v1\.32\.\d+$")
        self.assertEqual(doc["security"], [{"BearerToken": []}])
        definitions = doc["definitions"]
        self.assertEqual(definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"],
                         {"type": "string", "format": "int-or-string"})
        self.assertEqual(definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"],
                         {"type": "string"})
        self.assertEqual(definitions["io.k8s.api.apps.v1.Deployment"]
                         ["x-kubernetes-group-version-kind"],
                         [{"group": "apps", "kind": "Deployment", "version": "v1"}])
        for path in ("/api/", "/apis/", "/apis/apps/", "/version/",
                     "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"):
            self.assertIn(path, doc["paths"])

        def walk(node, where):
            if isinstance(node, dict):
                for key in ("default", "nullable", "oneOf", "anyOf", "not"):
                    self.assertNotIn(key, node, where)
                if "$ref" in node:
                    self.assertTrue(node["$ref"].startswith("#/definitions/"), where)
                    self.assertIn(node["$ref"][len("#/definitions/"):], definitions, where)
                    self.assertNotIn("type", node, where)
                    self.assertNotIn("properties", node, where)
                if node.get("properties") == {}:
                    self.fail("empty properties at " + where)
                for key, value in node.items():
                    if key == "properties":
                        for name, sub in value.items():
                            walk(sub, "%s.properties.%s" % (where, name))
                    elif key in ("items", "additionalProperties", "allOf"):
                        walk(value, where + "." + key)
            elif isinstance(node, list):
                for i, value in enumerate(node):
                    walk(value, "%s[%d]" % (where, i))
        for name, schema in definitions.items():
            walk(schema, name)


class OpenAPIV2KubectlTests(OpenAPIV2TestCase):

    def test_list_file_create_apply_delete(self):
        """A `kind: List` file: kubectl validates every item against /openapi/v2 first."""
        for name, run_ok in (("list", self.ok), ("list127", self.ok127)):
            path = self.kubectl.write(LIST.format(name=name, value="1"))
            self.assertEqual(run_ok("create", "-f", path), list_lines(name, "created"))
            self.assertEqual(run_ok("delete", "-f", path), deleted_lines(name))
            self.assertEqual(run_ok("apply", "-f", path), list_lines(name, "created"))
            self.assertEqual(run_ok("apply", "-f", path), list_lines(name, "unchanged"))
            changed = self.kubectl.write(LIST.format(name=name, value="2"))
            out = run_ok("apply", "-f", changed)
            self.assertEqual(out, list_lines(name, "unchanged").replace(
                "configmap/%s-cm unchanged" % name, "configmap/%s-cm configured" % name))
            cm = self.get_obj("default", "configmaps", name + "-cm")
            self.assertEqual(cm["data"], {"key": "2"})
            self.assertEqual(run_ok("delete", "-f", changed), deleted_lines(name))

    def test_list_file_with_an_invalid_item(self):
        path = self.kubectl.write(LIST.format(name="bad", value="1").replace(
            "  data:\n", "  bogus: 1\n  data:\n"))
        msg = ('error: error validating "%s": error validating data: '
               'ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap; '
               'if you choose to ignore these errors, turn validation off with '
               '--validate=false\n' % path)
        self.assertEqual(self.fails("apply", "-f", path), msg)
        r = self.kubectl127("create", "-f", path)
        self.assertEqual((r.returncode, r.stderr), (1, msg))
        self.get_obj("default", "configmaps", "bad-cm", expect=404)

    def test_explain_builtin_from_v2(self):
        out = self.ok("explain", "deployments.spec.replicas", "--output=plaintext-openapiv2")
        self.assertEqual(out.splitlines()[:4], ["KIND:     Deployment", "VERSION:  apps/v1", "",
                                                "FIELD:    replicas <integer>"], out)
        out = self.ok("explain", "configmaps", "--output=plaintext-openapiv2")
        self.assertEqual(out.splitlines()[:2], ["KIND:     ConfigMap", "VERSION:  v1"], out)
        for field, typ in (("apiVersion", "<string>"), ("binaryData", "<map[string]string>"),
                           ("data", "<map[string]string>"), ("immutable", "<boolean>"),
                           ("metadata", "<Object>")):
            self.assertRegex(out, r"(?m)^   %s\t%s$" % (field, re.escape(typ)), out)

    def test_custom_resource_explain_and_client_side_validation(self):
        group = "stable.v2.example.com"
        self.install_crd(crd(group, "CronTab", "crontabs", CRONTAB_SCHEMA))
        definition = self.wait_definition(definition_name(group, "CronTab"), True)
        self.assertEqual(definition["x-kubernetes-group-version-kind"],
                         [{"group": group, "kind": "CronTab", "version": "v1"}])
        spec = definition["properties"]["spec"]["properties"]
        # ToStructuralOpenAPIV2: defaults pruned, nullable and int-or-string untyped, preserve
        # unknown fields without type object.
        self.assertEqual(spec["replicas"], {"type": "integer", "minimum": 0})
        self.assertEqual(spec["note"], {})
        self.assertEqual(spec["port"], {"x-kubernetes-int-or-string": True})
        self.assertEqual(spec["extra"], {"x-kubernetes-preserve-unknown-fields": True})
        self.assertEqual(definition["properties"]["metadata"]["$ref"],
                         "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        listed = self.document()["definitions"][definition_name(group, "CronTabList")]
        self.assertEqual(listed["description"], "CronTabList is a list of CronTab")
        self.check_with_kubectls_parser()

        out = self.ok("explain", "crontabs", "--output=plaintext-openapiv2")
        self.assertEqual(out.splitlines()[:5], [
            "KIND:     CronTab", "VERSION:  %s/v1" % group, "", "DESCRIPTION:",
            "     A CronTab runs a command on a schedule."], out)
        for field, typ in (("apiVersion", "<string>"), ("kind", "<string>"),
                           ("metadata", "<Object>"), ("spec", "<Object>")):
            self.assertRegex(out, r"(?m)^   %s\t%s$" % (field, typ), out)
        out = self.ok("explain", "crontabs.spec", "--output=plaintext-openapiv2")
        self.assertRegex(out, r"(?m)^   cronSpec\t<string> -required-$", out)

        item = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: %s/v1\n  kind: CronTab\n"
                "  metadata:\n    name: %%s\n    namespace: default\n  spec:\n"
                "    cronSpec: '*/5 * * * *'\n%%s" % group)
        bad = self.kubectl.write(item % ("bad", "    bogus: 1\n"))
        msg = ('error: error validating "%s": error validating data: '
               'ValidationError(CronTab.spec): unknown field "bogus" in %s.spec; if you choose '
               'to ignore these errors, turn validation off with --validate=false\n'
               % (bad, definition_name(group, "CronTab")))
        self.assertEqual(self.fails("apply", "-f", bad), msg)
        r = self.kubectl127("apply", "-f", bad)
        self.assertEqual((r.returncode, r.stderr), (1, msg))
        good = self.kubectl.write(item % ("good", "    extra: {anything: [1]}\n"))
        self.assertEqual(self.ok("apply", "-f", good),
                         "crontab.%s/good created\n" % group)
        self.assertEqual(self.ok127("apply", "-f", good),
                         "crontab.%s/good unchanged\n" % group)

    def test_custom_resource_definitions_come_and_go(self):
        group = "come.v2.example.com"
        name = definition_name(group, "Visitor")
        obj = crd(group, "Visitor", "visitors", {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"x": {"type": "string"}}}}})
        self.assertNotIn(name, self.document()["definitions"])
        self.install_crd(obj)
        self.wait_definition(name, True)
        paths = self.document()["paths"]
        patch = paths["/apis/%s/v1/namespaces/{namespace}/visitors/{name}" % group]["patch"]
        self.assertEqual(patch["x-kubernetes-group-version-kind"],
                         {"group": group, "kind": "Visitor", "version": "v1"})
        self.assertNotIn("application/strategic-merge-patch+json", patch["consumes"])
        status, _, body = self.server.request("DELETE", CRDS + "/visitors." + group)
        self.assertEqual(status, 200, body[:500])
        self.wait_definition(name, False, timeout=CRD_VISIBLE_WITHIN + 2)
        self.assertNotIn(name + "List", self.document()["definitions"])

    def test_preserve_unknown_fields_at_the_root(self):
        """Published as a bare object (upstream: no properties at all, not even metadata,
        or kubectl would refuse every other field); a CRD without a schema cannot be made
        with apiextensions.k8s.io/v1, and would be published the same way."""
        group = "free.v2.example.com"
        self.install_crd(crd(group, "Blob", "blobs", {
            "type": "object", "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"spec": {"type": "object"}}}, scope="Cluster"))
        definition = self.wait_definition(definition_name(group, "Blob"), True)
        self.assertEqual(definition, {"type": "object", "x-kubernetes-group-version-kind": [
            {"group": group, "kind": "Blob", "version": "v1"}]})
        path = self.kubectl.write("apiVersion: v1\nkind: List\nitems:\n- apiVersion: %s/v1\n"
                                  "  kind: Blob\n  metadata:\n    name: b\n  anything: 1\n"
                                  % group)
        self.assertEqual(self.ok127("apply", "-f", path), "blob.%s/b created\n" % group)
        self.check_with_kubectls_parser()


if __name__ == "__main__":
    unittest.main()
