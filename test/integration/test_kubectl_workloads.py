"""Integration tests: real kubectl (v1.32) with the built-in workload kinds.

Pods, services and the apps/batch workloads applied from plain manifests and
read back as a user reads them: the stored objects carry upstream's defaults,
re-applying changes nothing, tables have upstream's columns, and the
`kubernetes` service exists from the start.

Run with:
    KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest \
        test.integration.test_kubectl_workloads -v
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_kubectl_rest import WriteTestCase, table  # noqa: E402

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 80
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      containers:
      - name: c
        image: busybox:1.36
        command: ["true"]
      restartPolicy: %s
"""


SMP_BEFORE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smp
  finalizers: [example.com/a, example.com/b]
spec:
  replicas: 2
  selector: {matchLabels: {app: smp}}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1}
  template:
    metadata: {labels: {app: smp}}
    spec:
      containers:
      - name: main
        image: nginx:1.25
        env: [{name: A, value: "1"}, {name: B, value: "1"}]
        ports: [{containerPort: 80}, {containerPort: 443}]
        volumeMounts: [{name: v1, mountPath: /v}]
      - name: side
        image: busybox
      volumes:
      - name: v1
        emptyDir: {}
"""

SMP_AFTER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smp
  finalizers: [example.com/a]
spec:
  replicas: 3
  selector: {matchLabels: {app: smp}}
  strategy:
    type: Recreate
  template:
    metadata: {labels: {app: smp}}
    spec:
      containers:
      - name: main
        image: nginx:1.26
        env: [{name: B, value: "2"}]
        ports: [{containerPort: 80}]
        volumeMounts: [{name: v1, mountPath: /v}]
      volumes:
      - name: v1
        configMap: {name: foo}
"""


class WorkloadTests(WriteTestCase):
    namespace = "wl"

    def apply(self, text):
        return self.ok("apply", "-n", "wl", "-f", self.kubectl.write(text))

    def test_kubernetes_service_at_start(self):
        svc = json.loads(self.ok("get", "service", "kubernetes", "-n",
                                 "default", "-o", "json"))
        self.assertEqual(svc["spec"]["clusterIP"], "10.0.0.1")
        self.assertEqual(svc["spec"]["ports"],
                         [{"name": "https", "port": 443, "protocol": "TCP",
                           "targetPort": self.server.port}])
        self.assertEqual(svc["metadata"]["labels"],
                         {"component": "apiserver", "provider": "kubernetes"})
        ep = json.loads(self.ok("get", "endpoints", "kubernetes", "-n",
                                "default", "-o", "json"))
        self.assertEqual(ep["subsets"][0]["ports"],
                         [{"name": "https", "port": self.server.port,
                           "protocol": "TCP"}])
        slice_ = json.loads(self.ok("get", "endpointslice", "kubernetes", "-n",
                                    "default", "-o", "json"))
        self.assertEqual(slice_["addressType"], "IPv4")
        self.assertEqual(slice_["metadata"]["labels"],
                         {"kubernetes.io/service-name": "kubernetes"})
        self.assertEqual(slice_["ports"],
                         [{"name": "https", "port": self.server.port,
                           "protocol": "TCP"}])

    def test_apply_deployment_then_reapply_and_diff(self):
        self.assertEqual(self.apply(DEPLOYMENT),
                         "deployment.apps/web created\n")
        d = json.loads(self.ok("get", "deploy", "web", "-n", "wl", "-o",
                               "json"))
        spec = d["spec"]
        self.assertEqual(spec["replicas"], 1)
        self.assertEqual(spec["strategy"],
                         {"type": "RollingUpdate",
                          "rollingUpdate": {"maxSurge": "25%",
                                            "maxUnavailable": "25%"}})
        self.assertEqual(spec["revisionHistoryLimit"], 10)
        self.assertEqual(spec["progressDeadlineSeconds"], 600)
        pod = spec["template"]["spec"]
        self.assertEqual(pod["containers"][0]["imagePullPolicy"],
                         "IfNotPresent")
        self.assertEqual(pod["containers"][0]["ports"],
                         [{"containerPort": 80, "protocol": "TCP"}])
        self.assertEqual(pod["terminationGracePeriodSeconds"], 30)
        self.assertIsNone(spec["template"]["metadata"]["creationTimestamp"])
        self.assertEqual(d["metadata"]["generation"], 1)
        rv = d["metadata"]["resourceVersion"]
        # Re-applying the same manifest changes nothing, and diff agrees.
        self.assertEqual(self.apply(DEPLOYMENT),
                         "deployment.apps/web unchanged\n")
        self.ok("diff", "-n", "wl", "-f", self.kubectl.write(DEPLOYMENT))
        again = json.loads(self.ok("get", "deploy", "web", "-n", "wl", "-o",
                                   "json"))
        self.assertEqual(again["metadata"]["resourceVersion"], rv)
        # A changed image: diff shows it (exit 1), apply bumps the generation.
        changed = DEPLOYMENT.replace("nginx:1.25", "nginx:1.27")
        r = self.k("diff", "-n", "wl", "-f", self.kubectl.write(changed))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("-      - image: nginx:1.25", r.stdout)
        self.assertIn("+      - image: nginx:1.27", r.stdout)
        self.assertEqual(self.apply(changed),
                         "deployment.apps/web configured\n")
        d = json.loads(self.ok("get", "deploy", "web", "-n", "wl", "-o",
                               "json"))
        self.assertEqual(d["metadata"]["generation"], 2)
        out = self.ok("get", "deploy", "web", "-n", "wl", "-o", "wide")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "READY", "UP-TO-DATE",
                                   "AVAILABLE", "AGE", "CONTAINERS", "IMAGES",
                                   "SELECTOR"])
        self.assertEqual(rows[1][:4], ["web", "0/1", "0", "0"])
        self.assertEqual(rows[1][5:], ["nginx", "nginx:1.27", "app=web"])

    def test_apply_strategic_merge(self):
        """The cases of ../shared/KUBECTL.md 8.7: a container removed, env
        changed, a port removed, the strategy switched ($retainKeys), a volume
        source replaced ($retainKeys) and a finalizer removed."""
        self.apply(SMP_BEFORE)
        self.assertEqual(self.apply(SMP_AFTER),
                         "deployment.apps/smp configured\n")
        d = json.loads(self.ok("get", "deploy", "smp", "-n", "wl", "-o",
                               "json"))
        self.assertEqual(d["metadata"]["finalizers"], ["example.com/a"])
        self.assertEqual(d["spec"]["replicas"], 3)
        self.assertEqual(d["spec"]["strategy"], {"type": "Recreate"})
        pod = d["spec"]["template"]["spec"]
        self.assertEqual([c["name"] for c in pod["containers"]], ["main"])
        main = pod["containers"][0]
        self.assertEqual(main["image"], "nginx:1.26")
        self.assertEqual(main["env"], [{"name": "B", "value": "2"}])
        self.assertEqual(main["ports"],
                         [{"containerPort": 80, "protocol": "TCP"}])
        self.assertEqual(pod["volumes"],
                         [{"name": "v1", "configMap": {"name": "foo",
                                                       "defaultMode": 420}}])
        self.assertEqual(self.apply(SMP_AFTER),
                         "deployment.apps/smp unchanged\n")
        # Let it go: remove the finalizer left.
        self.ok("patch", "deploy", "smp", "-n", "wl", "--type=json", "-p",
                '[{"op":"remove","path":"/metadata/finalizers"}]')

    def test_edit_and_explain_deployment(self):
        self.apply(DEPLOYMENT.replace("name: web", "name: edited"))
        editor = self.kubectl.write(
            "#!/bin/sh\nsed -i -e 's/image: nginx:1.25/image: nginx:1.27/' \"$1\"\n",
            mode=0o755, name="editor-deploy.sh")
        r = self.k("edit", "deploy", "edited", "-n", "wl",
                   env={"KUBE_EDITOR": editor})
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "deployment.apps/edited edited\n", ""))
        d = json.loads(self.ok("get", "deploy", "edited", "-n", "wl", "-o",
                               "json"))
        self.assertEqual(
            d["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.27")
        self.assertEqual(d["metadata"]["generation"], 2)
        out = self.ok("explain", "deployment.spec.replicas")
        self.assertIn("GROUP:      apps", out)
        self.assertIn("FIELD: replicas <integer>", out)
        out = self.ok("explain", "pod.spec.initContainers.restartPolicy")
        self.assertIn("FIELD: restartPolicy <string>", out)

    def test_scale(self):
        self.apply(DEPLOYMENT.replace("name: web", "name: scaled"))
        self.assertEqual(self.ok("scale", "deploy", "scaled", "-n", "wl",
                                 "--replicas=3"),
                         "deployment.apps/scaled scaled\n")
        self.assertEqual(self.ok("get", "deploy", "scaled", "-n", "wl", "-o",
                                 "jsonpath={.spec.replicas}"), "3")
        # --current-replicas finds the scale subresource through discovery.
        err = self.fails("scale", "deploy", "scaled", "-n", "wl",
                         "--replicas=1", "--current-replicas=2")
        self.assertEqual(err, "error: Expected replicas to be 2, was 3\n")
        self.ok("scale", "deploy", "scaled", "-n", "wl", "--replicas=1",
                "--current-replicas=3")
        scale = json.loads(self.ok("get", "deploy", "scaled", "-n", "wl",
                                   "--subresource=scale", "-o", "json"))
        self.assertEqual(scale["kind"], "Scale")
        self.assertEqual(scale["spec"], {"replicas": 1})
        self.assertEqual(scale["status"], {"replicas": 0,
                                           "selector": "app=web"})

    def test_selector_is_immutable(self):
        self.apply(DEPLOYMENT.replace("name: web", "name: fixed"))
        moved = DEPLOYMENT.replace("name: web", "name: fixed").replace(
            "app: web", "app: other")
        err = self.fails("apply", "-n", "wl", "-f",
                         self.kubectl.write(moved))
        self.assertIn('The Deployment "fixed" is invalid: spec.selector: '
                      'Invalid value: v1.LabelSelector{MatchLabels:'
                      'map[string]string{"app":"other"}, MatchExpressions:'
                      '[]v1.LabelSelectorRequirement(nil)}: field is '
                      'immutable', err)

    def test_service_node_port_and_table(self):
        self.assertEqual(self.apply(SERVICE), "service/web created\n")
        svc = json.loads(self.ok("get", "svc", "web", "-n", "wl", "-o",
                                 "json"))
        port = svc["spec"]["ports"][0]
        self.assertEqual(port["targetPort"], 80)
        self.assertTrue(30000 <= port["nodePort"] <= 32767, port)
        self.assertTrue(svc["spec"]["clusterIP"].startswith("10.0.0."))
        self.assertEqual(self.apply(SERVICE), "service/web unchanged\n")
        out = self.ok("get", "svc", "web", "-n", "wl", "-o", "wide")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "TYPE", "CLUSTER-IP",
                                   "EXTERNAL-IP", "PORT(S)", "AGE",
                                   "SELECTOR"])
        self.assertEqual(rows[1][:5],
                         ["web", "NodePort", svc["spec"]["clusterIP"],
                          "<none>", "80:%d/TCP" % port["nodePort"]])
        self.assertEqual(rows[1][6], "app=web")

    def test_run_pod_and_get_all(self):
        self.assertEqual(self.ok("run", "p1", "-n", "wl", "--image=nginx"),
                         "pod/p1 created\n")
        pod = json.loads(self.ok("get", "pod", "p1", "-n", "wl", "-o",
                                 "json"))
        self.assertEqual(pod["status"], {"phase": "Pending",
                                         "qosClass": "BestEffort"})
        self.assertEqual(pod["spec"]["containers"][0]["imagePullPolicy"],
                         "Always")
        out = self.ok("get", "pods", "-n", "wl")
        self.assertEqual(table(out)[0], ["NAME", "READY", "STATUS",
                                         "RESTARTS", "AGE"])
        self.assertIn(["p1", "0/1", "Pending", "0"],
                      [row[:4] for row in table(out)[1:]])
        out = self.ok("get", "all", "-n", "default")
        self.assertIn("service/kubernetes", out)
        self.assertIn("ClusterIP", out)

    def test_job_restart_policy(self):
        self.assertEqual(self.apply(JOB % "Never"), "job.batch/once created\n")
        job = json.loads(self.ok("get", "job", "once", "-n", "wl", "-o",
                                 "json"))
        uid = job["metadata"]["uid"]
        self.assertEqual(job["spec"]["selector"],
                         {"matchLabels":
                          {"batch.kubernetes.io/controller-uid": uid}})
        self.assertEqual(self.apply(JOB % "Never"),
                         "job.batch/once unchanged\n")
        err = self.fails("apply", "-n", "wl", "-f", self.kubectl.write(
            (JOB % "Always").replace("name: once", "name: always")))
        self.assertIn('The Job "always" is invalid: '
                      'spec.template.spec.restartPolicy: Unsupported value: '
                      '"Always": supported values: "OnFailure", "Never"', err)

    def test_component_statuses(self):
        out = self.ok("get", "componentstatuses",
                      stderr="Warning: v1 ComponentStatus is deprecated in v1.19+\n")
        rows = table(out)
        self.assertEqual(rows[0], ["NAME", "STATUS", "MESSAGE", "ERROR"])
        self.assertEqual([r[0] for r in rows[1:]],
                         ["controller-manager", "etcd-0", "scheduler"])
        self.assertEqual(rows[2][:3], ["etcd-0", "Healthy", "ok"])
        # Nothing runs a scheduler here unless the machine happens to: either way the row
        # says which, with Go's dial error when refused.
        scheduler = json.loads(self.ok(
            "get", "cs", "scheduler", "-o", "json",
            stderr="Warning: v1 ComponentStatus is deprecated in v1.19+\n"))
        condition = scheduler["conditions"][0]
        if condition["status"] == "False":
            self.assertEqual(condition["message"],
                             'Get "https://127.0.0.1:10259/healthz": dial tcp '
                             '127.0.0.1:10259: connect: connection refused')
        self.assertIsNone(scheduler["metadata"]["creationTimestamp"])
        err = self.fails("delete", "cs", "etcd-0")
        self.assertIn("MethodNotAllowed", err)

    def test_api_resources(self):
        """Every row kubectl prints is upstream 1.32's row for that resource."""
        out = self.ok("api-resources")
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "SHORTNAMES", "APIVERSION",
                                            "NAMESPACED", "KIND"])
        rows = {}
        for line in lines[1:]:
            cells = line.split()
            if len(cells) == 4:  # no short names
                cells.insert(1, "")
            rows[(cells[0], cells[2])] = cells
        missing_upstream_rows = []
        for key, row in rows.items():
            want = UPSTREAM_API_RESOURCES.get(key)
            if want is None:
                missing_upstream_rows.append(key)
            else:
                self.assertEqual(row, [key[0], want[0], key[1], want[1], want[2]])
        self.assertEqual(missing_upstream_rows, [])
        # And every upstream row is printed, but those of the servers still to come: CRDs
        # (the extensions server) and APIServices (the aggregator).
        later = ("apiextensions.k8s.io/", "apiregistration.k8s.io/")
        unserved = [key for key in UPSTREAM_API_RESOURCES
                    if key not in rows and not key[1].startswith(later)]
        self.assertEqual(unserved, [])


# `kubectl api-resources` against upstream kube-apiserver 1.32 (default feature gates):
# (name, apiVersion) -> (short names, namespaced, kind).
UPSTREAM_API_RESOURCES = {
    ("bindings", "v1"): ("", "true", "Binding"),
    ("componentstatuses", "v1"): ("cs", "false", "ComponentStatus"),
    ("configmaps", "v1"): ("cm", "true", "ConfigMap"),
    ("endpoints", "v1"): ("ep", "true", "Endpoints"),
    ("events", "v1"): ("ev", "true", "Event"),
    ("limitranges", "v1"): ("limits", "true", "LimitRange"),
    ("namespaces", "v1"): ("ns", "false", "Namespace"),
    ("nodes", "v1"): ("no", "false", "Node"),
    ("persistentvolumeclaims", "v1"): ("pvc", "true", "PersistentVolumeClaim"),
    ("persistentvolumes", "v1"): ("pv", "false", "PersistentVolume"),
    ("pods", "v1"): ("po", "true", "Pod"),
    ("podtemplates", "v1"): ("", "true", "PodTemplate"),
    ("replicationcontrollers", "v1"): ("rc", "true", "ReplicationController"),
    ("resourcequotas", "v1"): ("quota", "true", "ResourceQuota"),
    ("secrets", "v1"): ("", "true", "Secret"),
    ("serviceaccounts", "v1"): ("sa", "true", "ServiceAccount"),
    ("services", "v1"): ("svc", "true", "Service"),
    ("mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1"):
        ("", "false", "MutatingWebhookConfiguration"),
    ("validatingadmissionpolicies", "admissionregistration.k8s.io/v1"):
        ("", "false", "ValidatingAdmissionPolicy"),
    ("validatingadmissionpolicybindings", "admissionregistration.k8s.io/v1"):
        ("", "false", "ValidatingAdmissionPolicyBinding"),
    ("validatingwebhookconfigurations", "admissionregistration.k8s.io/v1"):
        ("", "false", "ValidatingWebhookConfiguration"),
    ("customresourcedefinitions", "apiextensions.k8s.io/v1"):
        ("crd,crds", "false", "CustomResourceDefinition"),
    ("apiservices", "apiregistration.k8s.io/v1"): ("", "false", "APIService"),
    ("controllerrevisions", "apps/v1"): ("", "true", "ControllerRevision"),
    ("daemonsets", "apps/v1"): ("ds", "true", "DaemonSet"),
    ("deployments", "apps/v1"): ("deploy", "true", "Deployment"),
    ("replicasets", "apps/v1"): ("rs", "true", "ReplicaSet"),
    ("statefulsets", "apps/v1"): ("sts", "true", "StatefulSet"),
    ("selfsubjectreviews", "authentication.k8s.io/v1"): ("", "false", "SelfSubjectReview"),
    ("tokenreviews", "authentication.k8s.io/v1"): ("", "false", "TokenReview"),
    ("localsubjectaccessreviews", "authorization.k8s.io/v1"):
        ("", "true", "LocalSubjectAccessReview"),
    ("selfsubjectaccessreviews", "authorization.k8s.io/v1"):
        ("", "false", "SelfSubjectAccessReview"),
    ("selfsubjectrulesreviews", "authorization.k8s.io/v1"):
        ("", "false", "SelfSubjectRulesReview"),
    ("subjectaccessreviews", "authorization.k8s.io/v1"): ("", "false", "SubjectAccessReview"),
    ("horizontalpodautoscalers", "autoscaling/v2"): ("hpa", "true", "HorizontalPodAutoscaler"),
    ("cronjobs", "batch/v1"): ("cj", "true", "CronJob"),
    ("jobs", "batch/v1"): ("", "true", "Job"),
    ("certificatesigningrequests", "certificates.k8s.io/v1"):
        ("csr", "false", "CertificateSigningRequest"),
    ("leases", "coordination.k8s.io/v1"): ("", "true", "Lease"),
    ("endpointslices", "discovery.k8s.io/v1"): ("", "true", "EndpointSlice"),
    ("events", "events.k8s.io/v1"): ("ev", "true", "Event"),
    ("flowschemas", "flowcontrol.apiserver.k8s.io/v1"): ("", "false", "FlowSchema"),
    ("prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io/v1"):
        ("", "false", "PriorityLevelConfiguration"),
    ("ingressclasses", "networking.k8s.io/v1"): ("", "false", "IngressClass"),
    ("ingresses", "networking.k8s.io/v1"): ("ing", "true", "Ingress"),
    ("networkpolicies", "networking.k8s.io/v1"): ("netpol", "true", "NetworkPolicy"),
    ("runtimeclasses", "node.k8s.io/v1"): ("", "false", "RuntimeClass"),
    ("poddisruptionbudgets", "policy/v1"): ("pdb", "true", "PodDisruptionBudget"),
    ("clusterrolebindings", "rbac.authorization.k8s.io/v1"):
        ("", "false", "ClusterRoleBinding"),
    ("clusterroles", "rbac.authorization.k8s.io/v1"): ("", "false", "ClusterRole"),
    ("rolebindings", "rbac.authorization.k8s.io/v1"): ("", "true", "RoleBinding"),
    ("roles", "rbac.authorization.k8s.io/v1"): ("", "true", "Role"),
    ("priorityclasses", "scheduling.k8s.io/v1"): ("pc", "false", "PriorityClass"),
    ("csidrivers", "storage.k8s.io/v1"): ("", "false", "CSIDriver"),
    ("csinodes", "storage.k8s.io/v1"): ("", "false", "CSINode"),
    ("csistoragecapacities", "storage.k8s.io/v1"): ("", "true", "CSIStorageCapacity"),
    ("storageclasses", "storage.k8s.io/v1"): ("sc", "false", "StorageClass"),
    ("volumeattachments", "storage.k8s.io/v1"): ("", "false", "VolumeAttachment"),
}

if __name__ == "__main__":
    unittest.main()
