"""Integration tests: the server asking real HTTPS services the test runs, through the
real binary and real kubectl.

--authorization-mode=RBAC,Webhook: what RBAC does not allow is asked of the webhook as a
SubjectAccessReview (the request's attributes, the user and groups); its allowed, denied
and reason are what kubectl sees (a denial's reason after upstream's forbidden message,
`auth can-i` answering yes); answers are cached (an allowed one for 5 minutes, others for
30 s); a webhook that fails makes the request a 500 once the retries are spent.

--authentication-token-webhook-config-file: a bearer token the local authenticators do not
know is posted as a TokenReview (v1beta1 by default, with the server's audiences); the
answer's user is who kubectl is, for the cache TTL; a refusal, the service's error, foreign
audiences and a service that fails are all 401; TokenReviews through the API ask it too.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_webhooks -v
"""

import json
import os
import shutil
import tempfile
import unittest

import harness

TOKENS = "jane-token,jane,1001,dev\nbroken-token,broken,1002\n"


def decide(path, review):
    """The test's authorization policy."""
    spec = review["spec"]
    attributes = spec.get("resourceAttributes", {})
    status = {"allowed": False}
    if spec["user"] == "broken":
        return 500, {"message": "the policy engine is down"}
    if spec["user"] == "jane" and attributes.get("resource") == "configmaps":
        status = {"allowed": True, "reason": "configmaps are open to dev"}
    elif spec["user"] == "jane" and attributes.get("resource") == "secrets":
        status = {"allowed": False, "denied": True, "reason": "no secrets for jane"}
    return 200, dict(review, status=status)


class AuthorizationWebhookTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-webhooks-")
        tokens = os.path.join(cls.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        cls.hook = harness.Webhook(decide, url_path="/authorize")
        config = cls.hook.write_kubeconfig(os.path.join(cls.tmp, "authz.kubeconfig"))
        try:
            cls.server = harness.Server(
                "--authorization-mode=RBAC,Webhook", "--authorization-webhook-config-file",
                config, "--authorization-webhook-version=v1", "--token-auth-file", tokens)
            cls.jane = os.path.join(cls.tmp, "jane.kubeconfig")
            harness.write_kubeconfig(cls.jane, cls.server, "    token: jane-token")
        except BaseException:
            cls.hook.stop()
            shutil.rmtree(cls.tmp, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.hook.stop()
        shutil.rmtree(cls.tmp, True)

    def as_jane(self, *args):
        return self.server.kubectl(*args, kubeconfig=self.jane)

    def reviews(self, resource):
        return [body for _, _, body in self.hook.received
                if body["spec"].get("resourceAttributes", {}).get("resource") == resource]

    def test_allowed_by_the_webhook_with_the_request_attributes(self):
        r = self.as_jane("get", "configmaps", "-n", "default")
        self.assertEqual(r.returncode, 0, r.stderr)
        review = self.reviews("configmaps")[0]
        self.assertEqual((review["apiVersion"], review["kind"]),
                         ("authorization.k8s.io/v1", "SubjectAccessReview"))
        self.assertEqual(review["spec"]["resourceAttributes"],
                         {"namespace": "default", "verb": "list", "version": "v1",
                          "resource": "configmaps"})
        self.assertEqual(review["spec"]["user"], "jane")
        self.assertEqual(review["spec"]["uid"], "1001")
        self.assertEqual(review["spec"]["groups"], ["dev", "system:authenticated"])
        # Cached: the same request again asks nothing.
        asked = len(self.reviews("configmaps"))
        r = self.as_jane("get", "configmaps", "-n", "default")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.reviews("configmaps")), asked)
        r = self.as_jane("auth", "can-i", "create", "configmaps")
        self.assertEqual(r.stdout.strip(), "yes", r.stderr)

    def test_denied_with_the_webhook_reason(self):
        r = self.as_jane("get", "secrets", "-n", "default")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Error from server (Forbidden): secrets is forbidden: User "jane" cannot '
                      'list resource "secrets" in API group "" in the namespace "default": '
                      'no secrets for jane', r.stderr)
        asked = len(self.reviews("secrets"))
        self.as_jane("get", "secrets", "-n", "default")
        self.assertEqual(len(self.reviews("secrets")), asked)  # cached for 30 s
        # No opinion: forbidden, without a reason.
        r = self.as_jane("get", "pods")
        self.assertIn('User "jane" cannot list resource "pods" in API group "" in the '
                      'namespace "default"\n', r.stderr)
        r = self.as_jane("auth", "can-i", "get", "secrets")
        self.assertEqual(r.stdout.strip(), "no - no secrets for jane", r.stderr)

    def test_a_failing_webhook_is_an_internal_error(self):
        status, headers, body = self.server.request(
            "GET", "/api/v1/namespaces/default/pods", cert=False, token="broken-token",
            timeout=30)
        self.assertEqual(status, 500, body)
        self.assertTrue(headers["content-type"].startswith("text/plain"), headers)
        self.assertIn(b'Internal Server Error: "/api/v1/namespaces/default/pods": ', body)
        self.assertIn(b"the policy engine is down", body)
        # Asked again on each retry.
        tries = [b["spec"] for _, _, b in self.hook.received if b["spec"]["user"] == "broken"]
        self.assertEqual(len(tries), 5, tries)


AUDIENCE = "https://kubernetes.default.svc.cluster.local"


def review_token(path, review):
    """The test's token service."""
    token = review["spec"]["token"]
    if token == "remote-alice":
        status = {"authenticated": True,
                  "user": {"username": "alice", "uid": "a-1", "groups": ["team-a"],
                           "extra": {"scopes.example.com": ["read", "write"]}}}
    elif token == "remote-error":
        status = {"authenticated": False, "error": "the directory is locked"}
    elif token == "remote-foreign":
        status = {"authenticated": True, "user": {"username": "mallory"},
                  "audiences": ["https://elsewhere.example.com"]}
    elif token == "remote-vault":
        status = {"authenticated": True, "user": {"username": "vault-user"},
                  "audiences": review["spec"].get("audiences", [])[:1]}
    elif token == "remote-down":
        return 503, {"message": "the directory is down"}
    else:
        status = {"authenticated": False}
    return 200, dict(review, status=status)


class TokenWebhookTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-token-webhook-")
        tokens = os.path.join(cls.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        cls.hook = harness.Webhook(review_token, url_path="/authenticate")
        config = cls.hook.write_kubeconfig(os.path.join(cls.tmp, "authn.kubeconfig"))
        try:
            cls.server = harness.Server(
                "--authentication-token-webhook-config-file", config, "--token-auth-file",
                tokens)
        except BaseException:
            cls.hook.stop()
            shutil.rmtree(cls.tmp, True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.hook.stop()
        shutil.rmtree(cls.tmp, True)

    def kubectl_with(self, token, *args):
        path = os.path.join(self.tmp, token + ".kubeconfig")
        harness.write_kubeconfig(path, self.server, "    token: " + token)
        return self.server.kubectl(*args, kubeconfig=path)

    def reviews(self, token):
        return [body for _, _, body in self.hook.received if body["spec"]["token"] == token]

    def test_a_reviewed_token_is_the_user_the_service_names(self):
        r = self.kubectl_with("remote-alice", "auth", "whoami", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        user = json.loads(r.stdout)["status"]["userInfo"]
        self.assertEqual(user, {"username": "alice", "uid": "a-1",
                                "groups": ["team-a", "system:authenticated"],
                                "extra": {"scopes.example.com": ["read", "write"]}})
        review = self.reviews("remote-alice")[0]
        self.assertEqual(review, {
            "kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1beta1",
            "metadata": {"creationTimestamp": None},
            "spec": {"token": "remote-alice", "audiences": [AUDIENCE]},
            "status": {"user": {}}})
        # Cached for the TTL (2 minutes): asked once.
        r = self.kubectl_with("remote-alice", "get", "namespaces")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.reviews("remote-alice")), 1)

    def test_local_tokens_are_not_sent(self):
        r = self.kubectl_with("jane-token", "auth", "whoami", "-o", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"]["userInfo"]["username"], "jane")
        self.assertEqual(self.reviews("jane-token"), [])

    def test_refused_tokens_are_unauthorized(self):
        for token in ("remote-nobody", "remote-error", "remote-foreign"):
            r = self.kubectl_with(token, "get", "pods")
            self.assertNotEqual(r.returncode, 0, token)
            self.assertIn("error: You must be logged in to the server (Unauthorized)", r.stderr)
        self.kubectl_with("remote-nobody", "get", "pods")
        self.kubectl_with("remote-error", "get", "pods")
        # A refusal is cached; the service's error is asked again.
        self.assertEqual(len(self.reviews("remote-nobody")), 1)
        self.assertGreaterEqual(len(self.reviews("remote-error")), 2)

    def test_a_failing_service_is_unauthorized_after_retries(self):
        status, _, body = self.server.request("GET", "/api/v1/namespaces", cert=False,
                                              token="remote-down", timeout=30)
        self.assertEqual(status, 401, body)
        self.assertEqual(json.loads(body)["reason"], "Unauthorized")
        self.assertEqual(len(self.reviews("remote-down")), 5)

    def test_token_reviews_ask_the_service(self):
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                  "spec": {"token": "remote-alice"}}
        status, _, body = self.server.request(
            "POST", "/apis/authentication.k8s.io/v1/tokenreviews", body=json.dumps(review),
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        answer = json.loads(body)["status"]
        self.assertTrue(answer["authenticated"], answer)
        self.assertEqual(answer["user"]["username"], "alice")
        self.assertIn("team-a", answer["user"]["groups"])
        self.assertEqual(answer["audiences"], [AUDIENCE])

        # The review's audiences are asked for; the user is good for those the service names.
        def ask(token, audiences):
            review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                      "spec": {"token": token, "audiences": audiences}}
            status, _, body = self.server.request(
                "POST", "/apis/authentication.k8s.io/v1/tokenreviews", body=json.dumps(review),
                headers={"Content-Type": "application/json"})
            self.assertEqual(status, 201, body)
            return json.loads(body)["status"]
        answer = ask("remote-vault", ["vault", "other"])
        self.assertEqual((answer.get("authenticated"), answer.get("audiences")),
                         (True, ["vault"]), answer)
        self.assertEqual(self.reviews("remote-vault")[-1]["spec"]["audiences"],
                         ["vault", "other"])
        # A service that names no audiences vouches for the server's only.
        self.assertEqual(ask("remote-alice", ["vault"]), {"user": {}})
        self.assertEqual(self.reviews("remote-alice")[-1]["spec"]["audiences"], ["vault"])


class TokenWebhookOptionsTest(unittest.TestCase):
    def test_refused_options(self):
        tmp = tempfile.mkdtemp(prefix="kas-it-token-webhook-bad-")
        self.addCleanup(shutil.rmtree, tmp, True)
        server = harness.Server("--authentication-token-webhook-config-file",
                                os.path.join(tmp, "missing.kubeconfig"),
                                "--authentication-token-webhook-version=v2", start=False)
        self.addCleanup(server.stop)
        out = harness.run(server.command(), timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn('--authentication-token-webhook-config-file "%s": no such file'
                      % os.path.join(tmp, "missing.kubeconfig"), out.stderr)
        self.assertIn('unsupported authentication webhook version "v2", supported versions '
                      'are "v1", "v1beta1"', out.stderr)


if __name__ == "__main__":
    unittest.main()
