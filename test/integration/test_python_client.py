"""Integration tests: the official Python client against the binary.

Uses Debian's python3-kubernetes (22.6) exactly as an application would:
an ApiClient built from the admin kubeconfig, CoreV1Api,
CoordinationV1Api and kubernetes.watch.Watch, over real TLS.

Run with:
    KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest discover \
        -s test/integration -p test_python_client.py -v
"""

import base64
import datetime
import json
import os
import sys
import time
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import Server  # noqa: E402

try:
    import kubernetes
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:  # pragma: no cover
    kubernetes = None

UTC = datetime.timezone.utc
CONFLICT = ('Operation cannot be fulfilled on configmaps "%s": the object has '
            'been modified; please apply your changes to the latest version '
            'and try again')


def b64(s):
    return base64.b64encode(s.encode()).decode()


@unittest.skipIf(kubernetes is None, "python3-kubernetes is not installed")
class PythonClientTests(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        try:
            cls.api_client = config.new_client_from_config(
                config_file=cls.server.kubeconfig)
            cls.v1 = client.CoreV1Api(cls.api_client)
            cls.coord = client.CoordinationV1Api(cls.api_client)
            cls.v1.create_namespace(client.V1Namespace(
                metadata=client.V1ObjectMeta(name="py")))
        except BaseException:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.api_client.close()
        except Exception:
            pass
        cls.server.stop()

    def setUp(self):
        # urllib3 may warn about unclosed sockets of streamed responses
        warnings.simplefilter("ignore", ResourceWarning)

    # ---- helpers ---------------------------------------------------------
    def status_of(self, exc, code, reason):
        """Check an ApiException carries a JSON v1 Status; return it."""
        self.assertEqual(exc.status, code, exc.body)
        self.assertEqual(exc.headers.get("Content-Type"), "application/json")
        body = json.loads(exc.body)
        self.assertEqual(body["kind"], "Status", body)
        self.assertEqual(body["apiVersion"], "v1", body)
        self.assertEqual(body["status"], "Failure", body)
        self.assertEqual(body["reason"], reason, body)
        self.assertEqual(body["code"], code, body)
        self.assertEqual(body["metadata"], {}, body)
        return body

    def cm(self, name, data=None, labels=None):
        return client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=name, labels=labels),
            data=data)

    def record_requests(self):
        """Record (method, url, headers, body) of every request sent."""
        pm = self.api_client.rest_client.pool_manager
        orig = pm.request
        seen = []

        def request(method, url, *a, **kw):
            seen.append((method, url, dict(kw.get("headers") or {}),
                         kw.get("body")))
            return orig(method, url, *a, **kw)
        pm.request = request
        self.addCleanup(setattr, pm, "request", orig)
        return seen

    # ---- lists -------------------------------------------------------------
    def test_list_namespaces(self):
        nsl = self.v1.list_namespace()
        self.assertEqual(nsl.kind, "NamespaceList")
        self.assertEqual(nsl.api_version, "v1")
        self.assertRegex(nsl.metadata.resource_version, r"^[1-9][0-9]*$")
        names = [n.metadata.name for n in nsl.items]
        for want in ("default", "kube-node-lease", "kube-public",
                     "kube-system", "py"):
            self.assertIn(want, names)
        self.assertEqual(names, sorted(names))
        for n in nsl.items:
            self.assertEqual(n.status.phase, "Active")
            self.assertEqual(n.spec.finalizers, ["kubernetes"])
            self.assertIsInstance(n.metadata.creation_timestamp,
                                  datetime.datetime)
            self.assertEqual(n.metadata.creation_timestamp.tzinfo
                             .utcoffset(None), datetime.timedelta(0))
            self.assertEqual(n.metadata.labels,
                             {"kubernetes.io/metadata.name":
                              n.metadata.name})
        one = self.v1.list_namespace(field_selector="metadata.name=py")
        self.assertEqual([n.metadata.name for n in one.items], ["py"])

    def test_list_configmaps_and_paging(self):
        self.v1.create_namespace(client.V1Namespace(
            metadata=client.V1ObjectMeta(name="py-list")))
        empty = self.v1.list_namespaced_config_map("py-list")
        self.assertEqual(empty.items, [])
        self.assertEqual(empty.kind, "ConfigMapList")
        self.assertRegex(empty.metadata.resource_version, r"^[1-9][0-9]*$")
        for i in range(5):
            self.v1.create_namespaced_config_map(
                "py-list", self.cm("c%d" % i, {"i": str(i)},
                                   {"odd": str(i % 2 == 1).lower()}))
        full = self.v1.list_namespaced_config_map("py-list")
        self.assertEqual([c.metadata.name for c in full.items],
                         ["c0", "c1", "c2", "c3", "c4"])
        self.assertGreater(int(full.metadata.resource_version),
                           int(empty.metadata.resource_version))
        self.assertIsNone(full.metadata._continue)
        odd = self.v1.list_namespaced_config_map("py-list",
                                                 label_selector="odd=true")
        self.assertEqual([c.metadata.name for c in odd.items], ["c1", "c3"])
        # paging with limit/continue
        page = self.v1.list_namespaced_config_map("py-list", limit=2)
        got = [c.metadata.name for c in page.items]
        self.assertEqual(got, ["c0", "c1"])
        self.assertTrue(page.metadata._continue)
        self.assertEqual(page.metadata.remaining_item_count, 3)
        pages = 1
        while page.metadata._continue:
            page = self.v1.list_namespaced_config_map(
                "py-list", limit=2, _continue=page.metadata._continue)
            got += [c.metadata.name for c in page.items]
            pages += 1
        self.assertEqual(got, ["c0", "c1", "c2", "c3", "c4"])
        self.assertEqual(pages, 3)
        # across namespaces
        allcm = self.v1.list_config_map_for_all_namespaces(
            field_selector="metadata.namespace=py-list")
        self.assertEqual(len(allcm.items), 5)

    # ---- configmaps: CRUD ---------------------------------------------------
    def test_configmap_crud(self):
        created = self.v1.create_namespaced_config_map(
            "py", self.cm("crud", {"a": "1", "b": "2"}, {"app": "py"}))
        self.assertIsInstance(created, client.V1ConfigMap)
        self.assertEqual(created.metadata.namespace, "py")
        self.assertRegex(created.metadata.uid,
                         r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
                         r"[0-9a-f]{4}-[0-9a-f]{12}$")
        rv0 = created.metadata.resource_version
        read = self.v1.read_namespaced_config_map("crud", "py")
        self.assertEqual(read.data, {"a": "1", "b": "2"})
        self.assertEqual(read.metadata.resource_version, rv0)
        self.assertEqual(read.metadata.labels, {"app": "py"})
        self.assertEqual(read.kind, "ConfigMap")
        self.assertEqual(read.api_version, "v1")

        # patch with a dict: the 22.6 client sends a strategic merge patch
        seen = self.record_requests()
        patched = self.v1.patch_namespaced_config_map(
            "crud", "py", {"data": {"b": None, "c": "3"},
                           "metadata": {"labels": {"extra": "x"}}})
        self.assertEqual(seen[-1][0], "PATCH")
        self.assertEqual(seen[-1][2]["Content-Type"],
                         "application/strategic-merge-patch+json")
        self.assertEqual(patched.data, {"a": "1", "c": "3"})
        self.assertEqual(patched.metadata.labels, {"app": "py", "extra": "x"})
        rv1 = patched.metadata.resource_version
        self.assertGreater(int(rv1), int(rv0))
        # a no-op patch keeps the resourceVersion
        same = self.v1.patch_namespaced_config_map("crud", "py",
                                                   {"data": {"a": "1"}})
        self.assertEqual(same.metadata.resource_version, rv1)
        # a list body is sent as a JSON patch
        jp = self.v1.patch_namespaced_config_map(
            "crud", "py", [{"op": "replace", "path": "/data/a",
                            "value": "one"}])
        self.assertEqual(seen[-1][2]["Content-Type"],
                         "application/json-patch+json")
        self.assertEqual(jp.data, {"a": "one", "c": "3"})

        # delete → Status Success (generic registry), then 404
        st = self.v1.delete_namespaced_config_map("crud", "py")
        self.assertIsInstance(st, client.V1Status)
        self.assertEqual(st.status, "Success")
        self.assertEqual(st.kind, "Status")
        self.assertEqual(st.details.name, "crud")
        self.assertEqual(st.details.kind, "configmaps")
        self.assertEqual(st.details.uid, created.metadata.uid)
        with self.assertRaises(ApiException) as cm:
            self.v1.read_namespaced_config_map("crud", "py")
        st = self.status_of(cm.exception, 404, "NotFound")
        self.assertEqual(st["message"], 'configmaps "crud" not found')
        self.assertEqual(st["details"], {"name": "crud", "kind": "configmaps"})
        with self.assertRaises(ApiException) as cm:
            self.v1.delete_namespaced_config_map("crud", "py")
        self.status_of(cm.exception, 404, "NotFound")

    def test_configmap_read_modify_replace(self):
        self.v1.create_namespaced_config_map(
            "py", self.cm("rmr", {"a": "1"}, {"app": "py"}))
        read = self.v1.read_namespaced_config_map("rmr", "py")
        self.v1.patch_namespaced_config_map("rmr", "py",
                                            {"metadata":
                                             {"labels": {"b": "1"}}})
        # replace with a stale resourceVersion → 409 Conflict
        stale = read
        stale.data = {"stale": "yes"}
        with self.assertRaises(ApiException) as cm:
            self.v1.replace_namespaced_config_map("rmr", "py", stale)
        st = self.status_of(cm.exception, 409, "Conflict")
        self.assertEqual(st["message"], CONFLICT % "rmr")
        self.assertEqual(st["details"], {"name": "rmr", "kind": "configmaps"})
        # replace with the current one works
        cur = self.v1.read_namespaced_config_map("rmr", "py")
        cur.data = {"replaced": "yes"}
        rep = self.v1.replace_namespaced_config_map("rmr", "py", cur)
        self.assertEqual(rep.data, {"replaced": "yes"})
        self.assertGreater(int(rep.metadata.resource_version),
                           int(cur.metadata.resource_version))

        # the object sent back by the client carries creationTimestamp as
        # Python's isoformat ("...+00:00"): the same instant, not a change
        self.assertEqual(rep.metadata.creation_timestamp,
                         read.metadata.creation_timestamp)
        self.assertEqual(rep.metadata.labels, {"app": "py", "b": "1"})
        # without a resourceVersion the update is unconditional
        blind = client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="rmr", namespace="py"),
            data={"blind": "1"})
        rep2 = self.v1.replace_namespaced_config_map("rmr", "py", blind)
        self.assertEqual(rep2.data, {"blind": "1"})
        self.assertIsNone(rep2.metadata.labels)
        self.assertEqual(rep2.metadata.uid, rep.metadata.uid)
        self.assertEqual(rep2.metadata.creation_timestamp,
                         read.metadata.creation_timestamp)

    def test_update_ignores_creation_timestamp(self):
        # upstream resets metadata.creationTimestamp to the stored value on
        # every update (rest.BeforeUpdate), whatever the client sent
        self.v1.create_namespaced_config_map("py", self.cm("cts", {"a": "1"}))
        raw = json.loads(self.v1.read_namespaced_config_map(
            "cts", "py", _preload_content=False).data)
        created = raw["metadata"]["creationTimestamp"]
        raw["metadata"]["creationTimestamp"] = "2001-02-03T04:05:06Z"
        raw["data"] = {"a": "2"}
        rep = json.loads(self.v1.replace_namespaced_config_map(
            "cts", "py", raw, _preload_content=False).data)
        self.assertEqual(rep["metadata"]["creationTimestamp"], created)
        self.assertEqual(rep["data"], {"a": "2"})
        rep = self.v1.patch_namespaced_config_map("cts", "py", {
            "metadata": {"creationTimestamp": "2001-02-03T04:05:06Z"},
            "data": {"a": "3"}})
        self.assertEqual(rep.data, {"a": "3"})
        self.assertEqual(rep.metadata.creation_timestamp.strftime(
            "%Y-%m-%dT%H:%M:%SZ"), created)

    def test_dry_run(self):
        res = self.v1.create_namespaced_config_map(
            "py", self.cm("dry", {"a": "1"}), dry_run="All")
        self.assertEqual(res.metadata.name, "dry")
        with self.assertRaises(ApiException) as cm:
            self.v1.read_namespaced_config_map("dry", "py")
        self.status_of(cm.exception, 404, "NotFound")
        self.v1.create_namespaced_config_map("py", self.cm("dry2", {"a": "1"}))
        self.v1.delete_namespaced_config_map("dry2", "py", dry_run="All")
        self.assertEqual(self.v1.read_namespaced_config_map("dry2", "py").data,
                         {"a": "1"})
        res = self.v1.patch_namespaced_config_map(
            "dry2", "py", {"data": {"a": "2"}}, dry_run="All")
        self.assertEqual(res.data, {"a": "2"})
        self.assertEqual(self.v1.read_namespaced_config_map("dry2", "py").data,
                         {"a": "1"})

    def test_errors(self):
        self.v1.create_namespaced_config_map("py", self.cm("dup", {"a": "1"}))
        with self.assertRaises(ApiException) as cm:
            self.v1.create_namespaced_config_map("py", self.cm("dup"))
        st = self.status_of(cm.exception, 409, "AlreadyExists")
        self.assertEqual(st["message"], 'configmaps "dup" already exists')
        self.assertEqual(st["details"], {"name": "dup", "kind": "configmaps"})

        with self.assertRaises(ApiException) as cm:
            self.v1.create_namespaced_config_map("py-none", self.cm("x"))
        st = self.status_of(cm.exception, 404, "NotFound")
        self.assertEqual(st["message"], 'namespaces "py-none" not found')
        self.assertEqual(st["details"], {"name": "py-none",
                                         "kind": "namespaces"})

        with self.assertRaises(ApiException) as cm:
            self.v1.create_namespaced_config_map("py", self.cm("Bad_Name"))
        st = self.status_of(cm.exception, 422, "Invalid")
        rule = ("a lowercase RFC 1123 subdomain must consist of lower case "
                "alphanumeric characters, '-' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'example.com', regex "
                "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-"
                "z0-9]([-a-z0-9]*[a-z0-9])?)*')")
        self.assertEqual(st["message"], 'ConfigMap "Bad_Name" is invalid: '
                         'metadata.name: Invalid value: "Bad_Name": ' + rule)
        self.assertEqual(st["details"], {
            "name": "Bad_Name", "kind": "ConfigMap",
            "causes": [{"reason": "FieldValueInvalid",
                        "message": 'Invalid value: "Bad_Name": ' + rule,
                        "field": "metadata.name"}]})

        with self.assertRaises(ApiException) as cm:
            self.v1.list_namespaced_config_map("py", field_selector="x=y")
        st = self.status_of(cm.exception, 400, "BadRequest")
        self.assertEqual(st["message"], '"x" is not a known field selector: '
                         'only "metadata.name", "metadata.namespace"')

        with self.assertRaises(ApiException) as cm:
            self.v1.list_namespaced_config_map("py", label_selector="a in b")
        self.status_of(cm.exception, 400, "BadRequest")

        with self.assertRaises(ApiException) as cm:
            self.v1.delete_namespace("default")
        st = self.status_of(cm.exception, 403, "Forbidden")
        self.assertEqual(st["message"], 'namespaces "default" is forbidden: '
                         'this namespace may not be deleted')
        self.assertEqual(st["details"], {"name": "default",
                                         "kind": "namespaces"})

    # ---- secrets ------------------------------------------------------------
    def test_secrets(self):
        s = self.v1.create_namespaced_secret("py", client.V1Secret(
            metadata=client.V1ObjectMeta(name="sec"),
            data={"raw": b64("bytes")},
            string_data={"plain": "text", "raw": "overrides"}))
        # stringData wins over data and is merged into data, base64-encoded
        self.assertEqual(s.data, {"raw": b64("overrides"),
                                  "plain": b64("text")})
        self.assertIsNone(s.string_data)
        self.assertEqual(s.type, "Opaque")
        read = self.v1.read_namespaced_secret("sec", "py")
        self.assertEqual(read.data, s.data)
        self.assertIsNone(read.string_data)

        # invalid base64 in data → 400
        with self.assertRaises(ApiException) as cm:
            self.v1.create_namespaced_secret("py", {
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "bad"}, "data": {"k": "abc$"}})
        st = self.status_of(cm.exception, 400, "BadRequest")
        self.assertEqual(st["message"], 'Secret in version "v1" cannot be '
                         'handled as a Secret: illegal base64 data at input '
                         'byte 3')

        # patching stringData updates data
        p = self.v1.patch_namespaced_secret("sec", "py",
                                            {"stringData": {"plain": "new"}})
        self.assertEqual(p.data["plain"], b64("new"))
        self.assertIsNone(p.string_data)

    def test_secret_type_immutable(self):
        self.v1.create_namespaced_secret("py", client.V1Secret(
            metadata=client.V1ObjectMeta(name="sec-type"),
            data={"a": b64("x")}))
        raw = json.loads(self.v1.read_namespaced_secret(
            "sec-type", "py", _preload_content=False).data)
        self.assertEqual(raw["type"], "Opaque")
        raw["type"] = "example.com/other"
        with self.assertRaises(ApiException) as cm:
            self.v1.replace_namespaced_secret("sec-type", "py", raw)
        st = self.status_of(cm.exception, 422, "Invalid")
        self.assertEqual(st["message"], 'Secret "sec-type" is invalid: type: '
                         'Invalid value: "example.com/other": field is '
                         'immutable')
        self.assertEqual(st["details"], {
            "name": "sec-type", "kind": "Secret",
            "causes": [{"reason": "FieldValueInvalid",
                        "message": 'Invalid value: "example.com/other": '
                                   'field is immutable',
                        "field": "type"}]})
        self.assertEqual(self.v1.read_namespaced_secret("sec-type", "py").type,
                         "Opaque")

    # ---- watch --------------------------------------------------------------
    def test_watch_from_resource_version(self):
        self.v1.create_namespace(client.V1Namespace(
            metadata=client.V1ObjectMeta(name="py-watch")))
        self.v1.create_namespaced_config_map("py-watch", self.cm("before"))
        rv = self.v1.list_namespaced_config_map(
            "py-watch").metadata.resource_version
        # changes after rv, before the watch starts: replayed from history
        self.v1.create_namespaced_config_map("py-watch",
                                             self.cm("w", {"a": "1"}))
        self.v1.patch_namespaced_config_map("w", "py-watch",
                                            {"data": {"a": "2"}})
        self.v1.delete_namespaced_config_map("w", "py-watch")
        # a change in another namespace is not seen
        self.v1.create_namespaced_config_map("py", self.cm("w-elsewhere"))

        w = watch.Watch()
        events = []
        start = time.monotonic()
        for ev in w.stream(self.v1.list_namespaced_config_map, "py-watch",
                           resource_version=rv, timeout_seconds=5):
            events.append(ev)
            if len(events) == 3:
                w.stop()
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual([(e["type"], e["object"].metadata.name)
                          for e in events],
                         [("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")])
        self.assertIsInstance(events[0]["object"], client.V1ConfigMap)
        self.assertEqual(events[0]["object"].data, {"a": "1"})
        self.assertEqual(events[1]["object"].data, {"a": "2"})
        self.assertEqual(events[2]["object"].data, {"a": "2"})
        rvs = [int(e["object"].metadata.resource_version) for e in events]
        self.assertEqual(rvs, sorted(rvs))
        self.assertGreater(rvs[0], int(rv))
        self.assertEqual(len(set(rvs)), 3)
        self.assertEqual(events[2]["raw_object"]["kind"], "ConfigMap")
        self.assertEqual(w.resource_version, str(rvs[-1]))

    def test_watch_live_and_timeout(self):
        rv = self.v1.list_namespaced_secret("py").metadata.resource_version
        w = watch.Watch()
        events = []
        start = time.monotonic()
        # nothing happens: the server ends the stream at timeoutSeconds
        for ev in w.stream(self.v1.list_namespaced_secret, "py",
                           resource_version=rv, timeout_seconds=1):
            events.append(ev)
        took = time.monotonic() - start
        self.assertEqual(events, [])
        self.assertGreaterEqual(took, 0.9)
        self.assertLess(took, 4)

    def test_watch_initial_state_with_selector(self):
        self.v1.create_namespaced_config_map("py", self.cm("sel-a", labels={
            "watch": "me"}))
        self.v1.create_namespaced_config_map("py", self.cm("sel-b"))
        w = watch.Watch()
        events = []
        # no resourceVersion: the current state comes first as ADDED
        for ev in w.stream(self.v1.list_namespaced_config_map, "py",
                           label_selector="watch=me", timeout_seconds=2):
            events.append((ev["type"], ev["object"].metadata.name))
            w.stop()
        self.assertEqual(events, [("ADDED", "sel-a")])

    # ---- leases -------------------------------------------------------------
    def lease_body(self, name, **spec):
        return client.V1Lease(metadata=client.V1ObjectMeta(name=name),
                              spec=client.V1LeaseSpec(**spec))

    def raw_lease(self, name):
        return json.loads(self.coord.read_namespaced_lease(
            name, "py", _preload_content=False).data)

    def test_lease_create_get_update(self):
        acquire = datetime.datetime(2025, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
        renew = datetime.datetime(2025, 1, 2, 3, 4, 6, 654321, tzinfo=UTC)
        lease = self.coord.create_namespaced_lease("py", self.lease_body(
            "lease1", holder_identity="me", lease_duration_seconds=15,
            acquire_time=acquire, renew_time=renew, lease_transitions=0))
        self.assertIsInstance(lease, client.V1Lease)
        self.assertEqual(lease.kind, "Lease")
        self.assertEqual(lease.api_version, "coordination.k8s.io/v1")
        self.assertEqual(lease.spec.acquire_time, acquire)
        self.assertEqual(lease.spec.renew_time, renew)
        got = self.coord.read_namespaced_lease("lease1", "py")
        self.assertEqual(got.spec, lease.spec)
        # update the way a leader-election client does: read, modify, replace
        got.spec.holder_identity = "you"
        got.spec.renew_time = datetime.datetime(2025, 1, 2, 3, 5, 0, 1,
                                                tzinfo=UTC)
        got.spec.lease_transitions = 1
        upd = self.coord.replace_namespaced_lease("lease1", "py", got)
        self.assertEqual(upd.spec.holder_identity, "you")
        self.assertEqual(upd.spec.renew_time, got.spec.renew_time)
        self.assertEqual(upd.spec.acquire_time, acquire)
        self.assertEqual(upd.spec.lease_transitions, 1)
        self.assertGreater(int(upd.metadata.resource_version),
                           int(got.metadata.resource_version))
        # and again with the object the server returned
        upd.spec.renew_time = datetime.datetime(2025, 1, 2, 3, 5, 10, 999999,
                                                tzinfo=UTC)
        upd2 = self.coord.replace_namespaced_lease("lease1", "py", upd)
        self.assertEqual(upd2.spec.renew_time, upd.spec.renew_time)
        leases = self.coord.list_namespaced_lease("py")
        self.assertEqual(leases.kind, "LeaseList")
        self.assertIn("lease1", [x.metadata.name for x in leases.items])

    def test_lease_microtime_on_the_wire(self):
        # MicroTime is stored and served as UTC with exactly six digits,
        # whatever offset the client sent (Python sends "+00:00")
        self.coord.create_namespaced_lease("py", self.lease_body(
            "lease-wire", holder_identity="me", lease_duration_seconds=15,
            acquire_time=datetime.datetime(2025, 1, 2, 3, 4, 5, 123456,
                                           tzinfo=UTC),
            renew_time=datetime.datetime(
                2025, 1, 2, 5, 4, 6, 654321, tzinfo=datetime.timezone(
                    datetime.timedelta(hours=2))),
            lease_transitions=0))
        raw = self.raw_lease("lease-wire")
        self.assertEqual(raw["spec"], {
            "holderIdentity": "me", "leaseDurationSeconds": 15,
            "acquireTime": "2025-01-02T03:04:05.123456Z",
            "renewTime": "2025-01-02T03:04:06.654321Z",
            "leaseTransitions": 0})
        # Time (second precision) is normalized the same way
        self.assertRegex(raw["metadata"]["creationTimestamp"],
                         r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        # the canonical form round-trips unchanged
        self.coord.patch_namespaced_lease("lease-wire", "py", {
            "spec": {"renewTime": "2025-06-07T08:09:10.000000Z"}})
        self.assertEqual(self.raw_lease("lease-wire")["spec"]["renewTime"],
                         "2025-06-07T08:09:10.000000Z")

    def test_lease_errors_and_delete(self):
        self.coord.create_namespaced_lease("py", self.lease_body(
            "lease-err", holder_identity="a"))
        raw = self.raw_lease("lease-err")
        self.coord.patch_namespaced_lease("lease-err", "py", {
            "spec": {"holderIdentity": "b"}})
        raw["spec"]["holderIdentity"] = "stale"
        with self.assertRaises(ApiException) as cm:
            self.coord.replace_namespaced_lease("lease-err", "py", raw)
        st = self.status_of(cm.exception, 409, "Conflict")
        self.assertEqual(st["message"], 'Operation cannot be fulfilled on '
                         'leases.coordination.k8s.io "lease-err": the object '
                         'has been modified; please apply your changes to the '
                         'latest version and try again')
        self.assertEqual(st["details"], {"name": "lease-err",
                                         "group": "coordination.k8s.io",
                                         "kind": "leases"})
        with self.assertRaises(ApiException) as cm:
            self.coord.read_namespaced_lease("nope", "py")
        st = self.status_of(cm.exception, 404, "NotFound")
        self.assertEqual(st["message"],
                         'leases.coordination.k8s.io "nope" not found')
        self.assertEqual(st["details"], {"name": "nope",
                                         "group": "coordination.k8s.io",
                                         "kind": "leases"})
        st = self.coord.delete_namespaced_lease("lease-err", "py")
        self.assertEqual((st.status, st.details.name, st.details.group,
                          st.details.kind),
                         ("Success", "lease-err", "coordination.k8s.io",
                          "leases"))
        with self.assertRaises(ApiException) as cm:
            self.coord.read_namespaced_lease("lease-err", "py")
        self.status_of(cm.exception, 404, "NotFound")

    def test_lease_invalid_microtime(self):
        with self.assertRaises(ApiException) as cm:
            self.coord.create_namespaced_lease("py", {
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": "badtime"},
                "spec": {"renewTime": "yesterday"}})
        st = self.status_of(cm.exception, 400, "BadRequest")
        self.assertEqual(st["message"],
                         'Lease in version "v1" cannot be handled as a Lease: '
                         'parsing time "yesterday" as '
                         '"2006-01-02T15:04:05.000000Z07:00": cannot parse '
                         '"yesterday" as "2006"')

    # ---- events -------------------------------------------------------------
    def test_events_field_selector(self):
        when = datetime.datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
        for name, obj, reason in (("e1", "target", "Started"),
                                  ("e2", "other", "Started"),
                                  ("e3", "target", "Killing")):
            self.v1.create_namespaced_event("py", client.CoreV1Event(
                metadata=client.V1ObjectMeta(name=name),
                involved_object=client.V1ObjectReference(
                    kind="ConfigMap", name=obj, namespace="py",
                    api_version="v1"),
                reason=reason, message="m " + name, type="Normal",
                first_timestamp=when, last_timestamp=when, count=1,
                source=client.V1EventSource(component="py-test")))
        evs = self.v1.list_namespaced_event(
            "py", field_selector="involvedObject.name=target")
        self.assertEqual([e.metadata.name for e in evs.items], ["e1", "e3"])
        self.assertEqual(evs.items[0].last_timestamp, when)
        self.assertEqual(evs.items[0].involved_object.kind, "ConfigMap")
        raw = json.loads(self.v1.read_namespaced_event(
            "e1", "py", _preload_content=False).data)
        self.assertEqual((raw["firstTimestamp"], raw["lastTimestamp"]),
                         ("2025-03-04T05:06:07Z", "2025-03-04T05:06:07Z"))
        evs = self.v1.list_namespaced_event(
            "py", field_selector="involvedObject.name=target,reason=Killing")
        self.assertEqual([e.metadata.name for e in evs.items], ["e3"])
        evs = self.v1.list_namespaced_event(
            "py", field_selector="involvedObject.name!=target")
        self.assertEqual([e.metadata.name for e in evs.items], ["e2"])
        evs = self.v1.list_event_for_all_namespaces(
            field_selector="involvedObject.namespace=py,"
                           "involvedObject.kind=ConfigMap,source=py-test")
        self.assertEqual([e.metadata.name for e in evs.items],
                         ["e1", "e2", "e3"])
        with self.assertRaises(ApiException) as cm:
            self.v1.list_namespaced_event("py", field_selector="message=x")
        st = self.status_of(cm.exception, 400, "BadRequest")
        self.assertEqual(st["message"], "field label not supported: message")

    # ---- namespaces ---------------------------------------------------------
    def test_namespace_delete_terminating(self):
        self.v1.create_namespace(client.V1Namespace(
            metadata=client.V1ObjectMeta(name="py-del")))
        resp = self.v1.delete_namespace("py-del", _preload_content=False)
        self.assertEqual(resp.status, 200)
        obj = json.loads(resp.data)
        self.assertEqual(obj["kind"], "Namespace")
        self.assertEqual(obj["status"]["phase"], "Terminating")
        self.assertIn("deletionTimestamp", obj["metadata"])
        ns = self.v1.read_namespace("py-del")
        self.assertEqual(ns.status.phase, "Terminating")
        self.assertIsNotNone(ns.metadata.deletion_timestamp)
        with self.assertRaises(ApiException) as cm:
            self.v1.create_namespaced_config_map("py-del", self.cm("late"))
        st = self.status_of(cm.exception, 403, "Forbidden")
        self.assertEqual(st["message"],
                         'configmaps "late" is forbidden: unable to create '
                         'new content in namespace py-del because it is being '
                         'terminated')
        self.assertEqual(st["details"], {
            "name": "late", "kind": "configmaps",
            "causes": [{"reason": "NamespaceTerminating",
                        "message": "namespace py-del is being terminated",
                        "field": "metadata.namespace"}]})


if __name__ == "__main__":
    unittest.main()
