"""Integration tests: the aggregator (kube-aggregator) end to end.

An extension API server (extension_apiserver.py, serving wardle.example.com
/v1alpha1 like upstream's sample-apiserver) runs on a test host of its own: a
network namespace joined to this host by a veth pair (netns.py), since
upstream refuses Endpoints on loopback. It is registered the upstream way: a
Namespace `wardle`, a Service `api` without selector (port 443 -> 8443), an
Endpoints `api` with the namespace's address, and an APIService
v1alpha1.wardle.example.com (service wardle/api, caBundle of the test CA).
The binary then proxies /apis/wardle.example.com/v1alpha1/... to it over TLS
(verifying the serving certificate for api.wardle.svc), presenting its
front-proxy client certificate and passing the user as X-Remote-* headers;
an availability controller sets the APIService's Available condition, and
discovery and OpenAPI include the remote group. What is asserted is what a
user sees (kubectl output, response bodies, conditions) with upstream
kube-apiserver 1.32's strings, and what the extension server received.

Needs root (the tests skip otherwise) and iproute2. Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver \
        /usr/bin/python3 -m unittest test_aggregator -v

Each class starts its own server, network namespace and extension server
and stops them afterwards (also when setUpClass fails half way).
"""

import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import netns  # noqa: E402
from certs import CA  # noqa: E402
from harness import CURL, run, wait_for  # noqa: E402
from test_kubectl_rest import AGE, RFC3339, UUID, KubectlTestCase, StreamReader, table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSION = os.path.join(HERE, "extension_apiserver.py")
PYTHON = "/usr/bin/python3"

GROUP, VERSION = "wardle.example.com", "v1alpha1"
GV = GROUP + "/" + VERSION
APISERVICE = VERSION + "." + GROUP
GV_PATH = "/apis/" + GV
FLUNDERS = GV_PATH + "/namespaces/wardle/flunders"
EXT_PORT = 8443
SERVICE_HOST = "api.wardle.svc"  # the name the proxy verifies the serving certificate for
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AUTH_CONFIGMAP = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
# Upstream's availability controller resyncs every 30 s.
AVAILABLE_TIMEOUT = 45
TOKEN = "wardle-token-5f1c0e9a"
TOKEN_USER = ("jane", ["wardle-devs", "qa", "system:authenticated"])

# The extension server's answers, as it sends them (the aggregator passes them on).
VERBS = ["create", "delete", "get", "list", "patch", "watch"]
RESOURCE_LIST = {
    "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": GV,
    "resources": [{"name": "flunders", "singularName": "flunder", "namespaced": True,
                   "kind": "Flunder", "verbs": VERBS, "shortNames": ["fl"],
                   "categories": ["wardle"]}]}
GV_DISCOVERY = {"groupVersion": GV, "version": VERSION}
API_GROUP = {"name": GROUP, "versions": [GV_DISCOVERY], "preferredVersion": GV_DISCOVERY}
DISCOVERY_RESOURCE = {
    "resource": "flunders",
    "responseKind": {"group": GROUP, "version": VERSION, "kind": "Flunder"},
    "scope": "Namespaced", "singularResource": "flunder", "verbs": VERBS,
    "shortNames": ["fl"], "categories": ["wardle"]}

# Upstream's texts.
# remote_available_controller.go (1.32 checks Endpoints, not EndpointSlices)
SERVICE_NOT_FOUND = 'service/%s in "%s" is not present'
SERVICE_PORT_ERROR = 'service/%s in "%s" is not listening on port %d'
ENDPOINTS_NOT_FOUND = 'cannot find endpoints for service/%s in "%s"'
MISSING_ENDPOINTS = 'endpoints for service/%s in "%s" have no addresses with port name "%s"'
FAILED_DISCOVERY = ('failing or missing response from https://%s:%d%s: '
                    'Get "https://%s:%d%s": dial tcp %s:%d: connect: connection refused')
# handler_proxy.go answers "service unavailable" with 503 (as Go's plain-text http.Error);
# this server answers the same message as a Status, as every other error of the API
SERVICE_UNAVAILABLE = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                       "status": "Failure", "message": "service unavailable",
                       "reason": "ServiceUnavailable", "code": 503}
# what kubectl 1.32 prints for it
KUBECTL_503 = "Error from server (ServiceUnavailable): service unavailable"


class Extension:
    """extension_apiserver.py in a network namespace, and its request log."""

    def __init__(self, ns, directory, serving, serving_ca, client_ca):
        self.ns, self.serving, self.serving_ca, self.client_ca = ns, serving, serving_ca, client_ca
        self.log_path = os.path.join(directory, "requests.jsonl")
        self.out_path = os.path.join(directory, "extension.out")
        self.proc = None

    def start(self, timeout=15):
        with open(self.out_path, "ab") as out:
            self.proc = self.ns.popen(
                [PYTHON, EXTENSION, "--listen", "%s:%d" % (self.ns.ns_ip, EXT_PORT),
                 "--cert", self.serving[0], "--key", self.serving[1],
                 "--client-ca", self.client_ca, "--allowed-names", "front-proxy-client",
                 "--request-log", self.log_path], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:  # from this host, over the veth: what the kube-apiserver will do
            if self.proc.poll() is not None:
                raise RuntimeError("extension server exited: " + self.output())
            ctx = ssl.create_default_context(cafile=self.serving_ca)
            ctx.check_hostname = False
            conn = http.client.HTTPSConnection(self.ns.ns_ip, EXT_PORT, timeout=2, context=ctx)
            try:
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            finally:
                conn.close()
            if time.monotonic() > deadline:
                raise RuntimeError("extension server not reachable at %s:%d: %s"
                                   % (self.ns.ns_ip, EXT_PORT, self.output()))
            time.sleep(0.1)

    def stop(self):
        if self.proc is not None:
            self.ns.stop(self.proc, sig=signal.SIGKILL)
            self.proc = None

    def output(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def requests(self, path=None, method=None):
        try:
            with open(self.log_path) as f:
                entries = [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []
        return [e for e in entries if (path is None or e["path"] == path)
                and (method is None or e["method"] == method)]


class AggregatorTestCase(KubectlTestCase):
    """A server, a network namespace with the extension server, and the
    wardle Namespace, Service, Endpoints and APIService."""

    @classmethod
    def setUpClass(cls):
        reason = netns.unavailable()
        if reason:
            raise unittest.SkipTest(reason)
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-agg-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        tokens = os.path.join(cls.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('%s,%s,uid-jane,"%s"\n' % (TOKEN, TOKEN_USER[0], ",".join(TOKEN_USER[1][:2])))
        cls.server_args = ("--token-auth-file", tokens)
        super().setUpClass()
        cls.addClassCleanup(cls.server.stop)
        cls.addClassCleanup(cls.kubectl.cleanup)

        cls.ca = CA(os.path.join(cls.tmp, "certs"), "wardle-ca")
        serving = cls.ca.issue("api", SERVICE_HOST, dns=[SERVICE_HOST])
        # The requestheader CA, from where extension servers take it: the ConfigMap
        # (test_front_proxy_pki_and_configmap fails when it had to come from elsewhere).
        cls.front_proxy_ca = os.path.join(cls.server.pki, "front-proxy-ca.crt")
        status, _, body = cls.server.request("GET", AUTH_CONFIGMAP)
        data = json.loads(body).get("data", {}) if status == 200 else {}
        if data.get("requestheader-client-ca-file"):
            cls.requestheader_ca_from = "configmap"
            client_ca = os.path.join(cls.tmp, "requestheader-ca.crt")
            with open(client_ca, "w") as f:
                f.write(data["requestheader-client-ca-file"])
        elif os.path.exists(cls.front_proxy_ca):
            cls.requestheader_ca_from, client_ca = "pki", cls.front_proxy_ca
        else:
            cls.requestheader_ca_from = "a stand-in CA"
            client_ca = CA(os.path.join(cls.tmp, "stand-in"), "stand-in-front-proxy-ca").crt

        cls.ns = netns.NetNS()
        cls.addClassCleanup(cls.ns.close)
        cls.ext = Extension(cls.ns, cls.tmp, serving, cls.ca.crt, client_ca)
        cls.addClassCleanup(cls.ext.stop)
        cls.ext.start()

        cls.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": {"name": "wardle"}})
        cls.post("/api/v1/namespaces/wardle/services", cls.service("api"))
        cls.post("/api/v1/namespaces/wardle/endpoints", {
            "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "api"},
            "subsets": [{"addresses": [{"ip": cls.ns.ns_ip}],
                         "ports": [{"port": EXT_PORT, "protocol": "TCP"}]}]})
        # Not checked here: the tests say what went wrong if this failed.
        cls.apiservice_created = cls.post(
            "/apis/apiregistration.k8s.io/v1/apiservices",
            cls.apiservice_obj(APISERVICE, "wardle", "api", cls.ca.bundle_b64), check=False)

    @classmethod
    def tearDownClass(cls):
        pass  # the class cleanups stop everything, also after a failed setUpClass

    # ---- objects ---------------------------------------------------------
    @staticmethod
    def service(name, port_name=None):
        port = {"port": 443, "protocol": "TCP", "targetPort": EXT_PORT}
        if port_name:
            port["name"] = port_name
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                "spec": {"ports": [port]}}

    @staticmethod
    def apiservice_obj(name, ns, svc, ca_bundle, port=443):
        version, group = name.split(".", 1)
        return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                "metadata": {"name": name},
                "spec": {"service": {"namespace": ns, "name": svc, "port": port},
                         "group": group, "version": version, "caBundle": ca_bundle,
                         "groupPriorityMinimum": 1000, "versionPriority": 15}}

    @classmethod
    def post(cls, path, obj, check=True):
        status, _, body = cls.server.request(
            "POST", path, body=json.dumps(obj),
            headers={"Content-Type": "application/json", "Accept": "application/json"})
        if check and status != 201:
            raise AssertionError("POST %s: %d %s" % (path, status, body[:1000]))
        return status, body

    def get_json(self, path, accept="application/json", expect=200):
        status, headers, body = self.server.request("GET", path, headers={"Accept": accept})
        self.assertEqual(status, expect, "GET %s: %s" % (path, body[:2000]))
        return json.loads(body)

    # ---- waiting ---------------------------------------------------------
    def wait_for(self, probe, timeout, what):
        return wait_for(probe, timeout, what, interval=0.25)

    def require_apiservice(self):
        status, body = self.apiservice_created
        self.assertEqual(status, 201, "creating APIService %s: %s" % (APISERVICE, body[:2000]))

    def condition(self, name):
        status, _, body = self.server.request(
            "GET", "/apis/apiregistration.k8s.io/v1/apiservices/" + name,
            headers={"Accept": "application/json"})
        if status != 200:
            return "GET apiservice %s: %d %s" % (name, status, body[:500])
        conds = json.loads(body).get("status", {}).get("conditions", [])
        return next((c for c in conds if c["type"] == "Available"), None)

    def wait_condition(self, name, status, reason=None, message=None,
                       timeout=AVAILABLE_TIMEOUT):
        def probe():
            c = self.condition(name)
            ok = isinstance(c, dict) and c["status"] == status and \
                reason in (None, c.get("reason")) and message in (None, c.get("message"))
            return ok, c
        return self.wait_for(probe, timeout, "APIService %s Available=%s %s %s"
                             % (name, status, reason or "", message or ""))

    def wait_available(self):
        self.require_apiservice()
        return self.wait_condition(APISERVICE, "True", "Passed", "all checks passed")

    def wait_discovery(self, freshness, timeout=30):
        """The wardle group in aggregated discovery once its version has this freshness."""
        def probe():
            status, _, body = self.server.request("GET", "/apis", headers={"Accept": AGGREGATED})
            if status != 200:
                return False, (status, body[:500])
            items = {g["metadata"]["name"]: g for g in json.loads(body)["items"]}
            group = items.get(GROUP)
            ok = group is not None and [v.get("freshness") for v in group["versions"]] \
                == [freshness]
            return ok, group
        return self.wait_for(probe, timeout, "aggregated discovery of %s %s" % (GV, freshness))

    def assert_unavailable(self, status, headers, body):
        self.assertEqual((status, json.loads(body)), (503, SERVICE_UNAVAILABLE), body)
        self.assertEqual(headers["content-type"], "application/json")

    def flunder(self, name, ns="wardle", reference=None):
        obj = {"apiVersion": GV, "kind": "Flunder", "metadata": {"name": name, "namespace": ns}}
        if reference:
            obj["spec"] = {"reference": reference}
        return obj

    def fresh_home(self):
        """A kubectl HOME without a discovery cache."""
        return {"HOME": tempfile.mkdtemp(dir=self.tmp, prefix="home-")}


class AggregatorTests(AggregatorTestCase):

    def test_extension_server_reachable(self):
        """The test host itself (passes without the aggregator): this host reaches the
        extension server by its Service's name, which refuses requests without the
        front-proxy client certificate."""
        url = "https://%s:%d" % (SERVICE_HOST, EXT_PORT)
        curl = [CURL, "-sS", "--cacert", self.ca.crt, "--resolve",
                "%s:%d:%s" % (SERVICE_HOST, EXT_PORT, self.ns.ns_ip), "-w", "\n%{http_code}"]
        r = run(curl + [url + "/healthz"])
        self.assertEqual((r.returncode, r.stdout), (0, "ok\n200"), r.stderr)
        r = run(curl + [url + GV_PATH])
        body, _, code = r.stdout.rpartition("\n")
        self.assertEqual(code, "401", r.stderr)
        self.assertEqual(json.loads(body), {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
        refused = [e for e in self.ext.requests(GV_PATH) if e["status"] == 401]
        self.assertEqual([e["client_cn"] for e in refused], [None])

    def test_apiservices_table(self):
        self.wait_available()
        out = self.ok("get", "apiservices")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "SERVICE", "AVAILABLE", "AGE"], out)
        by_name = {r[0]: r for r in rows[1:]}
        self.assertEqual([r[0] for r in rows[1:]], sorted(by_name), out)
        for name, service in (("v1.", "Local"), ("v1.apps", "Local"),
                              ("v1.apiregistration.k8s.io", "Local"),
                              (APISERVICE, "wardle/api")):
            self.assertIn(name, by_name, out)
            self.assertEqual(by_name[name][1:3], [service, "True"], out)
            self.assertRegex(by_name[name][3], AGE)

    def test_crd_apiservices(self):
        """A CRD's served versions get Local APIServices (automanaged "true") that go with
        it; a Local APIService of the user's own (no label) is left alone."""
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "gadgets.gizmo.example.com"},
               "spec": {"group": "gizmo.example.com", "scope": "Namespaced",
                        "names": {"plural": "gadgets", "kind": "Gadget"},
                        "versions": [{"name": v, "served": True, "storage": v == "v1",
                                      "schema": {"openAPIV3Schema": {"type": "object"}}}
                                     for v in ("v1", "v1beta1")]}}
        self.ok("create", "-f", self.kubectl.write(json.dumps(crd)))
        self.addCleanup(self.k, "delete", "crd", "gadgets.gizmo.example.com",
                        "--ignore-not-found")
        mine = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                "metadata": {"name": "v1.mine.example.com"},
                "spec": {"group": "mine.example.com", "version": "v1",
                         "groupPriorityMinimum": 100, "versionPriority": 10}}
        self.ok("create", "-f", self.kubectl.write(json.dumps(mine)))
        self.addCleanup(self.k, "delete", "apiservice", "v1.mine.example.com",
                        "--ignore-not-found")
        path = "/apis/apiregistration.k8s.io/v1/apiservices/"

        def registered():
            found = {}
            for name in ("v1.gizmo.example.com", "v1beta1.gizmo.example.com"):
                status, _, body = self.server.request("GET", path + name)
                found[name] = json.loads(body) if status == 200 else status
            return all(isinstance(v, dict) for v in found.values()), found
        found = self.wait_for(registered, 15, "the CRD's APIServices")
        for name, obj in found.items():
            version = name.split(".", 1)[0]
            self.assertEqual(obj["metadata"]["labels"],
                             {"kube-aggregator.kubernetes.io/automanaged": "true"})
            self.assertEqual(obj["spec"], {"group": "gizmo.example.com", "version": version,
                                           "service": None, "groupPriorityMinimum": 1000,
                                           "versionPriority": 100})
        self.wait_condition("v1.gizmo.example.com", "True", "Local",
                            "Local APIServices are always available")

        self.ok("delete", "crd", "gadgets.gizmo.example.com")

        def gone():
            codes = [self.server.request("GET", path + n)[0]
                     for n in ("v1.gizmo.example.com", "v1beta1.gizmo.example.com")]
            return codes == [404, 404], codes
        self.wait_for(gone, 15, "the CRD's APIServices deleted")
        status, _, body = self.server.request("GET", path + "v1.mine.example.com")
        self.assertEqual(status, 200, body)

    def test_apiservice_object(self):
        self.wait_available()
        obj = json.loads(self.ok("get", "apiservice", APISERVICE, "-o", "json"))
        self.assertEqual(obj["spec"], {
            "service": {"namespace": "wardle", "name": "api", "port": 443},
            "group": GROUP, "version": VERSION, "caBundle": self.ca.bundle_b64,
            "groupPriorityMinimum": 1000, "versionPriority": 15})
        self.assertRegex(obj["metadata"]["uid"], UUID)
        [cond] = obj["status"]["conditions"]
        self.assertRegex(cond.pop("lastTransitionTime"), RFC3339)
        self.assertEqual(cond, {"type": "Available", "status": "True", "reason": "Passed",
                                "message": "all checks passed"})
        local = json.loads(self.ok("get", "apiservice", "v1.apps", "-o", "json"))
        self.assertEqual(local["metadata"].get("labels"),
                         {"kube-aggregator.kubernetes.io/automanaged": "onstart"})
        # upstream's v1 APIServiceSpec writes a Local APIService's service as null
        self.assertEqual(local["spec"], {"group": "apps", "version": "v1", "service": None,
                                         "groupPriorityMinimum": 17800, "versionPriority": 15})
        [cond] = local["status"]["conditions"]
        self.assertEqual({k: cond[k] for k in ("type", "status", "reason", "message")},
                         {"type": "Available", "status": "True", "reason": "Local",
                          "message": "Local APIServices are always available"})

    def test_front_proxy_pki_and_configmap(self):
        pki = self.server.pki
        for name in ("front-proxy-ca.crt", "front-proxy-client.crt", "front-proxy-client.key"):
            self.assertTrue(os.path.exists(os.path.join(pki, name)), name + " in " + pki)
        self.assertEqual(self.requestheader_ca_from, "configmap",
                         "where the extension server's requestheader CA came from")
        client_crt = os.path.join(pki, "front-proxy-client.crt")
        r = subprocess.run(["openssl", "verify", "-purpose", "sslclient", "-CAfile",
                            self.front_proxy_ca, client_crt], capture_output=True, text=True)
        self.assertEqual(r.stdout, client_crt + ": OK\n", r.stderr)
        r = subprocess.run(["openssl", "x509", "-noout", "-subject", "-in", client_crt],
                           capture_output=True, text=True)
        self.assertEqual(r.stdout, "subject=CN = front-proxy-client\n")
        data = self.get_json(AUTH_CONFIGMAP)["data"]
        with open(self.front_proxy_ca) as f:
            self.assertEqual(data["requestheader-client-ca-file"].strip(), f.read().strip())
        with open(self.server.ca_file) as f:
            self.assertIn(f.read().strip(), data["client-ca-file"])
        for key, value in (("requestheader-allowed-names", ["front-proxy-client"]),
                           ("requestheader-username-headers", ["X-Remote-User"]),
                           ("requestheader-group-headers", ["X-Remote-Group"]),
                           ("requestheader-extra-headers-prefix", ["X-Remote-Extra-"])):
            self.assertEqual(json.loads(data[key]), value, key)

    def test_discovery(self):
        self.wait_available()
        self.assertEqual(json.loads(self.ok("get", "--raw", GV_PATH)), RESOURCE_LIST)
        self.assertEqual(json.loads(self.ok("get", "--raw", "/apis/" + GROUP)),
                         dict(API_GROUP, kind="APIGroup", apiVersion="v1"))
        groups = json.loads(self.ok("get", "--raw", "/apis"))["groups"]
        self.assertIn(API_GROUP, groups)
        names = [g["name"] for g in groups]
        self.assertLess(names.index("apps"), names.index(GROUP))
        self.assertIn(GV + "\n", self.ok("api-versions"))

    def test_aggregated_discovery(self):
        self.wait_available()
        group = self.wait_discovery("Current")
        self.assertEqual(group, {"metadata": {"name": GROUP, "creationTimestamp": None},
                                 "versions": [{"version": VERSION,
                                               "resources": [DISCOVERY_RESOURCE],
                                               "freshness": "Current"}]})
        # the aggregator fetched it (its availability check, /apis/G/V) as itself, with the
        # front-proxy certificate
        fetches = [e for e in self.ext.requests(GV_PATH, "GET")
                   if e["user"] == "system:kube-aggregator"]
        self.assertTrue(fetches, self.ext.requests(GV_PATH))
        self.assertEqual({(e["user"], tuple(e["groups"]), e["client_cn"]) for e in fetches},
                         {("system:kube-aggregator", ("system:masters",), "front-proxy-client")})

    def test_api_resources(self):
        self.wait_available()
        self.wait_discovery("Current")
        out = self.ok("api-resources", "--api-group=" + GROUP)
        self.assertEqual(table(out), [
            ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"],
            ["flunders", "fl", GV, "true", "Flunder"]])
        out = self.ok("api-resources", "--api-group=" + GROUP, "-o", "wide")
        self.assertEqual(table(out)[1], ["flunders", "fl", GV, "true", "Flunder",
                                         ",".join(VERBS), "wardle"])
        self.assertIn("flunders." + GROUP + "\n",
                      self.ok("api-resources", "--categories=wardle", "-o", "name"))

    def test_flunders_with_kubectl(self):
        self.wait_available()
        self.wait_discovery("Current")
        path = self.kubectl.write("apiVersion: %s\nkind: Flunder\nmetadata:\n  name: alpha\n"
                                  "  namespace: wardle\nspec:\n  reference: beta\n" % GV)
        self.assertEqual(self.ok("create", "-f", path), "flunder.%s/alpha created\n" % GROUP)
        self.assert_table(self.ok("get", "flunders", "-n", "wardle"),
                          ["NAME", "AGE"], [["alpha", AGE]])
        self.assert_table(self.ok("get", "flunders", "-A"), ["NAMESPACE", "NAME", "AGE"],
                          [["wardle", "alpha", AGE]])
        obj = json.loads(self.ok("get", "fl", "-n", "wardle", "alpha", "-o", "json"))
        meta = obj.pop("metadata")
        self.assertEqual(obj, {"apiVersion": GV, "kind": "Flunder",
                               "spec": {"reference": "beta"}})
        self.assertEqual((meta["name"], meta["namespace"]), ("alpha", "wardle"))
        self.assertRegex(meta["uid"], UUID)
        self.assertRegex(meta["creationTimestamp"], RFC3339)
        self.assertTrue(meta["resourceVersion"])
        self.assertEqual(self.fails("create", "-f", path),
                         'Error from server (AlreadyExists): error when creating "%s": '
                         'flunders.%s "alpha" already exists\n' % (path, GROUP))
        self.assertEqual(self.fails("get", "flunder", "nope", "-n", "wardle"),
                         'Error from server (NotFound): flunders.%s "nope" not found\n' % GROUP)
        self.assertEqual(self.ok("patch", "fl", "alpha", "-n", "wardle", "--type=merge",
                                 "-p", '{"spec":{"reference":"gamma"}}'),
                         "flunder.%s/alpha patched\n" % GROUP)
        self.assertEqual(self.ok("get", "fl", "alpha", "-n", "wardle", "-o",
                                 "jsonpath={.spec.reference}"), "gamma")
        self.assertEqual(self.ok("delete", "flunder", "alpha", "-n", "wardle"),
                         'flunder.%s "alpha" deleted\n' % GROUP)
        self.assertEqual(self.ok("get", "flunders", "-n", "wardle", stderr=None), "")
        self.assertEqual(self.k("get", "flunders", "-n", "wardle").stderr,
                         "No resources found in wardle namespace.\n")

    def test_raw_api_through_the_proxy(self):
        self.wait_available()
        status, headers, body = self.server.request(
            "POST", FLUNDERS, body=json.dumps(self.flunder("raw")),
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        self.addCleanup(self.server.request, "DELETE", FLUNDERS + "/raw")
        self.assertEqual(headers["content-type"], "application/json")
        self.assertEqual(json.loads(body)["metadata"]["name"], "raw")
        listed = self.get_json(GV_PATH + "/flunders")
        self.assertEqual(listed["kind"], "FlunderList")
        self.assertIn("raw", [o["metadata"]["name"] for o in listed["items"]])
        self.assertTrue(listed["metadata"]["resourceVersion"])
        missing = self.get_json(FLUNDERS + "/nope", expect=404)
        self.assertEqual(missing, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'flunders.%s "nope" not found' % GROUP, "reason": "NotFound",
            "details": {"name": "nope", "group": GROUP, "kind": "flunders"}, "code": 404})
        # the query string reaches the extension server
        self.get_json(FLUNDERS + "?fieldSelector=metadata.name%3Draw&limit=7")
        [entry] = [e for e in self.ext.requests(FLUNDERS, "GET")
                   if "limit=7" in e["query"].split("&")]
        self.assertEqual(sorted(entry["query"].split("&")),
                         ["fieldSelector=metadata.name%3Draw", "limit=7"])

    def test_watch_streams_through_the_proxy(self):
        self.wait_available()
        conn = self.server.connection(timeout=10)
        self.addCleanup(conn.close)
        conn.request("GET", FLUNDERS + "?watch=true&fieldSelector=metadata.name%3Dwatched",
                     headers={"Accept": "application/json"})
        resp = conn.getresponse()  # the headers come before any event
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "application/json")
        self.assertEqual(resp.getheader("Transfer-Encoding"), "chunked")
        for step, (method, path, body, kind) in enumerate((
                ("POST", FLUNDERS, json.dumps(self.flunder("watched")), "ADDED"),
                ("DELETE", FLUNDERS + "/watched", None, "DELETED"))):
            start = time.monotonic()
            status, _, data = self.server.request(method, path, body=body, headers={
                "Content-Type": "application/json"})
            self.assertIn(status, (200, 201), data)
            event = json.loads(resp.readline())  # within the connection's 10 s
            self.assertLess(time.monotonic() - start, 3, "event %d not streamed promptly" % step)
            self.assertEqual((event["type"], event["object"]["metadata"]["name"]),
                             (kind, "watched"))

    def test_upgrade_refused(self):
        """exec/attach/port-forward style upgrades are not proxied: a clear 400 Status."""
        self.wait_available()
        status, _, body = self.server.request(
            "POST", FLUNDERS + "/x/exec?command=ls",
            headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"})
        self.assertEqual(status, 400, body)
        st = json.loads(body)
        self.assertEqual((st["kind"], st["reason"], st["code"]), ("Status", "BadRequest", 400))
        self.assertIn("not supported", st["message"])
        self.assertFalse(self.ext.requests(FLUNDERS + "/x/exec"))

    def test_watch_with_kubectl(self):
        self.wait_available()
        self.wait_discovery("Current")
        self.server.wait_watches("flunders", 0)  # earlier tests' watches ended
        w = StreamReader(self.kubectl.popen("get", "flunders", "-n", "wardle", "--watch",
                                            "--output-watch-events",
                                            "--field-selector=metadata.name=kw"))
        try:
            self.server.wait_watches("flunders", 1)
            self.ok("create", "-f", self.kubectl.write(json.dumps(self.flunder("kw"))))
            lines = w.wait_for(2)
            self.ok("delete", "flunder", "kw", "-n", "wardle")
            lines = w.wait_for(3)
        finally:
            err = w.stop()
        rows = table("\n".join(lines))
        self.assertEqual([r[:2] for r in rows], [["EVENT", "NAME"], ["ADDED", "kw"],
                                                 ["DELETED", "kw"]], "\n".join(lines) + err)
        self.assertEqual(err, "")
        # the proxied stream ends with its client, though the extension server is silent
        self.server.wait_watches("flunders", 0)

    def test_identity_headers(self):
        """The extension server sees the user the kube-apiserver authenticated, as
        X-Remote-* headers, with the front-proxy client certificate and without the
        client's credentials."""
        self.wait_available()
        whoami = lambda **kw: json.loads(self.server.request(  # noqa: E731
            "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            body='{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
            headers={"Content-Type": "application/json"}, **kw)[2])["status"]["userInfo"]
        probes = [("admin", {}), ("token", {"cert": False, "token": TOKEN})]
        self.k("create", "serviceaccount", "reader", "-n", "wardle")
        sa_token = self.k("create", "token", "reader", "-n", "wardle")
        if sa_token.returncode == 0:  # a user with extra (credential-id) and a uid
            probes.append(("serviceaccount", {"cert": False, "token": sa_token.stdout.strip()}))
        for name, creds in probes:
            user = whoami(**creds)
            path = FLUNDERS + "/probe-" + name
            status, _, body = self.server.request(
                "GET", path, headers={"X-Remote-User": "mallory", "X-Remote-Group":
                                      "system:masters", "X-Remote-Extra-Scopes": "all"},
                **creds)
            self.assertEqual(status, 404, body)
            [seen] = self.ext.requests(path)
            self.assertEqual((seen["user"], seen["groups"], seen["extra"]),
                             (user["username"], user["groups"], user.get("extra", {})), name)
            self.assertEqual(seen["client_cn"], "front-proxy-client", name)
            self.assertIsNone(seen["authorization"], name)
            names = {k.lower() for k, _ in seen["remote_headers"]}
            self.assertLessEqual(names - {"x-remote-user", "x-remote-group"},
                                 {"x-remote-extra-" + k.replace("/", "%2f")
                                  for k in user.get("extra", {})}, name)
        self.assertEqual(whoami(cert=False, token=TOKEN)["username"], TOKEN_USER[0])
        [seen] = self.ext.requests(FLUNDERS + "/probe-token")
        self.assertEqual((seen["user"], seen["groups"]), (TOKEN_USER[0], TOKEN_USER[1]))
        # kubectl's admin user
        self.fails("get", "flunder", "probe-kubectl", "-n", "wardle")
        [seen] = self.ext.requests(FLUNDERS + "/probe-kubectl")
        self.assertEqual(seen["user"], "admin")
        self.assertEqual(seen["groups"], ["system:masters", "system:authenticated"])
        # the availability checks: as system:kube-aggregator, with the certificate
        checks = self.ext.requests(GV_PATH, "GET")
        self.assertTrue(checks)
        self.assertIn(("system:kube-aggregator", ["system:masters"], "front-proxy-client"),
                      [(e["user"], e["groups"], e["client_cn"]) for e in checks])

    def test_serving_certificate_is_verified(self):
        """A caBundle that did not sign the serving certificate: the availability check
        (which does not verify, as upstream's) passes, proxied requests fail with 503."""
        self.wait_available()
        other = CA(os.path.join(self.tmp, "other-ca"), "other-ca")
        path = "/apis/apiregistration.k8s.io/v1/apiservices/" + APISERVICE

        def set_bundle(bundle):
            status, _, body = self.server.request(
                "PATCH", path, body=json.dumps({"spec": {"caBundle": bundle}}),
                headers={"Content-Type": "application/merge-patch+json"})
            self.assertEqual(status, 200, body)
        set_bundle(other.bundle_b64)
        self.addCleanup(set_bundle, self.ca.bundle_b64)

        def probe():
            status, _, body = self.server.request("GET", FLUNDERS + "/untrusted")
            return status == 503, (status, body[:300])
        self.wait_for(probe, 10, "503 with a caBundle that does not match")
        self.assertEqual(self.ext.requests(FLUNDERS + "/untrusted"), [])
        set_bundle(self.ca.bundle_b64)

        def probe_back():
            status, _, body = self.server.request("GET", FLUNDERS + "/trusted")
            return status == 404, (status, body[:300])
        self.wait_for(probe_back, 10, "404 from the extension with the right caBundle")

    def test_openapi_v3(self):
        self.wait_available()
        paths = self.get_json("/openapi/v3")["paths"]
        self.assertIn("apis/" + GV, paths)
        url = paths["apis/" + GV]["serverRelativeURL"]
        self.assertRegex(url, r"^/openapi/v3/apis/%s\?hash=[0-9A-Fa-f]+$" % re.escape(GV))
        doc = self.get_json(url)
        flunder = doc["components"]["schemas"]["com.example.wardle.v1alpha1.Flunder"]
        self.assertEqual(flunder["x-kubernetes-group-version-kind"],
                         [{"group": GROUP, "version": VERSION, "kind": "Flunder"}])
        out = self.ok("explain", "flunders")
        self.assertEqual(out.splitlines()[:3], ["GROUP:      " + GROUP, "KIND:       Flunder",
                                                "VERSION:    " + VERSION], out)
        self.assertIn("A Flunder is an example type of the wardle extension API server.", out)
        for field, typ in (("apiVersion", "<string>"), ("kind", "<string>"),
                           ("metadata", "<ObjectMeta>"), ("spec", "<Object>"),
                           ("status", "<Object>")):
            self.assertRegex(out, r"(?m)^  %s\t%s$" % (field, typ), out)
        out = self.ok("explain", "flunders.spec.reference")
        self.assertIn("FIELD: reference <string>", " ".join(out.split()))
        self.assertIn("The name of another flunder.", out)

    def test_openapi_v2(self):
        """The extension server's /openapi/v2 (fetched with the availability checks, then
        revalidated by its ETag) merged in as upstream's aggregator merges it: only its
        group-version's paths and what they use; its ObjectMeta, unlike ours, renamed
        ObjectMeta_v2. kubectl reads the merged protobuf form."""
        self.wait_available()
        path = "/apis/%s/namespaces/{namespace}/flunders/{name}" % GV
        meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

        def probe():
            doc = self.get_json("/openapi/v2")
            return path in doc["paths"], doc
        doc = self.wait_for(probe, 30, "wardle's paths in /openapi/v2")
        self.assertEqual(doc["info"]["title"], "Kubernetes")
        self.assertEqual(doc["paths"][path]["patch"]["x-kubernetes-group-version-kind"],
                         {"group": GROUP, "version": VERSION, "kind": "Flunder"})
        flunder = doc["definitions"]["com.example.wardle.v1alpha1.Flunder"]
        self.assertEqual(flunder["properties"]["metadata"]["$ref"], "#/definitions/" + meta + "_v2")
        self.assertEqual(doc["definitions"][meta + "_v2"]["description"], "Wardle's ObjectMeta.")
        self.assertNotEqual(doc["definitions"][meta].get("description"), "Wardle's ObjectMeta.")
        self.assertNotIn("WardleInfo", doc["definitions"])
        self.assertNotEqual(doc["paths"]["/version/"]["get"]["operationId"], "getWardleVersion")
        self.assertEqual([e["status"] for e in self.ext.requests("/openapi/v2")][:1], [200])
        out = self.ok("explain", "flunders", "--output=plaintext-openapiv2")
        self.assertEqual(out.splitlines()[:2], ["KIND:     Flunder", "VERSION:  " + GV], out)
        self.assertIn("A Flunder is an example type of the wardle extension API server.", out)

    def test_unavailable_service_conditions(self):
        """Upstream's reasons and messages while the Service, its port or its
        Endpoints are missing; requests for the group get 503 meanwhile."""
        self.require_apiservice()
        name, path = "v1alpha1.ghost.example.com", "/apis/ghost.example.com/v1alpha1"
        api = "/apis/apiregistration.k8s.io/v1/apiservices/" + name
        self.post("/apis/apiregistration.k8s.io/v1/apiservices",
                  self.apiservice_obj(name, "ghost", "api", self.ca.bundle_b64))
        self.addCleanup(self.server.request, "DELETE", "/api/v1/namespaces/ghost")
        self.addCleanup(self.server.request, "DELETE", api)
        self.wait_condition(name, "False", "ServiceNotFound", SERVICE_NOT_FOUND % ("api", "ghost"))
        rows = {r[0]: r for r in table(self.ok("get", "apiservices"))}
        self.assertEqual(rows[name][1:3], ["ghost/api", "False (ServiceNotFound)"])
        status, headers, body = self.server.request("GET", path + "/things")
        self.assert_unavailable(status, headers, body)

        self.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": "ghost"}})
        self.post("/api/v1/namespaces/ghost/services", self.service("api", "https"))
        self.wait_condition(name, "False", "EndpointsNotFound",
                            ENDPOINTS_NOT_FOUND % ("api", "ghost"))
        self.post("/api/v1/namespaces/ghost/endpoints", {
            "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "api"},
            "subsets": [{"notReadyAddresses": [{"ip": self.ns.ns_ip}],
                         "ports": [{"name": "https", "port": EXT_PORT, "protocol": "TCP"}]}]})
        self.wait_condition(name, "False", "MissingEndpoints",
                            MISSING_ENDPOINTS % ("api", "ghost", "https"))
        status, _, body = self.server.request(
            "PATCH", api, body='{"spec":{"service":{"port":444}}}',
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 200, body)
        self.wait_condition(name, "False", "ServicePortError",
                            SERVICE_PORT_ERROR % ("api", "ghost", 444))
        status, headers, body = self.server.request("GET", path)
        self.assert_unavailable(status, headers, body)


class AggregatorOutageTests(AggregatorTestCase):
    """The extension server goes away and comes back."""

    def test_outage_and_return(self):
        self.wait_available()
        self.wait_discovery("Current")
        self.ok("create", "namespace", "doomed")
        self.ok("create", "configmap", "keep", "-n", "doomed", "--from-literal=a=b")
        self.ok("create", "-f", self.kubectl.write(json.dumps(self.flunder("before"))))

        self.ext.stop()  # SIGKILL
        ip = self.ns.ns_ip
        cond = self.wait_condition(APISERVICE, "False", "FailedDiscoveryCheck")
        self.assertEqual(cond["message"], FAILED_DISCOVERY % (ip, EXT_PORT, GV_PATH, ip, EXT_PORT,
                                                              GV_PATH, ip, EXT_PORT))
        rows = {r[0]: r for r in table(self.ok("get", "apiservices"))}
        self.assertEqual(rows[APISERVICE][1:3], ["wardle/api", "False (FailedDiscoveryCheck)"])

        # the group's requests: 503 "service unavailable"
        for path in (FLUNDERS, GV_PATH):
            status, headers, body = self.server.request("GET", path)
            self.assert_unavailable(status, headers, body)
        r = self.k("get", "--raw", FLUNDERS)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, "", KUBECTL_503 + "\n"))
        r = self.k("get", "flunders", "-n", "wardle", env=self.fresh_home())
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (1, "", 'error: the server doesn\'t have a resource type "flunders"\n'))

        # everything else still works
        group = self.wait_discovery("Stale")
        self.assertEqual(group["versions"], [{"version": VERSION, "freshness": "Stale"}])
        self.assertIn(API_GROUP, self.get_json("/apis")["groups"])
        out = self.ok("get", "configmaps", "-A", env=self.fresh_home())
        self.assertIn(["doomed", "keep", "1"], [r[:3] for r in table(out)])
        out = self.ok("api-resources", env=self.fresh_home())
        names = [r[0] for r in table(out)]
        self.assertIn("configmaps", names)
        self.assertNotIn("flunders", names)
        self.get_json("/openapi/v3")

        # Deleting another namespace: answered, and once its finalizer is removed (the
        # namespace controller's job: there is none in this binary) it is gone.
        self.assertEqual(self.ok("delete", "namespace", "doomed", "--wait=false"),
                         'namespace "doomed" deleted\n')
        ns = self.get_json("/api/v1/namespaces/doomed")
        self.assertEqual(ns["status"]["phase"], "Terminating")
        ns["spec"]["finalizers"] = []
        status, _, body = self.server.request(
            "PUT", "/api/v1/namespaces/doomed/finalize", body=json.dumps(ns),
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 200, body)

        def ns_gone():
            status, _, body = self.server.request("GET", "/api/v1/namespaces/doomed")
            return status == 404, (status, body[:300])
        self.wait_for(ns_gone, 10, "namespace doomed deleted")

        # back again (an empty store: the extension keeps flunders in memory)
        self.ext.start()
        self.wait_condition(APISERVICE, "True", "Passed", "all checks passed")
        listed = self.get_json(FLUNDERS)
        self.assertEqual((listed["kind"], listed["items"]), ("FlunderList", []))
        self.assertEqual(self.ok("create", "-f", self.kubectl.write(
            json.dumps(self.flunder("after")))), "flunder.%s/after created\n" % GROUP)
        self.assert_table(self.ok("get", "flunders", "-n", "wardle", env=self.fresh_home()),
                          ["NAME", "AGE"], [["after", AGE]])
        self.wait_discovery("Current")


if __name__ == "__main__":
    unittest.main()
