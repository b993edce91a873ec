#!/usr/bin/env python3
"""Start-up of the real kube-apiserver: from exec to the first answer over TLS (serving),
and to the first /readyz 200 (every post-start hook done: namespaces, the `kubernetes`
Service, the RBAC bootstrap policy, APIServices...). The reference, measured in the same
run, is the time to serving: the ratio ready/serving is what the hooks add.

Each round starts a fresh data directory (certificates generated, every bootstrap object
created) and then restarts on it (everything already there: nothing written); with
--storage-backend=memory every start creates everything again. --compare=BINARY runs
another build the same way, interleaved (e.g. before and after a change).

    /usr/bin/python3 bench/startup/startup_bench.py                 # 15 rounds, sqlite
    /usr/bin/python3 bench/startup/startup_bench.py --backend=memory --rounds=21
    /usr/bin/python3 bench/startup/startup_bench.py --compare=/tmp/old/kube-apiserver
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test",
                                "integration"))
import harness  # noqa: E402


def start(binary, srv, backend):
    """(seconds to the first TLS answer, seconds to /readyz 200) of one start of `binary`."""
    cmd = [binary, "--data-dir", srv.data_dir, "--bind-address", "127.0.0.1",
           "--secure-port", str(srv.port), "--storage-backend", backend]
    t0 = time.monotonic()
    with open(srv.log_path, "ab") as logf:
        srv.proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
    serving = None
    while time.monotonic() - t0 < 20:
        if srv.proc.poll() is not None:
            raise SystemExit("kube-apiserver exited:\n" + srv.log())
        if os.path.exists(srv.admin_cert[0]):
            try:
                status = srv.request("GET", "/readyz", timeout=1)[0]
                now = time.monotonic() - t0
                serving = serving or now
                if status == 200:
                    return serving, now
            except Exception:  # not listening yet
                pass
        time.sleep(0.001)
    raise SystemExit("kube-apiserver not ready after 20 s:\n" + srv.log())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=harness.BINARY)
    p.add_argument("--compare", default=None)
    p.add_argument("--backend", default="sqlite")
    p.add_argument("--rounds", type=int, default=15)
    o = p.parse_args()
    binaries = [o.binary] + ([o.compare] if o.compare else [])
    times = {(b, kind): [] for b in binaries for kind in ("first", "restart")}
    for _ in range(o.rounds):
        for b in binaries:
            srv = harness.Server(start=False)
            try:
                times[(b, "first")].append(start(b, srv, o.backend))
                srv.stop(cleanup=False)
                times[(b, "restart")].append(start(b, srv, o.backend))
            finally:
                srv.stop()
    print("# %d rounds, backend %s; medians in ms" % (o.rounds, o.backend))
    print("| binary | start | serving | ready | ready - serving | ready / serving |")
    print("|---|---|---:|---:|---:|---:|")
    for b in binaries:
        for kind in ("first", "restart"):
            serving = 1000 * statistics.median(t[0] for t in times[(b, kind)])
            ready = 1000 * statistics.median(t[1] for t in times[(b, kind)])
            print("| %s | %s | %.1f | %.1f | %.1f | %.2fx |" % (
                b, kind, serving, ready, ready - serving, ready / serving))


if __name__ == "__main__":
    main()
