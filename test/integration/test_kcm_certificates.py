"""Integration tests: the certificate controllers of the real kube-controller-manager
(csrsigning, csrapproving, csrcleaner) against the real kube-apiserver, driven with real
kubectl and openssl.

What a user sees: a key and request made with openssl, `kubectl apply`-ed as a
CertificateSigningRequest and approved with `kubectl certificate approve`, come back with a
certificate the cluster CA issued for the requested subject, valid for the requested time,
with which kubectl authenticates; a denied request gets none; a request its signer refuses
gets the Failed condition with the signer's reason; a kubelet's client request is
auto-approved after a SubjectAccessReview (this API server authorizes everything, so any
authenticated requester may), and a node's own renewal as "self"; kubelet serving requests
get their names; the API server refuses malformed requests; old requests are cleaned up at
start; and the signing flags behave as upstream's. Each class starts its own servers on
free ports.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_kcm_certificates -v
"""

import base64
import calendar
import json
import os
import shutil
import tempfile
import time
import unittest

import harness
import kcm_cluster
from harness import wait_for

CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"
KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"


def openssl(*args, stdin=None):
    r = harness.run([harness.OPENSSL] + list(args), input=stdin)
    if r.returncode != 0:
        raise AssertionError("openssl %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def validity(cert_path):
    """The certificate's NotAfter and NotBefore, as seconds since the epoch."""
    dates = {}
    for line in openssl("x509", "-in", cert_path, "-noout", "-startdate",
                        "-enddate").splitlines():
        key, value = line.split("=", 1)
        dates[key] = calendar.timegm(time.strptime(value.strip(), "%b %d %H:%M:%S %Y %Z"))
    return dates["notAfter"], dates["notBefore"]


class _Cluster(kcm_cluster.ClusterTestCase):
    """The cluster of kcm_cluster (its controller manager signs with the cluster CA), and a
    directory for keys, requests and kubeconfigs, for the class."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp(prefix="kcm-certs-")

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def key_and_request(self, name, subject, sans=None, rsa=False):
        """A new key and a PEM request for it, made with openssl."""
        key = os.path.join(self.dir, name + ".key")
        args = ["req", "-new", "-nodes", "-keyout", key, "-subj", subject]
        if rsa:
            args += ["-newkey", "rsa:2048"]
        else:
            args += ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        if sans:
            args += ["-addext", "subjectAltName=" + sans]
        return key, openssl(*args)

    def apply_csr(self, name, request_pem, signer, usages, expiration=None, kubeconfig=None):
        spec = {"request": base64.b64encode(request_pem.encode()).decode(),
                "signerName": signer, "usages": usages}
        if expiration is not None:
            spec["expirationSeconds"] = expiration
        manifest = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                    "metadata": {"name": name}, "spec": spec}
        return self.ok("apply", "-f", "-", stdin=json.dumps(manifest), kubeconfig=kubeconfig)

    def csr(self, name):
        r = self.kubectl("get", "csr", name, "-o", "json")
        return json.loads(r.stdout) if r.returncode == 0 else None

    def wait_csr(self, name, predicate, what, timeout=20):
        def probe():
            csr = self.csr(name)
            return csr is not None and predicate(csr), csr
        try:
            return wait_for(probe, timeout, what)
        except AssertionError as e:
            raise AssertionError("%s\n%s" % (e, self.kcm.log()[-4000:]))

    def wait_issued(self, name):
        csr = self.wait_csr(name, lambda c: c.get("status", {}).get("certificate"),
                            "the certificate of " + name)
        path = os.path.join(self.dir, name + ".crt")
        with open(path, "wb") as f:
            f.write(base64.b64decode(csr["status"]["certificate"]))
        return csr, path

    def condition_column(self, name):
        return self.ok("get", "csr", name, "--no-headers").split()[-1]

    def kubeconfig_for(self, name, cert, key):
        """A kubeconfig that authenticates with a client certificate."""
        path = os.path.join(self.dir, name + ".kubeconfig")
        for args in (["config", "set-cluster", "c", "--server", self.server.url,
                      "--certificate-authority", self.server.ca_file, "--embed-certs"],
                     ["config", "set-credentials", name, "--client-certificate", cert,
                      "--client-key", key, "--embed-certs"],
                     ["config", "set-context", "ctx", "--cluster", "c", "--user", name],
                     ["config", "use-context", "ctx"]):
            r = harness.run([harness.KUBECTL, "--kubeconfig", path] + args)
            self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def whoami(self, kubeconfig):
        return json.loads(self.ok("auth", "whoami", "-o", "json",
                                  kubeconfig=kubeconfig))["status"]["userInfo"]


class Signing(_Cluster):

    def test_approved_client_request_is_issued_by_the_cluster_ca_and_authenticates(self):
        key, request = self.key_and_request("jane", "/O=devs/O=qa/CN=jane")
        self.apply_csr("jane", request, CLIENT_SIGNER, ["digital signature", "client auth"],
                       expiration=3600)
        self.assertEqual(self.condition_column("jane"), "Pending")
        self.assertEqual(self.csr("jane")["spec"]["username"], "admin")
        self.ok("certificate", "approve", "jane")
        started = time.time()
        csr, cert = self.wait_issued("jane")
        approved = [c for c in csr["status"]["conditions"] if c["type"] == "Approved"]
        self.assertEqual(approved[0]["reason"], "KubectlApprove")
        self.assertEqual(self.condition_column("jane"), "Approved,Issued")

        # Issued by the cluster CA, for the requested subject and usages.
        self.assertIn(": OK", openssl("verify", "-CAfile", self.server.ca_file, cert))
        self.assertEqual(openssl("x509", "-in", cert, "-noout", "-subject").strip(),
                         "subject=O = qa + O = devs, CN = jane")  # one RDN (as Go's), in DER order
        with open(self.server.ca_file) as f:
            ca_subject = openssl("x509", "-noout", "-subject", stdin=f.read()).strip()
        self.assertEqual(openssl("x509", "-in", cert, "-noout", "-issuer").strip(),
                         ca_subject.replace("subject=", "issuer="))
        text = openssl("x509", "-in", cert, "-noout", "-text")
        self.assertIn("X509v3 Key Usage: critical\n                Digital Signature\n", text)
        self.assertIn("X509v3 Extended Key Usage: \n                TLS Web Client "
                      "Authentication\n", text)
        self.assertIn("X509v3 Basic Constraints: critical\n                CA:FALSE\n", text)
        self.assertEqual(openssl("x509", "-in", cert, "-noout", "-pubkey"),
                         openssl("pkey", "-in", key, "-pubout"))
        # expirationSeconds (under the default year): an hour; NotBefore 5 minutes back.
        end, start = validity(cert)
        self.assertAlmostEqual(end - started, 3600, delta=15)
        self.assertAlmostEqual(started - start, 300, delta=15)

        # The certificate authenticates: kubectl as jane.
        user = self.whoami(self.kubeconfig_for("jane", cert, key))
        self.assertEqual(user["username"], "jane")
        self.assertIn("devs", user["groups"])
        self.assertIn("qa", user["groups"])
        self.assertIn("system:authenticated", user["groups"])

    def test_denied_request_gets_no_certificate(self):
        _, request = self.key_and_request("dee", "/CN=dee")
        self.apply_csr("dee", request, CLIENT_SIGNER, ["client auth"])
        self.ok("certificate", "deny", "dee")
        denied = self.csr("dee")
        self.assertEqual([c["reason"] for c in denied["status"]["conditions"]],
                         ["KubectlDeny"])
        # A request approved after it is issued; the denied one still has nothing.
        _, later = self.key_and_request("after-dee", "/CN=after-dee")
        self.apply_csr("after-dee", later, CLIENT_SIGNER, ["client auth"])
        self.ok("certificate", "approve", "after-dee")
        self.wait_issued("after-dee")
        self.assertNotIn("certificate", self.csr("dee").get("status", {}))
        self.assertEqual(self.condition_column("dee"), "Denied")
        # Approval and denial exclude each other; kubectl says so.
        r = self.kubectl("certificate", "approve", "dee")
        self.assertNotEqual(r.returncode, 0)

    def test_request_with_a_forbidden_usage_fails(self):
        _, request = self.key_and_request("srv", "/CN=srv")
        self.apply_csr("srv", request, CLIENT_SIGNER, ["client auth", "server auth"])
        self.ok("certificate", "approve", "srv")
        csr = self.wait_csr("srv", lambda c: any(x["type"] == "Failed" for x in
                                                  c.get("status", {}).get("conditions", [])),
                            "the Failed condition")
        failed = [c for c in csr["status"]["conditions"] if c["type"] == "Failed"][0]
        self.assertEqual(failed["status"], "True")
        self.assertEqual(failed["reason"], "SignerValidationFailure")
        self.assertEqual(failed["message"], "invalid usage for client certificate: server auth")
        self.assertIn("lastUpdateTime", failed)
        self.assertNotIn("certificate", csr["status"])
        self.assertEqual(self.condition_column("srv"), "Approved,Failed")

    def test_kubelet_serving_request_gets_its_names_and_a_bad_one_fails(self):
        _, request = self.key_and_request("serving", "/O=system:nodes/CN=system:node:worker-9",
                                          sans="DNS:worker-9,IP:10.0.0.9", rsa=True)
        self.apply_csr("serving", request, KUBELET_SERVING_SIGNER,
                       ["digital signature", "key encipherment", "server auth"])
        # Serving requests are not the approver's: approved by hand.
        self.ok("certificate", "approve", "serving")
        _, cert = self.wait_issued("serving")
        text = openssl("x509", "-in", cert, "-noout", "-text")
        self.assertIn("DNS:worker-9, IP Address:10.0.0.9", text)
        self.assertIn("TLS Web Server Authentication", text)
        self.assertIn("Digital Signature, Key Encipherment", text)
        # The default duration (a year) less the 5 minutes of backdating.
        end, start = validity(cert)
        self.assertAlmostEqual(end - start, 365 * 86400, delta=15)

        _, bare = self.key_and_request("bare", "/O=system:nodes/CN=system:node:worker-9")
        self.apply_csr("bare", bare, KUBELET_SERVING_SIGNER,
                       ["digital signature", "server auth"])
        self.ok("certificate", "approve", "bare")
        csr = self.wait_csr("bare", lambda c: any(x["type"] == "Failed" for x in
                                                   c.get("status", {}).get("conditions", [])),
                            "the Failed condition")
        messages = [c["message"] for c in csr["status"]["conditions"] if c["type"] == "Failed"]
        self.assertEqual(messages, ["DNS or IP subjectAltName is required"])


class Approving(_Cluster):

    def test_kubelet_client_request_is_auto_approved_and_the_node_renews_as_itself(self):
        # The admin asks for a node's certificate (as a bootstrap token would): nodeclient.
        key, request = self.key_and_request("worker-1", "/O=system:nodes/CN=system:node:worker-1")
        self.apply_csr("worker-1", request, KUBELET_CLIENT_SIGNER,
                       ["digital signature", "key encipherment", "client auth"])
        csr, cert = self.wait_issued("worker-1")
        self.assertEqual(csr["status"]["conditions"][0]["type"], "Approved")
        self.assertEqual(csr["status"]["conditions"][0]["reason"], "AutoApproved")
        self.assertEqual(csr["status"]["conditions"][0]["message"],
                         "Auto approving kubelet client certificate after SubjectAccessReview.")
        self.assertEqual(openssl("x509", "-in", cert, "-noout", "-subject").strip(),
                         "subject=O = system:nodes, CN = system:node:worker-1")
        node = self.kubeconfig_for("worker-1", cert, key)
        user = self.whoami(node)
        self.assertEqual(user["username"], "system:node:worker-1")
        self.assertIn("system:nodes", user["groups"])

        # The node renews with its certificate: the requester is the node itself.
        _, renewal = self.key_and_request("worker-1b", "/O=system:nodes/CN=system:node:worker-1")
        self.apply_csr("worker-1b", renewal, KUBELET_CLIENT_SIGNER,
                       ["digital signature", "client auth"], kubeconfig=node)
        csr, _ = self.wait_issued("worker-1b")
        self.assertEqual(csr["spec"]["username"], "system:node:worker-1")
        self.assertEqual(csr["status"]["conditions"][0]["message"],
                         "Auto approving self kubelet client certificate after "
                         "SubjectAccessReview.")

    def test_other_requests_are_left_pending(self):
        # A client request of another signer, and one for the kubelet signer that is no node
        # client request: neither is approved; the signer then fails the second on approval.
        _, plain = self.key_and_request("plain", "/CN=plain")
        self.apply_csr("plain", plain, CLIENT_SIGNER, ["client auth"])
        _, odd = self.key_and_request("odd", "/O=devs/CN=system:node:worker-2")
        self.apply_csr("odd", odd, KUBELET_CLIENT_SIGNER, ["digital signature", "client auth"])
        # A node request made after them is approved; by then these two were looked at.
        _, node = self.key_and_request("worker-3", "/O=system:nodes/CN=system:node:worker-3")
        self.apply_csr("worker-3", node, KUBELET_CLIENT_SIGNER,
                       ["digital signature", "client auth"])
        self.wait_issued("worker-3")
        self.assertEqual(self.condition_column("plain"), "Pending")
        self.assertEqual(self.condition_column("odd"), "Pending")
        self.ok("certificate", "approve", "odd")
        csr = self.wait_csr("odd", lambda c: any(x["type"] == "Failed" for x in
                                                  c.get("status", {}).get("conditions", [])),
                            "the Failed condition")
        failed = [c for c in csr["status"]["conditions"] if c["type"] == "Failed"][0]
        self.assertEqual(failed["message"], "subject organization is not system:nodes")


class ServerValidation(_Cluster):
    """What the API server refuses, as upstream's validation words it."""

    def create(self, spec, name="bad"):
        manifest = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                    "metadata": {"name": name}, "spec": spec}
        return self.kubectl("create", "-f", "-", stdin=json.dumps(manifest))

    def test_malformed_requests_are_refused(self):
        _, request = self.key_and_request("good", "/CN=good")
        good = base64.b64encode(request.encode()).decode()
        r = self.create({"request": base64.b64encode(b"nope").decode(),
                         "signerName": CLIENT_SIGNER, "usages": ["client auth"]})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('spec.request: Invalid value: []byte{0x6e, 0x6f, 0x70, 0x65}: PEM block '
                      'type must be CERTIFICATE REQUEST', r.stderr)
        # A request whose signature does not verify (its public key swapped for another).
        _, other = self.key_and_request("other", "/CN=good")
        tampered = request.replace(request.splitlines()[2], other.splitlines()[2])
        r = self.create({"request": base64.b64encode(tampered.encode()).decode(),
                         "signerName": CLIENT_SIGNER, "usages": ["client auth"]})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("spec.request: Invalid value: []byte{", r.stderr)
        r = self.create({"request": good, "signerName": "kubernetes.io/legacy-unknown",
                         "usages": ["client auth"]})
        self.assertIn('spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the '
                      'legacy signerName is not allowed via this API version', r.stderr)
        r = self.create({"request": good, "signerName": "signer",
                         "usages": ["client auth", "client auth", "bogus"]})
        self.assertIn('spec.usages[1]: Duplicate value: "client auth"', r.stderr)
        self.assertIn('spec.usages[2]: Unsupported value: "bogus": supported values: "any", '
                      '"cert sign", "client auth"', r.stderr)
        self.assertIn('spec.signerName: Invalid value: "signer": must be a fully qualified '
                      "domain and path of the form 'example.com/signer-name'", r.stderr)

    def test_status_and_approval_keep_to_their_parts(self):
        _, request = self.key_and_request("parts", "/CN=parts")
        self.apply_csr("parts", request, "example.com/nobody", ["client auth"])
        csr = self.csr("parts")
        # /status may not approve; /approval may not issue; neither withdraws approval.
        csr["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
        status, _, body = self.server.request("PUT", CSRS + "/parts/status", json.dumps(csr))
        self.assertEqual(status, 422, body)
        self.assertIn(b'updates may not add a condition of type \\"Approved\\"', body)
        status, _, body = self.server.request("PUT", CSRS + "/parts/approval", json.dumps(csr))
        self.assertEqual(status, 200, body)
        approved = json.loads(body)
        with open(self.server.ca_file, "rb") as f:
            approved["status"]["certificate"] = base64.b64encode(f.read()).decode()
        status, _, body = self.server.request("PUT", CSRS + "/parts/approval",
                                              json.dumps(approved))
        self.assertEqual(status, 200, body)  # the certificate is not /approval's to set
        self.assertNotIn("certificate", json.loads(body)["status"])
        approved["status"]["conditions"] = []
        status, _, body = self.server.request("PUT", CSRS + "/parts/approval",
                                              json.dumps(approved))
        self.assertEqual(status, 422, body)
        self.assertIn(b'updates may not remove a condition of type \\"Approved\\"', body)


class Cleaning(unittest.TestCase):
    """Requests denied or failed more than an hour ago are deleted by the cleaner's first
    pass, once the controller manager starts; a recent one stays."""

    def test_old_denied_and_failed_requests_are_deleted_at_start(self):
        server = harness.Server()
        kcm = None
        tmp = tempfile.mkdtemp(prefix="kcm-clean-")
        try:
            made = harness.run([harness.OPENSSL, "req", "-new", "-nodes", "-newkey", "ec",
                                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-keyout",
                                os.path.join(tmp, "k"), "-subj", "/CN=old"])
            self.assertEqual(made.returncode, 0, made.stderr)
            request = made.stdout
            two_hours_ago = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 7200))
            # Names in the order the pass walks the cache (by name): the recent one between.
            for name, condition, when in (("a-old-denied", "Denied", two_hours_ago),
                                          ("b-recent-denied", "Denied", None),
                                          ("c-old-failed", "Failed", two_hours_ago)):
                csr = {"apiVersion": "certificates.k8s.io/v1",
                       "kind": "CertificateSigningRequest", "metadata": {"name": name},
                       "spec": {"request": base64.b64encode(request.encode()).decode(),
                                "signerName": "example.com/nobody", "usages": ["client auth"]}}
                status, _, body = server.request("POST", CSRS, json.dumps(csr))
                self.assertEqual(status, 201, body)
                csr = json.loads(body)
                c = {"type": condition, "status": "True", "reason": "Test"}
                if when:
                    c["lastUpdateTime"] = when
                csr["status"] = {"conditions": [c]}
                sub = "approval" if condition == "Denied" else "status"
                status, _, body = server.request("PUT", "%s/%s/%s" % (CSRS, name, sub),
                                                 json.dumps(csr))
                self.assertEqual(status, 200, body)
            kcm = harness.ControllerManager(server)

            def gone():
                r = server.kubectl("get", "csr", "-o", "name")
                return r.stdout.split() == ["certificatesigningrequest.certificates.k8s.io/"
                                            "b-recent-denied"], r.stdout
            wait_for(gone, 20, "the old requests deleted")
            log = kcm.log()
            self.assertIn('"Cleaning CSR as it is more than deniedExpiration duration old and '
                          'denied." csr="a-old-denied" deniedExpiration="1h0m0s"', log)
            self.assertIn('"Cleaning CSR as it is more than deniedExpiration duration old and '
                          'failed." csr="c-old-failed" deniedExpiration="1h0m0s"', log)
            self.assertNotIn("b-recent-denied", log)
        finally:
            if kcm:
                kcm.stop()
            server.stop()
            shutil.rmtree(tmp, ignore_errors=True)


class SigningFlags(unittest.TestCase):
    """The signing files: none skips the signer; per-signer files run only those signers;
    mixing both, or half a pair, is refused before anything starts."""

    def test_without_files_the_signer_is_skipped(self):
        server = harness.Server()
        self.addCleanup(server.stop)
        kcm = harness.ControllerManager(server, signing=False)
        self.addCleanup(kcm.stop)
        expected = ('"Skipping CSR signer controller because no csr cert/key was specified"',
                    '"Warning: skipping controller" '
                    'controller="certificatesigningrequest-signing-controller"',
                    '"Started controller" '
                    'controller="certificatesigningrequest-approving-controller"',
                    '"Started controller" '
                    'controller="certificatesigningrequest-cleaner-controller"')
        wait_for(lambda: (all(line in kcm.log() for line in expected), kcm.log()), 20,
                 "the start-up log lines")

    def test_per_signer_files_run_only_their_signers(self):
        server = harness.Server()
        self.addCleanup(server.stop)
        kcm = harness.ControllerManager(
            server, "--cluster-signing-kube-apiserver-client-cert-file", server.ca_file,
            "--cluster-signing-kube-apiserver-client-key-file",
            os.path.join(server.pki, "ca.key"), signing=False)
        self.addCleanup(kcm.stop)
        started = ('"Started controller" controller="certificatesigningrequest-signing-'
                   'controller"', '"Starting certificate controller" '
                   'name="csrsigning-kube-apiserver-client"')
        wait_for(lambda: (all(line in kcm.log() for line in started), kcm.log()), 20,
                 "the signer started")
        log = kcm.log()
        for signer in ("kubernetes.io/kubelet-serving",
                       "kubernetes.io/kube-apiserver-client-kubelet",
                       "kubernetes.io/legacy-unknown"):
            self.assertIn('"Skipping CSR signer controller because specific files were '
                          'specified for other signers and not this one" controller="%s"'
                          % signer, log)
        self.assertNotIn('name="csrsigning-kubelet-serving"', log)

    def test_mixed_or_unpaired_files_are_refused(self):
        r = harness.run([harness.KCM_BINARY, "--kubeconfig=/nonexistent",
                         "--cluster-signing-cert-file=/a", "--cluster-signing-key-file=/b",
                         "--cluster-signing-kubelet-serving-key-file=/c"])
        self.assertEqual(r.returncode, 1)
        self.assertIn('"cluster-signing-kubelet-serving": cannot specify key without cert',
                      r.stderr)
        self.assertIn("cannot specify --cluster-signing-{cert,key}-file and other "
                      "--cluster-signing-*-file flags at the same time", r.stderr)


if __name__ == "__main__":
    unittest.main()
