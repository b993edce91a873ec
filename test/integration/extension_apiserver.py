#!/usr/bin/env python3
"""A small extension API server for the aggregator tests (standard library only).

Serves wardle.example.com/v1alpha1 as upstream's sample-apiserver does: discovery
(/apis, also aggregated v2), OpenAPI v3 and v2 (JSON, with an ETag) and the namespaced
resource flunders (list,
watch, get, create, merge patch, delete; Table output on request), in memory. Every
request but /healthz needs a client certificate verified by --client-ca whose CN is
one of --allowed-names (the aggregator's front-proxy certificate), else upstream's 401
Status (a certificate the CA did not sign fails the TLS handshake). The user is what
X-Remote-User / -Group / -Extra-* say. Each request appends a JSON line to
--request-log: method, path, query, status, user, groups, extra, the X-Remote-*
headers as sent, the Authorization header (None if absent), the client CN, Accept.

    extension_apiserver.py --listen 10.250.0.2:8443 --cert tls.crt --key tls.key \
        --client-ca front-proxy-ca.crt --request-log requests.jsonl
"""

import argparse
import calendar
import copy
import hashlib
import json
import select
import socket
import ssl
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

GROUP, VERSION, KIND, PLURAL = "wardle.example.com", "v1alpha1", "Flunder", "flunders"
GV = GROUP + "/" + VERSION
VERBS = ["create", "delete", "get", "list", "patch", "watch"]
RESOURCE = {"name": PLURAL, "singularName": "flunder", "namespaced": True, "kind": KIND,
            "verbs": VERBS, "shortNames": ["fl"], "categories": ["wardle"]}
GVD = {"groupVersion": GV, "version": VERSION}
API_GROUP = {"name": GROUP, "versions": [GVD], "preferredVersion": GVD}
DISCOVERY_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
GVK = {"group": GROUP, "version": VERSION, "kind": KIND}
TS = "%Y-%m-%dT%H:%M:%SZ"


def status(code, reason, message, name=None, details=None):
    """(code, upstream's Status of a failure); with a name, details name a flunder."""
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
         "message": message, "reason": reason, "code": code}
    if name:
        details = {"name": name, "group": GROUP, "kind": PLURAL}
    if details is not None:
        s["details"] = details
    return code, s


NOT_FOUND = status(404, "NotFound", "the server could not find the requested resource", None, {})
METHOD_NOT_ALLOWED = status(405, "MethodNotAllowed", "the server does not allow this method on "
                            "the requested resource", None, {})


def openapi_doc():
    """The Flunder schema; the PATCH operation tells kubectl the server validates fields."""
    string = {"type": "string"}
    meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    flunder = "com.example.wardle.v1alpha1.Flunder"
    ref = {"$ref": "#/components/schemas/" + flunder}
    patch = {"operationId": "patchFlunder", "x-kubernetes-action": "patch",
             "x-kubernetes-group-version-kind": GVK,
             "parameters": [{"name": p, "in": "query", "schema": string}
                            for p in ("dryRun", "fieldManager", "fieldValidation", "force")],
             "requestBody": {"content": {"application/merge-patch+json": {"schema": ref}}},
             "responses": {"200": {"description": "OK",
                                   "content": {"application/json": {"schema": ref}}}}}
    return {
        "openapi": "3.0.0", "info": {"title": "Wardle", "version": VERSION},
        "paths": {"/apis/%s/namespaces/{namespace}/%s/{name}" % (GV, PLURAL): {
            "parameters": [{"name": n, "in": "path", "required": True, "schema": string}
                           for n in ("name", "namespace")], "patch": patch}},
        "components": {"schemas": {
            flunder: {
                "description": "A Flunder is an example type of the wardle extension API server.",
                "type": "object", "x-kubernetes-group-version-kind": [GVK],
                "properties": {
                    "apiVersion": dict(string, description="APIVersion of this object."),
                    "kind": dict(string, description="Kind of this object."),
                    "metadata": {"allOf": [{"$ref": "#/components/schemas/" + meta}],
                                 "default": {}, "description": "Standard object's metadata."},
                    "spec": {"type": "object", "description": "What the flunder is.",
                             "properties": {"reference": dict(
                                 string, description="The name of another flunder.")}},
                    "status": {"type": "object", "description": "What the flunder does."}}},
            meta: {"description": "ObjectMeta is metadata that all persisted resources must have.",
                   "type": "object", "properties": {k: string for k in (
                       "name", "namespace", "uid", "resourceVersion", "creationTimestamp")}}}}}


OPENAPI = json.dumps(openapi_doc(), sort_keys=True)
OPENAPI_HASH = hashlib.sha512(OPENAPI.encode()).hexdigest().upper()


def openapi_v2_doc():
    """The same in Swagger 2.0, as a generic server publishes it: its ObjectMeta is not the
    kube-apiserver's (the aggregator keeps both), and a path outside the group-version (the
    aggregator drops it, with what only it uses)."""
    string = {"type": "string"}
    meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    flunder = "com.example.wardle.v1alpha1.Flunder"
    ref = {"$ref": "#/definitions/" + flunder}
    patch = {"operationId": "patchFlunder", "x-kubernetes-action": "patch",
             "x-kubernetes-group-version-kind": GVK,
             "consumes": ["application/merge-patch+json"], "produces": ["application/json"],
             "parameters": [{"name": "body", "in": "body", "required": True,
                             "schema": {"type": "object"}}] + [
                 {"name": p, "in": "query", "type": "string", "uniqueItems": True}
                 for p in ("dryRun", "fieldManager", "fieldValidation")],
             "responses": {"200": {"description": "OK", "schema": ref}}}
    return {
        "swagger": "2.0", "info": {"title": "Wardle", "version": VERSION},
        "paths": {
            "/apis/%s/namespaces/{namespace}/%s/{name}" % (GV, PLURAL): {
                "parameters": [{"name": n, "in": "path", "required": True, "type": "string"}
                               for n in ("name", "namespace")], "patch": patch},
            "/version/": {"get": {"operationId": "getWardleVersion", "responses": {
                "200": {"description": "OK", "schema": {"$ref": "#/definitions/WardleInfo"}}}}}},
        "definitions": {
            flunder: {
                "description": "A Flunder is an example type of the wardle extension API server.",
                "type": "object", "x-kubernetes-group-version-kind": [GVK],
                "properties": {
                    "apiVersion": dict(string, description="APIVersion of this object."),
                    "kind": dict(string, description="Kind of this object."),
                    "metadata": {"$ref": "#/definitions/" + meta,
                                 "description": "Standard object's metadata."},
                    "spec": {"type": "object", "description": "What the flunder is.",
                             "properties": {"reference": dict(
                                 string, description="The name of another flunder.")}},
                    "status": {"type": "object", "description": "What the flunder does."}}},
            meta: {"description": "Wardle's ObjectMeta.", "type": "object",
                   "properties": {k: string for k in ("name", "namespace", "uid")}},
            "WardleInfo": {"type": "object"}}}


OPENAPI_V2 = json.dumps(openapi_v2_doc(), sort_keys=True)
OPENAPI_V2_ETAG = '"%s"' % hashlib.sha512(OPENAPI_V2.encode()).hexdigest().upper()


class Store:
    """Flunders by (namespace, name), a resourceVersion counter and the event log."""

    def __init__(self):
        self.cond = threading.Condition()
        self.objects, self.events, self.rv = {}, [], 0

    def change(self, kind, obj):  # with cond held
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.events.append((self.rv, kind, copy.deepcopy(obj)))
        self.cond.notify_all()


def field_filter(query):
    """A predicate for ?fieldSelector= on metadata.name / metadata.namespace."""
    want = {}
    for term in filter(None, query.get("fieldSelector", [""])[0].split(",")):
        key, _, value = term.replace("==", "=").partition("=")
        if key not in ("metadata.name", "metadata.namespace"):
            raise ValueError("field label not supported: " + key)
        want[key.split(".")[1]] = value
    return lambda obj: all(obj["metadata"].get(k) == v for k, v in want.items())


def table(objs):
    def age(ts):
        s = max(0, int(time.time()) - calendar.timegm(time.strptime(ts, TS)))
        return "%ds" % s if s < 120 else "%dm" % (s // 60) if s < 10800 else "%dh" % (s // 3600)
    rows = [{"cells": [o["metadata"]["name"], age(o["metadata"]["creationTimestamp"])],
             "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                        "metadata": o["metadata"]}} for o in objs]
    cols = [{"name": "Name", "type": "string", "format": "name", "description": "Name"},
            {"name": "Age", "type": "date", "format": "", "description": "Age"}]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
            "columnDefinitions": cols, "rows": rows}


def merge(target, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    target = target if isinstance(target, dict) else {}
    for k, v in patch.items():
        target[k] = merge(target.get(k), v)
        if v is None:
            del target[k]
    return target


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):  # the TLS handshake in this connection's thread, not the acceptor's
        self.tls_ok = True
        try:
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        except (OSError, ssl.SSLError):
            self.tls_ok = False
        super().setup()

    def handle(self):
        if self.tls_ok:
            super().handle()

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.dispatch()

    do_POST = do_DELETE = do_PATCH = do_GET

    def record(self, code):
        h = self.headers
        remote = [[k, v] for k, v in h.items() if k.lower().startswith("x-remote-")]
        extra = {}
        for k, v in remote:
            if k.lower().startswith("x-remote-extra-"):
                extra.setdefault(unquote(k[len("x-remote-extra-"):].lower()), []).append(v)
        entry = {"time": time.time(), "method": self.command, "path": self.url.path,
                 "query": self.url.query, "status": code, "user": h.get("X-Remote-User"),
                 "groups": h.get_all("X-Remote-Group") or [], "extra": extra,
                 "remote_headers": remote, "authorization": h.get("Authorization"),
                 "client_cn": self.client_cn, "accept": h.get("Accept")}
        with self.server.log_lock, open(self.server.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send(self, code, body, ctype="application/json", etag=None):
        self.record(code)
        data = body.encode() if isinstance(body, str) else (json.dumps(body) + "\n").encode()
        self.send_response(code)
        if ctype:
            self.send_header("Content-Type", ctype)
        if etag:
            self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def dispatch(self):
        self.url = urlsplit(self.path)
        self.query = parse_qs(self.url.query)
        cert = self.request.getpeercert()
        self.client_cn = next((v for rdn in cert.get("subject", ()) for k, v in rdn
                               if k == "commonName"), None) if cert else None
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        parts = [p for p in self.url.path.split("/") if p]
        accept = [r.replace(" ", "") for r in (self.headers.get("Accept") or "*/*").split(",")]
        if parts == ["healthz"]:
            return self.send(200, "ok", "text/plain; charset=utf-8")
        allowed = self.server.allowed_names
        if self.client_cn is None or (allowed and self.client_cn not in allowed):
            return self.send(*status(401, "Unauthorized", "Unauthorized"))
        if parts[:3] == ["apis", GROUP, VERSION] and len(parts) > 3:
            return self.resource(parts[3:], any("as=Table" in r for r in accept))
        if self.command != "GET":
            return self.send(*METHOD_NOT_ALLOWED)
        if parts == ["apis"] and any("as=APIGroupDiscoveryList" in r and "v=v2;" in r + ";"
                                     for r in accept):
            return self.send(200, {
                "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
                "metadata": {}, "items": [{
                    "metadata": {"name": GROUP, "creationTimestamp": None},
                    "versions": [{"version": VERSION, "freshness": "Current", "resources": [{
                        "resource": PLURAL, "responseKind": GVK, "scope": "Namespaced",
                        "singularResource": "flunder", "verbs": VERBS, "shortNames": ["fl"],
                        "categories": ["wardle"]}]}]}]}, DISCOVERY_V2)
        if parts == ["apis"]:
            return self.send(200, {"kind": "APIGroupList", "apiVersion": "v1",
                                   "groups": [API_GROUP]})
        if parts == ["apis", GROUP]:
            return self.send(200, dict(API_GROUP, kind="APIGroup", apiVersion="v1"))
        if parts == ["apis", GROUP, VERSION]:
            return self.send(200, {"kind": "APIResourceList", "apiVersion": "v1",
                                   "groupVersion": GV, "resources": [RESOURCE]})
        if parts == ["openapi", "v3"]:
            return self.send(200, {"paths": {"apis/" + GV: {
                "serverRelativeURL": "/openapi/v3/apis/%s?hash=%s" % (GV, OPENAPI_HASH)}}})
        if parts == ["openapi", "v3", "apis", GROUP, VERSION]:
            return self.send(200, OPENAPI)
        if parts == ["openapi", "v2"]:
            if self.headers.get("If-None-Match") == OPENAPI_V2_ETAG:
                return self.send(304, "", None)
            return self.send(200, OPENAPI_V2, etag=OPENAPI_V2_ETAG)
        self.send(*NOT_FOUND)

    def resource(self, rest, as_table):
        """flunders, namespaces/<ns>/flunders[/<name>]"""
        if rest == [PLURAL] and self.command == "GET":
            return self.collection(None, as_table)
        if len(rest) not in (3, 4) or rest[0] != "namespaces" or rest[2] != PLURAL:
            return self.send(*NOT_FOUND)
        if len(rest) == 3:
            return self.collection(rest[1], as_table)
        with self.server.store.cond:  # the answer is made under the lock, sent outside it
            answer = self.item(self.server.store, rest[1], rest[3], as_table)
        self.send(*answer)

    def collection(self, ns, as_table):
        store = self.server.store
        if self.command == "POST":
            with store.cond:
                answer = self.create(store, ns)
            return self.send(*answer)
        if self.command != "GET":
            return self.send(*METHOD_NOT_ALLOWED)
        try:
            fields = field_filter(self.query)
        except ValueError as e:
            return self.send(*status(400, "BadRequest", str(e)))
        match = lambda o: fields(o) and ns in (None, o["metadata"]["namespace"])  # noqa: E731
        if self.query.get("watch", [""])[0] in ("true", "1"):
            return self.watch(match, as_table)
        with store.cond:
            items = copy.deepcopy([o for _, o in sorted(store.objects.items()) if match(o)])
            rv = str(store.rv)
        if as_table:
            return self.send(200, dict(table(items), metadata={"resourceVersion": rv}))
        self.send(200, {"kind": KIND + "List", "apiVersion": GV,
                        "metadata": {"resourceVersion": rv}, "items": items})

    def create(self, store, ns):
        try:
            obj = json.loads(self.body)
            meta = obj.setdefault("metadata", {})
            name = meta["name"]
        except (ValueError, AttributeError, KeyError) as e:
            return status(400, "BadRequest", "a Flunder with a name is needed: %r" % e)
        if (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace", ns)) != (GV, KIND, ns):
            return status(400, "BadRequest", "expected a %s of %s in %s" % (KIND, GV, ns))
        if (ns, name) in store.objects:
            return status(409, "AlreadyExists",
                          '%s.%s "%s" already exists' % (PLURAL, GROUP, name), name)
        meta.update(namespace=ns, uid=str(uuid.uuid4()), creationTimestamp=time.strftime(
            TS, time.gmtime()))
        store.objects[(ns, name)] = obj
        store.change("ADDED", obj)
        return 201, copy.deepcopy(obj)

    def item(self, store, ns, name, as_table):
        obj = store.objects.get((ns, name))
        if obj is None:
            return status(404, "NotFound", '%s.%s "%s" not found' % (PLURAL, GROUP, name), name)
        if self.command == "GET":
            return 200, table([obj]) if as_table else copy.deepcopy(obj)
        if self.command == "DELETE":
            del store.objects[(ns, name)]
            store.change("DELETED", obj)
            return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                         "status": "Success", "details": {"name": name, "group": GROUP,
                                                          "kind": PLURAL,
                                                          "uid": obj["metadata"]["uid"]}}
        if self.command == "PATCH":
            if not self.headers.get("Content-Type", "").startswith("application/merge-patch"):
                return status(415, "UnsupportedMediaType", "the body of the request was in an "
                              "unknown format - accepted media types include: "
                              "application/merge-patch+json")
            merged = merge(copy.deepcopy(obj), json.loads(self.body))
            kept = ("name", "namespace", "uid", "creationTimestamp")
            merged["metadata"] = dict(merged.get("metadata") or {},
                                      **{k: obj["metadata"][k] for k in kept})
            store.objects[(ns, name)] = merged
            store.change("MODIFIED", merged)
            return 200, copy.deepcopy(merged)
        return METHOD_NOT_ALLOWED

    def watch(self, match, as_table):
        """One chunk per event, until timeoutSeconds or until the client goes away."""
        store = self.server.store
        deadline = time.monotonic() + float(self.query.get("timeoutSeconds", ["1800"])[0])
        since = self.query.get("resourceVersion", ["0"])[0]
        with store.cond:
            if since in ("", "0"):
                pending = [(0, "ADDED", copy.deepcopy(o)) for _, o in sorted(store.objects.items())]
            else:
                pending = [e for e in store.events if e[0] > int(since)]
            rv = store.rv
        self.record(200)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            while time.monotonic() < deadline:
                for _, kind, obj in pending:
                    if match(obj):
                        data = (json.dumps({"type": kind, "object": table([obj]) if as_table
                                            else obj}) + "\n").encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                if not pending and self.client_gone():
                    return
                with store.cond:
                    store.cond.wait_for(lambda: store.rv > rv, timeout=1)
                    pending = [e for e in store.events if e[0] > rv]
                    rv = store.rv
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass

    def client_gone(self):
        try:
            if not select.select([self.request], [], [], 0)[0]:
                return False
            self.request.settimeout(0.2)
            return self.request.recv(1) == b""
        except socket.timeout:
            return False
        except OSError:
            return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag, what in (("--listen", "address:port"), ("--cert", "serving certificate"),
                       ("--key", "its key"), ("--client-ca", "the front-proxy CA"),
                       ("--request-log", "file to append a JSON line per request to")):
        ap.add_argument(flag, required=True, help=what)
    ap.add_argument("--allowed-names", default="front-proxy-client",
                    help="comma-separated client CNs; empty: any the CA signed")
    args = ap.parse_args()
    host, _, port = args.listen.rpartition(":")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    ctx.load_verify_locations(args.client_ca)
    ctx.verify_mode = ssl.CERT_OPTIONAL
    server = ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    server.socket = ctx.wrap_socket(server.socket, server_side=True,
                                    do_handshake_on_connect=False)
    server.store, server.log_path, server.log_lock = Store(), args.request_log, threading.Lock()
    server.allowed_names = [n for n in args.allowed_names.split(",") if n]
    print("listening on https://%s" % args.listen, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
