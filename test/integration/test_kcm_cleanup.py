"""Integration tests: the controller manager's cleanup controllers, with the real
kube-controller-manager and kube-apiserver binaries and real kubectl.

What a user sees: a finished Job with spec.ttlSecondsAfterFinished is deleted (in the
foreground) once its TTL after the finish has passed, while Jobs without a TTL, unfinished
or with a TTL still running stay; with the bootstrap controllers enabled (they are off by
default), expired bootstrap token Secrets are deleted, unexpired ones stay and go once they
expire, and the `cluster-info` ConfigMap of kube-public carries a `jws-kubeconfig-<id>`
signature for each token that may sign, checked here with Python's hmac, gone with the
token. No job controller runs: the tests finish Jobs through the status subresource.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_kcm_cleanup -v
"""

import base64
import datetime
import hashlib
import hmac
import json
import time
import unittest

import kcm_cluster
from harness import wait_for


def rfc3339(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def detached_jws(content, token_id, token_secret):
    """The signature kubeadm expects (k8s.io/cluster-bootstrap/token/jws), computed apart
    from the controller: a compact HS256 JWS keyed with the token secret, its payload
    left out."""
    header = b64url(json.dumps({"alg": "HS256", "kid": token_id},
                               separators=(",", ":")).encode())
    signing_input = header + "." + b64url(content.encode())
    mac = hmac.new(token_secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return header + ".." + b64url(mac)


class _Cluster(kcm_cluster.ClusterTestCase):
    """The cluster of kcm_cluster, and a wait for a line of the controller manager's log."""

    def wait_for_log(self, text, timeout=30):
        wait_for(lambda: (text in self.kcm.log(), self.kcm.log()[-2000:]), timeout,
                 "the controller manager to log %s" % text)


class JobTTLAfterFinished(_Cluster):
    """The default controllers: ttl-after-finished-controller is one of them."""

    def create_job(self, ns, name, ttl=None):
        spec = {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "main", "image": "busybox", "command": ["true"]}]}}}
        if ttl is not None:
            spec["ttlSecondsAfterFinished"] = ttl
        self.ok("-n", ns, "apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": spec}))
        return self.get_json("-n", ns, "job", name)["metadata"]["uid"]

    def finish_job(self, ns, name, condition="Complete", at=None):
        """What the job controller would write, through the status subresource."""
        at = rfc3339(at or utcnow())
        status = {"startTime": at, "conditions": [
            {"type": "SuccessCriteriaMet" if condition == "Complete" else "FailureTarget",
             "status": "True", "lastTransitionTime": at, "lastProbeTime": at},
            {"type": condition, "status": "True", "lastTransitionTime": at,
             "lastProbeTime": at}]}
        if condition == "Complete":
            status["completionTime"] = at
            status["succeeded"] = 1
        else:
            status["failed"] = 1
        self.ok("-n", ns, "patch", "job", name, "--subresource=status", "--type=merge",
                "-p", json.dumps({"status": status}))

    def test_finished_job_is_deleted_after_its_ttl_and_others_stay(self):
        ns = "ttl"
        self.ok("create", "namespace", ns)
        self.create_job(ns, "short", ttl=1)
        self.create_job(ns, "failed", ttl=0)
        self.create_job(ns, "no-ttl")
        self.create_job(ns, "long", ttl=3600)
        self.create_job(ns, "running", ttl=0)
        self.finish_job(ns, "no-ttl")
        self.finish_job(ns, "long")
        self.finish_job(ns, "failed", condition="Failed")
        start = time.monotonic()
        self.finish_job(ns, "short")
        wait_for(lambda: (not self.exists("-n", ns, "job", "short"), None), 10,
                 "the Job with ttlSecondsAfterFinished 1 deleted")
        # The finish time has whole seconds: the TTL ran out 0 to 2 seconds after the
        # status was written.
        self.assertLess(time.monotonic() - start, 8)
        wait_for(lambda: (not self.exists("-n", ns, "job", "failed"), None), 10,
                 "the failed Job with ttlSecondsAfterFinished 0 deleted")
        # Without a TTL, with an hour left, or not finished: kept.
        for name in ("no-ttl", "long", "running"):
            job = self.get_json("-n", ns, "job", name)
            self.assertIsNotNone(job, name)
            self.assertNotIn("deletionTimestamp", job["metadata"], name)

    def test_ttl_counts_from_the_finish_time(self):
        ns = "ttl-past"
        self.ok("create", "namespace", ns)
        # Finished ten minutes ago with a TTL of five: due at once.
        self.create_job(ns, "old", ttl=300)
        self.finish_job(ns, "old", at=utcnow() - datetime.timedelta(minutes=10))
        wait_for(lambda: (not self.exists("-n", ns, "job", "old"), None), 10,
                 "the Job whose TTL ran out before it was seen")
        # A TTL made longer before it runs out holds the Job back: once a Job that
        # finished at the same time with the first TTL is gone, the other is still there.
        self.create_job(ns, "extended", ttl=3)
        self.create_job(ns, "sentinel", ttl=3)
        at = utcnow()
        self.finish_job(ns, "extended", at=at)
        self.finish_job(ns, "sentinel", at=at)
        self.ok("-n", ns, "patch", "job", "extended", "--type=merge", "-p",
                '{"spec":{"ttlSecondsAfterFinished":3600}}')
        wait_for(lambda: (not self.exists("-n", ns, "job", "sentinel"), None), 15,
                 "the Job with the first TTL deleted")
        job = self.get_json("-n", ns, "job", "extended")
        self.assertIsNotNone(job)
        self.assertNotIn("deletionTimestamp", job["metadata"])

    def test_deletion_is_in_the_foreground(self):
        ns = "ttl-fg"
        self.ok("create", "namespace", ns)
        uid = self.create_job(ns, "owner", ttl=0)
        # A dependent that blocks its owner's deletion and is held by a finalizer: a
        # foreground deletion of the Job waits for it.
        self.ok("-n", ns, "apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "dependent", "finalizers": ["example.com/hold"],
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                              "name": "owner", "uid": uid,
                                              "blockOwnerDeletion": True}]}}))
        self.finish_job(ns, "owner")
        job = wait_for(lambda: ((lambda j: (
            j is not None and "deletionTimestamp" in j["metadata"], j))(
            self.get_json("-n", ns, "job", "owner"))), 10, "the Job being deleted")
        self.assertIn("foregroundDeletion", job["metadata"].get("finalizers", []))
        dependent = wait_for(lambda: ((lambda c: (
            c is not None and "deletionTimestamp" in c["metadata"], c))(
            self.get_json("-n", ns, "configmap", "dependent"))), 10,
            "the dependent being deleted")
        self.assertEqual(dependent["metadata"]["finalizers"], ["example.com/hold"])
        self.assertTrue(self.exists("-n", ns, "job", "owner"))
        self.ok("-n", ns, "patch", "configmap", "dependent", "--type=merge", "-p",
                '{"metadata":{"finalizers":null}}')
        wait_for(lambda: (not self.exists("-n", ns, "job", "owner"), None), 15,
                 "the Job gone after its dependent")

    def test_bootstrap_controllers_are_disabled_by_default(self):
        self.wait_for_log('"Warning: controller is disabled" '
                          'controller="bootstrap-signer-controller"')
        self.wait_for_log('"Warning: controller is disabled" '
                          'controller="token-cleaner-controller"')
        self.wait_for_log('"Started controller" controller="ttl-after-finished-controller"')


class BootstrapTokens(_Cluster):
    """The two bootstrap controllers enabled, one by its name and one by its alias."""

    kcm_args = ("--controllers=*,bootstrap-signer-controller,tokencleaner",)

    KUBECONFIG = ("apiVersion: v1\nkind: Config\nclusters:\n- name: \"\"\n  cluster:\n"
                  "    certificate-authority-data: Zm9v\n    server: https://127.0.0.1:6443\n"
                  "contexts: null\ncurrent-context: \"\"\nusers: null\n")

    def create_token(self, token_id, secret, expiration=None, signing=True):
        data = {"token-id": token_id, "token-secret": secret,
                "usage-bootstrap-authentication": "true"}
        if signing:
            data["usage-bootstrap-signing"] = "true"
        if expiration is not None:
            data["expiration"] = expiration
        self.ok("apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Secret", "type": "bootstrap.kubernetes.io/token",
            "metadata": {"name": "bootstrap-token-" + token_id, "namespace": "kube-system"},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}))

    def token_exists(self, token_id):
        return self.exists("-n", "kube-system", "secret", "bootstrap-token-" + token_id)

    def cluster_info(self):
        return self.get_json("-n", "kube-public", "configmap", "cluster-info")

    def test_expired_tokens_are_deleted_and_others_stay(self):
        self.wait_for_log('"Started controller" controller="token-cleaner-controller"')
        self.create_token("old001", "0123456789abcdef", expiration="2020-01-01T00:00:00Z")
        self.create_token("bad001", "0123456789abcdef", expiration="not a time")
        self.create_token("new001", "0123456789abcdef",
                          expiration=rfc3339(utcnow() + datetime.timedelta(hours=1)))
        self.create_token("nexp01", "0123456789abcdef")
        soon = (utcnow() + datetime.timedelta(seconds=3)).replace(microsecond=0)
        self.create_token("soon01", "0123456789abcdef",
                          expiration=soon.isoformat(timespec="seconds"))  # +00:00 form
        # Not expired yet: still there now (checked before the waits below use up its 3 s).
        self.assertTrue(self.token_exists("soon01"))
        # Another type is not a bootstrap token, whatever its data says.
        self.ok("-n", "kube-system", "apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": "bootstrap-token-opaq01"},
            "data": {"expiration": base64.b64encode(b"2020-01-01T00:00:00Z").decode()}}))
        wait_for(lambda: (not self.token_exists("old001"), None), 10,
                 "the expired token deleted")
        wait_for(lambda: (not self.token_exists("bad001"), None), 10,
                 "the token with an unparseable expiration deleted")
        wait_for(lambda: (not self.token_exists("soon01"), None), 15,
                 "the token deleted once it expired")
        self.assertGreaterEqual(utcnow(), soon)
        for token_id in ("new001", "nexp01", "opaq01"):
            self.assertTrue(self.token_exists(token_id), token_id)

    def test_cluster_info_is_signed_by_each_signing_token(self):
        self.wait_for_log('"Started controller" controller="bootstrap-signer-controller"')
        self.create_token("abcdef", "0123456789abcdef")
        self.create_token("nosig1", "fedcba9876543210", signing=False)
        self.create_token("expd01", "fedcba9876543210", expiration="2020-01-01T00:00:00Z")
        self.ok("-n", "kube-public", "create", "configmap", "cluster-info",
                "--from-literal=kubeconfig=" + self.KUBECONFIG)
        expected = detached_jws(self.KUBECONFIG, "abcdef", "0123456789abcdef")
        cm = wait_for(lambda: ((lambda c: (
            c is not None and "jws-kubeconfig-abcdef" in c.get("data", {}), c))(
            self.cluster_info())), 10, "the signature of token abcdef")
        self.assertEqual(cm["data"]["jws-kubeconfig-abcdef"], expected)
        self.assertEqual(sorted(cm["data"]), ["jws-kubeconfig-abcdef", "kubeconfig"])
        self.assertEqual(cm["data"]["kubeconfig"], self.KUBECONFIG)

        # A second token signs too; a changed kubeconfig is signed again.
        self.create_token("second", "aaaabbbbccccdddd")
        wait_for(lambda: ((lambda c: ("jws-kubeconfig-second" in c["data"], c))(
            self.cluster_info())), 10, "the signature of token second")
        changed = self.KUBECONFIG.replace("6443", "7443")
        self.ok("-n", "kube-public", "patch", "configmap", "cluster-info", "--type=merge",
                "-p", json.dumps({"data": {"kubeconfig": changed}}))
        want = {"kubeconfig": changed,
                "jws-kubeconfig-abcdef": detached_jws(changed, "abcdef", "0123456789abcdef"),
                "jws-kubeconfig-second": detached_jws(changed, "second", "aaaabbbbccccdddd")}
        wait_for(lambda: ((lambda c: (c["data"] == want, c["data"]))(self.cluster_info())), 10,
                 "signatures of the new kubeconfig")

        # A forged signature is put right; deleting a token takes its signature away.
        self.ok("-n", "kube-public", "patch", "configmap", "cluster-info", "--type=merge",
                "-p", '{"data":{"jws-kubeconfig-abcdef":"forged","jws-kubeconfig-gone00":"x"}}')
        wait_for(lambda: ((lambda c: (c["data"] == want, c["data"]))(self.cluster_info())), 10,
                 "the forged and stale signatures replaced")
        self.ok("-n", "kube-system", "delete", "secret", "bootstrap-token-abcdef")
        del want["jws-kubeconfig-abcdef"]
        wait_for(lambda: ((lambda c: (c["data"] == want, c["data"]))(self.cluster_info())), 10,
                 "the deleted token's signature removed")


if __name__ == "__main__":
    unittest.main()
