"""Integration tests: the admission chain through the real binary and real kubectl.

With upstream's default plugins (`--disable-admission-plugins=` leaves them all on):
ServiceAccount gives pods their account (which must exist) and the projected token volume
mounted in every container; Priority resolves priorityClassName (the default class, unknown
ones refused, one global default only); DefaultTolerationSeconds adds the not-ready and
unreachable tolerations; LimitRanger defaults containers' resources from the namespace's
LimitRanges and refuses those beyond their bounds; ResourceQuota refuses what a quota whose
usage is unknown limits; DefaultStorageClass and DefaultIngressClass fill in the default
class; PersistentVolumeClaimResize lets only bound claims of expandable classes grow;
TaintNodesByCondition taints new nodes; RuntimeClass gives pods their class's
overhead and scheduling; the certificate plugins want `approve` on the
signer and refuse system:masters from the client signer; NamespaceLifecycle still refuses
missing namespaces. Disabled plugins do nothing; AlwaysPullImages, off by default, makes
every pull policy Always; unknown plugin names stop the server with
upstream's messages.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_admission -v
"""

import base64
import json
import os
import tempfile
import time
import unittest

import harness

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


pod = harness.pod_manifest


class DefaultPluginsTest(unittest.TestCase):
    """The chain with upstream's default plugins, without a controller manager: each
    namespace's default service account is made by the test."""

    @classmethod
    def setUpClass(cls):
        cls.server = harness.Server("--disable-admission-plugins=")  # upstream's defaults
        cls.tmp = tempfile.mkdtemp(prefix="kas-it-admission-")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def kubectl(self, *args, stdin=None):
        return self.server.kubectl(*args, stdin=stdin)

    def ok(self, *args, stdin=None):
        r = self.kubectl(*args, stdin=stdin)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def create_pod(self, ns, body):
        self.ok("create", "-n", ns, stdin=body)
        return json.loads(self.ok("get", "pod", body["metadata"]["name"], "-n", ns, "-o", "json"))

    def namespace(self, name, with_default_account=True):
        self.ok("create", "namespace", name)
        if with_default_account:
            self.ok("create", "serviceaccount", "default", "-n", name)

    def test_mountable_secrets_enforced(self):
        self.namespace("mountable", with_default_account=False)
        self.ok("create", "-n", "mountable", stdin={
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "limited",
                         "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"}},
            "secrets": [{"name": "listed"}], "imagePullSecrets": [{"name": "registry"}]})
        cases = [
            ({"volumes": [{"name": "v", "secret": {"secretName": "other"}}]},
             'volume with secret.secretName="other" is not allowed because service account '
             'limited does not reference that secret'),
            ({"containers": [{"name": "app", "image": "nginx:1.27", "env": [
                {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "other",
                                                                    "key": "k"}}}]}]},
             'container app with envVar PASSWORD referencing secret.secretName="other" is not '
             'allowed because service account limited does not reference that secret'),
            ({"initContainers": [{"name": "init", "image": "busybox:1.36", "envFrom": [
                {"secretRef": {"name": "other"}}]}]},
             'init container init with envFrom referencing secret.secretName="other" is not '
             'allowed because service account limited does not reference that secret'),
            ({"imagePullSecrets": [{"name": "elsewhere"}]},
             'imagePullSecrets[0].name="elsewhere" is not allowed because service account '
             'limited does not reference that imagePullSecret')]
        for spec, message in cases:
            body = pod("p", serviceAccountName="limited", **spec)
            r = self.kubectl("create", "-n", "mountable", stdin=body)
            self.assertNotEqual(r.returncode, 0, spec)
            self.assertIn('pods "p" is forbidden: ' + message, r.stderr)
        # What it lists is fine (its imagePullSecrets are given to pods that name none).
        self.ok("create", "-n", "mountable", stdin=pod(
            "fine", serviceAccountName="limited",
            volumes=[{"name": "v", "secret": {"secretName": "listed"}}]))

    def test_service_account_must_exist(self):
        self.namespace("no-account", with_default_account=False)
        r = self.kubectl("create", "-n", "no-account", stdin=pod("p"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Error from server (Forbidden): error when creating', r.stderr)
        self.assertIn('pods "p" is forbidden: error looking up service account '
                      'no-account/default: serviceaccount "default" not found', r.stderr)
        r = self.kubectl("create", "-n", "no-account",
                         stdin=pod("q", serviceAccountName="robot"))
        self.assertIn('error looking up service account no-account/robot: serviceaccount '
                      '"robot" not found', r.stderr)

    def test_pods_get_their_account_and_token_volume(self):
        self.namespace("sa")
        got = self.create_pod("sa", pod(
            "web", initContainers=[{"name": "init", "image": "busybox"}]))
        spec = got["spec"]
        self.assertEqual((spec["serviceAccountName"], spec["serviceAccount"]),
                         ("default", "default"))
        volumes = [v for v in spec["volumes"] if v["name"].startswith("kube-api-access-")]
        self.assertEqual(len(volumes), 1, spec["volumes"])
        name = volumes[0]["name"]
        self.assertEqual(len(name), len("kube-api-access-") + 5)
        self.assertEqual(volumes[0]["projected"], {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt",
                               "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
                    "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]})
        for c in spec["containers"] + spec["initContainers"]:
            self.assertEqual(c["volumeMounts"], [
                {"name": name, "readOnly": True, "mountPath": TOKEN_PATH}], c["name"])

        # The pod's automountServiceAccountToken, then the account's, decide.
        got = self.create_pod("sa", pod("quiet", automountServiceAccountToken=False))
        self.assertNotIn("volumes", got["spec"])
        self.assertNotIn("volumeMounts", got["spec"]["containers"][0])
        self.ok("create", "-n", "sa", stdin={
            "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"},
            "automountServiceAccountToken": False, "imagePullSecrets": [{"name": "registry"}]})
        got = self.create_pod("sa", pod("robot", serviceAccountName="robot"))
        self.assertNotIn("volumes", got["spec"])
        self.assertEqual(got["spec"]["imagePullSecrets"], [{"name": "registry"}])
        got = self.create_pod("sa", pod("robot-mounted", serviceAccountName="robot",
                                        automountServiceAccountToken=True))
        self.assertEqual(len(got["spec"]["volumes"]), 1)

        # A container that mounts something at the token's path keeps it.
        own = pod("own-mount", volumes=[{"name": "mine", "emptyDir": {}}])
        own["spec"]["containers"] = [
            {"name": "a", "image": "nginx", "volumeMounts": [
                {"name": "mine", "mountPath": TOKEN_PATH}]},
            {"name": "b", "image": "nginx"}]
        got = self.create_pod("sa", own)
        a, b = got["spec"]["containers"]
        self.assertEqual(a["volumeMounts"], [{"name": "mine", "mountPath": TOKEN_PATH}])
        self.assertEqual(b["volumeMounts"][0]["mountPath"], TOKEN_PATH)
        self.assertEqual(len(got["spec"]["volumes"]), 2)

    def test_priority_classes(self):
        self.namespace("prio")
        got = self.create_pod("prio", pod("plain"))
        self.assertEqual((got["spec"]["priority"], got["spec"]["preemptionPolicy"]),
                         (0, "PreemptLowerPriority"))
        self.assertNotIn("priorityClassName", got["spec"])
        got = self.create_pod("prio", pod("critical", priorityClassName="system-node-critical"))
        self.assertEqual(got["spec"]["priority"], 2000001000)
        r = self.kubectl("create", "-n", "prio", stdin=pod("nope", priorityClassName="nope"))
        self.assertIn('pods "nope" is forbidden: no PriorityClass with name nope was found',
                      r.stderr)
        r = self.kubectl("create", "-n", "prio", stdin=pod("forced", priority=5))
        self.assertIn('pods "forced" is forbidden: the integer value of priority (5) must not '
                      'be provided in pod spec; priority admission controller computed 0 from '
                      'the given PriorityClass name', r.stderr)
        # A global default class is every class-less pod's; there is only one.
        self.ok("create", "priorityclass", "batch-low", "--value=-10", "--global-default=true",
                "--preemption-policy=Never")
        self.addCleanup(self.kubectl, "delete", "priorityclass", "batch-low")
        got = self.create_pod("prio", pod("defaulted"))
        self.assertEqual((got["spec"]["priorityClassName"], got["spec"]["priority"],
                          got["spec"]["preemptionPolicy"]), ("batch-low", -10, "Never"))
        r = self.kubectl("create", "priorityclass", "another", "--value=1",
                         "--global-default=true")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass '
                      'batch-low is already marked as default. Only one default can exist',
                      r.stderr)

    def test_runtime_classes(self):
        self.namespace("runtime")
        self.ok("create", stdin={
            "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "gvisor"},
            "handler": "runsc", "overhead": {"podFixed": {"cpu": "250m", "memory": "64Mi"}},
            "scheduling": {"nodeSelector": {"sandbox": "gvisor"},
                           "tolerations": [{"key": "sandbox", "operator": "Exists",
                                            "effect": "NoSchedule"}]}})
        self.addCleanup(self.kubectl, "delete", "runtimeclass", "gvisor")
        got = self.create_pod("runtime", pod("sandboxed", runtimeClassName="gvisor"))
        self.assertEqual(got["spec"]["overhead"], {"cpu": "250m", "memory": "64Mi"})
        self.assertEqual(got["spec"]["nodeSelector"], {"sandbox": "gvisor"})
        self.assertIn({"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"},
                      got["spec"]["tolerations"])
        for body, message in [
                (pod("missing", runtimeClassName="kata"),
                 'pods "missing" is forbidden: pod rejected: RuntimeClass "kata" not found'),
                (pod("other-overhead", runtimeClassName="gvisor", overhead={"cpu": "1"}),
                 'pods "other-overhead" is forbidden: pod rejected: Pod\'s Overhead doesn\'t '
                 'match RuntimeClass\'s defined Overhead'),
                (pod("no-class", overhead={"cpu": "1"}),
                 'pods "no-class" is forbidden: pod rejected: Pod Overhead set without '
                 'corresponding RuntimeClass defined Overhead'),
                (pod("conflict", runtimeClassName="gvisor", nodeSelector={"sandbox": "kata"}),
                 'pods "conflict" is forbidden: conflict: '
                 'runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; '
                 'pod.spec.nodeSelector[sandbox] = kata')]:
            r = self.kubectl("create", "-n", "runtime", stdin=body)
            self.assertNotEqual(r.returncode, 0, body["metadata"]["name"])
            self.assertIn(message, r.stderr)

    def test_default_toleration_seconds(self):
        self.namespace("tol")
        got = self.create_pod("tol", pod("plain"))
        self.assertEqual(got["spec"]["tolerations"], [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300}])
        mine = {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                "effect": "NoExecute", "tolerationSeconds": 30}
        got = self.create_pod("tol", pod("own", tolerations=[mine]))
        self.assertEqual([t["key"] for t in got["spec"]["tolerations"]],
                         ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"])
        self.assertEqual(got["spec"]["tolerations"][0]["tolerationSeconds"], 30)

    def test_limit_ranges_default_and_bound_containers(self):
        self.namespace("limits")
        self.ok("create", "-n", "limits", stdin={
            "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "bounds"},
            "spec": {"limits": [{"type": "Container",
                                 "default": {"cpu": "500m", "memory": "256Mi"},
                                 "defaultRequest": {"cpu": "100m"},
                                 "min": {"cpu": "50m"}, "max": {"cpu": "1"},
                                 "maxLimitRequestRatio": {"cpu": "10"}}]}})
        got = self.create_pod("limits", pod("defaulted"))
        self.assertEqual(got["spec"]["containers"][0]["resources"], {
            "limits": {"cpu": "500m", "memory": "256Mi"},
            "requests": {"cpu": "100m", "memory": "256Mi"}})
        self.assertEqual(got["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
                         "LimitRanger plugin set: cpu, memory request for container app; "
                         "cpu, memory limit for container app")
        # What the pod sets is kept; only what it lacks is defaulted.
        own = pod("own")
        own["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "800m"}}
        got = self.create_pod("limits", own)
        self.assertEqual(got["spec"]["containers"][0]["resources"], {
            "limits": {"cpu": "800m", "memory": "256Mi"},
            "requests": {"cpu": "800m", "memory": "256Mi"}})
        self.assertEqual(got["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
                         "LimitRanger plugin set: memory request for container app; "
                         "memory limit for container app")
        # Beyond the bounds: upstream's messages.
        for resources, message in [
                ({"limits": {"cpu": "2"}},
                 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2'),
                ({"requests": {"cpu": "10m"}, "limits": {"cpu": "20m"}},
                 'pods "big" is forbidden: minimum cpu usage per Container is 50m, but request '
                 'is 10m'),
                ({"requests": {"cpu": "60m"}, "limits": {"cpu": "1"}},
                 'pods "big" is forbidden: cpu max limit to request ratio per Container is 10, '
                 'but provided ratio is 16.666667')]:
            big = pod("big")
            big["spec"]["containers"][0]["resources"] = resources
            r = self.kubectl("create", "-n", "limits", stdin=big)
            self.assertNotEqual(r.returncode, 0, resources)
            self.assertIn(message, r.stderr)
        # Pod items bound the pod's totals; claim items the storage a claim asks for.
        self.ok("create", "-n", "limits", stdin={
            "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "totals"},
            "spec": {"limits": [{"type": "Pod", "max": {"cpu": "1"}},
                                {"type": "PersistentVolumeClaim",
                                 "min": {"storage": "1Gi"}, "max": {"storage": "5Gi"}}]}})
        pair = pod("pair")
        pair["spec"]["containers"] = [
            {"name": n, "image": "nginx:1.27", "resources": {"limits": {"cpu": "600m"}}}
            for n in ("a", "b")]
        r = self.kubectl("create", "-n", "limits", stdin=pair)
        self.assertIn('pods "pair" is forbidden: maximum cpu usage per Pod is 1, but limit is '
                      '1200m', r.stderr)

        def claim(name, storage):
            return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": name},
                    "spec": {"accessModes": ["ReadWriteOnce"],
                             "resources": {"requests": {"storage": storage}}}}

        r = self.kubectl("create", "-n", "limits", stdin=claim("huge", "10Gi"))
        self.assertIn('persistentvolumeclaims "huge" is forbidden: maximum storage usage per '
                      'PersistentVolumeClaim is 5Gi, but request is 10Gi', r.stderr)
        r = self.kubectl("create", "-n", "limits", stdin=claim("tiny", "100Mi"))
        self.assertIn('persistentvolumeclaims "tiny" is forbidden: minimum storage usage per '
                      'PersistentVolumeClaim is 1Gi, but request is 100Mi', r.stderr)
        self.ok("create", "-n", "limits", stdin=claim("fits", "2Gi"))

    def test_quotas_without_the_controller_manager(self):
        """Without the controller manager nobody fills in a quota's status: one without
        status.hard limits nothing yet; one whose status.hard names what it has no
        status.used for refuses what it limits, as upstream's plugin does."""
        self.namespace("unknown-usage")
        self.ok("create", "quota", "q", "--hard=count/configmaps=5,requests.cpu=1",
                "-n", "unknown-usage")
        self.ok("create", "configmap", "before", "-n", "unknown-usage")
        status = {"status": {"hard": {"count/configmaps": "5", "requests.cpu": "1"}}}
        self.ok("patch", "quota", "q", "-n", "unknown-usage", "--subresource=status",
                "--type=merge", "-p", json.dumps(status))
        r = self.kubectl("create", "configmap", "c", "-n", "unknown-usage")
        self.assertIn('configmaps "c" is forbidden: status unknown for quota: q, resources: '
                      'count/configmaps', r.stderr)
        # What it does not limit is not affected.
        self.ok("create", "secret", "generic", "s", "-n", "unknown-usage")
        # With usage known: compute resources are charged, and must be stated.
        status["status"]["used"] = {"count/configmaps": "1", "requests.cpu": "0"}
        self.ok("patch", "quota", "q", "-n", "unknown-usage", "--subresource=status",
                "--type=merge", "-p", json.dumps(status))
        r = self.kubectl("create", "-n", "unknown-usage", stdin=pod("unstated"))
        self.assertIn('pods "unstated" is forbidden: failed quota: q: must specify '
                      'requests.cpu for: app', r.stderr)
        stated = pod("stated")
        stated["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "600m"}}
        self.ok("create", "-n", "unknown-usage", stdin=stated)
        used = json.loads(self.ok("get", "quota", "q", "-n", "unknown-usage", "-o", "json"))
        self.assertEqual(used["status"]["used"]["requests.cpu"], "600m")
        stated["metadata"]["name"] = "second"
        r = self.kubectl("create", "-n", "unknown-usage", stdin=stated)
        self.assertIn('pods "second" is forbidden: exceeded quota: q, requested: '
                      'requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
                      r.stderr)

    def test_default_classes_and_node_taints(self):
        self.namespace("classes")
        # StorageClasses: the newest default wins (not the first by name); "" asks for none.
        for name in ("a-older", "b-newer"):
            self.ok("create", stdin={
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": name, "annotations": {
                    "storageclass.kubernetes.io/is-default-class": "true"}},
                "provisioner": "example.com/disk"})
            self.addCleanup(self.kubectl, "delete", "storageclass", name)
            time.sleep(1.1)  # creationTimestamp has a resolution of one second
        claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "data"},
                 "spec": {"accessModes": ["ReadWriteOnce"],
                          "resources": {"requests": {"storage": "1Gi"}}}}
        self.ok("create", "-n", "classes", stdin=claim)
        self.assertEqual(self.ok("get", "pvc", "data", "-n", "classes", "-o",
                                 "jsonpath={.spec.storageClassName}"), "b-newer")
        claim["metadata"]["name"] = "static"
        claim["spec"]["storageClassName"] = ""
        self.ok("create", "-n", "classes", stdin=claim)
        self.assertEqual(self.ok("get", "pvc", "static", "-n", "classes", "-o",
                                 "jsonpath={.spec.storageClassName}"), "")

        # IngressClasses: the default is given; two defaults refuse.
        ingress = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                   "metadata": {"name": "web"},
                   "spec": {"defaultBackend": {"service": {"name": "web", "port": {
                       "number": 80}}}}}
        for name in ("nginx", "traefik"):
            self.ok("create", stdin={
                "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
                "metadata": {"name": name, "annotations": {
                    "ingressclass.kubernetes.io/is-default-class": "true"}},
                "spec": {"controller": "example.com/" + name}})
            self.addCleanup(self.kubectl, "delete", "ingressclass", name)
            if name == "nginx":
                self.ok("create", "-n", "classes", stdin=ingress)
                self.assertEqual(self.ok("get", "ingress", "web", "-n", "classes", "-o",
                                         "jsonpath={.spec.ingressClassName}"), "nginx")
        ingress["metadata"]["name"] = "second"
        r = self.kubectl("create", "-n", "classes", stdin=ingress)
        self.assertIn('ingresses.networking.k8s.io "second" is forbidden: Internal error '
                      'occurred: 2 default IngressClasses were found, only 1 allowed', r.stderr)

        # Nodes start not ready for scheduling.
        self.ok("create", stdin={"apiVersion": "v1", "kind": "Node",
                                 "metadata": {"name": "fresh"}})
        self.addCleanup(self.kubectl, "delete", "node", "fresh")
        taints = json.loads(self.ok("get", "node", "fresh", "-o", "json"))["spec"]["taints"]
        self.assertEqual(taints, [{"key": "node.kubernetes.io/not-ready",
                                   "effect": "NoSchedule"}])

    def test_claims_grow_only_when_their_class_allows(self):
        self.namespace("resize")
        for name, expand in (("elastic", True), ("fixed", False)):
            self.ok("create", stdin={
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": name}, "provisioner": "example.com/disk",
                "allowVolumeExpansion": expand})
            self.addCleanup(self.kubectl, "delete", "storageclass", name)
        for name, cls in (("grows", "elastic"), ("stays", "fixed"), ("pending", "elastic")):
            self.ok("create", "-n", "resize", stdin={
                "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                         "resources": {"requests": {"storage": "1Gi"}}}})
            if name != "pending":
                self.ok("patch", "pvc", name, "-n", "resize", "--subresource=status",
                        "--type=merge", "-p", '{"status":{"phase":"Bound"}}')

        def grow(name):
            return self.kubectl("patch", "pvc", name, "-n", "resize", "--type=merge", "-p",
                                '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')
        r = grow("grows")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('persistentvolumeclaims "stays" is forbidden: only dynamically '
                      'provisioned pvc can be resized and the storageclass that provisions the '
                      'pvc must support resize', grow("stays").stderr)
        self.assertIn('persistentvolumeclaims "pending" is forbidden: Only bound persistent '
                      'volume claims can be expanded', grow("pending").stderr)

    def test_namespace_lifecycle_still_runs(self):
        r = self.kubectl("create", "configmap", "x", "-n", "missing")
        self.assertIn('namespaces "missing" not found', r.stderr)


def csr(name, subject, signer="kubernetes.io/kube-apiserver-client"):
    """A CertificateSigningRequest of a new EC key for `subject` ("/CN=x/O=y")."""
    tmp = tempfile.mkdtemp(prefix="kas-it-csr-")
    key, req = os.path.join(tmp, "k.pem"), os.path.join(tmp, "r.pem")
    out = harness.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                       "ec_paramgen_curve:prime256v1", "-nodes", "-subj", subject,
                       "-keyout", key, "-out", req])
    assert out.returncode == 0, out.stderr
    with open(req, "rb") as f:
        request = base64.b64encode(f.read()).decode()
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name},
            "spec": {"request": request, "signerName": signer, "usages": ["client auth"]}}


class CertificatePluginsTest(unittest.TestCase):
    """CertificateApproval and CertificateSubjectRestriction under RBAC: approving needs
    `approve` on the signer, and nobody may ask the client signer for system:masters."""

    def test_approval_needs_the_signer_and_masters_are_refused(self):
        tmp = tempfile.mkdtemp(prefix="kas-it-certs-")
        tokens = os.path.join(tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write("approver-token,approver,uid-a\n")
        server = harness.Server("--authorization-mode=RBAC", "--token-auth-file", tokens)
        self.addCleanup(server.stop)

        def admin(*args, stdin=None):
            if stdin is not None:
                path = os.path.join(tmp, "in.json")
                with open(path, "w") as f:
                    json.dump(stdin, f)
                args = args + ("-f", path)
            return server.kubectl(*args)
        approver = os.path.join(tmp, "approver.kubeconfig")
        harness.write_kubeconfig(approver, server, "    token: approver-token")

        r = admin("create", stdin=csr("masters", "/CN=eve/O=system:masters"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('certificatesigningrequests.certificates.k8s.io "masters" is forbidden: '
                      'use of kubernetes.io/kube-apiserver-client signer with system:masters '
                      'group is not allowed', r.stderr)
        r = admin("create", stdin=csr("jane", "/CN=jane/O=dev"))
        self.assertEqual(r.returncode, 0, r.stderr)

        # May update approvals, but not approve for this signer.
        for args in (("create", "clusterrole", "csr-approver", "--verb=get,list,update",
                      "--resource=certificatesigningrequests,"
                      "certificatesigningrequests/approval"),
                     ("create", "clusterrolebinding", "csr-approver", "--clusterrole=csr-approver",
                      "--user=approver")):
            r = admin(*args)
            self.assertEqual(r.returncode, 0, r.stderr)

        def approve():
            return server.kubectl("certificate", "approve", "jane", kubeconfig=approver)

        def refused():
            r = approve()
            return "not permitted to approve" in r.stderr, r
        r = harness.wait_for(refused, 10, "the approval refused")
        self.assertIn('certificatesigningrequests.certificates.k8s.io "jane" is forbidden: user '
                      'not permitted to approve requests with signerName '
                      '"kubernetes.io/kube-apiserver-client"', r.stderr)
        # The signer's domain is enough.
        r = admin("create", stdin={
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "signer-approver"},
            "rules": [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                       "resourceNames": ["kubernetes.io/*"], "verbs": ["approve"]}]})
        self.assertEqual(r.returncode, 0, r.stderr)
        r = admin("create", "clusterrolebinding", "signer-approver",
                  "--clusterrole=signer-approver", "--user=approver")
        self.assertEqual(r.returncode, 0, r.stderr)

        def allowed():
            r = approve()
            return r.returncode == 0, r.stderr
        harness.wait_for(allowed, 10, "the approval allowed")
        conditions = json.loads(admin("get", "csr", "jane", "-o", "json").stdout)[
            "status"]["conditions"]
        self.assertEqual(conditions[0]["type"], "Approved")


class ChosenPluginsTest(unittest.TestCase):
    """Servers with plugins disabled, or enabled beyond the defaults."""

    def test_disabled_plugins_leave_pods_alone(self):
        server = harness.Server(
            "--disable-admission-plugins=ServiceAccount,Priority,DefaultTolerationSeconds")
        self.addCleanup(server.stop)
        path = os.path.join(server.tmpdir, "pod.json")
        with open(path, "w") as f:
            json.dump(pod("bare"), f)
        r = server.kubectl("create", "-f", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        spec = json.loads(server.kubectl("get", "pod", "bare", "-o", "json").stdout)["spec"]
        for field in ("serviceAccountName", "priority", "tolerations", "volumes"):
            self.assertNotIn(field, spec)
        self.assertEqual(spec["containers"][0]["imagePullPolicy"], "IfNotPresent")

    def test_toleration_seconds_flags(self):
        server = harness.Server("--default-not-ready-toleration-seconds=60",
                                "--default-unreachable-toleration-seconds=90")
        self.addCleanup(server.stop)
        path = os.path.join(server.tmpdir, "pod.json")
        with open(path, "w") as f:
            json.dump(pod("tolerant"), f)
        r = server.kubectl("create", "-f", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        spec = json.loads(server.kubectl("get", "pod", "tolerant", "-o", "json").stdout)["spec"]
        self.assertEqual({t["key"]: t["tolerationSeconds"] for t in spec["tolerations"]},
                         {"node.kubernetes.io/not-ready": 60,
                          "node.kubernetes.io/unreachable": 90})

    def test_always_pull_images_when_enabled(self):
        server = harness.Server("--enable-admission-plugins=AlwaysPullImages",
                                "--disable-admission-plugins=ServiceAccount")
        self.addCleanup(server.stop)
        body = pod("pulled", initContainers=[{"name": "init", "image": "busybox:1.36",
                                              "imagePullPolicy": "Never"}])
        path = os.path.join(server.tmpdir, "pod.json")
        with open(path, "w") as f:
            json.dump(body, f)
        r = server.kubectl("create", "-f", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        spec = json.loads(server.kubectl("get", "pod", "pulled", "-o", "json").stdout)["spec"]
        self.assertEqual(
            [c["imagePullPolicy"] for c in spec["initContainers"] + spec["containers"]],
            ["Always", "Always"])


class AdmissionOptionsTest(unittest.TestCase):
    def test_unknown_and_overlapping_plugins_are_refused(self):
        server = harness.Server("--enable-admission-plugins=Bogus,AlwaysPullImages",
                                "--disable-admission-plugins=Nope,AlwaysPullImages",
                                start=False)
        self.addCleanup(server.stop)
        out = harness.run(server.command(), timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn('enable-admission-plugins plugin "Bogus" is unknown', out.stderr)
        self.assertIn('disable-admission-plugins plugin "Nope" is unknown', out.stderr)
        self.assertIn('[AlwaysPullImages] in enable-admission-plugins and '
                      'disable-admission-plugins overlapped', out.stderr)


if __name__ == "__main__":
    unittest.main()


class EventRateLimitTest(unittest.TestCase):
    """EventRateLimit, off by default: enabled with its configuration file, events over a
    namespace's burst are refused with 429; without a configuration the server stops."""

    def test_events_over_the_limit(self):
        directory = tempfile.mkdtemp(prefix="kas-it-eventratelimit-")
        limits = os.path.join(directory, "limits.yaml")
        with open(limits, "w") as f:
            f.write("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n"
                    "kind: Configuration\n"
                    "limits:\n"
                    "- type: Namespace\n  qps: 1\n  burst: 3\n")
        config = os.path.join(directory, "admission.yaml")
        with open(config, "w") as f:
            f.write("apiVersion: apiserver.config.k8s.io/v1\n"
                    "kind: AdmissionConfiguration\n"
                    "plugins:\n- name: EventRateLimit\n  path: limits.yaml\n")
        server = harness.Server("--enable-admission-plugins=EventRateLimit",
                                "--disable-admission-plugins=ServiceAccount",
                                "--admission-control-config-file=" + config)
        try:
            def event(ns, i):
                body = {"apiVersion": "v1", "kind": "Event",
                        "metadata": {"name": "e%d" % i, "namespace": ns},
                        "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns},
                        "reason": "Test", "message": "m"}
                status, _, data = server.request(
                    "POST", "/api/v1/namespaces/%s/events" % ns, json.dumps(body).encode(),
                    headers={"Content-Type": "application/json"})
                return status, json.loads(data)

            statuses = [event("default", i)[0] for i in range(3)]
            self.assertEqual(statuses, [201, 201, 201])
            status, body = event("default", 3)
            self.assertEqual((status, body["reason"]), (429, "TooManyRequests"))
            self.assertEqual(body["message"],
                             "Too many requests: limit reached on type Namespace for key default")
            # Another namespace has a bucket of its own.
            self.assertEqual(event("kube-public", 0)[0], 201)
        finally:
            server.stop()
        bare = harness.Server("--enable-admission-plugins=EventRateLimit", start=False)
        out = harness.run(bare.command())
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('couldn\'t init admission plugin "EventRateLimit": no config specified',
                      out.stderr)
        bare.cleanup()
