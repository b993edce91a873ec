"""Integration tests: StorageObjectInUseProtection admission and the controller manager's
persistentvolumeclaim-protection and persistentvolume-protection controllers, through the
real binaries and real kubectl.

New claims and volumes get their protection finalizers; a claim that a scheduled pod mounts
stays Terminating until the pod is gone; a Bound volume stays until it is no longer bound;
what nothing uses is deleted at once.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver KAS_KCM_BINARY=.../kube-controller-manager \\
        /usr/bin/python3 -m unittest test_kcm_volume_protection -v
"""

import json

import harness
import kcm_cluster


def claim(name):
    return json.dumps({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                       "metadata": {"name": name},
                       "spec": {"accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": {"storage": "1Gi"}}}})


class VolumeProtectionTest(kcm_cluster.ClusterTestCase):

    def finalizers(self, *args):
        got = self.get_json(*args)
        return None if got is None else got["metadata"].get("finalizers", [])

    def wait_gone(self, *args):
        harness.wait_for(lambda: (not self.exists(*args), self.get_json(*args)), 30,
                         "%s to be deleted" % " ".join(args))

    def test_claims_in_use_wait_for_their_pods(self):
        self.ok("create", "namespace", "storage")
        self.ok("create", "-n", "storage", "-f", "-", stdin=claim("used"))
        self.ok("create", "-n", "storage", "-f", "-", stdin=claim("unused"))
        self.assertEqual(self.finalizers("pvc", "used", "-n", "storage"),
                         ["kubernetes.io/pvc-protection"])
        # A scheduled pod mounts "used".
        self.ok("create", "-n", "storage", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
            "spec": {"nodeName": "node-1",
                     "containers": [{"name": "app", "image": "nginx:1.27",
                                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                     "volumes": [{"name": "data",
                                  "persistentVolumeClaim": {"claimName": "used"}}]}}))
        # "used" is deleted first: once "unused", deleted after it, is gone, the controller
        # has had its turn at "used" and kept it.
        self.ok("delete", "pvc", "used", "-n", "storage", "--wait=false")
        self.ok("delete", "pvc", "unused", "-n", "storage", "--wait=false")
        self.wait_gone("pvc", "unused", "-n", "storage")
        got = self.get_json("pvc", "used", "-n", "storage")
        self.assertIn("deletionTimestamp", got["metadata"])
        self.assertEqual(got["metadata"]["finalizers"], ["kubernetes.io/pvc-protection"])
        self.ok("delete", "pod", "user", "-n", "storage", "--grace-period=0", "--force")
        self.wait_gone("pvc", "used", "-n", "storage")

    def test_bound_volumes_wait_until_released(self):
        self.ok("create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "disk"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "hostPath": {"path": "/tmp/disk"}}}))
        self.assertEqual(self.finalizers("pv", "disk"), ["kubernetes.io/pv-protection"])
        self.ok("patch", "pv", "disk", "--subresource=status", "--type=merge", "-p",
                '{"status":{"phase":"Bound"}}')
        self.ok("delete", "pv", "disk", "--wait=false")
        # An unbound volume deleted after it goes at once; the bound one stays meanwhile.
        self.ok("create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "spare"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "hostPath": {"path": "/tmp/spare"}}}))
        harness.wait_for(lambda: (self.finalizers("pv", "spare") != [], None), 30,
                         "the spare volume's finalizer")
        self.ok("delete", "pv", "spare", "--wait=false")
        self.wait_gone("pv", "spare")
        got = self.get_json("pv", "disk")
        self.assertIn("deletionTimestamp", got["metadata"])
        self.assertEqual(got["metadata"]["finalizers"], ["kubernetes.io/pv-protection"])
        self.ok("patch", "pv", "disk", "--subresource=status", "--type=merge", "-p",
                '{"status":{"phase":"Released"}}')
        self.wait_gone("pv", "disk")
