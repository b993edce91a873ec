"""Integration tests: the RBAC authorization mode of the real kube-apiserver binary, seen
through real kubectl, with the real kube-controller-manager aggregating view, edit and
admin as upstream's does.

What a user sees: a service account's token is refused until a RoleBinding to `view`
lets it read configmaps in that namespace (not secrets, not elsewhere, not cluster-wide);
`kubectl auth can-i` answers yes and no and lists a user's rules; forbidden messages and
access-review reasons are upstream's; nobody can grant a permission they do not hold
unless they may `escalate` or `bind`.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_rbac -v
"""

import json
import os
import shutil
import subprocess
import tempfile

import harness
import kcm_cluster
from harness import wait_for

TOKENS = "jane-token,jane,uid-jane,\nbob-token,bob,uid-bob,\"dev\"\n"


class RBACTest(kcm_cluster.ClusterTestCase):
    # As kubeadm runs it: each controller as its service account, under its RBAC role.
    kcm_args = ("--use-service-account-credentials",)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-rbac-")
        tokens = os.path.join(cls.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        cls.server_args = ("--authorization-mode=RBAC", "--token-auth-file", tokens)
        try:
            super().setUpClass()
        except BaseException:
            shutil.rmtree(cls.tmp, True)
            raise
        cls.kubeconfigs = {}
        for user in ("jane", "bob"):
            cls.kubeconfigs[user] = cls.token_kubeconfig(user, user + "-token")

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.tmp, True)

    @classmethod
    def token_kubeconfig(cls, name, token):
        path = os.path.join(cls.tmp, name + ".kubeconfig")
        harness.write_kubeconfig(path, cls.server, "    token: " + token)
        return path

    def as_user(self, user, *args, stdin=None):
        """kubectl as a token user (or a kubeconfig path); the completed process."""
        return self.kubectl(*args, stdin=stdin, kubeconfig=self.kubeconfigs.get(user, user))

    def namespace(self, name):
        self.ok("create", "namespace", name)
        self.addCleanup(self.kubectl, "delete", "namespace", name, "--wait=false")

    def grant(self, ns, role, user, *rule):
        """A Role `role` in ns with the `kubectl create role` rule arguments, bound to user
        by the RoleBinding <user>-<role>."""
        self.ok("create", "role", role, *rule, "-n", ns)
        self.ok("create", "rolebinding", user + "-" + role, "--role=" + role, "--user=" + user,
                "-n", ns)

    def review(self, review):
        """A SubjectAccessReview by the admin; its status."""
        status, _, body = self.server.request(
            "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json.dumps(review),
            headers={"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        return json.loads(body)["status"]

    def wait_allowed(self, user, *args):
        def allowed():
            r = self.as_user(user, *args)
            return r.returncode == 0, r.stderr
        wait_for(allowed, 30, "%s allowed to %s" % (user, " ".join(args)))

    def test_service_account_denied_then_allowed_by_view(self):
        self.namespace("team")
        self.ok("create", "serviceaccount", "reader", "-n", "team")
        self.ok("create", "configmap", "settings", "-n", "team", "--from-literal=a=1")
        self.ok("create", "secret", "generic", "pw", "-n", "team", "--from-literal=p=x")
        token = self.ok("create", "token", "reader", "-n", "team").strip()
        kc = self.token_kubeconfig("reader", token)
        user = "system:serviceaccount:team:reader"
        r = self.as_user(kc, "get", "configmaps", "-n", "team")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(
            r.stderr.strip(),
            'Error from server (Forbidden): configmaps is forbidden: User "%s" cannot list '
            'resource "configmaps" in API group "" in the namespace "team"' % user)

        self.ok("create", "rolebinding", "reader-view", "--clusterrole=view",
                "--serviceaccount=team:reader", "-n", "team")
        # view's rules come from the controller manager's aggregation.
        self.wait_allowed(kc, "get", "configmaps", "-n", "team")
        # The aggregation controller did it as its own service account.
        self.assertTrue(self.exists("serviceaccount", "clusterrole-aggregation-controller",
                                    "-n", "kube-system"))
        self.assertIn("settings", self.as_user(kc, "get", "configmaps", "-n", "team").stdout)
        for args, message in [
            (("get", "secret", "pw", "-n", "team"),
             'secrets "pw" is forbidden: User "%s" cannot get resource "secrets" in API group '
             '"" in the namespace "team"' % user),
            (("get", "configmaps", "-n", "default"),
             'configmaps is forbidden: User "%s" cannot list resource "configmaps" in API '
             'group "" in the namespace "default"' % user),
            (("get", "configmaps", "-A"),
             'configmaps is forbidden: User "%s" cannot list resource "configmaps" in API '
             'group "" at the cluster scope' % user),
            (("delete", "configmap", "settings", "-n", "team"),
             'configmaps "settings" is forbidden: User "%s" cannot delete resource '
             '"configmaps" in API group "" in the namespace "team"' % user),
        ]:
            r = self.as_user(kc, *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr, args)
        # The binding gone, so is the permission.
        self.ok("delete", "rolebinding", "reader-view", "-n", "team")
        def refused():
            r = self.as_user(kc, "get", "configmaps", "-n", "team")
            return r.returncode != 0, r.stdout
        wait_for(refused, 30, "the binding's removal to take effect")

    def test_auth_can_i_and_access_reviews(self):
        self.namespace("cani")
        self.grant("cani", "pod-reader", "jane", "--verb=get,list", "--resource=pods")
        self.wait_allowed("jane", "get", "pods", "-n", "cani")
        r = self.as_user("jane", "auth", "can-i", "list", "pods", "-n", "cani")
        self.assertEqual((r.returncode, r.stdout), (0, "yes\n"))
        r = self.as_user("jane", "auth", "can-i", "delete", "pods", "-n", "cani")
        self.assertEqual((r.returncode, r.stdout), (1, "no\n"))
        r = self.as_user("jane", "auth", "can-i", "list", "pods", "-n", "default")
        self.assertEqual((r.returncode, r.stdout), (1, "no\n"))
        # Every authenticated user may read the public information and discovery.
        r = self.as_user("jane", "auth", "can-i", "get", "/healthz")
        self.assertEqual(r.stdout, "yes\n")
        listed = self.as_user("jane", "auth", "can-i", "--list", "-n", "cani").stdout
        rows = [line.split() for line in listed.splitlines()]
        self.assertIn(["pods", "[]", "[]", "[get", "list]"], rows)
        self.assertIn(["[/healthz]", "[]", "[get]"], rows)
        self.assertIn(["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"],
                      rows)
        # An access review names the binding that allows, as upstream words it.
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                  "spec": {"user": "jane", "groups": ["system:authenticated"],
                           "resourceAttributes": {"namespace": "cani", "verb": "get",
                                                  "resource": "pods"}}}
        self.assertEqual(self.review(review), {
            "allowed": True,
            "reason": 'RBAC: allowed by RoleBinding "jane-pod-reader/cani" of Role "pod-reader" '
                      'to User "jane"'})
        review["spec"]["resourceAttributes"]["verb"] = "delete"
        self.assertEqual(self.review(review), {"allowed": False})

    def test_escalation_is_refused(self):
        self.namespace("esc")
        # bob may manage roles and bindings in esc (not escalate or bind: "*" would), and
        # read pods there.
        self.grant("esc", "rbac-manager", "bob", "--verb=get,list,create,update,delete",
                   "--resource=roles.rbac.authorization.k8s.io,"
                   "rolebindings.rbac.authorization.k8s.io")
        self.grant("esc", "pod-reader", "bob", "--verb=get", "--resource=pods")
        self.wait_allowed("bob", "auth", "can-i", "get", "pods", "-n", "esc")
        # What bob holds he may grant...
        r = self.as_user("bob", "create", "role", "mine", "--verb=get", "--resource=pods",
                         "-n", "esc")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.as_user("bob", "create", "rolebinding", "share", "--role=mine",
                         "--user=jane", "-n", "esc")
        self.assertEqual(r.returncode, 0, r.stderr)
        # ...not more.
        r = self.as_user("bob", "create", "role", "too-much", "--verb=get,delete",
                         "--resource=pods,secrets", "-n", "esc")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(
            r.stderr.strip(),
            'Error from server (Forbidden): roles.rbac.authorization.k8s.io "too-much" is '
            'forbidden: user "bob" (groups=["dev" "system:authenticated"]) is attempting to '
            'grant RBAC permissions not currently held:\n'
            '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n'
            '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}')
        r = self.as_user("bob", "create", "rolebinding", "bob-admin", "--clusterrole=admin",
                         "--user=bob", "-n", "esc")
        self.assertEqual(r.returncode, 1)
        self.assertIn('rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user '
                      '"bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC '
                      'permissions not currently held:', r.stderr)
        # A binding to a role that does not exist is a 404.
        r = self.as_user("bob", "create", "rolebinding", "nothing", "--role=missing",
                         "--user=bob", "-n", "esc")
        self.assertIn('role.rbac.authorization.k8s.io "missing" not found', r.stderr)
        # Allowed to bind admin, bob may; allowed to escalate, he may write any role.
        self.grant("esc", "bind-admin", "bob", "--verb=bind", "--resource=clusterroles",
                   "--resource-name=admin")
        self.wait_allowed("bob", "auth", "can-i", "bind", "clusterroles/admin", "-n", "esc")
        r = self.as_user("bob", "create", "rolebinding", "bob-admin", "--clusterrole=admin",
                         "--user=bob", "-n", "esc")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.grant("esc", "escalator", "bob", "--verb=escalate", "--resource=roles")
        self.wait_allowed("bob", "auth", "can-i", "escalate", "roles", "-n", "esc")
        r = self.as_user("bob", "create", "role", "anything", "--verb=*", "--resource=*",
                         "-n", "esc")
        self.assertEqual(r.returncode, 0, r.stderr)

    def whoami(self, user, *args):
        r = self.as_user(user, "auth", "whoami", "-o", "json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["status"]["userInfo"]

    def test_impersonation(self):
        # The admin (system:masters) may impersonate anyone.
        me = self.whoami(self.server.kubeconfig, "--as=jane")
        self.assertEqual((me["username"], me["groups"]), ("jane", ["system:authenticated"]))
        me = self.whoami(self.server.kubeconfig, "--as=jane", "--as-group=dev",
                         "--as-uid=u-1")
        self.assertEqual((me["groups"], me["uid"]), (["dev", "system:authenticated"], "u-1"))
        me = self.whoami(self.server.kubeconfig, "--as=system:serviceaccount:team:reader")
        self.assertEqual(me["groups"], ["system:serviceaccounts", "system:serviceaccounts:team",
                                        "system:authenticated"])
        # Decisions are the impersonated user's.
        r = self.as_user(self.server.kubeconfig, "auth", "can-i", "list", "secrets", "--as=jane")
        self.assertEqual((r.returncode, r.stdout), (1, "no\n"))
        # bob may not, until allowed to impersonate jane (and only her, and no group).
        # (auth whoami hides a 403; get shows it.)
        r = self.as_user("bob", "get", "configmaps", "--as=jane")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(
            r.stderr.strip(),
            'Error from server (Forbidden): users "jane" is forbidden: User "bob" cannot '
            'impersonate resource "users" in API group "" at the cluster scope')
        self.ok("create", "clusterrole", "impersonate-jane", "--verb=impersonate",
                "--resource=users", "--resource-name=jane")
        self.ok("create", "clusterrolebinding", "bob-as-jane", "--clusterrole=impersonate-jane",
                "--user=bob")
        self.addCleanup(self.kubectl, "delete", "clusterrolebinding", "bob-as-jane")
        self.wait_allowed("bob", "auth", "whoami", "--as=jane")
        self.assertEqual(self.whoami("bob", "--as=jane")["username"], "jane")
        r = self.as_user("bob", "get", "configmaps", "--as=carol")
        self.assertIn('users "carol" is forbidden', r.stderr)
        r = self.as_user("bob", "get", "configmaps", "--as=jane", "--as-group=system:masters")
        self.assertIn('groups "system:masters" is forbidden: User "bob" cannot impersonate '
                      'resource "groups" in API group "" at the cluster scope', r.stderr)

    def test_tokens_die_with_their_objects(self):
        """--service-account-lookup (the default): a token is refused once its service
        account, its bound pod or node or its legacy Secret is gone."""
        self.namespace("life")
        self.ok("create", "serviceaccount", "short", "-n", "life")
        self.ok("create", "serviceaccount", "other", "-n", "life")
        self.ok("run", "holder", "--image=busybox", "-n", "life",
                '--overrides={"spec": {"serviceAccountName": "other"}}')
        self.ok("create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "life-node"}}))
        plain = self.token_kubeconfig(
            "plain", self.ok("create", "token", "short", "-n", "life").strip())
        bound = self.token_kubeconfig("bound", self.ok(
            "create", "token", "other", "-n", "life", "--bound-object-kind=Pod",
            "--bound-object-name=holder").strip())
        # Bound objects must exist, be the pod of that account, have the uid named.
        for args, error in [
                (("--bound-object-kind=Pod", "--bound-object-name=missing"),
                 'pods "missing" not found'),
                (("--bound-object-kind=Node", "--bound-object-name=missing"),
                 'nodes "missing" not found'),
                (("--bound-object-kind=Secret", "--bound-object-name=missing"),
                 'secrets "missing" not found')]:
            r = self.kubectl("create", "token", "other", "-n", "life", *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(error, r.stderr)
        r = self.kubectl("create", "token", "short", "-n", "life", "--bound-object-kind=Pod",
                         "--bound-object-name=holder")
        self.assertIn('cannot bind token for serviceaccount "short" to pod running with '
                      'different serviceaccount name.', r.stderr)
        r = self.kubectl("create", "token", "other", "-n", "life", "--bound-object-kind=Pod",
                         "--bound-object-name=holder", "--bound-object-uid=not-its-uid")
        self.assertIn('Operation cannot be fulfilled on Pod "holder": the UID in the bound '
                      'object reference (not-its-uid) does not match the UID in record.',
                      r.stderr)
        on_node = self.token_kubeconfig("on-node", self.ok(
            "create", "token", "other", "-n", "life", "--bound-object-kind=Node",
            "--bound-object-name=life-node").strip())
        # A legacy token: the controller manager fills the Secret.
        self.ok("apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "legacy", "namespace": "life",
                         "annotations": {"kubernetes.io/service-account.name": "other"}}}))

        def filled():
            s = self.get_json("secret", "legacy", "-n", "life")
            return bool(s and s.get("data", {}).get("token")), s
        secret = wait_for(filled, 30, "the legacy token")
        import base64
        legacy = self.token_kubeconfig(
            "legacy", base64.b64decode(secret["data"]["token"]).decode())
        for kc in (plain, bound, on_node, legacy):
            self.assertEqual(self.whoami(kc)["username"].split(":")[-1],
                             "short" if kc == plain else "other")

        def refused(kc):
            def probe():
                r = self.as_user(kc, "auth", "whoami")
                return r.returncode != 0 and "Unauthorized" in r.stderr, r.stderr
            wait_for(probe, 30, "the token refused")
        self.ok("delete", "pod", "holder", "-n", "life", "--grace-period=0", "--force")
        refused(bound)
        self.ok("delete", "node", "life-node")
        refused(on_node)
        self.assertEqual(self.whoami(legacy)["username"], "system:serviceaccount:life:other")
        self.ok("delete", "secret", "legacy", "-n", "life")
        refused(legacy)
        self.ok("delete", "serviceaccount", "short", "-n", "life")
        refused(plain)

    def test_service_account_issuer_discovery(self):
        """The OIDC discovery document and key set of the issuer, readable by service
        accounts (system:service-account-issuer-discovery), verifying the tokens it signs."""
        self.namespace("oidc")
        self.ok("create", "serviceaccount", "relying", "-n", "oidc")
        token = self.ok("create", "token", "relying", "-n", "oidc").strip()
        kc = self.token_kubeconfig("relying", token)
        # Not for just anyone authenticated: jane is refused.
        r = self.as_user("jane", "get", "--raw", "/.well-known/openid-configuration")
        self.assertIn('User "jane" cannot get path "/.well-known/openid-configuration"', r.stderr)
        config = json.loads(self.as_user(kc, "get", "--raw",
                                         "/.well-known/openid-configuration").stdout)
        # The generated signing key is EC P-256.
        self.assertRegex(config.pop("jwks_uri"),
                         r"^https://[^/]+:%d/openid/v1/jwks$" % self.server.port)
        self.assertEqual(config, {
            "issuer": "https://kubernetes.default.svc.cluster.local",
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"]})
        status, headers, body = self.server.request("GET", "/openid/v1/jwks")
        self.assertEqual(status, 200, body)
        self.assertEqual(headers["content-type"], "application/jwk-set+json")
        self.assertEqual(headers["cache-control"], "public, max-age=3600")
        keys = json.loads(body)["keys"]
        self.assertEqual([list(k) for k in keys], [["use", "kty", "kid", "crv", "alg", "x", "y"]])
        self.assertEqual((keys[0]["crv"], keys[0]["alg"]), ("P-256", "ES256"))
        import base64

        def b64(s):
            return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        # The key is the one that signs the tokens: their kid, the signing key's point.
        self.assertEqual(json.loads(b64(token.split(".")[0]))["kid"], keys[0]["kid"])
        der = subprocess.run(["openssl", "ec", "-in", os.path.join(self.server.pki, "sa.key"),
                              "-pubout", "-outform", "DER"], capture_output=True,
                             check=True, timeout=30).stdout
        self.assertTrue(der.endswith(b"\x04" + b64(keys[0]["x"]) + b64(keys[0]["y"])))
