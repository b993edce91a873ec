"""Integration tests: the front proxy (request-header authentication) and the
kube-system/extension-apiserver-authentication ConfigMap.

The server generates a front-proxy CA and client certificate beside its own
CA; a request with that client certificate names its user in X-Remote-User /
X-Remote-Group / X-Remote-Extra-*, as the aggregator of this or another
kube-apiserver does. The same headers from anyone else are ignored.

Run with:
    /usr/bin/python3 -m unittest test_front_proxy
"""

import json
import os
import shutil
import stat
import tempfile
import unittest

import harness
from harness import Server, run

CONFIGMAP = ("/api/v1/namespaces/kube-system/configmaps/"
             "extension-apiserver-authentication")
REVIEWS = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
TOKEN_CSV = "tok-bob,bob,uid-bob,team\n"
ALICE = {"X-Remote-User": "alice", "X-Remote-Group": "g1"}


def openssl(*args):
    r = run([harness.OPENSSL] + list(args))
    if r.returncode != 0:
        raise RuntimeError("openssl %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def issue(directory, name, cn, ca_crt, ca_key):
    """A client certificate for cn signed by ca_crt/ca_key: (crt, key)."""
    key = os.path.join(directory, name + ".key")
    csr = os.path.join(directory, name + ".csr")
    crt = os.path.join(directory, name + ".crt")
    ext = os.path.join(directory, name + ".ext")
    with open(ext, "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=" + cn,
            "-keyout", key, "-out", csr)
    openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key,
            "-CAcreateserial", "-days", "1", "-extfile", ext, "-out", crt)
    return crt, key


def self_signed_ca(directory, name):
    crt = os.path.join(directory, name + ".crt")
    key = os.path.join(directory, name + ".key")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=" + name, "-keyout", key, "-out", crt,
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return crt, key


def read(path):
    with open(path) as f:
        return f.read()


class FrontProxyTests(unittest.TestCase):
    """One server with the generated front proxy and a token file."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-fp-")
        cls.token_file = os.path.join(cls.tmp, "tokens.csv")
        with open(cls.token_file, "w") as f:
            f.write(TOKEN_CSV)
        try:
            cls.server = Server("--token-auth-file", cls.token_file)
        except BaseException:
            shutil.rmtree(cls.tmp, True)
            raise
        pki = cls.server.pki
        cls.fp_ca = (os.path.join(pki, "front-proxy-ca.crt"),
                     os.path.join(pki, "front-proxy-ca.key"))
        cls.fp_client = (os.path.join(pki, "front-proxy-client.crt"),
                         os.path.join(pki, "front-proxy-client.key"))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, True)

    def whoami(self, cert, headers=None, token=None):
        """POST a SelfSubjectReview; returns (status, body)."""
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        review = {"apiVersion": "authentication.k8s.io/v1",
                  "kind": "SelfSubjectReview"}
        status, _, body = self.server.request("POST", REVIEWS, json.dumps(review),
                                              hdrs, cert=cert, token=token)
        return status, body

    def user_of(self, cert, headers=None, token=None):
        status, body = self.whoami(cert, headers, token)
        self.assertEqual(status, 201, body)
        return json.loads(body)["status"]["userInfo"]

    # ---- the generated files --------------------------------------------
    def test_generated_files(self):
        for path in self.fp_ca + self.fp_client:
            self.assertTrue(os.path.isfile(path), path)
        for key in (self.fp_ca[1], self.fp_client[1]):
            self.assertEqual(stat.S_IMODE(os.stat(key).st_mode), 0o600, key)
        subject = openssl("x509", "-in", self.fp_client[0], "-noout",
                          "-subject", "-ext", "extendedKeyUsage")
        self.assertIn("CN = front-proxy-client", subject)
        self.assertIn("TLS Web Client Authentication", subject)
        self.assertIn("front-proxy-ca@",
                      openssl("x509", "-in", self.fp_ca[0], "-noout", "-subject"))
        # Signed by the front-proxy CA, not by the CA of client certificates.
        r = run([harness.OPENSSL, "verify", "-CAfile", self.fp_ca[0],
                 self.fp_client[0]])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run([harness.OPENSSL, "verify", "-CAfile", self.server.ca_file,
                 self.fp_client[0]])
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertNotEqual(read(self.fp_ca[0]), read(self.server.ca_file))

    # ---- the ConfigMap ---------------------------------------------------
    def test_configmap(self):
        status, _, body = self.server.request("GET", CONFIGMAP)
        self.assertEqual(status, 200, body)
        data = json.loads(body)["data"]
        self.assertEqual(data, {
            "client-ca-file": read(self.server.ca_file),
            "requestheader-client-ca-file": read(self.fp_ca[0]),
            "requestheader-allowed-names": '["front-proxy-client"]',
            "requestheader-username-headers": '["X-Remote-User"]',
            "requestheader-group-headers": '["X-Remote-Group"]',
            "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
        })
        r = self.server.kubectl("get", "configmap", "-n", "kube-system",
                                "extension-apiserver-authentication",
                                "-o", "jsonpath={.data.requestheader-allowed-names}")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, '["front-proxy-client"]')

    # ---- who the headers make a request ----------------------------------
    def test_front_proxy_names_the_user(self):
        headers = dict(ALICE)
        headers["X-Remote-Group"] = "g1"
        headers["X-Remote-Extra-Scopes"] = "read"
        headers["X-Remote-Extra-Example.com%2fTeam"] = "blue"
        self.assertEqual(self.user_of(self.fp_client, headers), {
            "username": "alice",
            "groups": ["g1", "system:authenticated"],
            "extra": {"scopes": ["read"], "example.com/team": ["blue"]},
        })

    def test_front_proxy_with_curl(self):
        review = json.dumps({"apiVersion": "authentication.k8s.io/v1",
                             "kind": "SelfSubjectReview"})
        r = self.server.curl("-X", "POST", "-H", "Content-Type: application/json",
                             "-H", "X-Remote-User: alice", "-H", "X-Remote-Group: g1",
                             "-H", "X-Remote-Group: g2", "-d", review,
                             "-w", "\n%{http_code}", self.server.url + REVIEWS,
                             cert=self.fp_client)
        self.assertEqual(r.returncode, 0, r.stderr)
        body, code = r.stdout.rsplit("\n", 1)
        self.assertEqual(code, "201", body)
        self.assertEqual(json.loads(body)["status"]["userInfo"], {
            "username": "alice", "groups": ["g1", "g2", "system:authenticated"]})

    def test_headers_ignored_with_admin_cert(self):
        self.assertEqual(self.user_of(True, ALICE), {
            "username": "admin",
            "groups": ["system:masters", "system:authenticated"]})

    def test_headers_ignored_without_cert(self):
        self.assertEqual(self.user_of(False, ALICE, token="tok-bob"), {
            "username": "bob", "uid": "uid-bob",
            "groups": ["team", "system:authenticated"]})
        # No credentials at all: anonymous is off (AlwaysAllow), so 401.
        status, body = self.whoami(False, ALICE)
        self.assertEqual(status, 401, body)

    def test_front_proxy_cert_without_headers_unauthorized(self):
        # As upstream: its CA is not a client CA, so the certificate is no user.
        status, body = self.whoami(self.fp_client)
        self.assertEqual(status, 401, body)
        self.assertEqual(json.loads(body)["reason"], "Unauthorized")
        status, body = self.whoami(self.fp_client, {"X-Remote-User": ""})
        self.assertEqual(status, 401, body)
        status, _, body = self.server.request("GET", "/api", cert=self.fp_client)
        self.assertEqual(status, 401, body)

    def test_front_proxy_cn_must_be_allowed(self):
        d = tempfile.mkdtemp(prefix="kas-it-fp-cn-")
        self.addCleanup(shutil.rmtree, d, True)
        mallory = issue(d, "mallory", "mallory", *self.fp_ca)
        status, body = self.whoami(mallory, ALICE)
        self.assertEqual(status, 401, body)
        # A second certificate with the allowed name is fine.
        other = issue(d, "proxy2", "front-proxy-client", *self.fp_ca)
        self.assertEqual(self.user_of(other, ALICE)["username"], "alice")

    def test_cert_of_another_ca_with_headers_unauthorized(self):
        d = tempfile.mkdtemp(prefix="kas-it-fp-ca-")
        self.addCleanup(shutil.rmtree, d, True)
        ca = self_signed_ca(d, "elsewhere")
        cert = issue(d, "proxy", "front-proxy-client", *ca)
        status, body = self.whoami(cert, ALICE)
        self.assertEqual(status, 401, body)


class FrontProxyLifecycleTests(unittest.TestCase):
    """Restarts, given proxy certificates, bad flags."""

    def test_restart_reuses_front_proxy(self):
        first = Server()
        self.addCleanup(first.cleanup)
        files = ["front-proxy-ca.crt", "front-proxy-ca.key",
                 "front-proxy-client.crt", "front-proxy-client.key"]
        before = {f: read(os.path.join(first.pki, f)) for f in files}
        self.assertEqual(first.stop(cleanup=False), 0)
        second = Server(data_dir=first.data_dir)
        self.addCleanup(second.stop)
        after = {f: read(os.path.join(second.pki, f)) for f in files}
        self.assertEqual(before, after)
        self.assertNotIn("generating", second.log())
        status, _, body = second.request("GET", CONFIGMAP)
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["data"]["requestheader-client-ca-file"],
                         before["front-proxy-ca.crt"])

    def test_authorization_sees_the_proxied_user(self):
        srv = Server("--authorization-mode=AlwaysDeny")
        self.addCleanup(srv.stop)
        proxy = (os.path.join(srv.pki, "front-proxy-client.crt"),
                 os.path.join(srv.pki, "front-proxy-client.key"))
        status, _, body = srv.request("GET", "/api", headers=ALICE, cert=proxy)
        self.assertEqual(status, 403, body)
        self.assertEqual(json.loads(body)["message"],
                         'forbidden: User "alice" cannot get path "/api": '
                         'Everything is forbidden.')
        masters = {"X-Remote-User": "alice", "X-Remote-Group": "system:masters"}
        status, _, body = srv.request("GET", "/api", headers=masters, cert=proxy)
        self.assertEqual(status, 200, body)

    def test_given_proxy_certificate(self):
        d = tempfile.mkdtemp(prefix="kas-it-fp-given-")
        self.addCleanup(shutil.rmtree, d, True)
        ca = self_signed_ca(d, "my-proxy-ca")
        crt, key = issue(d, "my-proxy", "my-proxy", *ca)
        # Without --requestheader-client-ca-file: no request-header authentication,
        # and the ConfigMap has the client CAs only (as upstream).
        srv = Server("--proxy-client-cert-file", crt, "--proxy-client-key-file", key)
        self.addCleanup(srv.stop)
        self.assertFalse(os.path.exists(os.path.join(srv.pki, "front-proxy-ca.crt")))
        self.assertFalse(os.path.exists(os.path.join(srv.pki, "front-proxy-client.crt")))
        status, _, body = srv.request("GET", CONFIGMAP)
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["data"],
                         {"client-ca-file": read(srv.ca_file)})
        status, _, body = srv.request("GET", "/api", headers=ALICE, cert=(crt, key))
        self.assertEqual(status, 401, body)
        srv.stop()

        # With it and the standard headers: that proxy names users.
        srv = Server("--proxy-client-cert-file", crt, "--proxy-client-key-file", key,
                     "--requestheader-client-ca-file", ca[0],
                     "--requestheader-allowed-names", "my-proxy",
                     "--requestheader-username-headers", "X-Remote-User",
                     "--requestheader-group-headers", "X-Remote-Group",
                     "--requestheader-extra-headers-prefix", "X-Remote-Extra-")
        self.addCleanup(srv.stop)
        status, _, body = srv.request("GET", CONFIGMAP)
        data = json.loads(body)["data"]
        self.assertEqual(data["requestheader-client-ca-file"], read(ca[0]))
        self.assertEqual(data["requestheader-allowed-names"], '["my-proxy"]')
        review = json.dumps({"apiVersion": "authentication.k8s.io/v1",
                             "kind": "SelfSubjectReview"})
        hdrs = dict(ALICE, **{"Content-Type": "application/json"})
        status, _, body = srv.request("POST", REVIEWS, review, hdrs, cert=(crt, key))
        self.assertEqual(status, 201, body)
        self.assertEqual(json.loads(body)["status"]["userInfo"]["username"], "alice")

    def test_bad_flags(self):
        d = tempfile.mkdtemp(prefix="kas-it-fp-flags-")
        self.addCleanup(shutil.rmtree, d, True)
        cases = [
            (["--proxy-client-cert-file", "/etc/hostname"],
             "--proxy-client-cert-file and --proxy-client-key-file must be given together"),
            (["--proxy-client-key-file", "/nonexistent/k"],
             '--proxy-client-key-file "/nonexistent/k": no such file'),
            (["--requestheader-client-ca-file", "/nonexistent/ca"],
             '--requestheader-client-ca-file "/nonexistent/ca": no such file'),
            (["--requestheader-username-headers", "X-Remote-User,"],
             'empty value in "requestheader-username-headers"'),
        ]
        for args, message in cases:
            r = run([harness.BINARY, "--data-dir", os.path.join(d, "data")] + args)
            self.assertEqual(r.returncode, 1, (args, r.stderr))
            self.assertIn(message, r.stderr)
            # Refused before anything is written.
            self.assertFalse(os.path.exists(os.path.join(d, "data")))

    def test_help_lists_the_flags(self):
        r = run([harness.BINARY, "--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for flag in ["--proxy-client-cert-file", "--proxy-client-key-file",
                     "--enable-aggregator-routing", "--requestheader-client-ca-file",
                     "--requestheader-allowed-names", "--requestheader-username-headers",
                     "--requestheader-group-headers",
                     "--requestheader-extra-headers-prefix"]:
            self.assertIn(flag, r.stdout)
        self.assertNotIn("--requestheader-uid-headers", r.stdout)


if __name__ == "__main__":
    unittest.main()
