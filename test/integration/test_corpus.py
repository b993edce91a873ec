"""Integration tests: the project's own corpus of release-style manifests.

test/integration/corpus/ holds manifests shaped like the installs of widely used
projects (a metrics server, a certificate manager, an ingress controller, GitOps and
pipeline engines, a policy engine, a gateway API, a monitoring operator, a serverless
platform), written for these tests: namespaces, service accounts, RBAC with `system:`
and colon names and aggregation, fourteen CRDs with several versions, defaults, enums,
CEL rules, status and scale subresources and printer columns, their custom resources,
a `kind: List`, webhook configurations, an APIService, workloads, services, budgets,
network policies, priority and ingress classes, ingresses and HPAs.

Real kubectl (v1.32) installs them as a user would (`kubectl apply -f` file by file,
waiting for the CRDs to be Established before their custom resources), diffs and
re-applies them (no difference; every object `unchanged` but those kubectl always
patches, see reapplied()), reads them back with `kubectl get -o yaml` and replaces them
with that output, creates the List in a namespace of its own, and deletes them file by
file (namespaces stay Terminating: no namespace controller runs here). What is asserted
is what the user sees: stdout, stderr and exit codes, as kubectl prints them against
upstream kube-apiserver 1.32. Each class has its own server.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver \
        /usr/bin/python3 -m unittest test_corpus -v
"""

import glob
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import wait_for  # noqa: E402
from test_kubectl_rest import AGE, KubectlTestCase, table  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
FILES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CORPUS, "*.yaml")))
NAMESPACES_FILE = "00-namespaces.yaml"
LIST_FILE = "70-list.yaml"
CR_FILE = "90-custom-resources.yaml"
CRD_FILES = [f for f in FILES if "-crds-" in f]
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# What the served-but-deprecated versions the corpus uses make the server send (each
# once per kubectl run: kubectl drops repeated warnings). Upstream's message for a
# deprecated version without its own deprecationWarning names the newest served one.
DEPRECATION_WARNINGS = {
    ("certs.example.io/v1beta1", "Certificate"):
        "Warning: certs.example.io/v1beta1 Certificate is deprecated, move to "
        "certs.example.io/v1",
    ("kustomize.gitops.example.io/v1beta2", "Kustomization"):
        "Warning: kustomize.gitops.example.io/v1beta2 Kustomization is deprecated; use "
        "kustomize.gitops.example.io/v1 Kustomization",
    ("monitoring.example.com/v1alpha1", "Collector"):
        "Warning: monitoring.example.com/v1alpha1 Collector is going away; use "
        "monitoring.example.com/v1",
}


def reapplied(obj):
    """What `kubectl apply` says when the object is applied again unchanged.

    kubectl computes a three-way patch from its last-applied annotation, the file and
    the live object, and says `configured` whenever the patch is not empty, even when
    applying it changes nothing. It is never empty for a PodDisruptionBudget: the
    `replace` patch strategy of spec.selector (in upstream's OpenAPI) puts the whole
    selector in every patch. Custom resources are patched with JSON merge patches,
    which replace lists whole: a list whose items the schema defaults (the route's
    parentRefs) differs from the file's every time. The rest of the corpus writes out
    the defaults of list items (ports' protocols, webhook rules' scope, ...) as
    generated manifests do, so those are `unchanged`."""
    if obj.kind == "PodDisruptionBudget" or (obj.kind, obj.name) == ("HTTPRoute",
                                                                     "catch-all"):
        return "configured"
    return "unchanged"


def corpus_path(name):
    return os.path.join(CORPUS, name)


class Obj:
    """One object of a manifest, as kubectl read it."""

    def __init__(self, body):
        self.body = body
        self.api_version = body["apiVersion"]
        self.group = self.api_version.rpartition("/")[0]
        self.kind = body["kind"]
        self.name = body["metadata"]["name"]
        self.namespace = body["metadata"].get("namespace")

    @property
    def kind_ref(self):
        """How kubectl names the kind in its messages: `deployment.apps`, `service`."""
        kind = self.kind.lower()
        return kind + "." + self.group if self.group else kind

    @property
    def ref(self):
        return "%s/%s" % (self.kind_ref, self.name)

    def __repr__(self):
        return "<%s %s/%s>" % (self.ref, self.namespace, self.name)


def json_stream(text):
    """The JSON documents of a text that holds several, one after the other."""
    decoder = json.JSONDecoder()
    docs, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)


def cells(text):
    """kubectl table output as rows of cells, cut where the header's columns start,
    so that empty cells keep their place."""
    lines = [line for line in text.splitlines() if line.strip()]
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", lines[0])]
    return [[line[start:end].strip()
             for start, end in zip(starts, starts[1:] + [None])] for line in lines]


class CorpusTestCase(KubectlTestCase):
    """One server per class with the corpus applied by setUpClass (apply_corpus)."""

    apply_corpus = True

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.objects = {}
        cls.applied = {}
        try:
            t = cls("setUp")  # a throwaway instance for the helpers
            for name in FILES:
                cls.objects[name] = t.read_manifest(name)
            if cls.apply_corpus:
                for name in FILES:
                    cls.applied[name] = t.apply_file(name)
        except BaseException:
            cls.tearDownClass()
            raise

    # ---- reading the corpus ----------------------------------------------
    def read_manifest(self, name):
        """The objects of a corpus file in order, items of a List flattened, as kubectl
        reads them (`--local`: no request is made)."""
        r = self.k("annotate", "--local", "-f", corpus_path(name), "-o", "json",
                   "corpus.example.io/read=true")
        self.assertEqual((r.returncode, r.stderr), (0, ""), r.stderr)
        objs = [Obj(doc) for doc in json_stream(r.stdout)]
        self.assertTrue(objs, name)
        return objs

    def all_objects(self, names=None):
        return [o for name in (names or FILES) for o in self.objects[name]]

    def warnings_for(self, objs):
        """The deprecation warnings kubectl prints for requests about objs, in order."""
        out = []
        for o in objs:
            w = DEPRECATION_WARNINGS.get((o.api_version, o.kind))
            if w and w not in out:
                out.append(w)
        return "".join(w + "\n" for w in out)

    def lines(self, objs, suffix):
        return "".join("%s %s\n" % (o.ref, suffix) for o in objs)

    # ---- kubectl ---------------------------------------------------------
    def apply_file(self, name):
        """kubectl apply -f of one file; CRDs are waited for as users do."""
        r = self.k("apply", "-f", corpus_path(name), timeout=60)
        if name in CRD_FILES and r.returncode == 0:
            w = self.k("wait", "--for", "condition=established", "--timeout=30s",
                       "-f", corpus_path(name))
            self.assertEqual(w.returncode, 0, w.stderr)
            self.assertEqual(w.stdout, self.lines(self.objects[name], "condition met"))
        return r

    def fresh_home(self):
        """A kubectl HOME without a discovery cache."""
        home = tempfile.mkdtemp(dir=self.kubectl.workdir, prefix="home-")
        return {"HOME": home}

    def get_json(self, *args):
        return json.loads(self.ok("get", "-o", "json", *args, stderr=None))

    def assert_run(self, r, stdout, stderr="", rc=0, what=""):
        self.assertEqual(r.returncode, rc, "%s\nstdout: %s\nstderr: %s"
                         % (what, r.stdout, r.stderr))
        self.assertEqual(r.stdout, stdout, what)
        self.assertEqual(r.stderr, stderr, what)

    def wait_for(self, probe, timeout, what):
        return wait_for(probe, timeout, what)


class CorpusApplyTests(CorpusTestCase):
    """The corpus applied file by file; then read, diffed, re-applied and replaced.
    Nothing here changes what the corpus says, so the tests are independent."""

    def test_apply_creates_every_object(self):
        for name in FILES:
            with self.subTest(file=name):
                objs = self.objects[name]
                self.assert_run(self.applied[name], self.lines(objs, "created"),
                                self.warnings_for(objs), what="apply -f " + name)

    def test_every_object_exists(self):
        for name in FILES:
            with self.subTest(file=name):
                objs = self.objects[name]
                r = self.k("get", "-f", corpus_path(name), "-o", "name")
                self.assert_run(r, "".join(o.ref + "\n" for o in objs),
                                self.warnings_for(objs), what="get -f " + name)
                got = json.loads(self.ok("get", "-f", corpus_path(name), "-o", "json",
                                         stderr=None))
                items = got["items"] if got["kind"] == "List" else [got]
                self.assertEqual([(i["kind"], i["metadata"]["name"]) for i in items],
                                 [(o.kind, o.name) for o in objs])
                for obj, item in zip(objs, items):
                    meta = item["metadata"]
                    self.assertEqual(item["apiVersion"], obj.api_version)
                    if obj.namespace:
                        self.assertEqual(meta["namespace"], obj.namespace)
                    elif name == LIST_FILE:
                        self.assertEqual(meta["namespace"], "default")
                    else:
                        self.assertNotIn("namespace", meta, obj)
                    self.assertTrue(meta["uid"] and meta["resourceVersion"], obj)
                    self.assertIn(LAST_APPLIED, meta["annotations"])

    def test_diff_reports_nothing(self):
        r = self.k("diff", "-f", CORPUS, timeout=120)
        self.assert_run(r, "", self.warnings_for(self.all_objects()), what="diff")

    def test_reapply_is_unchanged(self):
        """Every object `unchanged`, but for those kubectl's three-way patch is never
        empty for, against upstream too (see reapplied); those patches change nothing."""
        objs = self.all_objects()
        r = self.k("apply", "-f", CORPUS, timeout=120)
        self.assert_run(r, "".join("%s %s\n" % (o.ref, reapplied(o)) for o in objs),
                        self.warnings_for(objs), what="apply again")
        self.assertIn("configured", r.stdout)
        r = self.k("diff", "-f", CORPUS, timeout=120)
        self.assert_run(r, "", self.warnings_for(objs), what="diff after apply")

    def test_crds_established_and_listed(self):
        crds = [o for name in CRD_FILES for o in self.objects[name]]
        got = self.get_json("crd")
        conds = {i["metadata"]["name"]: {c["type"]: c["status"]
                                         for c in i["status"]["conditions"]}
                 for i in got["items"]}
        for crd in crds:
            self.assertEqual(conds[crd.name].get("Established"), "True", crd.name)
            self.assertEqual(conds[crd.name].get("NamesAccepted"), "True", crd.name)
        rows = {r[0]: r for r in table(self.ok("api-resources", "--api-group",
                                               "certs.example.io"))}
        self.assertEqual(rows["certificates"],
                         ["certificates", "cert,certs", "certs.example.io/v1", "true",
                          "Certificate"])
        self.assertEqual(rows["clusterissuers"],
                         ["clusterissuers", "ciss", "certs.example.io/v1", "false",
                          "ClusterIssuer"])

    def test_printer_columns(self):
        out = self.ok("get", "collectors", "-n", "observability")
        rows = cells(out)
        self.assertEqual(rows[0], ["NAME", "VERSION", "DESIRED", "READY", "RECONCILED",
                                   "AGE"])
        self.assertEqual([r[:3] for r in rows[1:]], [["legacy", "", "1"],
                                                     ["main", "v3.1.0", "2"]])
        out = self.ok("get", "cpol", "-o", "wide")
        self.assertEqual(table(out)[0], ["NAME", "ADMISSION", "BACKGROUND", "READY", "AGE",
                                         "FAILURE POLICY", "VALIDATE", "MUTATE",
                                         "MESSAGE"])
        self.assertEqual(sorted(r[:3] for r in table(out)[1:]),
                         [["add-default-securitycontext", "true", "true"],
                          ["legacy-generate", "true", "true"],
                          ["require-labels", "true", "true"]])

    def test_builtin_tables(self):
        """`kubectl get` tables of the corpus's built-in kinds, cell by cell as upstream's
        printers fill them (nothing runs the workloads, so no replicas or metrics)."""
        self.assert_table(self.ok("get", "hpa", "-A"),
                          ["NAMESPACE", "NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS",
                           "REPLICAS", "AGE"],
                          [["default", "podinfo", "Deployment/podinfo", "cpu: <unknown>/99%",
                            "2", "4", "0", AGE],
                           ["gitops", "gitops-server", "Deployment/gitops-server",
                            "memory: <unknown>/50%, <unknown>/1k + 1 more...", "1", "5", "0",
                            AGE],
                           ["ingress-edge", "ingress-edge-controller",
                            "Deployment/ingress-edge-controller",
                            "cpu: <unknown>/50%, memory: <unknown>/500Mi", "2", "11", "0", AGE],
                           ["policy-system", "policy-admission", "Deployment/policy-admission",
                            "cpu: <unknown>/80%", "1", "6", "0", AGE]])
        self.assert_table(self.ok("get", "pdb", "-A"),
                          ["NAMESPACE", "NAME", "MIN AVAILABLE", "MAX UNAVAILABLE",
                           "ALLOWED DISRUPTIONS", "AGE"],
                          [["certs-system", "certs-controller", "N/A", "50%", "0", AGE],
                           ["default", "podinfo", "1", "N/A", "0", AGE],
                           ["observability", "metrics-server", "1", "N/A", "0", AGE],
                           ["policy-system", "policy-admission", "66%", "N/A", "0", AGE]])
        self.assert_table(self.ok("get", "ingress", "-A"),
                          ["NAMESPACE", "NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
                          [["gitops", "gitops-server", "edge", "gitops.example.com", "80, 443",
                            AGE],
                           ["observability", "metrics", "edge-internal",
                            "metrics.internal.example.com,*.metrics.internal.example.com", "80",
                            AGE],
                           ["serving-system", "static-assets", "edge-tenant", "*", "80", AGE]])
        self.assert_table(self.ok("get", "ingressclass"),
                          ["NAME", "CONTROLLER", "PARAMETERS", "AGE"],
                          [["edge", "example.io/ingress-edge", "<none>", AGE],
                           ["edge-internal", "example.io/ingress-edge",
                            "GatewayClass.gateway.example.net/internal", AGE],
                           ["edge-tenant", "example.io/ingress-edge",
                            "ConfigMap/ingress-edge-tenant", AGE]])
        rows = table(self.ok("get", "svc", "-n", "ingress-edge"))
        self.assertEqual(rows[0], ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)",
                                   "AGE"])
        self.assertEqual([r[1] for r in rows[1:]], ["NodePort", "ClusterIP"])
        self.assertRegex(rows[1][4], r"^80:30080/TCP,443:3\d{4}/TCP$")
        self.assertEqual(rows[2][4], "443/TCP")
        self.assert_table(self.ok("get", "netpol", "-n", "gitops"),
                          ["NAME", "POD-SELECTOR", "AGE"],
                          [["default-deny-ingress", "<none>", AGE],
                           ["gitops-server-network-policy",
                            "app.kubernetes.io/name=gitops-server", AGE]])

    def test_selectable_fields(self):
        out = self.ok("get", "certificates", "-A", "-o", "name",
                      "--field-selector", "spec.issuerRef.kind=ClusterIssuer,"
                                          "spec.secretName!=podinfo-tls")
        self.assertEqual(out, "certificate.certs.example.io/gitops-server-tls\n"
                              "certificate.certs.example.io/ingress-edge-admission\n")
        r = self.k("get", "certificates", "-A", "--field-selector", "spec.duration=720h")
        self.assert_run(r, "", 'Error from server (BadRequest): Unable to find '
                        '"certs.example.io/v1, Resource=certificates" that match label '
                        'selector "", field selector "spec.duration=720h": field label not '
                        'supported: spec.duration\n', rc=1)

    def test_schema_defaults_are_applied(self):
        cert = self.get_json("certificate", "gitops-server-tls", "-n", "gitops")
        self.assertEqual(cert["spec"]["privateKey"],
                         {"algorithm": "ECDSA", "size": 256, "encoding": "PKCS1",
                          "rotationPolicy": "Always"})
        self.assertEqual(cert["spec"]["isCA"], False)
        self.assertEqual(cert["spec"]["issuerRef"]["group"], "certs.example.io")
        route = self.get_json("httproute", "catch-all", "-n", "ingress-edge")
        self.assertEqual(route["spec"]["rules"],
                         [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}])
        self.assertEqual(route["spec"]["parentRefs"],
                         [{"group": "gateway.example.net", "kind": "Gateway",
                           "name": "edge"}])
        gw = self.get_json("gateway", "edge", "-n", "ingress-edge")
        self.assertEqual(gw["spec"]["addresses"][0], {"type": "IPAddress",
                                                      "value": "192.0.2.10"})
        self.assertEqual(gw["spec"]["listeners"][1]["allowedRoutes"],
                         {"namespaces": {"from": "Same"}})
        # A status default shows on read even though a create cannot set status.
        gc = self.get_json("gatewayclass", "internal")
        self.assertEqual([c["reason"] for c in gc["status"]["conditions"]], ["Pending"])
        coll = self.get_json("collector", "main", "-n", "observability")
        self.assertEqual((coll["spec"]["shards"], coll["spec"]["retention"]), (1, "15d"))
        self.assertEqual(coll["spec"]["resources"]["limits"]["ephemeral-storage"], 10)

    def test_scale_subresource_reads(self):
        out = self.ok("get", "--raw", "/apis/monitoring.example.com/v1/namespaces/"
                      "observability/collectors/main/scale")
        scale = json.loads(out)
        self.assertEqual((scale["kind"], scale["apiVersion"], scale["spec"]),
                         ("Scale", "autoscaling/v1", {"replicas": 2}))

    def test_unavailable_apiservice(self):
        """The metrics APIService's Service has no endpoints: it is unavailable, as on a
        cluster whose metrics server is not running, and the rest keeps working."""
        def probe():
            svc = self.get_json("apiservice", "v1beta1.metrics.k8s.io")
            conds = {c["type"]: c for c in svc.get("status", {}).get("conditions", [])}
            return "Available" in conds, conds
        conds = self.wait_for(probe, 20, "the APIService checked")
        self.assertEqual((conds["Available"]["status"], conds["Available"]["reason"]),
                         ("False", "EndpointsNotFound"))
        self.assertEqual(conds["Available"]["message"],
                         "cannot find endpoints for service/metrics-server in "
                         "\"observability\"")
        rows = {r[0]: r for r in table(self.ok("get", "apiservices"))}
        self.assertEqual(rows["v1beta1.metrics.k8s.io"][1:3],
                         ["observability/metrics-server", "False (EndpointsNotFound)"])

    def test_rbac_names_with_colons(self):
        out = self.ok("get", "clusterrole", "system:aggregated-metrics-reader",
                      "certs-controller-approve:certs-example-io",
                      "gitops:application-controller", "-o", "name")
        self.assertEqual(out, "clusterrole.rbac.authorization.k8s.io/"
                              "system:aggregated-metrics-reader\n"
                              "clusterrole.rbac.authorization.k8s.io/"
                              "certs-controller-approve:certs-example-io\n"
                              "clusterrole.rbac.authorization.k8s.io/"
                              "gitops:application-controller\n")
        rows = table(self.ok("get", "rolebinding", "-n", "kube-system", "-o", "wide"))
        by_name = {r[0]: r for r in rows[1:]}
        self.assertEqual(by_name["certs-controller:leaderelection"][1],
                         "Role/certs-controller:leaderelection")


class CorpusReplaceTests(CorpusTestCase):
    """The corpus read back with `kubectl get -o yaml` and replaced with that."""

    def test_get_yaml_then_replace(self):
        """`kubectl get -f -o yaml` prints one List; replacing with it changes no object
        but for the last-applied annotation, which kubectl replace rewrites (when there
        is one) to what it sent."""
        objs = self.all_objects()
        warnings = self.warnings_for(objs)
        r = self.k("get", "-f", CORPUS, "-o", "yaml", timeout=60)
        self.assertEqual((r.returncode, r.stderr), (0, warnings), r.stderr)
        self.assertTrue(r.stdout.startswith("apiVersion: v1\nitems:\n"), r.stdout[:200])
        self.assertTrue(r.stdout.endswith("kind: List\nmetadata:\n  resourceVersion: \"\"\n"),
                        r.stdout[-200:])
        live = self.kubectl.write(r.stdout, name="live.yaml")
        before = self.get_json("-f", CORPUS)["items"]
        r = self.k("replace", "-f", live, timeout=120)
        self.assert_run(r, self.lines(objs, "replaced"), warnings, what="replace")
        after = self.get_json("-f", CORPUS)["items"]
        self.assertEqual(len(after), len(before))
        for obj, b, a in zip(objs, before, after):
            sent = json.loads(a["metadata"]["annotations"].pop(LAST_APPLIED))
            b["metadata"]["annotations"].pop(LAST_APPLIED)
            sent["metadata"].setdefault("annotations", {})
            self.assertEqual(sent, b, obj)
            for m in (a, b):
                m["metadata"].pop("resourceVersion")
            self.assertEqual(a, b, obj)



class CorpusDeleteTests(CorpusTestCase):
    """The corpus deleted file by file, in reverse order, as a user takes it down."""

    def test_delete_in_reverse_order(self):
        for name in reversed(FILES):
            objs = self.objects[name]
            warnings = self.warnings_for(objs)
            with self.subTest(file=name):
                if name == NAMESPACES_FILE:
                    continue
                r = self.k("delete", "-f", corpus_path(name), "--timeout=60s", timeout=90)
                self.assert_run(r, "".join('%s "%s" deleted\n' % (o.kind_ref, o.name)
                                           for o in objs), warnings,
                                what="delete -f " + name)
                r = self.k("get", "-f", corpus_path(name), "--ignore-not-found")
                self.assert_run(r, "", warnings, what="get -f %s after delete" % name)

        # The CRDs are gone, and with them the kinds of the custom resources.
        r = self.k("get", "-f", corpus_path(CR_FILE), env=self.fresh_home())
        self.assertEqual((r.returncode, r.stdout), (1, ""), r.stderr)
        self.assertEqual(r.stderr, "".join(
            'resource mapping not found for name: "%s" namespace: "%s" from "%s": no '
            'matches for kind "%s" in version "%s"\nensure CRDs are installed first\n'
            % (o.name, o.namespace or "", corpus_path(CR_FILE), o.kind, o.api_version)
            for o in self.objects[CR_FILE]))

        # Namespaces: deleting one marks it Terminating. Emptying it and removing the
        # `kubernetes` finalizer is the namespace controller's work (none runs here), so
        # kubectl is not asked to wait; done by hand, the namespaces go.
        ns_objs = self.objects[NAMESPACES_FILE]
        r = self.k("delete", "-f", corpus_path(NAMESPACES_FILE), "--wait=false")
        self.assert_run(r, "".join('namespace "%s" deleted\n' % o.name for o in ns_objs))
        rows = table(self.ok("get", "-f", corpus_path(NAMESPACES_FILE)))
        self.assertEqual(rows[0], ["NAME", "STATUS", "AGE"])
        self.assertEqual([r[:2] for r in rows[1:]],
                         [[o.name, "Terminating"] for o in ns_objs])
        for o in ns_objs:
            ns = self.get_json("namespace", o.name)
            self.assertEqual(ns["spec"]["finalizers"], ["kubernetes"])
            self.assertTrue(ns["metadata"]["deletionTimestamp"])
            ns["spec"]["finalizers"] = []
            path = self.kubectl.write(json.dumps(ns), name="ns-%s.json" % o.name)
            out = self.ok("replace", "--raw", "/api/v1/namespaces/%s/finalize" % o.name,
                          "-f", path)
            # The answer is the namespace as it was stored when the emptied finalizers
            # deleted it (upstream's store answers with what its delete removed).
            answer = json.loads(out)
            self.assertEqual((answer["metadata"]["name"], answer["spec"]),
                             (o.name, {"finalizers": ["kubernetes"]}))
        r = self.k("wait", "--for=delete", "--timeout=30s", "-f",
                   corpus_path(NAMESPACES_FILE))
        self.assertEqual((r.returncode, r.stderr), (0, ""), r.stdout)
        r = self.k("get", "-f", corpus_path(NAMESPACES_FILE), "--ignore-not-found")
        self.assert_run(r, "", what="namespaces after finalize")
        r = self.k("get", "-f", corpus_path(NAMESPACES_FILE))
        self.assert_run(r, "", "".join(
            'Error from server (NotFound): namespaces "%s" not found\n' % o.name
            for o in ns_objs), rc=1, what="get deleted namespaces")


class CorpusListTests(CorpusTestCase):
    """`kubectl create -f` of the List file in a namespace of its own, with only the
    CRDs installed."""

    apply_corpus = False
    NS = "list-fresh"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            t = cls("setUp")
            for name in CRD_FILES:
                r = t.apply_file(name)
                t.assertEqual(r.returncode, 0, r.stderr)
            t.ok("create", "namespace", cls.NS)
        except BaseException:
            cls.tearDownClass()
            raise

    def test_create_replace_delete(self):
        path = corpus_path(LIST_FILE)
        objs = self.objects[LIST_FILE]
        r = self.k("create", "-f", path, "-n", self.NS)
        self.assert_run(r, self.lines(objs, "created"), what="create -f")
        got = self.get_json("-f", path, "-n", self.NS)
        self.assertEqual([(i["kind"], i["metadata"]["namespace"], i["metadata"]["name"])
                          for i in got["items"]],
                         [(o.kind, self.NS, o.name) for o in objs])
        for item in got["items"]:
            self.assertNotIn(LAST_APPLIED, item["metadata"].get("annotations", {}))
        # The RoleBinding's subject names no namespace: it means the binding's own.
        rb = self.get_json("rolebinding", "podinfo:reader", "-n", self.NS)
        self.assertEqual(rb["subjects"], [{"kind": "ServiceAccount", "name": "podinfo"}])

        # Again: every item exists already.
        r = self.k("create", "-f", path, "-n", self.NS)
        self.assertEqual((r.returncode, r.stdout), (1, ""), r.stderr)
        resources = {"ServiceAccount": "serviceaccounts", "ConfigMap": "configmaps",
                     "Deployment": "deployments.apps", "Service": "services",
                     "Role": "roles.rbac.authorization.k8s.io",
                     "RoleBinding": "rolebindings.rbac.authorization.k8s.io",
                     "PodDisruptionBudget": "poddisruptionbudgets.policy",
                     "HorizontalPodAutoscaler": "horizontalpodautoscalers.autoscaling",
                     "NetworkPolicy": "networkpolicies.networking.k8s.io",
                     "Certificate": "certificates.certs.example.io",
                     "ServiceMonitor": "servicemonitors.monitoring.example.com"}
        self.assertEqual(r.stderr, "".join(
            'Error from server (AlreadyExists): error when creating "%s": %s "%s" already '
            'exists\n' % (path, resources[o.kind], o.name) for o in objs))

        # Replacing with the file itself: kubectl fills in the live resourceVersion of
        # each object that has none, so even the kinds that refuse unconditional
        # updates (PodDisruptionBudgets, custom resources) are replaced.
        r = self.k("replace", "-f", path, "-n", self.NS)
        self.assert_run(r, self.lines(objs, "replaced"), what="replace -f")
        # A PUT without the fields the server fills in keeps them: the Service its
        # cluster IP, the Deployment its defaults.
        svc = self.get_json("service", "podinfo", "-n", self.NS)
        self.assertEqual(svc["spec"]["clusterIPs"], [svc["spec"]["clusterIP"]])
        self.assertRegex(svc["spec"]["clusterIP"], r"^10\.0\.0\.\d+$")

        # What `get -o yaml` prints replaces cleanly.
        r = self.k("get", "-f", path, "-n", self.NS, "-o", "yaml")
        self.assertEqual(r.returncode, 0, r.stderr)
        live = self.kubectl.write(r.stdout, name="list-live.yaml")
        r = self.k("replace", "-f", live)
        self.assert_run(r, self.lines(objs, "replaced"), what="replace -f get output")

        r = self.k("delete", "-f", path, "-n", self.NS, "--timeout=60s", timeout=90)
        self.assert_run(r, "".join('%s "%s" deleted\n' % (o.kind_ref, o.name)
                                   for o in objs), what="delete -f")
        r = self.k("get", "-f", path, "-n", self.NS, "--ignore-not-found")
        self.assert_run(r, "", what="get after delete")
        r = self.k("get", "all", "-n", self.NS)
        self.assert_run(r, "", "No resources found in %s namespace.\n" % self.NS)

    def test_big_crd_needs_create(self):
        """A CRD whose schema is larger than the annotations may be (256 KiB in all), as
        some operators ship: `kubectl apply` cannot keep its last-applied copy and the
        server refuses it; `kubectl create` (no annotation) installs it."""
        props = {"field%04d" % i: {"type": "string",
                                   "description": "Field %d of a large schema. " % i + "x" * 200}
                 for i in range(1200)}
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "bigs.big.example.com"},
               "spec": {"group": "big.example.com", "scope": "Namespaced",
                        "names": {"kind": "Big", "plural": "bigs"},
                        "versions": [{"name": "v1", "served": True, "storage": True,
                                      "schema": {"openAPIV3Schema": {
                                          "type": "object", "properties": {"spec": {
                                              "type": "object", "properties": props}}}}}]}}
        path = self.kubectl.write(json.dumps(crd), name="big-crd.json")
        r = self.k("apply", "-f", path)
        self.assert_run(r, "", 'The CustomResourceDefinition "bigs.big.example.com" is '
                        'invalid: metadata.annotations: Too long: may not be more than '
                        '262144 bytes\n', rc=1)
        r = self.k("create", "-f", path)
        self.assert_run(r, "customresourcedefinition.apiextensions.k8s.io/"
                           "bigs.big.example.com created\n")
        self.ok("wait", "--for", "condition=established", "--timeout=30s",
                "crd/bigs.big.example.com")
        self.ok("delete", "crd", "bigs.big.example.com", "--timeout=30s")


if __name__ == "__main__":
    unittest.main()
