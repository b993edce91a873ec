"""Test certificates made with the openssl command: a CA, and serving or
client certificates it signs (ECDSA P-256, valid one day).

    ca = CA(directory, "wardle-ca")
    crt, key = ca.issue("serving", "api.wardle.svc", dns=["api.wardle.svc"])
    crt, key = ca.issue("client", "front-proxy-client", client=True)
    ca.bundle_b64   # the CA certificate, base64: an APIService's caBundle
"""

import base64
import os
import subprocess

OPENSSL = "/usr/bin/openssl"


def _openssl(*args):
    r = subprocess.run([OPENSSL] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError("openssl %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


class CA:
    """A self-signed CA in directory (files <name>.crt and <name>.key)."""

    def __init__(self, directory, cn, name="ca"):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.crt = os.path.join(directory, name + ".crt")
        self.key = os.path.join(directory, name + ".key")
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                 "-subj", "/CN=" + cn, "-keyout", self.key, "-out", self.crt,
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    @property
    def pem(self):
        with open(self.crt) as f:
            return f.read()

    @property
    def bundle_b64(self):
        return base64.b64encode(self.pem.encode()).decode()

    def issue(self, name, cn, dns=(), ips=(), client=False, orgs=()):
        """Sign a certificate; returns (crt, key) paths in the CA's directory.

        Serving certificates (the default) get the DNS names and IP addresses
        as subjectAltNames; client ones clientAuth (CN the user, O the groups).
        """
        crt = os.path.join(self.dir, name + ".crt")
        key = os.path.join(self.dir, name + ".key")
        csr = os.path.join(self.dir, name + ".csr")
        ext = os.path.join(self.dir, name + ".ext")
        subj = "/CN=" + cn + "".join("/O=" + o for o in orgs)
        _openssl("req", "-new", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:prime256v1", "-nodes", "-subj", subj,
                 "-keyout", key, "-out", csr)
        lines = ["basicConstraints=critical,CA:FALSE",
                 "keyUsage=critical,digitalSignature,keyEncipherment",
                 "extendedKeyUsage=" + ("clientAuth" if client else "serverAuth")]
        sans = ["DNS:" + d for d in dns] + ["IP:" + i for i in ips]
        if sans:
            lines.append("subjectAltName=" + ",".join(sans))
        with open(ext, "w") as f:
            f.write("\n".join(lines) + "\n")
        _openssl("x509", "-req", "-in", csr, "-CA", self.crt, "-CAkey", self.key,
                 "-CAcreateserial", "-days", "1", "-extfile", ext, "-out", crt)
        return crt, key
