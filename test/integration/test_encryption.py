"""Integration tests: encryption at rest in the real kube-apiserver binary, with real kubectl
over TLS, read back from the raw SQLite file and from a real etcd.

What a user sees: with --encryption-provider-config, Secrets (and any listed resource) are
stored as k8s:enc:<provider>:v1:<key>:<ciphertext>, never as plain text anywhere in the
database files, while kubectl reads them as before; resources not listed stay plain JSON.
Keys rotate by order across restarts (old values read, `kubectl replace` rewrites them with
the new key), identity first decrypts, a value no configured key can read is a 500
InternalError naming the key (the server keeps serving the rest), and a configuration that
does not validate stops the server with upstream's field errors.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver /usr/bin/python3 -m unittest test_encryption -v
"""

import base64
import contextlib
import http.client
import json
import os
import shutil
import sqlite3
import ssl
import tempfile
import time
import unittest

import harness
from harness import wait_for

PLAINTEXT = "topsecret-value-1234"


def key(seed):
    """A 32-byte key, base64 as the configuration wants it."""
    return base64.b64encode((seed * 32)[:32].encode()).decode()


def provider(kind, name, seed):
    return {kind: {"keys": [{"name": name, "secret": key(seed)}]}}


def config(*entries):
    return json.dumps({"apiVersion": "apiserver.config.k8s.io/v1",
                       "kind": "EncryptionConfiguration",
                       "resources": [{"resources": r, "providers": p} for r, p in entries]})


class LiveServer(harness.Server):
    """A server that is up (/livez) though some watch cache cannot sync, so never ready."""

    def wait_ready(self, timeout=harness.READY_TIMEOUT):
        def probe():
            if self.proc.poll() is not None:
                raise harness.ServerError("exited:\n" + self.log())
            if not os.path.exists(self.admin_cert[0]):
                return False, "no certificates yet"
            try:
                status, _, body = self.request("GET", "/livez", timeout=1)
            except (OSError, ssl.SSLError, http.client.HTTPException) as e:
                return False, repr(e)
            return status == 200, body
        wait_for(probe, timeout, "/livez")


class EncryptionTestCase(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kas-encryption-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.data_dir = os.path.join(self.tmp, "data")
        self.config_path = os.path.join(self.tmp, "encryption.json")

    def start(self, text, server_class=harness.Server, *extra):
        with open(self.config_path, "w") as f:
            f.write(text)
        server = server_class("--encryption-provider-config", self.config_path, *extra,
                              data_dir=self.data_dir)
        self.addCleanup(server.stop)
        return server

    def ok(self, server, *args, stdin=None):
        if stdin is not None:
            r = harness.run([harness.KUBECTL, "--kubeconfig", server.kubeconfig] + list(args),
                            input=stdin)
        else:
            r = server.kubectl(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def password(self, server, name):
        out = self.ok(server, "get", "secret", name, "-o", "jsonpath={.data.password}")
        return base64.b64decode(out).decode()

    def replace_unchanged(self, server, name):
        """The documented way to rewrite every value with the newest key."""
        obj = self.ok(server, "get", "secret", name, "-o", "json")
        self.ok(server, "replace", "-f", "-", stdin=obj)


class EncryptionSqliteTest(EncryptionTestCase):

    def raw(self, key):
        """The newest stored value of key, straight from the SQLite file."""
        # Closed each time: a connection left open keeps reading its old snapshot.
        with contextlib.closing(sqlite3.connect(os.path.join(self.data_dir, "state.db"))) as db:
            rows = db.execute("SELECT value FROM log WHERE key = ? AND deleted = 0 "
                              "ORDER BY revision DESC LIMIT 1", (key,)).fetchall()
        row = rows[0] if rows else None
        self.assertIsNotNone(row, key)
        return bytes(row[0])

    def assert_no_plaintext_on_disk(self):
        encoded = base64.b64encode(PLAINTEXT.encode())
        for name in os.listdir(self.data_dir):
            if name.startswith("state.db"):
                with open(os.path.join(self.data_dir, name), "rb") as f:
                    content = f.read()
                self.assertNotIn(PLAINTEXT.encode(), content, name)
                self.assertNotIn(encoded, content, name)

    def test_values_encrypted_per_resource_and_keys_rotated(self):
        first = config((["secrets"], [provider("aescbc", "key1", "a")]),
                       (["*.batch"], [provider("secretbox", "box", "b")]))
        server = self.start(first)
        self.ok(server, "create", "secret", "generic", "s1", "--from-literal=password=" + PLAINTEXT)
        self.ok(server, "create", "job", "j1", "--image=busybox", "--", "echo", PLAINTEXT)
        self.ok(server, "create", "namespace", "plain-ns")

        self.assertTrue(self.raw("/registry/secrets/default/s1").startswith(b"k8s:enc:aescbc:v1:key1:"))
        self.assertTrue(self.raw("/registry/batch/jobs/default/j1").startswith(b"k8s:enc:secretbox:v1:box:"))
        namespace = json.loads(self.raw("/registry/namespaces/plain-ns"))
        self.assertEqual(namespace["metadata"]["name"], "plain-ns")
        self.assert_no_plaintext_on_disk()
        self.assertEqual(self.password(server, "s1"), PLAINTEXT)
        self.assertIn(PLAINTEXT, self.ok(server, "get", "job", "j1", "-o", "yaml"))
        _, _, metrics = server.request("GET", "/metrics")
        self.assertIn('apiserver_storage_transformation_operations_total{status="OK",'
                      'transformation_type="to_storage",transformer_prefix="k8s:enc:aescbc:v1:"}',
                      metrics.decode())
        server.stop(cleanup=False)

        # A new key first, the old one second: old values still read; a replace that
        # changes nothing rewrites them with the new key, as do new writes.
        server = self.start(config((["secrets"], [provider("aescbc", "key2", "c"),
                                                  provider("aescbc", "key1", "a")]),
                                   (["*.batch"], [provider("secretbox", "box", "b")])))
        self.assertEqual(self.password(server, "s1"), PLAINTEXT)
        self.assertTrue(self.raw("/registry/secrets/default/s1").startswith(b"k8s:enc:aescbc:v1:key1:"))
        self.replace_unchanged(server, "s1")
        self.assertTrue(self.raw("/registry/secrets/default/s1").startswith(b"k8s:enc:aescbc:v1:key2:"))
        self.ok(server, "create", "secret", "generic", "s2", "--from-literal=password=" + PLAINTEXT)
        self.assertTrue(self.raw("/registry/secrets/default/s2").startswith(b"k8s:enc:aescbc:v1:key2:"))
        server.stop(cleanup=False)

        # Identity first: encrypted values read, rewritten values are plain again.
        server = self.start(config((["secrets", "*.batch"],
                                    [{"identity": {}}, provider("aescbc", "key2", "c"),
                                     provider("secretbox", "box", "b")])))
        self.replace_unchanged(server, "s1")
        stored = json.loads(self.raw("/registry/secrets/default/s1"))
        self.assertEqual(base64.b64decode(stored["data"]["password"]).decode(), PLAINTEXT)
        self.assertEqual(self.password(server, "s2"), PLAINTEXT)
        self.assertIn(PLAINTEXT, self.ok(server, "get", "job", "j1", "-o", "yaml"))
        server.stop(cleanup=False)

    def test_value_no_key_reads_is_an_internal_error_and_the_rest_works(self):
        server = self.start(config((["secrets"], [provider("aesgcm", "old", "a")])))
        self.ok(server, "create", "secret", "generic", "lost", "--from-literal=password=x")
        server.stop(cleanup=False)

        server = self.start(config((["secrets"], [provider("aesgcm", "new", "z")])), LiveServer)
        status, _, body = server.request("GET", "/api/v1/namespaces/default/secrets/lost")
        self.assertEqual(status, 500, body)
        err = json.loads(body)
        self.assertEqual((err["kind"], err["reason"]), ("Status", "InternalError"))
        self.assertIn('unable to transform key "/registry/secrets/default/lost"', err["message"])
        self.assertIn("no matching key was found for the provided AES transformer", err["message"])
        # Everything else is served; new secrets are written with the new key and read back.
        self.ok(server, "create", "configmap", "still-fine")
        self.ok(server, "create", "secret", "generic", "fresh", "--from-literal=password=" + PLAINTEXT)
        self.assertEqual(self.password(server, "fresh"), PLAINTEXT)
        self.assertTrue(self.raw("/registry/secrets/default/fresh").startswith(b"k8s:enc:aesgcm:v1:new:"))


class EncryptionEtcdTest(EncryptionTestCase):

    def test_etcd_values_encrypted_and_read_after_rotation(self):
        etcd = harness.Etcd()
        self.addCleanup(etcd.stop)
        args = ("--storage-backend=etcd3", "--etcd-servers", etcd.url)

        def raw(k):
            conn = http.client.HTTPConnection("127.0.0.1", etcd.port, timeout=5)
            self.addCleanup(conn.close)
            conn.request("POST", "/v3/kv/range",
                         body=json.dumps({"key": base64.b64encode(k.encode()).decode()}))
            kvs = json.loads(conn.getresponse().read()).get("kvs", [])
            self.assertEqual(len(kvs), 1, k)
            return base64.b64decode(kvs[0]["value"])

        server = self.start(config((["secrets"], [provider("secretbox", "k1", "a")])),
                            harness.Server, *args)
        self.ok(server, "create", "secret", "generic", "s1", "--from-literal=password=" + PLAINTEXT)
        value = raw("/registry/secrets/default/s1")
        self.assertTrue(value.startswith(b"k8s:enc:secretbox:v1:k1:"), value[:40])
        self.assertNotIn(base64.b64encode(PLAINTEXT.encode()), value)
        server.stop()

        server = self.start(config((["secrets"], [provider("aesgcm", "k2", "b"),
                                                  provider("secretbox", "k1", "a")])),
                            harness.Server, *args)
        self.assertEqual(self.password(server, "s1"), PLAINTEXT)
        self.replace_unchanged(server, "s1")
        self.assertTrue(raw("/registry/secrets/default/s1").startswith(b"k8s:enc:aesgcm:v1:k2:"))
        self.assertEqual(self.password(server, "s1"), PLAINTEXT)


class EncryptionConfigErrorTest(EncryptionTestCase):

    def refused(self, text):
        with open(self.config_path, "w") as f:
            f.write(text)
        r = harness.run([harness.BINARY, "--data-dir", self.data_dir,
                         "--bind-address", "127.0.0.1", "--secure-port", str(harness.free_port()),
                         "--encryption-provider-config", self.config_path], timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        return r.stderr

    def test_invalid_configuration_stops_the_server(self):
        bad = config((["secrets", "Configmaps"],
                      [{"aescbc": {"keys": [{"name": "k", "secret": "c2hvcnQ="}]}}]))
        err = self.refused(bad)
        self.assertIn("--encryption-provider-config: error while parsing file: [", err)
        self.assertIn('resources[0].resources[1]: Invalid value: "Configmaps": resource name '
                      'should not contain capital letters', err)
        self.assertIn('resources[0].providers[0].aescbc.keys[0].secret: Invalid value: '
                      '"REDACTED": secret is not of the expected length, got 5, expected one '
                      'of [16 24 32]', err)
        self.assertIn("is empty", self.refused(""))


if __name__ == "__main__":
    unittest.main()
