#!/usr/bin/python3
"""What CustomResourceDefinitions cost: time to Established, memory per CRD, discovery and
OpenAPI with many CRDs, and custom resource throughput against ConfigMaps in the same run.

Usage:
    /usr/bin/python3 bench/crd/crd_bench.py [--binary build/cmd/kube-apiserver/kube-apiserver]
                                            [--crds 500] [--objects 300] [--backend sqlite]

Starts the real binary on a free loopback port with a fresh data directory and talks to it
over TLS with the admin client certificate, one keep-alive connection, requests in sequence.

1. Creates --crds CRDs, each with a generated schema shaped like real operators' (about 60
   properties: nested objects, arrays of objects with map list keys, enums, patterns,
   int-or-string, preserve-unknown-fields, defaults and a CEL rule), one after the other,
   timing each from the POST to the first GET that shows Established=True.
2. Memory: the server's resident set (VmRSS) before and after, per CRD, printed next to
   upstream's published cost of about 13 MB per CRD (kubernetes/kubernetes#101755 and
   the CRD scale reports: not measured here, there is no upstream binary on this machine).
3. Discovery and OpenAPI with the CRDs: /apis (aggregated), /openapi/v3 and one CRD
   group-version document, each timed against the same request before the CRDs existed.
4. Throughput of one custom resource against ConfigMaps of the same size, same run:
   creates, gets and a list, as requests per second, and their ratio.
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

UPSTREAM_MB_PER_CRD = 13.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port, pki):
        ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)

    def request(self, method, path, body=None, accept="application/json"):
        headers = {"Accept": accept}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        payload = resp.read()
        return resp.status, payload


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def schema(i):
    """A structural schema shaped like a real operator's."""
    container = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "maxLength": 63},
            "image": {"type": "string"},
            "args": {"type": "array", "items": {"type": "string"}},
            "env": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"],
                          "properties": {"name": {"type": "string"},
                                         "value": {"type": "string"}}},
            },
            "port": {"x-kubernetes-int-or-string": True},
            "resources": {"type": "object", "properties": {
                "limits": {"type": "object", "additionalProperties": {
                    "x-kubernetes-int-or-string": True, "pattern": "^[0-9]+(m|Mi|Gi)?$"}},
                "requests": {"type": "object", "additionalProperties": {
                    "x-kubernetes-int-or-string": True}}}},
        },
    }
    spec = {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.minReplicas <= self.maxReplicas",
             "message": "minReplicas must not exceed maxReplicas"}],
        "properties": {
            "replicas": {"type": "integer", "minimum": 0, "default": 1},
            "minReplicas": {"type": "integer", "default": 1},
            "maxReplicas": {"type": "integer", "default": 10},
            "mode": {"type": "string", "enum": ["Active", "Standby", "Off"],
                     "default": "Active"},
            "schedule": {"type": "string", "pattern": "^(@every [0-9]+[smh]|[0-9* ,/-]+)$"},
            "selector": {"type": "object", "properties": {
                "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
            "containers": {"type": "array", "items": container},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "tls": {"type": "object", "properties": {
                "secretName": {"type": "string"},
                "hosts": {"type": "array", "x-kubernetes-list-type": "set",
                          "items": {"type": "string", "format": "hostname"}},
                "duration": {"type": "string", "format": "duration"}}},
        },
    }
    for k in range(20):  # the long tail of optional knobs real CRDs have
        spec["properties"][f"option{k}"] = {"type": ["string", "integer", "boolean"][k % 3]}
    status = {"type": "object", "properties": {
        "replicas": {"type": "integer"},
        "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                       "x-kubernetes-list-map-keys": ["type"],
                       "items": {"type": "object", "required": ["type", "status"],
                                 "properties": {"type": {"type": "string"},
                                                "status": {"type": "string"},
                                                "reason": {"type": "string"},
                                                "message": {"type": "string"},
                                                "lastTransitionTime": {"type": "string",
                                                                       "format": "date-time"}}}},
    }}
    return {"type": "object", "properties": {"spec": spec, "status": status}}


def crd(i):
    group = f"g{i % 50}.bench.example.com"
    kind = f"Thing{i}"
    plural = f"things{i}"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": f"thing{i}", "kind": kind,
                      "shortNames": [f"th{i}"], "categories": ["bench"]},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "subresources": {"status": {},
                                 "scale": {"specReplicasPath": ".spec.replicas",
                                           "statusReplicasPath": ".status.replicas"}},
                "additionalPrinterColumns": [
                    {"name": "Mode", "type": "string", "jsonPath": ".spec.mode"},
                    {"name": "Ready", "type": "string",
                     "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"}],
                "schema": {"openAPIV3Schema": schema(i)},
            }],
        },
    }


def established(body):
    doc = json.loads(body)
    for c in doc.get("status", {}).get("conditions", []):
        if c.get("type") == "Established" and c.get("status") == "True":
            return True
    return False


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def rate(fn, n):
    t = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - t)


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/cmd/kube-apiserver/kube-apiserver")
    ap.add_argument("--crds", type=int, default=500)
    ap.add_argument("--objects", type=int, default=300)
    ap.add_argument("--backend", default="sqlite")
    args = ap.parse_args()

    data = tempfile.mkdtemp(prefix="crd-bench-")
    port = free_port()
    server = subprocess.Popen(
        [args.binary, "--secure-port", str(port), "--bind-address", "127.0.0.1",
         "--data-dir", data, "--storage-backend", args.backend],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pki = os.path.join(data, "pki")
        deadline = time.time() + 30
        client = None
        while time.time() < deadline:
            try:
                client = Client(port, pki)
                if client.request("GET", "/readyz")[0] == 200:
                    break
            except (OSError, ssl.SSLError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        # Warm up every path once, then the references without CRDs.
        for path in ("/apis", "/openapi/v3", "/openapi/v3/apis/apps/v1"):
            client.request("GET", path, accept=aggregated if path == "/apis" else "application/json")
        discovery_before = timed(lambda: client.request("GET", "/apis", accept=aggregated), 20)
        openapi_before = timed(lambda: client.request("GET", "/openapi/v3"), 20)
        rss_before = rss_kib(server.pid)

        print(f"# {args.crds} CRDs, backend {args.backend}")
        to_established = []
        start = time.perf_counter()
        for i in range(args.crds):
            doc = crd(i)
            t = time.perf_counter()
            status, body = client.request(
                "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", doc)
            if status != 201:
                sys.exit(f"creating CRD {i}: {status} {body[:300]}")
            path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + doc["metadata"]["name"]
            while True:
                status, body = client.request("GET", path)
                if status == 200 and established(body):
                    break
            to_established.append(time.perf_counter() - t)
        total = time.perf_counter() - start
        time.sleep(0.5)
        rss_after = rss_kib(server.pid)
        per_crd_mb = (rss_after - rss_before) / 1024.0 / args.crds
        print(f"time to Established: p50 {statistics.median(to_established) * 1000:.1f} ms, "
              f"p99 {percentile(to_established, 99) * 1000:.1f} ms, "
              f"max {max(to_established) * 1000:.1f} ms; all {args.crds} in {total:.1f} s")
        print(f"RSS: {rss_before / 1024:.1f} MiB before, {rss_after / 1024:.1f} MiB after: "
              f"{per_crd_mb * 1024:.0f} KiB per CRD "
              f"(upstream's published ~{UPSTREAM_MB_PER_CRD:.0f} MB per CRD: "
              f"{UPSTREAM_MB_PER_CRD / max(per_crd_mb, 1e-6):.0f}x less)")

        # Discovery and OpenAPI with the CRDs.
        client.request("GET", "/apis", accept=aggregated)
        discovery_after = timed(lambda: client.request("GET", "/apis", accept=aggregated), 20)
        client.request("GET", "/openapi/v3")
        openapi_after = timed(lambda: client.request("GET", "/openapi/v3"), 20)
        gv = "/openapi/v3/apis/g0.bench.example.com/v1"
        first = timed(lambda: client.request("GET", gv), 1)
        cached = timed(lambda: client.request("GET", gv), 20)
        print(f"aggregated /apis: {discovery_after * 1000:.2f} ms with the CRDs, "
              f"{discovery_before * 1000:.2f} ms without ({discovery_after / discovery_before:.1f}x)")
        print(f"/openapi/v3 index: {openapi_after * 1000:.2f} ms with the CRDs, "
              f"{openapi_before * 1000:.2f} ms without ({openapi_after / openapi_before:.1f}x)")
        print(f"/openapi/v3 of one CRD group-version ({args.crds // 50} kinds): "
              f"{first * 1000:.2f} ms first, {cached * 1000:.2f} ms cached")

        # Custom resources against ConfigMaps of the same size.
        payload = {"mode": "Active", "replicas": 2, "option0": "x" * 200}
        cr_base = "/apis/g0.bench.example.com/v1/namespaces/default/things0"
        cm_base = "/api/v1/namespaces/default/configmaps"

        def cr_create(i):
            s, b = client.request("POST", cr_base, {
                "apiVersion": "g0.bench.example.com/v1", "kind": "Thing0",
                "metadata": {"name": f"o{i}"}, "spec": payload})
            assert s == 201, (s, b[:200])

        def cm_create(i):
            s, b = client.request("POST", cm_base, {
                "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"o{i}"},
                "data": {"mode": "Active", "replicas": "2", "option0": "x" * 200}})
            assert s == 201, (s, b[:200])

        n = args.objects
        rows = [
            ("create", rate(cr_create, n), rate(cm_create, n)),
            ("get", rate(lambda i: client.request("GET", f"{cr_base}/o{i % n}"), n * 2),
             rate(lambda i: client.request("GET", f"{cm_base}/o{i % n}"), n * 2)),
            (f"list {n}", rate(lambda i: client.request("GET", cr_base), 20),
             rate(lambda i: client.request("GET", cm_base), 20)),
        ]
        print("| custom resource | per second | ConfigMap per second | ratio |")
        print("|---|---|---|---|")
        for name, cr, cm in rows:
            print(f"| {name} | {cr:.0f} | {cm:.0f} | {cr / cm:.2f} |")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
