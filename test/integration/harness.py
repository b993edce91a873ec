"""Helpers for the kube-apiserver integration tests.

Starts the real binary on a free loopback port with a fresh data directory
and talks to it over real TLS. Standard library only; run with
/usr/bin/python3.
"""

import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time

BINARY = os.environ.get(
    "KAS_BINARY",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "cmd",
                 "kube-apiserver", "kube-apiserver"))
KCM_BINARY = os.environ.get(
    "KAS_KCM_BINARY",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "cmd",
                 "kube-controller-manager", "kube-controller-manager"))
KUBECTL = "/usr/bin/kubectl"
CURL = "/usr/bin/curl"
OPENSSL = "/usr/bin/openssl"

READY_TIMEOUT = 10.0
READY_POLL = 0.02
STOP_TIMEOUT = 15.0


def free_port():
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args, timeout=30, **kwargs):
    """subprocess.run capturing text output."""
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, text=True, **kwargs)


def wait_for(probe, timeout, what, interval=0.1):
    """Poll probe() -> (done, last) until done and return last; after `timeout` seconds fail
    (AssertionError) with the last value."""
    deadline = time.monotonic() + timeout
    while True:
        done, last = probe()
        if done:
            return last
        if time.monotonic() > deadline:
            raise AssertionError("%s: not within %ds; last: %r" % (what, timeout, last))
        time.sleep(interval)


def write_kubeconfig(path, server, user_stanza):
    """A kubeconfig for the server whose user is the given (indented) stanza, e.g.
    "    token: abc"."""
    with open(path, "w") as f:
        f.write("""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: %s
    server: %s
  name: it
contexts:
- context:
    cluster: it
    user: it-user
  name: it
current-context: it
users:
- name: it-user
  user:
%s
""" % (server.ca_file, server.url, user_stanza))


class ServerError(Exception):
    pass


class Server:
    """One kube-apiserver process.

    Server(*extra_args, data_dir=None, port=None, start=True)

    The server gets its own temporary directory (removed by stop()); the
    log file lives there. Unless data_dir is given, the data dir is
    <tempdir>/data; a data_dir passed in is not removed.
    """

    def __init__(self, *extra_args, data_dir=None, port=None, start=True):
        self.extra_args = list(extra_args)
        self.tmpdir = tempfile.mkdtemp(prefix="kas-it-")
        self.data_dir = data_dir or os.path.join(self.tmpdir, "data")
        self.port = port or free_port()
        self.log_path = os.path.join(self.tmpdir, "server.log")
        self.proc = None
        self.returncode = None
        if start:
            self.start()

    # ---- paths -----------------------------------------------------------
    @property
    def pki(self):
        return os.path.join(self.data_dir, "pki")

    @property
    def ca_file(self):
        return os.path.join(self.pki, "ca.crt")

    @property
    def admin_cert(self):
        return (os.path.join(self.pki, "admin.crt"),
                os.path.join(self.pki, "admin.key"))

    @property
    def kubeconfig(self):
        return os.path.join(self.data_dir, "admin.kubeconfig")

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.port

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def log(self):
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    # ---- lifecycle -------------------------------------------------------
    def command(self):
        # Without a controller manager no namespace gets its default service account, so the
        # ServiceAccount admission plugin would refuse every pod, and nothing removes the
        # finalizers StorageObjectInUseProtection gives claims and volumes: both are off
        # unless the test names the admission plugins itself.
        admission = [] if any(a.startswith(("--enable-admission-plugins",
                                             "--disable-admission-plugins"))
                              for a in self.extra_args) else [
            "--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection"]
        return [BINARY, "--data-dir", self.data_dir,
                "--bind-address", "127.0.0.1",
                "--secure-port", str(self.port)] + admission + self.extra_args

    def start(self):
        logf = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen(self.command(), stdout=logf,
                                         stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        finally:
            logf.close()
        self.returncode = None
        try:
            self.wait_ready()
        except BaseException:
            self.cleanup()
            raise

    def wait_ready(self, timeout=READY_TIMEOUT):
        deadline = time.monotonic() + timeout
        last = None
        while True:
            rc = self.proc.poll()
            if rc is not None:
                raise ServerError("kube-apiserver exited with code %d before "
                                  "becoming ready; log:\n%s" % (rc, self.log()))
            if os.path.exists(self.ca_file) and \
                    os.path.exists(self.admin_cert[0]):
                try:
                    status, _, body = self.request("GET", "/readyz",
                                                   timeout=1)
                    if status == 200:
                        return
                    last = "status %d: %r" % (status, body)
                except (OSError, ssl.SSLError, http.client.HTTPException) \
                        as e:
                    last = repr(e)
            if time.monotonic() >= deadline:
                raise ServerError("kube-apiserver not ready after %.0fs "
                                  "(last: %s); log:\n%s"
                                  % (timeout, last, self.log()))
            time.sleep(READY_POLL)

    def signal(self, sig):
        os.kill(self.proc.pid, sig)

    def wait(self, timeout):
        """Wait for exit; return the exit code or None on timeout."""
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def stop(self, cleanup=True):
        """SIGTERM, wait up to 15 s, then SIGKILL. Returns the exit code.

        With cleanup (the default) the temp dir is removed afterwards.
        """
        rc = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.kill(self.proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    self.proc.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self._kill()
            rc = self.proc.returncode
            self.returncode = rc
        if cleanup:
            self.cleanup()
        return rc

    def cleanup(self):
        self._kill()
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # ---- clients ---------------------------------------------------------
    def ssl_context(self, cert=True):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(self.ca_file)
        if cert is True:
            ctx.load_cert_chain(*self.admin_cert)
        elif cert:
            ctx.load_cert_chain(cert[0], cert[1])
        return ctx

    def connection(self, cert=True, timeout=10, context=None):
        return http.client.HTTPSConnection(
            "127.0.0.1", self.port, timeout=timeout,
            context=context or self.ssl_context(cert))

    def request(self, method, path, body=None, headers=None, cert=True,
                token=None, timeout=10):
        """One request on a fresh TLS connection.

        cert: True for the admin client certificate, False for none, or a
        (certfile, keyfile) pair. Returns (status, headers, body) with
        lower-case header names.
        """
        hdrs = dict(headers or {})
        if token is not None:
            hdrs["Authorization"] = "Bearer " + token
        if isinstance(body, str):
            body = body.encode()
        conn = self.connection(cert=cert, timeout=timeout)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            if body is not None and not any(
                    k.lower() == "content-length" for k in hdrs):
                hdrs["Content-Length"] = str(len(body))
            for k, v in hdrs.items():
                conn.putheader(k, v)
            conn.endheaders()
            if body:
                try:
                    conn.send(body)
                except (BrokenPipeError, ConnectionResetError,
                        ssl.SSLEOFError, ssl.SSLZeroReturnError):
                    # The server may answer (e.g. 413) and close before
                    # reading the whole body; read what it said.
                    pass
            resp = conn.getresponse()
            data = resp.read()
            return (resp.status,
                    {k.lower(): v for k, v in resp.getheaders()},
                    data)
        finally:
            conn.close()

    def watches(self, resource):
        """How many watches of a resource the server is serving now (from the
        apiserver_longrunning_requests gauge of /metrics)."""
        status, _, data = self.request("GET", "/metrics")
        if status != 200:
            raise ServerError("/metrics: %d %s" % (status, data[:200]))
        total = 0
        for line in data.decode().splitlines():
            if (line.startswith("apiserver_longrunning_requests{")
                    and 'verb="WATCH"' in line
                    and 'resource="%s"' % resource in line):
                total += int(line.rsplit(" ", 1)[1])
        return total

    def wait_watches(self, resource, count, timeout=10):
        """Wait until the server serves exactly `count` watches of resource.

        With 0 before a client starts watching, and 1 after, the client's watch
        is established: what changes next reaches it."""
        deadline = time.monotonic() + timeout
        while (n := self.watches(resource)) != count:
            if time.monotonic() > deadline:
                raise ServerError("%d watch(es) of %s, not %d, after %ds"
                                  % (n, resource, count, timeout))
            time.sleep(0.02)

    def kubectl(self, *args, kubeconfig=None, timeout=30, stdin=None):
        """Runs kubectl against the server; stdin (a JSON-able object) is given as the
        file of `-f`."""
        if stdin is not None:
            import json
            fd, path = tempfile.mkstemp(suffix=".json", dir=self.tmpdir)
            with os.fdopen(fd, "w") as f:
                json.dump(stdin, f)
            args = args + ("-f", path)
        return run([KUBECTL, "--kubeconfig", kubeconfig or self.kubeconfig]
                   + list(args), timeout=timeout)

    def curl(self, *args, cert=True, timeout=30):
        cmd = [CURL, "-sS", "--cacert", self.ca_file]
        if cert is True:
            cmd += ["--cert", self.admin_cert[0], "--key", self.admin_cert[1]]
        elif cert:
            cmd += ["--cert", cert[0], "--key", cert[1]]
        return run(cmd + list(args), timeout=timeout)


class ControllerManager:
    """One kube-controller-manager process against a Server, with the kubeconfig, signing
    key and CA the server wrote (the CA also signs CSRs); its log in its own temporary
    directory. Stopped by pid."""

    def __init__(self, server, *extra_args, port=None, signing=True):
        self.server = server
        self.extra_args = list(extra_args)
        self.port = port or free_port()
        self.tmpdir = tempfile.mkdtemp(prefix="kcm-it-")
        self.log_path = os.path.join(self.tmpdir, "kcm.log")
        data = server.data_dir
        # The client CA signs CSRs, as in a kubeadm cluster (signing=False: no signing files).
        signing_args = ["--cluster-signing-cert-file", server.ca_file,
                        "--cluster-signing-key-file", os.path.join(server.pki, "ca.key")]
        cmd = [KCM_BINARY, "--kubeconfig", os.path.join(data, "controller-manager.kubeconfig"),
               "--service-account-private-key-file", os.path.join(server.pki, "sa.key"),
               "--root-ca-file", server.ca_file] + (signing_args if signing else []) + [
               "--bind-address", "127.0.0.1", "--secure-port", str(self.port),
               "--cert-dir", self.tmpdir] + self.extra_args
        with open(self.log_path, "ab") as logf:
            self.proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

    @property
    def pid(self):
        return self.proc.pid

    def log(self):
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self, sig=signal.SIGKILL):
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self.tmpdir, ignore_errors=True)
        return self.proc.returncode

    def get(self, path, cert=False):
        """GET over HTTPS (the self-signed certificate unchecked), anonymous or with the
        admin client certificate: (status, body)."""
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        if cert:
            ctx.load_cert_chain(*self.server.admin_cert)
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=10)
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.read().decode()
        finally:
            conn.close()


class Etcd:
    """A real etcd (Debian's etcd-server) on free loopback ports, in a temp dir.

    stop() sends SIGTERM, waits up to 5 s, then SIGKILL (the last member of a
    cluster may ignore SIGTERM for a while), and removes the data.
    """

    def __init__(self):
        self.tmpdir = tempfile.mkdtemp(prefix="kas-etcd-")
        self.port = free_port()
        peer = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        peer_url = "http://127.0.0.1:%d" % peer
        self.log_path = os.path.join(self.tmpdir, "etcd.log")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                ["/usr/bin/etcd", "--data-dir", os.path.join(self.tmpdir, "data"),
                 "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                 "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                 "--initial-cluster", "default=" + peer_url],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("POST", "/v3/maintenance/status", body="{}")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ServerError("etcd did not start")
            time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def pod_manifest(name, **spec):
    """A Pod of one nginx container named app; spec fields given replace or add to it."""
    body = {"containers": [{"name": "app", "image": "nginx:1.27"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


class Webhook:
    """A real HTTPS service on a free loopback port, for the server's webhooks (audit,
    authorization, token review), with its own self-signed certificate.

    respond(path, body) -> (status, reply) decides each POST; reply is a JSON-able value
    or None for an empty body. received lists (path, content type, parsed body) in order.
    respond_get(path) -> (status, reply) answers GETs (404 without it). url is the base URL;
    write_kubeconfig(path) writes the kubeconfig the server is given. stop() ends it.
    dns_names are more names the certificate is good for (a Service's "<name>.<ns>.svc");
    ca_bundle is the certificate in base64, as a clientConfig.caBundle holds it. With
    keep_alive (seconds), it speaks HTTP/1.1 and keeps each connection open that long
    between requests; client_ports lists the client port of each request, and
    drop_connections() ends every connection open. With client_ca (a PEM file), clients must
    present a certificate it signed; peers lists each request's (client certificate common
    name, Authorization header).
    """

    def __init__(self, respond=lambda path, body: (200, None), url_path="/",
                 respond_get=None, dns_names=(), keep_alive=None, client_ca=None):
        import http.server
        import json
        import threading
        self.tmpdir = tempfile.mkdtemp(prefix="kas-webhook-")
        self.key = os.path.join(self.tmpdir, "hook.key")
        self.cert = os.path.join(self.tmpdir, "hook.crt")
        out = run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                   "-subj", "/CN=127.0.0.1", "-addext",
                   "subjectAltName=" + ",".join(["IP:127.0.0.1"] +
                                                ["DNS:" + n for n in dns_names]),
                   "-keyout", self.key, "-out", self.cert])
        if out.returncode != 0:
            raise ServerError("openssl: " + out.stderr)
        self.received = []
        self.client_ports = []
        self.sockets = []
        self.peers = []
        self.url_path = url_path
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            if keep_alive is not None:
                protocol_version = "HTTP/1.1"
                timeout = keep_alive

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                hook.sockets.append(self.connection)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.received.append((self.path, self.headers["Content-Type"], body))
                hook.client_ports.append(self.client_address[1])
                peer = self.connection.getpeercert() or {}
                names = [v for rdn in peer.get("subject", ()) for k, v in rdn if k == "commonName"]
                hook.peers.append((names[0] if names else None,
                                   self.headers.get("Authorization")))
                self.reply(*respond(self.path, body))

            def do_GET(self):
                self.reply(*(respond_get(self.path) if respond_get else (404, None)))

            def reply(self, status, reply):
                data = b"" if reply is None else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        if client_ca:
            context.load_verify_locations(client_ca)
            context.verify_mode = ssl.CERT_REQUIRED
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.server.server_address[1]

    @property
    def port(self):
        return self.server.server_address[1]

    @property
    def ca_bundle(self):
        import base64
        with open(self.cert, "rb") as f:
            return base64.b64encode(f.read()).decode()

    def write_kubeconfig(self, path):
        with open(path, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: hook
  cluster:
    server: https://127.0.0.1:{self.server.server_address[1]}{self.url_path}
    certificate-authority: {self.cert}
contexts:
- name: hook
  context: {{cluster: hook, user: hook}}
current-context: hook
users:
- name: hook
  user: {{}}
""")
        return path

    def drop_connections(self):
        for s in self.sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.sockets = []

    def stop(self):
        self.drop_connections()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        shutil.rmtree(self.tmpdir, ignore_errors=True)
