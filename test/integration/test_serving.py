"""Integration tests: the kube-apiserver binary as a user sees it.

Run with:
    /usr/bin/python3 -m unittest discover -s /work/main/test/integration -v
"""

import json
import os
import re
import shutil
import signal
import socket
import ssl
import tempfile
import time
import unittest
import warnings

import harness
from harness import Server, run, write_kubeconfig

BIG_BODY_LIMIT = 3 * 1024 * 1024
UUID_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def status_json(test, body):
    """Parse a JSON body and check it is a v1 Status."""
    try:
        obj = json.loads(body)
    except ValueError:
        test.fail("body is not JSON: %r" % body[:500])
    test.assertEqual(obj.get("kind"), "Status", obj)
    test.assertEqual(obj.get("apiVersion"), "v1", obj)
    test.assertEqual(obj.get("status"), "Failure", obj)
    return obj


def big_namespace_body(size=4 * 1024 * 1024):
    head = b'{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"big",' \
           b'"annotations":{"a":"'
    tail = b'"}}}'
    return head + b"x" * (size - len(head) - len(tail)) + tail


def tls_raw_exchange(server, payload, cert=True, timeout=10):
    """Send raw bytes over TLS and read until the server closes/idles."""
    ctx = server.ssl_context(cert)
    sock = socket.create_connection(("127.0.0.1", server.port),
                                    timeout=timeout)
    with ctx.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
        try:
            tls.sendall(payload)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLEOFError,
                ssl.SSLZeroReturnError):
            pass
        chunks = []
        while True:
            try:
                data = tls.recv(65536)
            except (socket.timeout, ConnectionResetError, ssl.SSLEOFError,
                    ssl.SSLZeroReturnError):
                break
            if not data:
                break
            chunks.append(data)
            # Stop once a complete response (headers + declared body) is in.
            buf = b"".join(chunks)
            head, sep, rest = buf.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
                if m and len(rest) >= int(m.group(1)):
                    break
        return b"".join(chunks)


class DefaultServerTests(unittest.TestCase):
    """One server with default flags (AlwaysAllow, anonymous off)."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def get_json(self, path, expect=200):
        status, headers, body = self.server.request("GET", path)
        self.assertEqual(status, expect, body)
        self.assertEqual(headers.get("content-type"), "application/json")
        return json.loads(body)

    # 1
    def test_kubectl_version(self):
        r = self.server.kubectl("version", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        sv = json.loads(r.stdout)["serverVersion"]
        self.assertEqual(sv["major"], "1")
        self.assertEqual(sv["minor"], "32")
        self.assertTrue(sv["gitVersion"].startswith("v1.32."), sv)

    # 2
    def test_kubectl_get_raw_readyz_verbose(self):
        r = self.server.kubectl("get", "--raw", "/readyz?verbose")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # upstream's names (test/unit/master/registry/discovery_paths_test.cc has the
        # whole list in order), every one of them done once the server is ready
        for want in ("ping", "log", "etcd", "etcd-readiness", "informer-sync",
                     "poststarthook/start-apiextensions-controllers",
                     "poststarthook/crd-informer-synced",
                     "poststarthook/bootstrap-controller",
                     "poststarthook/apiservice-registration-controller",
                     "autoregister-completion", "shutdown"):
            self.assertIn("[+]%s ok" % want, lines)
        self.assertEqual([l for l in lines[:-1] if not l.startswith("[+]")], [])
        self.assertEqual(lines[-1], "readyz check passed")

    # 3
    def test_curl_readyz_verbose(self):
        r = self.server.curl("-f", self.server.url + "/readyz?verbose")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        for want in ("[+]ping ok", "[+]log ok", "[+]shutdown ok",
                     "readyz check passed"):
            self.assertIn(want, lines)

    # 4
    def test_no_credentials_unauthorized(self):
        for path in ("/api", "/readyz", "/api/v1/namespaces"):
            with self.subTest(path=path):
                status, headers, body = self.server.request(
                    "GET", path, cert=False)
                self.assertEqual(status, 401, body)
                self.assertEqual(headers.get("content-type"),
                                 "application/json")
                obj = status_json(self, body)
                self.assertEqual(obj["reason"], "Unauthorized")
                self.assertEqual(obj["code"], 401)
                self.assertEqual(obj["message"], "Unauthorized")

    # 7
    def test_client_cert_from_unknown_ca_unauthorized(self):
        d = tempfile.mkdtemp(prefix="kas-it-mallory-")
        self.addCleanup(lambda: shutil.rmtree(d, True))
        crt, key = os.path.join(d, "m.crt"), os.path.join(d, "m.key")
        r = run([harness.OPENSSL, "req", "-x509", "-newkey", "ec",
                 "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                 "-subj", "/CN=mallory/O=system:masters", "-days", "1",
                 "-keyout", key, "-out", crt])
        self.assertEqual(r.returncode, 0, r.stderr)
        for path in ("/api", "/api/v1/namespaces"):
            with self.subTest(path=path):
                status, _, body = self.server.request(
                    "GET", path, cert=(crt, key))
                self.assertEqual(status, 401, body)
                obj = status_json(self, body)
                self.assertEqual(obj["reason"], "Unauthorized")
                self.assertEqual(obj["code"], 401)

    # 8
    def test_body_too_large(self):
        body = big_namespace_body()
        status, headers, resp = self.server.request(
            "POST", "/api/v1/namespaces", body=body,
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 413, resp)
        obj = status_json(self, resp)
        self.assertEqual(obj["reason"], "RequestEntityTooLarge")
        self.assertEqual(obj["code"], 413)
        self.assertEqual(obj["message"],
                         "Request entity too large: limit is %d"
                         % BIG_BODY_LIMIT)

        # The same body with chunked transfer encoding.
        d = tempfile.mkdtemp(prefix="kas-it-big-")
        self.addCleanup(lambda: shutil.rmtree(d, True))
        src, out = os.path.join(d, "body.json"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(body)
        r = self.server.curl(
            "-X", "POST", "-H", "Transfer-Encoding: chunked",
            "-H", "Content-Type: application/json",
            "--data-binary", "@" + src, "-o", out, "-w", "%{http_code}",
            self.server.url + "/api/v1/namespaces")
        self.assertEqual(r.stdout.strip(), "413", r.stderr)
        with open(out, "rb") as f:
            obj = status_json(self, f.read())
        self.assertEqual(obj["reason"], "RequestEntityTooLarge")
        self.assertEqual(obj["message"],
                         "Request entity too large: limit is %d"
                         % BIG_BODY_LIMIT)

        status, _, resp = self.server.request("GET", "/readyz")
        self.assertEqual((status, resp), (200, b"ok"))

    # 9
    def test_unknown_paths_not_found(self):
        for path in ("/foo/bar", "/apis/nope.example.com/v1"):
            with self.subTest(path=path):
                status, headers, body = self.server.request("GET", path)
                self.assertEqual(status, 404, body)
                obj = status_json(self, body)
                self.assertEqual(obj["reason"], "NotFound")
                self.assertEqual(obj["code"], 404)
                self.assertEqual(
                    obj["message"],
                    "the server could not find the requested resource")

    # 10
    def test_discovery(self):
        api = self.get_json("/api")
        self.assertEqual(api["kind"], "APIVersions")
        self.assertEqual(api["versions"], ["v1"])
        cidrs = api["serverAddressByClientCIDRs"]
        self.assertIsInstance(cidrs, list)
        self.assertGreaterEqual(len(cidrs), 1)
        # Bound to 127.0.0.1, the server advertises a host address, as upstream does (the
        # `kubernetes` Endpoints may not hold a loopback one).
        host, port = cidrs[0]["serverAddress"].rsplit(":", 1)
        self.assertEqual(int(port), self.server.port)
        self.assertFalse(host.startswith("127."), cidrs)
        self.assertIn("clientCIDR", cidrs[0])

        apis = self.get_json("/apis")
        self.assertEqual(apis["kind"], "APIGroupList")
        self.assertEqual([g["name"] for g in apis["groups"]],
                         ["apiregistration.k8s.io", "apps", "events.k8s.io",
                          "authentication.k8s.io", "authorization.k8s.io", "autoscaling",
                          "batch", "certificates.k8s.io", "networking.k8s.io",
                          "policy",
                          "rbac.authorization.k8s.io", "storage.k8s.io",
                          "admissionregistration.k8s.io",
                          "apiextensions.k8s.io", "scheduling.k8s.io",
                          "coordination.k8s.io", "node.k8s.io",
                          "discovery.k8s.io",
                          "flowcontrol.apiserver.k8s.io"])

        gv = self.get_json("/apis/apiextensions.k8s.io/v1")
        self.assertEqual(gv["kind"], "APIResourceList")
        self.assertEqual(gv["groupVersion"], "apiextensions.k8s.io/v1")

        core = self.get_json("/api/v1")
        self.assertEqual(core["kind"], "APIResourceList")
        self.assertEqual(core["groupVersion"], "v1")

    # 11
    def test_health_endpoints(self):
        status, _, body = self.server.request(
            "GET", "/readyz?exclude=shutdown&verbose")
        self.assertEqual(status, 200, body)
        lines = body.decode().splitlines()
        self.assertIn("[+]shutdown excluded: ok", lines)
        self.assertIn("[+]ping ok", lines)
        self.assertEqual(lines[-1], "readyz check passed")

        status, _, body = self.server.request("GET", "/readyz/ping")
        self.assertEqual((status, body), (200, b"ok"))

        status, _, body = self.server.request("GET", "/readyz/nope")
        self.assertEqual(status, 404, body)

        for path in ("/livez", "/healthz"):
            with self.subTest(path=path):
                status, _, body = self.server.request("GET", path)
                self.assertEqual((status, body), (200, b"ok"))

    # 12
    def test_metrics(self):
        for _ in range(3):
            self.assertEqual(self.server.request("GET", "/api")[0], 200)
        status, _, body = self.server.request("GET", "/metrics")
        self.assertEqual(status, 200)
        text = body.decode()
        self.assertIn("apiserver_request_total{", text)
        totals = [l for l in text.splitlines()
                  if l.startswith("apiserver_request_total{")]
        self.assertTrue(
            any('code="200"' in l and 'verb="GET"' in l for l in totals),
            "\n".join(totals))
        self.assertIn("apiserver_request_duration_seconds_bucket{", text)
        self.assertIn(
            'apiserver_current_inflight_requests{request_kind="readOnly"}',
            text)

    # 13
    def test_audit_id_and_cache_control(self):
        cases = [("/readyz", True, 200), ("/api", True, 200),
                 ("/version", True, 200), ("/foo/bar", True, 404),
                 ("/api", False, 401), ("/readyz", False, 401)]
        seen = set()
        for path, cert, code in cases:
            with self.subTest(path=path, cert=cert):
                status, headers, body = self.server.request(
                    "GET", path, cert=cert)
                self.assertEqual(status, code, body)
                audit = headers.get("audit-id")
                self.assertIsNotNone(audit, headers)
                self.assertRegex(audit, UUID_RE)
                self.assertNotIn(audit, seen)
                seen.add(audit)
                self.assertEqual(headers.get("cache-control"),
                                 "no-cache, private")

    # 13 (for the 413 answer too)
    def test_audit_id_and_cache_control_on_413(self):
        status, headers, body = self.server.request(
            "POST", "/api/v1/namespaces", body=big_namespace_body(),
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 413, body)
        self.assertEqual(headers.get("cache-control"), "no-cache, private")
        self.assertIn("audit-id", headers, headers)

    # 15
    def test_tls_versions_and_alpn(self):
        # A TLS 1.1-only client: the server must refuse the handshake.
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.load_verify_locations(self.server.ca_file)
        old.set_ciphers("DEFAULT:@SECLEVEL=0")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            old.minimum_version = ssl.TLSVersion.TLSv1_1
            old.maximum_version = ssl.TLSVersion.TLSv1_1
        with self.assertRaises(ssl.SSLError) as cm:
            with socket.create_connection(("127.0.0.1", self.server.port),
                                          timeout=5) as s:
                with old.wrap_socket(s, server_hostname="127.0.0.1"):
                    pass
        # Make sure it was the server that refused (protocol alert), not a
        # local OpenSSL policy.
        self.assertIn("PROTOCOL_VERSION", str(cm.exception).upper())

        # ALPN h2 + http/1.1 -> http/1.1.
        ctx = self.server.ssl_context(True)
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        conn = self.server.connection(context=ctx)
        self.addCleanup(conn.close)
        conn.connect()
        self.assertEqual(conn.sock.selected_alpn_protocol(), "http/1.1")
        self.assertIn(conn.sock.version(), ("TLSv1.2", "TLSv1.3"))
        conn.request("GET", "/readyz")
        resp = conn.getresponse()
        self.assertEqual((resp.status, resp.read()), (200, b"ok"))

        # ALPN h2 only -> no protocol selected, but the connection works.
        ctx = self.server.ssl_context(True)
        ctx.set_alpn_protocols(["h2"])
        conn2 = self.server.connection(context=ctx)
        self.addCleanup(conn2.close)
        conn2.connect()
        self.assertIsNone(conn2.sock.selected_alpn_protocol())
        conn2.request("GET", "/readyz")
        resp = conn2.getresponse()
        self.assertEqual((resp.status, resp.read()), (200, b"ok"))

    # 19
    def test_malformed_request_gets_400(self):
        resp = tls_raw_exchange(self.server, b"GARBAGE\r\n\r\n")
        self.assertTrue(resp.startswith(b"HTTP/1.1 400"), resp[:300])
        status, _, body = self.server.request("GET", "/readyz")
        self.assertEqual((status, body), (200, b"ok"))

    # 19
    def test_huge_request_header_gets_431(self):
        big = b"a" * (1024 * 1024 + 1024)
        req = (b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + big +
               b"\r\n\r\n")
        resp = tls_raw_exchange(self.server, req)
        self.assertTrue(resp.startswith(b"HTTP/1.1 431"), resp[:300])
        status, _, body = self.server.request("GET", "/readyz")
        self.assertEqual((status, body), (200, b"ok"))

    # 20
    def test_keep_alive(self):
        conn = self.server.connection()
        self.addCleanup(conn.close)
        conn.request("GET", "/readyz")
        r1 = conn.getresponse()
        self.assertEqual((r1.status, r1.read()), (200, b"ok"))
        sock = conn.sock
        self.assertIsNotNone(sock, "server closed the connection")
        conn.request("GET", "/api")
        r2 = conn.getresponse()
        self.assertEqual(r2.status, 200)
        self.assertEqual(json.loads(r2.read())["kind"], "APIVersions")
        self.assertIs(conn.sock, sock, "second request used a new socket")


class AnonymousRBACTests(unittest.TestCase):
    """--anonymous-auth=true --authorization-mode=RBAC: anonymous users get what the
    bootstrap policy binds to system:unauthenticated (system:public-info-viewer)."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--anonymous-auth=true",
                            "--authorization-mode=RBAC")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    # 5
    def test_anonymous_health_and_version_allowed(self):
        status, _, body = self.server.request("GET", "/readyz", cert=False)
        self.assertEqual((status, body), (200, b"ok"))
        status, _, body = self.server.request("GET", "/version", cert=False)
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["major"], "1")

    # 5
    def test_anonymous_forbidden_path(self):
        status, headers, body = self.server.request("GET", "/api",
                                                    cert=False)
        self.assertEqual(status, 403, body)
        obj = status_json(self, body)
        self.assertEqual(obj["reason"], "Forbidden")
        self.assertEqual(obj["code"], 403)
        self.assertEqual(
            obj["message"],
            'forbidden: User "system:anonymous" cannot get path "/api"')
        # 13: the 403 carries the common headers as well.
        self.assertRegex(headers.get("audit-id", ""), UUID_RE)
        self.assertEqual(headers.get("cache-control"), "no-cache, private")

    # 5
    def test_anonymous_forbidden_resource(self):
        status, _, body = self.server.request(
            "GET", "/api/v1/namespaces", cert=False)
        self.assertEqual(status, 403, body)
        obj = status_json(self, body)
        self.assertEqual(obj["reason"], "Forbidden")
        self.assertEqual(
            obj["message"],
            'namespaces is forbidden: User "system:anonymous" cannot list '
            'resource "namespaces" in API group "" at the cluster scope')

    # 5
    def test_admin_still_allowed(self):
        status, _, body = self.server.request("GET", "/api")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["kind"], "APIVersions")


TOKEN_CSV = 'tok123,alice,uid-1,"dev,ops"\n'


class TokenAuthTests(unittest.TestCase):
    """--token-auth-file (default AlwaysAllow server)."""

    @classmethod
    def setUpClass(cls):
        cls.tokdir = tempfile.mkdtemp(prefix="kas-it-tok-")
        cls.token_file = os.path.join(cls.tokdir, "tokens.csv")
        with open(cls.token_file, "w") as f:
            f.write(TOKEN_CSV)
        try:
            cls.server = Server("--token-auth-file", cls.token_file)
        except BaseException:
            shutil.rmtree(cls.tokdir, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tokdir, True)

    # 6
    def test_bearer_token_allowed(self):
        status, _, body = self.server.request("GET", "/api", cert=False,
                                              token="tok123")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["kind"], "APIVersions")

    # 6
    def test_client_cert_still_works(self):
        status, _, body = self.server.request("GET", "/api")
        self.assertEqual(status, 200, body)

    # 6
    def test_wrong_token_unauthorized(self):
        status, _, body = self.server.request("GET", "/api", cert=False,
                                              token="nope")
        self.assertEqual(status, 401, body)
        self.assertEqual(status_json(self, body)["reason"], "Unauthorized")

    # 6
    def test_wrong_token_unauthorized_even_with_anonymous(self):
        srv = Server("--token-auth-file", self.token_file,
                     "--anonymous-auth=true", "--authorization-mode=AlwaysDeny")
        self.addCleanup(srv.stop)
        status, _, body = srv.request("GET", "/api", cert=False,
                                      token="wrong-token")
        self.assertEqual(status, 401, body)
        obj = status_json(self, body)
        self.assertEqual(obj["reason"], "Unauthorized")
        self.assertEqual(obj["message"], "Unauthorized")
        # The right token authenticates alice, whom AlwaysDeny forbids
        # (upstream appends the authorizer's reason to the message).
        status, _, body = srv.request("GET", "/api", cert=False,
                                      token="tok123")
        self.assertEqual(status, 403, body)
        self.assertEqual(status_json(self, body)["message"],
                         'forbidden: User "alice" cannot get path "/api": '
                         'Everything is forbidden.')
        # Anonymous (no credentials at all) is 403, not 401.
        status, _, body = srv.request("GET", "/api", cert=False)
        self.assertEqual(status, 403, body)
        # The admin cert is still allowed (system:masters).
        status, _, body = srv.request("GET", "/api")
        self.assertEqual(status, 200, body)

    # 6
    def test_kubectl_with_token_kubeconfig(self):
        kc = os.path.join(self.tokdir, "token.kubeconfig")
        write_kubeconfig(kc, self.server, "    token: tok123")
        r = self.server.kubectl("version", "-o", "json", kubeconfig=kc)
        self.assertEqual(r.returncode, 0, r.stderr)
        sv = json.loads(r.stdout)["serverVersion"]
        self.assertEqual(sv["major"], "1")
        self.assertEqual(sv["minor"], "32")

    # The review APIs answer with this server's authenticator and authorizer.
    def test_token_review(self):
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                  "spec": {"token": "tok123"}}
        status, _, body = self.server.request(
            "POST", "/apis/authentication.k8s.io/v1/tokenreviews", json.dumps(review),
            {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        # A token that names no audience is good for the server's.
        self.assertEqual(json.loads(body)["status"], {
            "authenticated": True,
            "user": {"username": "alice", "uid": "uid-1",
                     "groups": ["dev", "ops", "system:authenticated"]},
            "audiences": ["https://kubernetes.default.svc.cluster.local"]})

        def ask(token, audiences=None):
            review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                      "spec": {"token": token}}
            if audiences is not None:
                review["spec"]["audiences"] = audiences
            status, _, body = self.server.request(
                "POST", "/apis/authentication.k8s.io/v1/tokenreviews", json.dumps(review),
                {"Content-Type": "application/json"})
            self.assertEqual(status, 201, body)
            return json.loads(body)["status"]
        self.assertNotIn("authenticated", ask("nope"))
        # ... and for no other.
        self.assertEqual(ask("tok123", ["vault"]), {"user": {}})
        # A service-account token made for another audience is reviewed for that one.
        r = self.server.kubectl("create", "serviceaccount", "reviewed")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.server.kubectl("create", "token", "reviewed", "--audience=vault",
                                "--audience=other")
        self.assertEqual(r.returncode, 0, r.stderr)
        token = r.stdout.strip()
        answer = ask(token, ["vault"])
        self.assertTrue(answer["authenticated"], answer)
        self.assertEqual(answer["user"]["username"], "system:serviceaccount:default:reviewed")
        self.assertEqual(answer["audiences"], ["vault"])
        refused = ask(token)
        self.assertNotIn("authenticated", refused)
        self.assertEqual(refused["error"], 'token audiences ["vault" "other"] is invalid for the '
                         'target audiences ["https://kubernetes.default.svc.cluster.local"]')

    def test_kubectl_auth_with_token_kubeconfig(self):
        kc = os.path.join(self.tokdir, "whoami.kubeconfig")
        write_kubeconfig(kc, self.server, "    token: tok123")
        r = self.server.kubectl("auth", "whoami", "-o", "json", kubeconfig=kc)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"]["userInfo"], {
            "username": "alice", "uid": "uid-1",
            "groups": ["dev", "ops", "system:authenticated"]})
        r = self.server.kubectl("auth", "can-i", "list", "pods", kubeconfig=kc)
        self.assertEqual((r.returncode, r.stdout), (0, "yes\n"), r.stderr)


class LifecycleTests(unittest.TestCase):

    # 14
    def test_sigterm_clean_exit(self):
        srv = Server()
        self.addCleanup(srv.stop)
        status, _, body = srv.request("GET", "/api")
        self.assertEqual(status, 200, body)
        t0 = time.monotonic()
        srv.signal(signal.SIGTERM)
        rc = srv.wait(5)
        elapsed = time.monotonic() - t0
        self.assertIsNotNone(rc, "server did not exit within 5 s of SIGTERM")
        self.assertEqual(rc, 0, srv.log())
        self.assertLess(elapsed, 5)
        self.assertIn("shutting down", srv.log())

    # 16
    def test_restart_reuses_certificates(self):
        data = tempfile.mkdtemp(prefix="kas-it-restart-")
        self.addCleanup(lambda: shutil.rmtree(data, True))
        port = harness.free_port()

        first = Server(data_dir=data, port=port)
        self.addCleanup(first.stop)
        pki = os.path.join(data, "pki")

        def read(name):
            with open(os.path.join(pki, name), "rb") as f:
                return f.read()

        before = {n: read(n) for n in ("ca.crt", "apiserver.crt",
                                       "admin.crt")}
        self.assertEqual(first.stop(), 0)

        second = Server(data_dir=data, port=port)
        self.addCleanup(second.stop)
        for name, content in before.items():
            with self.subTest(file=name):
                self.assertEqual(read(name), content,
                                 "%s changed on restart" % name)
        self.assertNotIn("generating", second.log())

        r = second.kubectl("get", "--raw", "/readyz")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "ok")
        r = second.kubectl("version", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["serverVersion"]["minor"], "32")


class CommandLineTests(unittest.TestCase):

    # 17
    def test_bad_flags(self):
        parent = tempfile.mkdtemp(prefix="kas-it-flags-")
        self.addCleanup(lambda: shutil.rmtree(parent, True))
        data = os.path.join(parent, "does-not-exist", "data")
        r = run([harness.BINARY, "--data-dir", data,
                 "--secure-port", "0", "--bind-address", "nope",
                 "--authorization-mode", "Foo",
                 "--storage-backend", "etcd3",
                 "--max-requests-inflight", "-1", "--no-such-flag"],
                timeout=10)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for want in ("--secure-port 0 must be between 1 and 65535",
                     '--bind-address "nope" is not a valid IP address',
                     'authorization-mode "Foo" is not a valid mode',
                     "--etcd-servers must be specified",
                     "--max-requests-inflight can not be negative value",
                     "unknown flag: --no-such-flag"):
            with self.subTest(error=want):
                self.assertIn(want, r.stderr)
        self.assertFalse(os.path.exists(data), "data dir was created")
        self.assertFalse(os.path.exists(os.path.dirname(data)),
                         "data dir parent was created")

    # 18
    def test_help_and_version(self):
        r = run([harness.BINARY, "--help"], timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--secure-port", r.stdout)
        r = run([harness.BINARY, "--version"], timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Kubernetes v1.32.", r.stdout)


if __name__ == "__main__":
    unittest.main()
