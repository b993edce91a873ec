#!/usr/bin/python3
"""What admission costs a write: creates per second through upstream's default plugin chain,
through one mutating and one validating webhook on loopback, and through a
ValidatingAdmissionPolicy, each against the same creates with admission off, same run.

Usage:
    /usr/bin/python3 bench/admission/admission_bench.py [--binary build/cmd/kube-apiserver/kube-apiserver]
                                                        [--objects 500] [--backend sqlite]

Starts the real binary twice on free loopback ports with fresh data directories: once with
every default admission plugin disabled (the reference), once with upstream's defaults. Talks
to each over TLS with the admin client certificate, one keep-alive connection, requests in
sequence (so the numbers are per-request latency, not the server's capacity).

1. Pods (the plugins that look at pods: ServiceAccount, LimitRanger, Priority,
   DefaultTolerationSeconds, PodSecurity, ResourceQuota, ...) and ConfigMaps created, with
   a LimitRange and a ResourceQuota in the namespace (each create then also writes the
   quota's status, as upstream's does), admission off against on; and ConfigMaps in a
   namespace with neither. The two servers take turns, a tenth of the creates each time.
2. ConfigMaps created while one MutatingWebhookConfiguration and one
   ValidatingWebhookConfiguration select them (an HTTPS server in this process answering
   allowed, the mutating one with a one-operation JSON patch): the cost of two webhook
   calls per write, against the same server without them.
3. ConfigMaps created while a ValidatingAdmissionPolicy with three CEL validations is bound
   to them, against the same server without it.
"""

import argparse
import base64
import http.client
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_PLUGINS = (
    "NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,PodSecurity,Priority,"
    "DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,"
    "PersistentVolumeClaimResize,RuntimeClass,CertificateApproval,CertificateSigning,"
    "ClusterTrustBundleAttest,CertificateSubjectRestriction,DefaultIngressClass,"
    "MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,"
    "ValidatingAdmissionWebhook,ResourceQuota")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port, pki):
        ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)

    def request(self, method, path, body=None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        return resp.status, resp.read()

    def must(self, method, path, body=None, expect=(200, 201)):
        status, payload = self.request(method, path, body)
        if status not in expect:
            sys.exit("%s %s: %d %s" % (method, path, status, payload[:300]))
        return json.loads(payload) if payload else None


class Server:
    def __init__(self, binary, backend, *args):
        self.dir = tempfile.mkdtemp(prefix="kas-admission-bench-")
        self.port = free_port()
        cmd = [binary, "--data-dir", self.dir, "--bind-address", "127.0.0.1",
               "--secure-port", str(self.port)] + list(args)
        if backend != "sqlite":
            cmd.append("--storage-backend=" + backend)
        self.log = open(os.path.join(self.dir, "server.log"), "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        pki = os.path.join(self.dir, "pki")
        deadline = time.monotonic() + 30
        while True:
            try:
                self.client = Client(self.port, pki)
                if self.client.request("GET", "/readyz")[0] == 200:
                    break
            except (OSError, ssl.SSLError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                sys.exit("the server did not become ready; see " + self.log.name)
            time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def prepare_namespace(client, ns):
    client.must("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": ns}})
    client.must("POST", "/api/v1/namespaces/%s/serviceaccounts" % ns, {
        "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
    client.must("POST", "/api/v1/namespaces/%s/limitranges" % ns, {
        "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "100m"},
                             "defaultRequest": {"cpu": "50m"}}]}})
    quota = client.must("POST", "/api/v1/namespaces/%s/resourcequotas" % ns, {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "quota"},
        "spec": {"hard": {"count/configmaps": "100000", "pods": "100000",
                          "requests.cpu": "10000"}}})
    # What the controller manager would fill in.
    quota["status"] = {"hard": quota["spec"]["hard"],
                       "used": {"count/configmaps": "1", "pods": "0", "requests.cpu": "0"}}
    client.must("PUT", "/api/v1/namespaces/%s/resourcequotas/quota/status" % ns, quota)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


def configmap(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"key": "value" * 20}}


class Rate:
    """Creates per second and the p99 of one create's latency (ms), from the latencies."""

    def __init__(self, latencies):
        self.latencies = sorted(latencies)
        self.per_second = len(latencies) / sum(latencies)
        self.p99_ms = 1000 * self.latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]

    @staticmethod
    def combine(rates):
        return Rate([t for r in rates for t in r.latencies])


def rate(client, ns, kind, make, n, prefix):
    path = "/api/v1/namespaces/%s/%s" % (ns, kind)
    latencies = []
    for i in range(n):
        t = time.perf_counter()
        client.must("POST", path, make("%s-%d" % (prefix, i)))
        latencies.append(time.perf_counter() - t)
    return Rate(latencies)


class Hook:
    """An HTTPS webhook on loopback answering every review allowed."""

    def __init__(self, directory):
        key, crt = os.path.join(directory, "hook.key"), os.path.join(directory, "hook.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                        "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", crt], check=True, capture_output=True)
        with open(crt, "rb") as f:
            self.ca_bundle = base64.b64encode(f.read()).decode()
        patch = base64.b64encode(json.dumps([
            {"op": "add", "path": "/metadata/annotations", "value": {"hooked": "yes"}}]).encode())

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                # As Go's servers do: without it, Nagle holds the body back for the client's
                # delayed ACK of the headers (40 ms a call).
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                response = {"uid": review["request"]["uid"], "allowed": True}
                if self.path.startswith("/mutate"):
                    response.update(patchType="JSONPatch", patch=patch.decode())
                body = json.dumps({"apiVersion": "admission.k8s.io/v1",
                                   "kind": "AdmissionReview", "response": response}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.url = "https://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def configuration(self, kind, path):
        return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                "metadata": {"name": path.strip("/")},
                "webhooks": [{"name": path.strip("/") + ".bench.example.com",
                              "clientConfig": {"url": self.url + path,
                                               "caBundle": self.ca_bundle},
                              "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                                         "apiVersions": ["v1"], "resources": ["configmaps"]}],
                              "namespaceSelector": {"matchLabels": {"bench": "hooked"}},
                              "sideEffects": "None", "admissionReviewVersions": ["v1"]}]}


def wait_effect(client, ns, check, what):
    """Creates probe configmaps until `check(created)` holds: configurations take effect when
    the watch cache has them."""
    deadline = time.monotonic() + 10
    i = 0
    while True:
        i += 1
        status, payload = client.request("POST", "/api/v1/namespaces/%s/configmaps" % ns,
                                         configmap("probe-%s-%d" % (what, i)))
        if check(status, json.loads(payload)):
            return
        if time.monotonic() > deadline:
            sys.exit("%s did not take effect" % what)
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="build/cmd/kube-apiserver/kube-apiserver")
    parser.add_argument("--objects", type=int, default=500)
    parser.add_argument("--backend", default="sqlite")
    args = parser.parse_args()
    n = args.objects
    rows = []

    off = Server(args.binary, args.backend, "--disable-admission-plugins=" + DEFAULT_PLUGINS)
    on = Server(args.binary, args.backend)
    tmp = tempfile.mkdtemp(prefix="kas-admission-bench-hook-")
    try:
        for server in (off, on):
            prepare_namespace(server.client, "bench")
            server.client.must("POST", "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bare"}})
        # Warm up both (connections, caches).
        for server in (off, on):
            rate(server.client, "bench", "configmaps", configmap, 50, "warm")
        # The two servers take turns, a tenth of the creates at a time, so that the machine's
        # drift during the run weighs on both alike.
        def interleaved(ns, kind, make):
            off_rates, on_rates = [], []
            for turn in range(10):
                off_rates.append(rate(off.client, ns, kind, make, n // 10, "off%d" % turn))
                on_rates.append(rate(on.client, ns, kind, make, n // 10, "on%d" % turn))
            return Rate.combine(on_rates), Rate.combine(off_rates)

        for kind, make in (("pods", pod), ("configmaps", configmap)):
            measured, reference = interleaved("bench", kind, make)
            rows.append(("%s, default plugins, with a quota" % kind, measured, reference))
        measured, reference = interleaved("bare", "configmaps", configmap)
        rows.append(("configmaps, default plugins, no quota", measured, reference))

        # Webhooks: a namespace they select, on the server with the default chain.
        c = on.client
        c.must("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": "hooked",
                                                           "labels": {"bench": "hooked"}}})
        reference = rate(c, "hooked", "configmaps", configmap, n, "plain")
        hook = Hook(tmp)
        c.must("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
               hook.configuration("MutatingWebhookConfiguration", "/mutate"))
        c.must("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
               hook.configuration("ValidatingWebhookConfiguration", "/validate"))
        wait_effect(c, "hooked",
                    lambda s, b: s == 201 and b["metadata"].get("annotations", {}).get("hooked"),
                    "webhooks")
        measured = rate(c, "hooked", "configmaps", configmap, n, "hooked")
        rows.append(("configmaps, 1 mutating + 1 validating webhook", measured, reference))
        hook.server.shutdown()
        for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
            c.must("DELETE", "/apis/admissionregistration.k8s.io/v1/%s/%s" % (
                kind, "mutate" if kind.startswith("mutating") else "validate"))

        # A policy with three validations bound to configmaps of one namespace.
        c.must("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": "policed",
                                                           "labels": {"bench": "policed"}}})
        reference = rate(c, "policed", "configmaps", configmap, n, "plain")
        c.must("POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "bench"},
            "spec": {"matchConstraints": {
                "resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                   "apiVersions": ["v1"], "resources": ["configmaps"]}],
                "namespaceSelector": {"matchLabels": {"bench": "policed"}}},
                "validations": [
                    {"expression": "size(object.data) < 10"},
                    {"expression": "object.metadata.name.size() < 63"},
                    {"expression": "!('forbidden' in object.data)",
                     "message": "no forbidden key"}]}})
        c.must("POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "bench"},
            "spec": {"policyName": "bench", "validationActions": ["Deny"]}})
        status, _ = (0, None)
        deadline = time.monotonic() + 10
        while True:
            status, _ = c.request("POST", "/api/v1/namespaces/policed/configmaps", {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "probe-%d" % time.monotonic_ns()},
                "data": {"forbidden": "x"}})
            if status == 422 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if status != 422:
            sys.exit("the policy did not take effect")
        measured = rate(c, "policed", "configmaps", configmap, n, "policed")
        rows.append(("configmaps, ValidatingAdmissionPolicy (3 rules)", measured, reference))
    finally:
        off.stop()
        on.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print("# %d creates each, one connection, sequential, backend %s" % (n, args.backend))
    print("| creates | per second | reference per second | ratio | added per create "
          "| p99 ms | reference p99 ms |")
    print("|---|---|---|---|---|---|---|")
    for name, measured, reference in rows:
        added_ms = (1000.0 / measured.per_second) - (1000.0 / reference.per_second)
        print("| %s | %.0f | %.0f | %.2f | %.2f ms | %.2f | %.2f |" % (
            name, measured.per_second, reference.per_second,
            measured.per_second / reference.per_second, added_ms, measured.p99_ms,
            reference.p99_ms))


if __name__ == "__main__":
    main()
