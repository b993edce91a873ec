"""A test host for the integration tests: a network namespace joined to this
host by a veth pair, on a private /30.

Upstream refuses Endpoints on loopback addresses, so a server the
kube-apiserver must reach through a Service (an extension API server, say)
runs in a namespace of its own, on an address of a private subnet:

    with NetNS() as ns:
        proc = ns.popen(["python3", "server.py", "--listen", ns.ns_ip + ":8443"])
        ...                      # reach it at ns.ns_ip from this host
        ns.stop(proc)            # or leave it: exit stops whatever ns started

Names carry the pid of the process that made them (netns kasit-<pid>-<n>,
veth kv<pid>-<n>h / kv<pid>-<n>n), so leftovers of a run that crashed are
recognised and removed when a later one starts. Needs root and iproute2's
`ip`. Standard library only.
"""

import fcntl
import ipaddress
import itertools
import os
import random
import re
import signal
import subprocess
import time

IP = "/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else "/sbin/ip"
NETNS_PREFIX = "kasit-"
VETH_PREFIX = "kv"
# The /30s are taken from this block; 10.250.0.0/16 is not used by the
# server's default Service range (10.0.0.0/24) nor, usually, by the host.
POOL = ipaddress.ip_network("10.250.0.0/16")
LOCK_FILE = "/run/kas-it-netns.lock"

_NAME_RE = re.compile(r"^kasit-(\d+)-(\d+)$")
_VETH_RE = re.compile(r"^kv(\d+)-(\d+)[hn]$")
_counter = itertools.count()


def _ip(*args, check=True, timeout=10):
    r = subprocess.run([IP] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise NetNSError("ip %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                 r.stderr.strip()))
    return r


class NetNSError(Exception):
    pass


def unavailable():
    """Why a NetNS cannot be made here (None when it can): for skipTest."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if not os.path.exists(IP):
        return "iproute2's ip is not installed"
    return None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_pids(pids, timeout=5.0):
    """SIGTERM, wait up to timeout, then SIGKILL."""
    pids = [p for p in pids if p > 1 and p != os.getpid()]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _netns_names():
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _delete_netns(name):
    """Stop every process in the namespace, then delete it (and its veth)."""
    pids = _ip("netns", "pids", name, check=False).stdout.split()
    _kill_pids([int(p) for p in pids if p.isdigit()])
    _ip("netns", "del", name, check=False)


def cleanup_leftovers():
    """Remove namespaces and veths of this naming scheme whose process is gone."""
    for name in _netns_names():
        m = _NAME_RE.match(name)
        if m and not _alive(int(m.group(1))):
            _delete_netns(name)
    for line in _ip("-o", "link", "show", check=False).stdout.splitlines():
        parts = line.split(":")
        if len(parts) < 2:
            continue
        ifname = parts[1].strip().split("@")[0]
        m = _VETH_RE.match(ifname)
        if m and not _alive(int(m.group(1))):
            _ip("link", "del", ifname, check=False)


def _used_networks():
    """Every IPv4 network on this host's interfaces and routes."""
    used = []
    out = _ip("-4", "-o", "addr", "show", check=False).stdout
    for m in re.finditer(r"\binet (\d+\.\d+\.\d+\.\d+/\d+)", out):
        used.append(ipaddress.ip_interface(m.group(1)).network)
    out = _ip("-4", "route", "show", "table", "all", check=False).stdout
    for line in out.splitlines():
        dst = line.split()[0] if line.split() else ""
        if dst in ("default", "broadcast", "local", "unreachable", "blackhole"):
            dst = line.split()[1] if len(line.split()) > 1 else ""
        try:
            net = ipaddress.ip_network(dst, strict=False)
        except ValueError:
            continue
        if net.prefixlen > 0:
            used.append(net)
    return used


class NetNS:
    """A network namespace with a veth to this host and a private /30.

    Attributes: name (the netns), host_if / ns_if (the veth ends), network (a
    /30 of 10.250.0.0/16 no interface or route of this host overlaps), host_ip
    (its first address, on this host) and ns_ip (its second, in the namespace).
    """

    def __init__(self, start=True):
        n = next(_counter) % 1000
        self.name = "%s%d-%d" % (NETNS_PREFIX, os.getpid(), n)
        self.host_if = "%s%d-%dh" % (VETH_PREFIX, os.getpid(), n)
        self.ns_if = "%s%d-%dn" % (VETH_PREFIX, os.getpid(), n)
        assert len(self.host_if) <= 15, self.host_if
        self.network = self.host_ip = self.ns_ip = None
        self.procs = []
        self.started = False
        if start:
            self.start()

    def start(self):
        cleanup_leftovers()
        # Choosing the subnet and taking it is one step across processes, so
        # two concurrent runs never pick the same /30.
        with open(LOCK_FILE, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self.network = self._free_network()
                hosts = list(self.network.hosts())
                self.host_ip, self.ns_ip = str(hosts[0]), str(hosts[1])
                plen = self.network.prefixlen
                _ip("netns", "add", self.name)
                self.started = True
                _ip("link", "add", self.host_if, "type", "veth",
                    "peer", "name", self.ns_if)
                _ip("link", "set", self.ns_if, "netns", self.name)
                _ip("addr", "add", "%s/%d" % (self.host_ip, plen),
                    "dev", self.host_if)
                _ip("link", "set", self.host_if, "up")
                self.ip("addr", "add", "%s/%d" % (self.ns_ip, plen),
                        "dev", self.ns_if)
                self.ip("link", "set", self.ns_if, "up")
                self.ip("link", "set", "lo", "up")
            except BaseException:
                self.close()
                raise
        return self

    @staticmethod
    def _free_network():
        used = _used_networks()
        blocks = list(POOL.subnets(new_prefix=30))
        for net in random.sample(blocks, 64) + blocks:
            if not any(net.overlaps(u) for u in used):
                return net
        raise NetNSError("no free /30 in %s" % POOL)

    # ---- commands in the namespace --------------------------------------
    def argv(self, args):
        return [IP, "netns", "exec", self.name] + list(args)

    def ip(self, *args):
        """Run `ip ARGS` inside the namespace."""
        return _ip("netns", "exec", self.name, IP, *args)

    def run(self, args, timeout=30, **kwargs):
        """Run a command in the namespace to completion (text output)."""
        return subprocess.run(self.argv(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              timeout=timeout, **kwargs)

    def popen(self, args, **kwargs):
        """Start a command in the namespace; close() stops it if still running.

        `ip netns exec` execs the command, so the Popen's pid is the command.
        """
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        proc = subprocess.Popen(self.argv(args), **kwargs)
        self.procs.append(proc)
        return proc

    def stop(self, proc, timeout=5.0, sig=signal.SIGTERM):
        """Stop one process started with popen: sig, then SIGKILL."""
        if proc.poll() is None:
            try:
                os.kill(proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        return proc.returncode

    def pids(self):
        """The pids of every process in the namespace."""
        out = _ip("netns", "pids", self.name, check=False).stdout.split()
        return [int(p) for p in out if p.isdigit()]

    # ---- teardown --------------------------------------------------------
    def close(self):
        for proc in self.procs:
            self.stop(proc)
        self.procs = []
        if self.started:
            _delete_netns(self.name)
            self.started = False
        # Deleting the namespace destroys the veth pair; the host end is
        # still there only if the namespace never got its peer.
        if _ip("link", "show", "dev", self.host_if, check=False).returncode == 0:
            _ip("link", "del", self.host_if, check=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
