# SPDX-License-Identifier: Apache-2.0
"""TLS material (generated with the openssl CLI) and kubeconfig files."""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import random
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class CertPaths:
    ca: Path
    ca_key: Path
    cert: Path
    key: Path


def _openssl(*args: str, cwd: Path) -> None:
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args[:2])} failed: {result.stderr.strip()}")


def _subject_alt_names(extra_ips=(), dns_names=()) -> str:
    """Returns the subjectAltName value: 127.0.0.1, ::1, localhost, extra_ips and dns_names."""
    ips = list(dict.fromkeys(["127.0.0.1", "::1"] +
                             [str(ipaddress.ip_address(a)) for a in extra_ips]))
    names = list(dict.fromkeys(["localhost", *dns_names]))
    return ",".join([f"IP:{a}" for a in ips] + [f"DNS:{n}" for n in names])


def generate_certs(cert_dir, extra_ips=(), dns_names=()) -> CertPaths:
    """Creates (or reuses, when all four files exist) a CA and a server certificate for
    127.0.0.1, ::1, localhost, extra_ips and dns_names (e.g. a webhook Service's
    `name.namespace.svc`) in cert_dir, with the openssl CLI (EC P-256, 30 days)."""
    directory = Path(cert_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths = CertPaths(directory / "ca.crt", directory / "ca.key", directory / "server.crt",
                      directory / "server.key")
    if all(p.exists() for p in (paths.ca, paths.ca_key, paths.cert, paths.key)):
        return paths
    key_options = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        work = Path(scratch)
        _openssl("req", "-x509", *key_options, "-keyout", "ca.key", "-out", "ca.crt", "-days",
                 "30", "-subj", "/CN=ingot-kubeapi-test-ca",
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=work)
        _openssl("req", "-new", *key_options, "-keyout", "server.key", "-out", "server.csr",
                 "-subj", "/CN=ingot-kubeapi", cwd=work)
        (work / "server.ext").write_text(
            "basicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=serverAuth\n"
            "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
            f"subjectAltName={_subject_alt_names(extra_ips, dns_names)}\n")
        _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-set_serial", str(random.getrandbits(63)), "-days", "30", "-out", "server.crt",
                 "-extfile", "server.ext", cwd=work)
        for name in ("ca.key", "ca.crt", "server.key", "server.crt"):
            os.chmod(work / name, 0o600 if name.endswith(".key") else 0o644)
            os.replace(work / name, directory / name)
    return paths


def kubeconfig_text(url: str, ca_pem: Optional[bytes], token: Optional[str]) -> str:
    """Returns a kubeconfig (YAML) for one cluster, user and context named ingot-test."""
    cluster = [f"    server: {json.dumps(url)}"]
    if ca_pem:
        cluster.append(f"    certificate-authority-data: {base64.b64encode(ca_pem).decode()}")
    user_block = f"  user:\n    token: {json.dumps(token)}" if token else "  user: {}"
    return "\n".join([
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: ingot-test",
        "  cluster:",
        *cluster,
        "users:",
        "- name: ingot-test",
        user_block,
        "contexts:",
        "- name: ingot-test",
        "  context:",
        "    cluster: ingot-test",
        "    user: ingot-test",
        "    namespace: default",
        "current-context: ingot-test",
        "",
    ])


def write_file_atomically(path, text: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    scratch.write_text(text)
    os.replace(scratch, target)


# --------------------------------------------------------------------------------------------
