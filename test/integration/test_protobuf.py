"""Protobuf on the wire with the real binary over TLS, read by a small client of our own.

GET and LIST answered in protobuf, a watch consumed as length-prefixed WatchEvent frames,
a protobuf create, and malformed protobuf bodies answered 400 with the server still up.
Standard library only; run with /usr/bin/python3.
"""

import json
import struct
import threading
import unittest

from harness import Server

PROTOBUF = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"


def varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def fields(data):
    """{number: [values]} of one message: ints for varints, bytes for the rest."""
    out, i = {}, 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 2:
            size, i = varint(data, i)
            value, i = data[i:i + size], i + size
        else:
            raise ValueError("unexpected wire type %d" % wire)
        out.setdefault(number, []).append(value)
    return out


def envelope(body):
    """(apiVersion, kind, raw) of a protobuf body."""
    assert body.startswith(MAGIC), body[:16]
    unknown = fields(body[len(MAGIC):])
    type_meta = fields(unknown[1][0])
    return type_meta[1][0].decode(), type_meta[2][0].decode(), unknown[2][0]


def varint_bytes(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7F | 0x80])
        v >>= 7
    return out + bytes([v])


def key(n, wire):
    return varint_bytes((n << 3) | wire)


def length_delimited(n, data):
    return key(n, 2) + varint_bytes(len(data)) + data


class ProtobufWireTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def request(self, method, path, body=None, content_type="application/json",
                accept=PROTOBUF + ", application/json"):
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = content_type
        return self.server.request(method, path, body, headers)

    def create_cm(self, name, data):
        status, _, body = self.request(
            "POST", "/api/v1/namespaces/default/configmaps",
            json.dumps({"metadata": {"name": name}, "data": data}), accept="application/json")
        self.assertEqual(status, 201, body)

    def test_get_and_list(self):
        self.create_cm("pb-get", {"k": "v"})
        status, headers, body = self.request("GET", "/api/v1/namespaces/default/configmaps/pb-get")
        self.assertEqual(status, 200, body)
        self.assertEqual(headers["content-type"], PROTOBUF)
        api_version, kind, raw = envelope(body)
        self.assertEqual((api_version, kind), ("v1", "ConfigMap"))
        cm = fields(raw)
        self.assertEqual(fields(cm[1][0])[1], [b"pb-get"])           # metadata.name
        self.assertEqual(fields(cm[2][0]), {1: [b"k"], 2: [b"v"]})   # data: one entry

        status, _, body = self.request("GET", "/api/v1/namespaces/default/configmaps")
        self.assertEqual(status, 200, body)
        api_version, kind, raw = envelope(body)
        self.assertEqual(kind, "ConfigMapList")
        items = fields(raw)[2]
        names = [fields(fields(item)[1][0])[1][0] for item in items]
        self.assertIn(b"pb-get", names)

        # Errors come back as Status messages.
        status, headers, body = self.request(
            "GET", "/api/v1/namespaces/default/configmaps/absent")
        self.assertEqual(status, 404)
        self.assertEqual(envelope(body)[1], "Status")
        self.assertEqual(fields(envelope(body)[2])[6], [404])  # code

    def test_watch_frames(self):
        conn = self.server.connection(timeout=10)
        self.addCleanup(conn.close)
        conn.request("GET", "/api/v1/namespaces/default/configmaps"
                     "?watch=true&fieldSelector=metadata.name%3Dpb-watched&timeoutSeconds=5",
                     headers={"Accept": PROTOBUF})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), PROTOBUF + ";stream=watch")
        threading.Timer(0.2, self.create_cm, ("pb-watched", {"a": "b"})).start()
        size = struct.unpack(">I", resp.read(4))[0]
        event = fields(resp.read(size))
        self.assertEqual(event[1], [b"ADDED"])
        api_version, kind, raw = envelope(fields(event[2][0])[1][0])
        self.assertEqual((api_version, kind), ("v1", "ConfigMap"))
        self.assertEqual(fields(fields(raw)[1][0])[1], [b"pb-watched"])

    def test_protobuf_create(self):
        meta = length_delimited(1, b"pb-made")
        cm = length_delimited(1, meta) + length_delimited(
            2, length_delimited(1, b"x") + length_delimited(2, b"y"))
        type_meta = length_delimited(1, b"v1") + length_delimited(2, b"ConfigMap")
        body = MAGIC + length_delimited(1, type_meta) + length_delimited(2, cm)
        status, _, answer = self.request("POST", "/api/v1/namespaces/default/configmaps", body,
                                         content_type=PROTOBUF, accept="application/json")
        self.assertEqual(status, 201, answer)
        self.assertEqual(json.loads(answer)["data"], {"x": "y"})

    def test_malformed_bodies(self):
        path = "/api/v1/namespaces/default/configmaps"
        type_meta = length_delimited(1, b"v1") + length_delimited(2, b"ConfigMap")
        for body in (b"nope" + length_delimited(1, type_meta),            # wrong magic
                     MAGIC + length_delimited(1, type_meta)[:-3],         # truncated
                     MAGIC + key(1, 2) + b"\xff\xff\xff\xff\x0f",           # huge length
                     MAGIC + length_delimited(1, type_meta) + key(2, 2) + b"\x80" * 11):
            status, _, answer = self.request("POST", path, body, content_type=PROTOBUF,
                                             accept="application/json")
            self.assertEqual(status, 400, (body, answer))
            self.assertEqual(json.loads(answer)["reason"], "BadRequest")
        status, _, _ = self.server.request("GET", "/readyz")
        self.assertEqual(status, 200)


if __name__ == "__main__":
    unittest.main()
