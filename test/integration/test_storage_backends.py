"""The real binary on each storage backend: it opens, reports the "etcd" check, and
refuses to start, with a message, on storage it cannot use."""

import os
import sqlite3
import tempfile
import unittest
import shutil

import harness


class StorageBackendTests(unittest.TestCase):

    def check_ready_with_storage(self, server):
        status, _, body = server.request("GET", "/readyz?verbose")
        self.assertEqual(status, 200, body)
        self.assertIn("[+]etcd ok", body.decode())

    def test_sqlite_default_creates_its_file(self):
        with harness.Server() as server:
            self.check_ready_with_storage(server)
            self.assertTrue(os.path.exists(os.path.join(server.data_dir, "state.db")))

    def test_memory_leaves_nothing_on_disk(self):
        with harness.Server("--storage-backend=memory") as server:
            self.check_ready_with_storage(server)
            self.assertFalse(os.path.exists(os.path.join(server.data_dir, "state.db")))

    def test_etcd3(self):
        etcd = harness.Etcd()
        self.addCleanup(etcd.stop)
        with harness.Server("--storage-backend=etcd3", "--etcd-servers", etcd.url) as server:
            self.check_ready_with_storage(server)
            status, _, body = server.request("GET", "/livez/etcd")
            self.assertEqual((status, body), (200, b"ok"))

    def run_refused(self, *args, data_dir=None):
        tmp = tempfile.mkdtemp(prefix="kas-refuse-")
        self.addCleanup(shutil.rmtree, tmp, True)
        data_dir = data_dir or os.path.join(tmp, "data")
        return harness.run([harness.BINARY, "--data-dir", data_dir,
                            "--bind-address", "127.0.0.1",
                            "--secure-port", str(harness.free_port())] + list(args),
                           timeout=60)

    def test_unreachable_etcd_stops_the_server(self):
        dead = "http://127.0.0.1:%d" % harness.free_port()
        r = self.run_refused("--storage-backend=etcd3", "--etcd-servers", dead)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("connecting to etcd", r.stderr)
        self.assertIn(dead, r.stderr)

    def test_foreign_sqlite_file_is_refused_and_kept(self):
        tmp = tempfile.mkdtemp(prefix="kas-foreign-")
        self.addCleanup(shutil.rmtree, tmp, True)
        db = os.path.join(tmp, "state.db")
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE users (name TEXT)")
            c.execute("INSERT INTO users VALUES ('alice')")
        with open(db, "rb") as f:
            before = f.read()
        r = self.run_refused(data_dir=tmp)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("not created by kube-apiserver", r.stderr)
        with open(db, "rb") as f:
            self.assertEqual(f.read(), before)


if __name__ == "__main__":
    unittest.main()
