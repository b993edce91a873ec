"""Integration tests: server-side apply and managedFields, with real kubectl 1.32, the Python
client and raw HTTPS, against the binary. What is asserted is what upstream answers: the
managedFields entries, conflicts and their messages, ownership, removal and the move from
client-side apply and back.

Run with:
    KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest \
        test.integration.test_server_side_apply -v
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_kubectl_rest import WriteTestCase  # noqa: E402

from kubernetes import client, config  # noqa: E402  (Debian python3-kubernetes)
from kubernetes.client.rest import ApiException  # noqa: E402

APPLY = "application/apply-patch+yaml"
DEPLOYMENTS = "/apis/apps/v1/namespaces/%s/deployments"


def deployment(name, replicas=2, image="nginx:1.27", labels=None):
    spec = {"selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "c", "image": image}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def entry(obj, manager, operation=None):
    for e in obj["metadata"].get("managedFields", []):
        if e.get("manager") == manager and (operation is None or e["operation"] == operation):
            return e
    return None


class ServerSideApplyTests(WriteTestCase):
    namespace = "ssa"

    def apply(self, obj, manager, force=None, expect=None, dry_run=False, path=None):
        path = path or (DEPLOYMENTS % self.namespace + "/" + obj["metadata"]["name"])
        query = "?fieldManager=" + manager
        if force is not None:
            query += "&force=" + ("true" if force else "false")
        if dry_run:
            query += "&dryRun=All"
        return self.api("PATCH", path + query, json.dumps(obj), ctype=APPLY, expect=expect)

    def live(self, name):
        return self.api("GET", DEPLOYMENTS % self.namespace + "/" + name, expect=200)[1]

    def test_every_write_records_managed_fields(self):
        self.ok("create", "deployment", "rec", "--image=nginx:1.27", "-n", "ssa")
        obj = self.live("rec")
        e = entry(obj, "kubectl-create")
        self.assertIsNotNone(e, obj["metadata"])
        self.assertEqual((e["operation"], e["apiVersion"], e["fieldsType"]),
                         ("Update", "apps/v1", "FieldsV1"))
        spec = e["fieldsV1"]["f:spec"]
        self.assertIn('k:{"name":"nginx"}', spec["f:template"]["f:spec"]["f:containers"])
        self.assertNotIn(".", spec)  # spec exists in the empty Deployment
        self.ok("label", "deployment", "rec", "tier=web", "-n", "ssa")
        obj = self.live("rec")
        self.assertEqual(entry(obj, "kubectl-label")["fieldsV1"],
                         {"f:metadata": {"f:labels": {"f:tier": {}}}})
        # kubectl leaves managedFields out unless asked.
        self.assertNotIn("managedFields", self.ok("get", "deployment", "rec", "-n", "ssa",
                                                  "-o", "yaml"))
        self.assertIn("manager: kubectl-label",
                      self.ok("get", "deployment", "rec", "-n", "ssa", "-o", "yaml",
                              "--show-managed-fields"))
        # [{}] clears them; the write itself is recorded.
        self.api("PATCH", DEPLOYMENTS % "ssa" + "/rec?fieldManager=cleaner",
                 {"metadata": {"managedFields": [{}], "labels": {"x": "1"}}},
                 ctype="application/merge-patch+json", expect=200)
        managers = [e["manager"] for e in self.live("rec")["metadata"]["managedFields"]]
        self.assertEqual(managers, ["cleaner"])
        # Invalid entries are refused with upstream's message.
        status, body = self.api(
            "PATCH", DEPLOYMENTS % "ssa" + "/rec",
            {"metadata": {"managedFields": [{"manager": "m", "operation": "Bogus",
                                             "fieldsType": "FieldsV1",
                                             "fieldsV1": {"f:metadata": {}}}]}},
            ctype="application/merge-patch+json")
        self.assertEqual(status, 422, body)
        self.assertIn('metadata.managedFields[0].operation: Invalid value: "Bogus": '
                      'must be `Apply` or `Update`', body["message"])

    def test_kubectl_apply_server_side_conflicts_and_force(self):
        path = self.kubectl.write(json.dumps(deployment("web", 2)))
        self.assertEqual(self.ok("apply", "--server-side", "-f", path, "-n", "ssa"),
                         "deployment.apps/web serverside-applied\n")
        first = self.live("web")
        applied = entry(first, "kubectl", "Apply")
        self.assertIsNotNone(applied)
        self.assertIn("f:replicas", applied["fieldsV1"]["f:spec"])
        # The same manifest again writes nothing.
        self.ok("apply", "--server-side", "-f", path, "-n", "ssa")
        again = self.live("web")
        self.assertEqual(again["metadata"]["resourceVersion"],
                         first["metadata"]["resourceVersion"])
        self.assertEqual(entry(again, "kubectl", "Apply")["time"], applied["time"])
        # Another manager scales: applying another count conflicts with it.
        self.ok("scale", "deployment", "web", "--replicas=5", "-n", "ssa")
        scaler = [e for e in self.live("web")["metadata"]["managedFields"]
                  if e.get("subresource") == "scale"]
        self.assertEqual(len(scaler), 1)
        self.assertEqual(scaler[0]["fieldsV1"], {"f:spec": {"f:replicas": {}}})
        three = self.kubectl.write(json.dumps(deployment("web", 3)))
        err = self.fails("apply", "--server-side", "-f", three, "-n", "ssa")
        self.assertTrue(err.startswith(
            'error: Apply failed with 1 conflict: conflict with "%s" with subresource "scale" '
            'using apps/v1: .spec.replicas\n' % scaler[0]["manager"]), err)
        self.assertEqual(self.live("web")["spec"]["replicas"], 5)
        self.ok("apply", "--server-side", "--force-conflicts", "-f", three, "-n", "ssa")
        forced = self.live("web")
        self.assertEqual(forced["spec"]["replicas"], 3)
        # The scaler owned nothing else: its entry is gone.
        self.assertEqual([e for e in forced["metadata"]["managedFields"]
                          if e.get("subresource") == "scale"], [])

    def test_managers_of_another_version_conflict_in_theirs(self):
        """An HPA applied through autoscaling/v2 and again through v1: the v1 target changes
        the v2 metrics, so it conflicts with the v2 manager there, as upstream compares."""
        target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
        v2 = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
              "metadata": {"name": "web"},
              "spec": {"scaleTargetRef": target, "maxReplicas": 5,
                       "metrics": [{"type": "Resource", "resource": {
                           "name": "cpu",
                           "target": {"type": "Utilization", "averageUtilization": 80}}}]}}
        v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
              "metadata": {"name": "web"},
              "spec": {"scaleTargetRef": target, "maxReplicas": 5,
                       "targetCPUUtilizationPercentage": 50}}
        self.ok("apply", "--server-side", "--field-manager=platform", "-n", "ssa", "-f",
                self.kubectl.write(json.dumps(v2)))
        manifest = self.kubectl.write(json.dumps(v1))
        err = self.fails("apply", "--server-side", "--field-manager=team", "-n", "ssa", "-f",
                         manifest)
        self.assertTrue(err.startswith('error: Apply failed with 1 conflict: conflict with '
                                       '"platform": .spec.metrics\n'), err)
        self.ok("apply", "--server-side", "--field-manager=team", "--force-conflicts", "-n",
                "ssa", "-f", manifest)
        live = self.api("GET", "/apis/autoscaling/v2/namespaces/ssa/horizontalpodautoscalers/web",
                        expect=200)[1]
        self.assertEqual(live["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
                         50)
        platform = entry(live, "platform", "Apply")
        self.assertEqual(platform["apiVersion"], "autoscaling/v2")
        self.assertNotIn("f:metrics", platform["fieldsV1"]["f:spec"])
        self.assertIn("f:maxReplicas", platform["fieldsV1"]["f:spec"])
        self.assertEqual(entry(live, "team", "Apply")["apiVersion"], "autoscaling/v1")

    def test_kubectl_field_manager_flag(self):
        path = self.kubectl.write(json.dumps(deployment("fm", 1)))
        self.ok("apply", "--server-side", "--field-manager=ci", "-f", path, "-n", "ssa")
        obj = self.live("fm")
        self.assertEqual(entry(obj, "ci")["operation"], "Apply")
        self.assertIsNone(entry(obj, "kubectl"))
        # kubectl's own manager then conflicts with ci on a changed field.
        two = self.kubectl.write(json.dumps(deployment("fm", 2)))
        err = self.fails("apply", "--server-side", "-f", two, "-n", "ssa")
        self.assertTrue(err.startswith('error: Apply failed with 1 conflict: conflict with "ci": '
                                       '.spec.replicas\n'), err)

    def test_conflict_status_and_causes(self):
        self.apply(deployment("api", 2), "alpha", expect=201)
        status, body = self.apply(deployment("api", 4), "beta")
        self.assertEqual(status, 409, body)
        self.assertEqual(body["reason"], "Conflict")
        self.assertEqual(body["message"],
                         'Apply failed with 1 conflict: conflict with "alpha": .spec.replicas')
        self.assertEqual(body["details"]["causes"],
                         [{"reason": "FieldManagerConflict", "message": 'conflict with "alpha"',
                           "field": ".spec.replicas"}])
        # The same value is shared, and a field one co-owner stops applying stays.
        self.apply(deployment("api", 2), "beta", expect=200)
        self.apply(deployment("api", None), "alpha", expect=200)
        self.assertEqual(self.live("api")["spec"]["replicas"], 2)
        # The last owner stops applying it: it goes (and takes its default again).
        self.apply(deployment("api", None), "beta", expect=200)
        obj = self.live("api")
        self.assertEqual(obj["spec"]["replicas"], 1)
        self.assertNotIn("f:replicas", entry(obj, "beta")["fieldsV1"]["f:spec"])

    def test_apply_to_scale_owns_replicas(self):
        self.apply(deployment("sc", 2), "owner", expect=201)
        path = DEPLOYMENTS % "ssa" + "/sc/scale"
        scale = json.dumps({"apiVersion": "autoscaling/v1", "kind": "Scale",
                            "metadata": {"name": "sc"}, "spec": {"replicas": 6}})
        status, body = self.api("PATCH", path + "?fieldManager=hpa", scale, ctype=APPLY)
        self.assertEqual(status, 409, body)
        self.assertEqual(body["message"],
                         'Apply failed with 1 conflict: conflict with "owner": .spec.replicas')
        status, body = self.api("PATCH", path + "?fieldManager=hpa&force=true", scale,
                                ctype=APPLY)
        self.assertEqual(status, 200, body)
        self.assertEqual((body["kind"], body["spec"]["replicas"]), ("Scale", 6))
        obj = self.live("sc")
        self.assertEqual(obj["spec"]["replicas"], 6)
        hpa = entry(obj, "hpa")
        self.assertEqual((hpa["operation"], hpa["subresource"], hpa["fieldsV1"]),
                         ("Apply", "scale", {"f:spec": {"f:replicas": {}}}))
        self.assertNotIn("f:replicas", entry(obj, "owner")["fieldsV1"]["f:spec"])

    def test_labels_and_keyed_lists_are_owned_per_item(self):
        self.apply(deployment("items", 1, labels={"a": "1"}), "one", expect=201)
        two = deployment("items", 1, labels={"b": "2"})
        two["spec"]["template"]["spec"]["containers"].append({"name": "side", "image": "busybox"})
        self.apply(two, "two", expect=200)
        obj = self.live("items")
        self.assertEqual(obj["metadata"]["labels"], {"a": "1", "b": "2"})
        self.assertEqual([c["name"] for c in obj["spec"]["template"]["spec"]["containers"]],
                         ["c", "side"])
        # "two" drops its sidecar: only its item goes; "one"'s container stays.
        del two["spec"]["template"]["spec"]["containers"][1]
        self.apply(two, "two", expect=200)
        obj = self.live("items")
        self.assertEqual([c["name"] for c in obj["spec"]["template"]["spec"]["containers"]],
                         ["c"])

    def test_apply_options_and_errors(self):
        path = DEPLOYMENTS % "ssa" + "/opts"
        status, body = self.api("PATCH", path, json.dumps(deployment("opts")), ctype=APPLY)
        self.assertEqual(status, 422)
        self.assertEqual(body["message"], 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: '
                                          'Required value: is required for apply patch')
        status, body = self.api("PATCH", path + "?force=true", {"spec": {}},
                                ctype="application/merge-patch+json")
        self.assertEqual(status, 422)
        self.assertIn("force: Forbidden: may not be specified for non-apply patch",
                      body["message"])
        status, body = self.api("PATCH", path + "?fieldManager=m", "a: [", ctype=APPLY)
        self.assertEqual(status, 400)
        self.assertTrue(body["message"].startswith("error decoding YAML: "), body)
        # An upsert through dryRun stores nothing.
        self.apply(deployment("opts"), "m", dry_run=True, expect=201)
        self.assertEqual(self.api("GET", path)[0], 404)
        # YAML bodies work, and create.
        yaml_body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: opts}\n"
                     "spec:\n  selector: {matchLabels: {app: o}}\n  template:\n"
                     "    metadata: {labels: {app: o}}\n"
                     "    spec: {containers: [{name: c, image: x}]}\n")
        status, body = self.api("PATCH", path + "?fieldManager=m", yaml_body, ctype=APPLY)
        self.assertEqual(status, 201, body)

    def test_move_from_client_side_apply_and_back(self):
        path = self.kubectl.write(json.dumps(deployment("move", 2)))
        self.ok("apply", "-f", path, "-n", "ssa")
        self.assertIsNotNone(entry(self.live("move"), "kubectl-client-side-apply"))
        changed = self.kubectl.write(json.dumps(deployment("move", 3, image="nginx:1.28")))
        self.ok("apply", "--server-side", "-f", changed, "-n", "ssa")
        obj = self.live("move")
        self.assertEqual(obj["spec"]["replicas"], 3)
        last = json.loads(obj["metadata"]["annotations"][
            "kubectl.kubernetes.io/last-applied-configuration"])
        self.assertEqual(last["spec"]["replicas"], 3)
        # And back to client-side apply.
        back = self.kubectl.write(json.dumps(deployment("move", 4, image="nginx:1.28")))
        self.ok("apply", "-f", back, "-n", "ssa")
        self.assertEqual(self.live("move")["spec"]["replicas"], 4)

    def test_python_client_applies(self):
        config.load_kube_config(config_file=self.server.kubeconfig)
        api = client.ApiClient()

        def apply(body, manager):
            # This client's generated patch methods choose the media type themselves (never
            # apply); call_api sends the apply media type with the body as text.
            return api.call_api(
                "/api/v1/namespaces/ssa/configmaps/py", "PATCH",
                query_params=[("fieldManager", manager)],
                header_params={"Content-Type": APPLY, "Accept": "application/json"},
                body=json.dumps(body), response_type="V1ConfigMap",
                auth_settings=["BearerToken"],
                _return_http_data_only=True)

        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py"},
                "data": {"a": "1"}}
        made = apply(body, "py")
        self.assertEqual(made.data, {"a": "1"})
        self.assertEqual(made.metadata.managed_fields[0].manager, "py")
        self.assertEqual(made.metadata.managed_fields[0].operation, "Apply")
        self.assertEqual(client.CoreV1Api().read_namespaced_config_map("py", "ssa").data,
                         {"a": "1"})
        with self.assertRaises(ApiException) as caught:
            apply(dict(body, data={"a": "2"}), "other")
        self.assertEqual(caught.exception.status, 409)


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.ssa.example.com"},
    "spec": {"group": "ssa.example.com", "scope": "Namespaced",
             "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "ports": {"type": "array", "x-kubernetes-list-type": "map",
                                             "x-kubernetes-list-map-keys": ["name"],
                                             "items": {"type": "object", "required": ["name"],
                                                       "properties": {
                                                           "name": {"type": "string"},
                                                           "port": {"type": "integer"}}}},
                                   "tags": {"type": "array", "items": {"type": "string"}}}},
                               "status": {"type": "object", "properties": {
                                   "phase": {"type": "string"}}}}}}}]}}


class CustomResourceApplyTests(WriteTestCase):
    namespace = "ssacr"

    def test_custom_resources_status_and_large_crd(self):
        path = self.kubectl.write(json.dumps(CRD))
        self.ok("apply", "--server-side", "-f", path)
        self.ok("wait", "--for", "condition=established", "crd/gadgets.ssa.example.com")
        base = "/apis/ssa.example.com/v1/namespaces/ssacr/gadgets/g"

        def gadget(ports, tags):
            return {"apiVersion": "ssa.example.com/v1", "kind": "Gadget",
                    "metadata": {"name": "g"}, "spec": {"ports": ports, "tags": tags}}

        self.api("PATCH", base + "?fieldManager=a", json.dumps(gadget(
            [{"name": "http", "port": 80}], ["x"])), ctype=APPLY, expect=201)
        self.api("PATCH", base + "?fieldManager=b", json.dumps(gadget(
            [{"name": "https", "port": 443}], ["x"])), ctype=APPLY, expect=200)
        obj = self.api("GET", base, expect=200)[1]
        # Map-type list items merge per key; an atomic list (the default for CRDs) is shared
        # when equal.
        self.assertEqual([p["name"] for p in obj["spec"]["ports"]], ["http", "https"])
        a = entry(obj, "a")["fieldsV1"]["f:spec"]
        self.assertIn('k:{"name":"http"}', a["f:ports"])
        self.assertIn("f:tags", a)
        # Status through its subresource, owned there.
        status = {"apiVersion": "ssa.example.com/v1", "kind": "Gadget",
                  "metadata": {"name": "g"}, "status": {"phase": "Ready"}}
        self.api("PATCH", base + "/status?fieldManager=ctl", json.dumps(status), ctype=APPLY,
                 expect=200)
        obj = self.api("GET", base, expect=200)[1]
        self.assertEqual(obj["status"], {"phase": "Ready"})
        ctl = entry(obj, "ctl")
        self.assertEqual(ctl["subresource"], "status")
        self.assertEqual(ctl["fieldsV1"], {"f:status": {"f:phase": {}}})
        # Status sent to the main resource is not its to own.
        self.api("PATCH", base + "?fieldManager=a", json.dumps(dict(gadget(
            [{"name": "http", "port": 80}], ["x"]), status={"phase": "Lost"})), ctype=APPLY,
            expect=200)
        obj = self.api("GET", base, expect=200)[1]
        self.assertEqual(obj["status"], {"phase": "Ready"})
        self.assertNotIn("f:status", entry(obj, "a")["fieldsV1"])
        # kubectl applies to the status subresource too, as its own manager.
        status["status"] = {"phase": "Done"}
        path = self.kubectl.write(json.dumps(status))
        # The status of an object that does not exist is not created.
        err = self.fails("apply", "--server-side", "--subresource=status", "-n", "default",
                         "-f", path)
        self.assertIn('gadgets.ssa.example.com "g" not found', err)
        err = self.fails("apply", "--server-side", "--subresource=status", "-n", "ssacr",
                         "--field-manager=kctl", "-f", path)
        self.assertIn('conflict with "ctl" with subresource "status": .status.phase', err)
        self.assertEqual(self.ok("apply", "--server-side", "--subresource=status", "-n", "ssacr",
                                 "--field-manager=kctl", "--force-conflicts", "-f", path),
                         "gadget.ssa.example.com/g serverside-applied\n")
        obj = self.api("GET", base, expect=200)[1]
        self.assertEqual(obj["status"], {"phase": "Done"})
        self.assertEqual(entry(obj, "kctl")["subresource"], "status")
        self.assertIsNone(entry(obj, "ctl"))  # forced out of its only field

        # A CRD too large for client-side apply's annotation applies server-side.
        big = json.loads(json.dumps(CRD))
        big["metadata"]["name"] = "bigs.ssa.example.com"
        big["spec"]["names"] = {"plural": "bigs", "singular": "big", "kind": "Big"}
        props = big["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
        props["spec"]["properties"].update(
            {"field%04d" % i: {"type": "string", "description": "d" * 300} for i in range(1000)})
        text = json.dumps(big)
        self.assertGreater(len(text), 262144)
        path = self.kubectl.write(text)
        self.assertEqual(self.ok("apply", "--server-side", "-f", path),
                         "customresourcedefinition.apiextensions.k8s.io/bigs.ssa.example.com "
                         "serverside-applied\n")
        err = self.fails("apply", "-f", path)
        self.assertIn("metadata.annotations: Too long: may not be more than 262144 bytes", err)


if __name__ == "__main__":
    unittest.main()
