"""Integration tests: bearer tokens of the authenticators that read the cluster or a
remote issuer, through the real binary and real kubectl.

--enable-bootstrap-token-auth: a token "<id>.<secret>" is the user system:bootstrap:<id>
(in system:bootstrappers and the Secret's auth-extra-groups) while kube-system holds its
Secret bootstrap-token-<id> of type bootstrap.kubernetes.io/token, marked for
authentication and not expired; RBAC bindings to those groups apply to it, as kubeadm's
node bootstrap uses them. Any other such token, an expired one, one not marked for
authentication, a wrong secret and a deleted Secret are 401 for kubectl. Without the flag
no bootstrap token is accepted.

--oidc-issuer-url and the other --oidc-* flags, against an OpenID provider the test serves
over HTTPS (discovery document and JWKS, tokens signed here with RSA and EC keys): a token
of the issuer is its subject prefixed with the issuer (the groups claim with its prefix,
the jti as credential ID) once its signature, audience, expiry and required claims check;
expired, wrong-audience, wrong-signature, unsupported-algorithm tokens and those missing a
required claim are 401; keys the provider rotates in are fetched when a token names one; an
issuer that does not answer leaves its tokens refused; bad flags stop the server with
upstream's messages.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_authenticators -v
"""

import base64
import json
import os
import shutil
import tempfile
import time
import unittest

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

import harness

UNAUTHORIZED = "error: You must be logged in to the server (Unauthorized)"


def token_secret(name_id, secret, **data):
    """A bootstrap token Secret of kube-system named for name_id, its data in clear
    (stringData); keyword arguments add or replace (None: remove) data keys."""
    string_data = {"token-id": name_id, "token-secret": secret,
                   "usage-bootstrap-authentication": "true"}
    string_data.update({k.replace("_", "-"): v for k, v in data.items()})
    string_data = {k: v for k, v in string_data.items() if v is not None}
    return {"apiVersion": "v1", "kind": "Secret", "type": "bootstrap.kubernetes.io/token",
            "metadata": {"name": "bootstrap-token-" + name_id, "namespace": "kube-system"},
            "stringData": string_data}


class BootstrapTokenTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-bootstrap-token-")
        try:
            cls.server = harness.Server("--enable-bootstrap-token-auth",
                                        "--authorization-mode=RBAC")
        except BaseException:
            shutil.rmtree(cls.tmp, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, True)

    def admin(self, *args, stdin=None):
        if stdin is None:
            return self.server.kubectl(*args)
        path = os.path.join(self.tmp, "input.json")
        with open(path, "w") as f:
            json.dump(stdin, f)
        return self.server.kubectl(*args, "-f", path)

    def ok(self, *args, stdin=None):
        r = self.admin(*args, stdin=stdin)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def as_token(self, token, *args):
        path = os.path.join(self.tmp, token.replace(".", "-") + ".kubeconfig")
        harness.write_kubeconfig(path, self.server, "    token: " + token)
        return self.server.kubectl(*args, kubeconfig=path)

    def whoami(self, token):
        """Waits until the token is accepted (the Secret reaches the authenticator through
        the watch cache); its userInfo."""
        def probe():
            r = self.as_token(token, "auth", "whoami", "-o", "json")
            return r.returncode == 0, r
        r = harness.wait_for(probe, 10, "the token accepted")
        return json.loads(r.stdout)["status"]["userInfo"]

    def refused(self, token):
        """Waits until the token is refused as kubectl shows it."""
        def probe():
            r = self.as_token(token, "get", "--raw", "/api")
            return r.returncode != 0 and UNAUTHORIZED in r.stderr, r
        harness.wait_for(probe, 10, "the token refused")

    def test_a_token_is_the_user_of_its_secret(self):
        self.ok("create", stdin=token_secret(
            "abc123", "0123456789abcdef", expiration="2099-01-01T00:00:00Z",
            auth_extra_groups="system:bootstrappers:worker,system:bootstrappers:kubeadm:x"))
        self.assertEqual(self.whoami("abc123.0123456789abcdef"), {
            "username": "system:bootstrap:abc123",
            "groups": ["system:bootstrappers", "system:bootstrappers:kubeadm:x",
                       "system:bootstrappers:worker", "system:authenticated"]})
        # RBAC applies to its groups: kubeadm's binding of bootstrappers to the
        # node-bootstrapper role lets it ask for a certificate, nothing more.
        can_i = ("auth", "can-i", "create", "certificatesigningrequests.certificates.k8s.io")
        r = self.as_token("abc123.0123456789abcdef", *can_i)
        self.assertEqual(r.stdout.strip(), "no", r.stderr)
        self.ok("create", "clusterrolebinding", "kubeadm:kubelet-bootstrap",
                "--clusterrole=system:node-bootstrapper", "--group=system:bootstrappers:worker")

        def allowed():
            r = self.as_token("abc123.0123456789abcdef", *can_i)
            return r.stdout.strip() == "yes", r
        harness.wait_for(allowed, 10, "the binding applied")
        r = self.as_token("abc123.0123456789abcdef", "get", "secrets", "-n", "kube-system")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('User "system:bootstrap:abc123" cannot list resource "secrets" in API '
                      'group "" in the namespace "kube-system"', r.stderr)
        # Its Secret deleted, the token is refused.
        self.ok("delete", "secret", "-n", "kube-system", "bootstrap-token-abc123")
        self.refused("abc123.0123456789abcdef")

    def test_tokens_their_secrets_do_not_allow_are_refused(self):
        secrets = [
            token_secret("exp001", "0123456789abcdef", expiration="2020-01-01T00:00:00Z"),
            token_secret("use001", "0123456789abcdef", usage_bootstrap_authentication=None,
                         usage_bootstrap_signing="true"),
            token_secret("grp001", "0123456789abcdef", auth_extra_groups="system:masters"),
            token_secret("sec001", "0123456789abcdef"),
            token_secret("idx001", "0123456789abcdef", token_id="other1"),
        ]
        self.ok("create", stdin={"apiVersion": "v1", "kind": "List", "items": secrets})
        # A valid one made last: once it is accepted, the others have been seen too.
        self.ok("create", stdin=token_secret("good01", "0123456789abcdef"))
        self.whoami("good01.0123456789abcdef")
        for token in ("exp001.0123456789abcdef", "use001.0123456789abcdef",
                      "grp001.0123456789abcdef", "sec001.0123456789abcdeX",
                      "sec001.0123456789abcdee", "idx001.0123456789abcdef",
                      "nosec1.0123456789abcdef"):
            r = self.as_token(token, "get", "--raw", "/api")
            self.assertNotEqual(r.returncode, 0, token)
            self.assertIn(UNAUTHORIZED, r.stderr, token)
        # The API's own refusal, as upstream words it.
        status, _, body = self.server.request("GET", "/api", cert=False,
                                              token="exp001.0123456789abcdef")
        self.assertEqual(status, 401, body)
        self.assertEqual(json.loads(body)["message"], "Unauthorized")


class BootstrapTokenDisabledTest(unittest.TestCase):
    def test_tokens_are_refused_without_the_flag(self):
        server = harness.Server()
        self.addCleanup(server.stop)
        path = os.path.join(server.tmpdir, "secret.json")
        with open(path, "w") as f:
            json.dump(token_secret("off001", "0123456789abcdef"), f)
        r = server.kubectl("create", "-f", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        kubeconfig = os.path.join(server.tmpdir, "token.kubeconfig")
        harness.write_kubeconfig(kubeconfig, server, "    token: off001.0123456789abcdef")
        r = server.kubectl("auth", "whoami", kubeconfig=kubeconfig)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(UNAUTHORIZED, r.stderr)



def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def number(n):
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


class SigningKey:
    """An RSA (RS256) or EC P-256 (ES256) key with its kid; signs compact JWTs."""

    def __init__(self, kid, alg="RS256"):
        self.kid, self.alg = kid, alg
        if alg == "RS256":
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            self.key = ec.generate_private_key(ec.SECP256R1())

    def jwk(self):
        public = self.key.public_key().public_numbers()
        if self.alg == "RS256":
            return {"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                    "n": number(public.n), "e": number(public.e)}
        return {"kty": "EC", "kid": self.kid, "use": "sig", "alg": "ES256", "crv": "P-256",
                "x": b64url(public.x.to_bytes(32, "big")),
                "y": b64url(public.y.to_bytes(32, "big"))}

    def sign(self, claims, header=None):
        head = {"alg": self.alg, "kid": self.kid, "typ": "JWT"}
        head.update(header or {})
        signing_input = (b64url(json.dumps(head).encode()) + "." +
                         b64url(json.dumps(claims).encode())).encode()
        if self.alg == "RS256":
            signature = self.key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            r, s = decode_dss_signature(self.key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return signing_input.decode() + "." + b64url(signature)


class OIDCProvider:
    """An OpenID provider over HTTPS (harness.Webhook's server) on a free loopback port: the
    discovery document and the JWKS of `keys` (replace it to rotate). fetches counts the
    GETs of each path."""

    def __init__(self, keys):
        self.keys = keys
        self.fetches = {}
        self.service = harness.Webhook(respond_get=self.answer)
        self.cert = self.service.cert
        self.issuer = self.service.url

    def answer(self, path):
        self.fetches[path] = self.fetches.get(path, 0) + 1
        if path == "/.well-known/openid-configuration":
            return 200, {"issuer": self.issuer, "jwks_uri": self.issuer + "/keys",
                         "response_types_supported": ["id_token"],
                         "subject_types_supported": ["public"],
                         "id_token_signing_alg_values_supported": ["RS256", "ES256"]}
        if path == "/keys":
            return 200, {"keys": [k.jwk() for k in self.keys]}
        return 404, None

    def stop(self):
        self.service.stop()


class OIDCTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-oidc-")
        cls.rsa = SigningKey("rsa-1")
        cls.ec = SigningKey("ec-1", "ES256")
        cls.provider = OIDCProvider([cls.rsa, cls.ec])
        try:
            cls.server = harness.Server(
                "--oidc-issuer-url", cls.provider.issuer, "--oidc-client-id", "kubectl",
                "--oidc-ca-file", cls.provider.cert, "--oidc-groups-claim", "groups",
                "--oidc-groups-prefix", "oidc:", "--oidc-required-claim", "hd=example.com",
                "--oidc-signing-algs", "RS256,ES256", "-v=2")
        except BaseException:
            cls.provider.stop()
            shutil.rmtree(cls.tmp, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.provider.stop()
        shutil.rmtree(cls.tmp, True)

    def claims(self, **overrides):
        now = int(time.time())
        claims = {"iss": self.provider.issuer, "sub": "alice", "aud": "kubectl",
                  "iat": now, "exp": now + 600, "hd": "example.com",
                  "groups": ["dev", "ops"], "jti": "id-1"}
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def kubectl_with(self, token, *args):
        path = os.path.join(self.tmp, "token.kubeconfig")
        harness.write_kubeconfig(path, self.server, "    token: " + token)
        return self.server.kubectl(*args, kubeconfig=path)

    def whoami(self, token):
        r = self.kubectl_with(token, "auth", "whoami", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr + self.server.log()[-2000:])
        return json.loads(r.stdout)["status"]["userInfo"]

    def assert_refused(self, token, why):
        status, _, body = self.server.request("GET", "/api", cert=False, token=token)
        self.assertEqual(status, 401, why + ": " + body.decode())
        r = self.kubectl_with(token, "get", "--raw", "/api")
        self.assertNotEqual(r.returncode, 0, why)
        self.assertIn(UNAUTHORIZED, r.stderr, why)

    def test_a_token_of_the_issuer_is_its_subject(self):
        self.assertEqual(self.whoami(self.rsa.sign(self.claims())), {
            "username": self.provider.issuer + "#alice",
            "groups": ["oidc:dev", "oidc:ops", "system:authenticated"],
            "extra": {"authentication.kubernetes.io/credential-id": ["JTI=id-1"]}})
        # ES256 is allowed too; a lone group is a string.
        user = self.whoami(self.ec.sign(self.claims(sub="bob", groups="qa", jti=None)))
        self.assertEqual(user, {"username": self.provider.issuer + "#bob",
                                "groups": ["oidc:qa", "system:authenticated"]})
        # aud may be a list holding the client ID among others.
        self.whoami(self.rsa.sign(self.claims(aud=["other", "kubectl"])))

    def test_invalid_tokens_are_unauthorized(self):
        other = SigningKey("rsa-1")  # the same kid, another key
        now = int(time.time())
        cases = {
            "expired": self.rsa.sign(self.claims(exp=now - 10)),
            "no exp": self.rsa.sign(self.claims(exp=None)),
            "not yet valid": self.rsa.sign(self.claims(nbf=now + 3600)),
            "wrong audience": self.rsa.sign(self.claims(aud="someone-else")),
            "no audience": self.rsa.sign(self.claims(aud=None)),
            "wrong signature": other.sign(self.claims()),
            "tampered": self.rsa.sign(self.claims())[:-4] + "AAAA",
            "missing required claim": self.rsa.sign(self.claims(hd=None)),
            "wrong required claim": self.rsa.sign(self.claims(hd="evil.com")),
            "unknown kid": other.sign(self.claims(), header={"kid": "nope"}),
            "alg none": self.rsa.sign(self.claims(), header={"alg": "none"}),
            "RS256 key as PS256": self.rsa.sign(self.claims(), header={"alg": "PS256"}),
            "another issuer": self.rsa.sign(self.claims(iss="https://elsewhere.example")),
            "groups of numbers": self.rsa.sign(self.claims(groups=[1, 2])),
        }
        for why, token in cases.items():
            with self.subTest(why):
                self.assert_refused(token, why)
        self.assertIn("oidc: verify token: oidc: token is expired", self.server.log())

    def test_rotated_keys_are_fetched(self):
        rotated = SigningKey("rsa-2")
        token = rotated.sign(self.claims(sub="carol"))
        self.assert_refused(token, "a key the provider does not publish yet")
        before = self.provider.fetches.get("/keys", 0)
        self.provider.keys = [rotated, self.ec]
        self.assertEqual(self.whoami(token)["username"], self.provider.issuer + "#carol")
        self.assertEqual(self.provider.fetches["/keys"], before + 1)
        # Known keys are not fetched again.
        self.whoami(token)
        self.assertEqual(self.provider.fetches["/keys"], before + 1)
        self.assertEqual(self.provider.fetches["/.well-known/openid-configuration"], 1)
        self.provider.keys = [self.rsa, self.ec]


class OIDCOptionsTest(unittest.TestCase):
    def refused(self, *args):
        server = harness.Server(*args, start=False)
        self.addCleanup(server.stop)
        out = harness.run(server.command(), timeout=30)
        self.assertEqual(out.returncode, 1, out.stderr)
        return out.stderr

    def test_refused_options(self):
        self.assertIn("oidc-issuer-url and oidc-client-id must be specified together when any "
                      "oidc-* flags are set",
                      self.refused("--oidc-issuer-url", "https://issuer.example"))
        self.assertIn('invalid authentication configuration: jwt[0].issuer.url: Invalid value: '
                      '"http://issuer.example": URL scheme must be https',
                      self.refused("--oidc-issuer-url", "http://issuer.example",
                                   "--oidc-client-id", "k"))
        self.assertIn('oidc: unsupported signing alg: "HS256"',
                      self.refused("--oidc-issuer-url", "https://issuer.example",
                                   "--oidc-client-id", "k", "--oidc-signing-algs", "HS256"))
        self.assertIn("open /nonexistent/ca.crt: no such file or directory",
                      self.refused("--oidc-issuer-url", "https://issuer.example",
                                   "--oidc-client-id", "k", "--oidc-ca-file",
                                   "/nonexistent/ca.crt"))
        self.assertIn("malformed pair, expect string=string",
                      self.refused("--oidc-required-claim", "hd"))

    def test_an_issuer_that_does_not_answer(self):
        port = harness.free_port()
        issuer = "https://127.0.0.1:%d" % port
        server = harness.Server("--oidc-issuer-url", issuer, "--oidc-client-id", "kubectl",
                                "-v=2")
        self.addCleanup(server.stop)
        harness.wait_for(lambda: ("oidc authenticator: initializing plugin" in server.log(),
                                  server.log()[-500:]), 10, "the failed discovery logged")
        now = int(time.time())
        token = SigningKey("k").sign({"iss": issuer, "sub": "x", "aud": "kubectl",
                                      "exp": now + 600})
        status, _, body = server.request("GET", "/api", cert=False, token=token)
        self.assertEqual(status, 401, body)
        self.assertIn("oidc: authenticator not initialized", server.log())


if __name__ == "__main__":
    unittest.main()
