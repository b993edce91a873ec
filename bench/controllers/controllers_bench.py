#!/usr/bin/python3
"""What the controllers cost: deleting a namespace of N objects, collecting N dependents of
a deleted owner, and the controller manager's memory idle and with N objects watched.

Usage:
    /usr/bin/python3 bench/controllers/controllers_bench.py [--objects 10000]

Starts the real kube-apiserver and kube-controller-manager (the integration tests'
harness: fresh data directory, free loopback ports) and talks to the API server over TLS
with the admin certificate. Each controller's time is printed next to a reference
measured in the same run against the same server: the fastest a client can remove the
same number of objects, one deletecollection request. The ratio is the controller's
overhead (watch latency, discovery, the deletion grace period of namespaces, the
per-object deletes of the garbage collector).

1. Namespace: N ConfigMaps in a namespace; from `DELETE namespace` to the namespace's 404.
2. Garbage collector: one owner and N ConfigMaps owned by it; from the owner's background
   DELETE until no dependent is left.
3. Memory: the controller manager's VmRSS once idle (the empty cluster synced), and with
   the N objects of step 2 created and watched.
The controller manager's own request counter (its main client: informers, discovery, the
garbage collector) is read from its /metrics before and after each step.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "integration"))
import harness  # noqa: E402


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def requests_made(kcm):
    status, body = kcm.get("/metrics", cert=True)
    for line in body.splitlines():
        if line.startswith("rest_client_requests_total "):
            return int(line.split()[1])
    return 0


def create_configmaps(server, ns, count, owner=None):
    conn = server.connection()
    for i in range(count):
        meta = {"name": "cm-%05d" % i}
        if owner:
            meta["ownerReferences"] = [owner]
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
                           "data": {"k": "v" * 64}})
        conn.request("POST", "/api/v1/namespaces/%s/configmaps" % ns, body=body,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            raise RuntimeError("create: %d" % r.status)
    conn.close()


def api(server, method, path, obj=None):
    """(status, parsed body) of one request."""
    headers = {"Content-Type": "application/json"} if obj is not None else None
    status, _, body = server.request(method, path, body=json.dumps(obj) if obj else None,
                                     headers=headers, timeout=120)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def count(server, ns):
    """ConfigMaps in ns but the root CA one the publisher keeps there."""
    status, body = api(server, "GET", "/api/v1/namespaces/%s/configmaps?limit=1&fieldSelector="
                       "metadata.name%%21%%3Dkube-root-ca.crt" % ns)
    return len(body["items"]) + body["metadata"].get("remainingItemCount", 0)


def make_namespace(server, ns):
    api(server, "POST", "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})


def reference_deletecollection(server, n):
    """The same number of ConfigMaps removed by one deletecollection: seconds."""
    make_namespace(server, "reference")
    create_configmaps(server, "reference", n)
    start = time.monotonic()
    api(server, "DELETE", "/api/v1/namespaces/reference/configmaps")
    elapsed = time.monotonic() - start
    assert count(server, "reference") == 0
    return elapsed


def wait(probe, timeout=600):
    start = time.monotonic()
    while not probe():
        if time.monotonic() - start > timeout:
            raise RuntimeError("timed out")
        time.sleep(0.05)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--objects", type=int, default=10000)
    args = p.parse_args()
    n = args.objects

    server = harness.Server()
    kcm = harness.ControllerManager(server)
    try:
        wait(lambda: "All resource monitors have synced" in kcm.log(), 60)
        time.sleep(1)
        idle = rss_mib(kcm.pid)
        reference = reference_deletecollection(server, n)
        print("# %d objects; reference: one deletecollection of %d ConfigMaps: %.2f s" %
              (n, n, reference))

        # 1. Namespace deletion.
        make_namespace(server, "bench-ns")
        create_configmaps(server, "bench-ns", n)
        before = requests_made(kcm)
        start = time.monotonic()
        api(server, "DELETE", "/api/v1/namespaces/bench-ns")
        wait(lambda: api(server, "GET", "/api/v1/namespaces/bench-ns")[0] == 404)
        ns_time = time.monotonic() - start
        print("namespace of %d ConfigMaps deleted and gone: %.2f s (%.1fx the reference; "
              "of it 5 s are upstream's deletion grace period); main-client requests %d" %
              (n, ns_time, ns_time / reference, requests_made(kcm) - before))

        # 2. Garbage collection (and memory with the objects watched).
        make_namespace(server, "bench-gc")
        status, body = api(server, "POST", "/api/v1/namespaces/bench-gc/configmaps", {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}})
        uid = body["metadata"]["uid"]
        create_configmaps(server, "bench-gc", n, owner={
            "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid})
        time.sleep(2)
        loaded = rss_mib(kcm.pid)
        before = requests_made(kcm)
        start = time.monotonic()
        api(server, "DELETE", "/api/v1/namespaces/bench-gc/configmaps/owner")
        # At the client rate limit, about 20 dependents a second: allow for it.
        wait(lambda: count(server, "bench-gc") == 0, max(60, n / 5))
        gc_time = time.monotonic() - start
        print("%d dependents collected: %.2f s (%.1fx the reference); main-client requests %d"
              % (n, gc_time, gc_time / reference, requests_made(kcm) - before))
        print("kube-controller-manager RSS: %.1f MiB idle, %.1f MiB with %d more objects "
              "watched (%.1f KiB per object)" % (idle, loaded, n + 1,
                                                 (loaded - idle) * 1024 / (n + 1)))
    finally:
        kcm.stop()
        server.stop()


if __name__ == "__main__":
    main()
