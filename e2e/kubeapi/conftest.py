# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the test API server's own tests: servers on free ports, an HTTP client that
verifies TLS against the generated CA, watch streams and a kubectl runner."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

import kubeapi  # the package next to this file (pytest puts this folder on sys.path)

SERVER_SCRIPT = Path(__file__).resolve().with_name("server.py")
TOKEN = "test-token"
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


@dataclass
class Response:
    status: int
    body: Any
    headers: Any

    @property
    def reason(self) -> Optional[str]:
        return self.body.get("reason") if isinstance(self.body, dict) else None

    @property
    def message(self) -> Optional[str]:
        return self.body.get("message") if isinstance(self.body, dict) else None


class WatchStream:
    """An open watch response read line by line; each line is one event."""

    def __init__(self, connection: http.client.HTTPConnection, response):
        self.connection = connection
        self.response = response
        self.status = response.status
        self.headers = response.headers

    def next(self, timeout: float = 5.0) -> Optional[dict]:
        """Returns the next event, or None when the server ended the stream; raises
        TimeoutError if nothing arrives within timeout."""
        self.connection.sock.settimeout(timeout)
        line = self.response.readline()
        if not line:
            return None
        return json.loads(line)

    def take(self, count: int, timeout: float = 5.0) -> list:
        return [self.next(timeout) for _ in range(count)]

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> "WatchStream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ApiClient:
    """A minimal Kubernetes REST client over http.client, one connection per request."""

    def __init__(self, server: kubeapi.KubeApiServer, token: Optional[str] = TOKEN,
                 context: Optional[ssl.SSLContext] = None):
        self.server = server
        self.token = token
        if server.tls and context is None:
            context = ssl.create_default_context(cafile=str(server.ca_file))
        self.context = context

    def connect(self, timeout: float = 10.0) -> http.client.HTTPConnection:
        host = self.server.address
        if self.server.tls:
            return http.client.HTTPSConnection(host, self.server.port, context=self.context,
                                               timeout=timeout)
        return http.client.HTTPConnection(host, self.server.port, timeout=timeout)

    def _headers(self, content_type: str, accept: str) -> dict:
        headers = {"Accept": accept, "Content-Type": content_type}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(self, method: str, path: str, body: Any = None,
                content_type: str = "application/json", accept: str = "application/json",
                timeout: float = 10.0) -> Response:
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        connection = self.connect(timeout)
        try:
            connection.request(method, path, body=data, headers=self._headers(content_type, accept))
            response = connection.getresponse()
            raw = response.read()
            parsed: Any = raw.decode()
            if response.headers.get("Content-Type", "").startswith("application/json"):
                parsed = json.loads(raw)
            return Response(response.status, parsed, response.headers)
        finally:
            connection.close()

    def get(self, path: str, **kw) -> Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any, **kw) -> Response:
        return self.request("POST", path, body, **kw)

    def put(self, path: str, body: Any, **kw) -> Response:
        return self.request("PUT", path, body, **kw)

    def patch(self, path: str, body: Any, kind: str = "merge", **kw) -> Response:
        content_type = {"merge": "application/merge-patch+json",
                        "json": "application/json-patch+json",
                        "strategic": "application/strategic-merge-patch+json",
                        "apply": "application/apply-patch+yaml"}[kind]
        return self.request("PATCH", path, body, content_type=content_type, **kw)

    def delete(self, path: str, body: Any = None, **kw) -> Response:
        return self.request("DELETE", path, body, **kw)

    def watch(self, path: str, accept: str = "application/json") -> WatchStream:
        separator = "&" if "?" in path else "?"
        connection = self.connect()
        connection.request("GET", f"{path}{separator}watch=1",
                           headers=self._headers("application/json", accept))
        return WatchStream(connection, connection.getresponse())


def configmap(name: str, namespace: str = "default", labels=None, data=None) -> dict:
    meta = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {}}


def pool(name: str, addresses=("192.168.10.0/24",), **meta) -> dict:
    return {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
            "metadata": dict(meta, name=name, namespace="metallb-system"),
            "spec": {"addresses": list(addresses)}}


def lb_service(name: str, namespace: str = "default", **spec) -> dict:
    base = {"type": "LoadBalancer", "ports": [{"name": "http", "port": 80}]}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace}, "spec": dict(base, **spec)}


CM = "/api/v1/namespaces/default/configmaps"
SVC = "/api/v1/namespaces/default/services"
POOLS = "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools"


def _handler_threads() -> list:
    return [t for t in threading.enumerate() if "process_request" in t.name and t.is_alive()]


@pytest.fixture(scope="session")
def cert_dir(tmp_path_factory) -> Path:
    """One CA and server certificate for every server of the session (generation is the
    slow part of start-up)."""
    directory = tmp_path_factory.mktemp("certs")
    kubeapi.generate_certs(directory)
    return directory


@pytest.fixture
def start_server(cert_dir):
    """Returns a function starting a server on a free port; all are stopped at teardown and
    must leave no handler thread behind."""
    started = []

    def start(**options) -> kubeapi.KubeApiServer:
        options.setdefault("tokens", (TOKEN,))
        options.setdefault("cert_dir", cert_dir)
        options.setdefault("bookmark_interval", 0.2)
        server = kubeapi.KubeApiServer(**options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    deadline = time.monotonic() + 5
    while _handler_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _handler_threads(), "handler threads survived stop()"


@pytest.fixture
def server(start_server) -> kubeapi.KubeApiServer:
    return start_server()


@pytest.fixture
def client(server) -> ApiClient:
    return ApiClient(server)


@pytest.fixture
def kubectl(server, tmp_path):
    """Returns a function running kubectl against `server` (token overridable)."""

    def run(*args: str, token: Optional[str] = TOKEN, stdin: Optional[str] = None,
            check: bool = True) -> subprocess.CompletedProcess:
        kubeconfig = tmp_path / f"kubeconfig-{token}"
        server.write_kubeconfig(kubeconfig, token=token)
        env = dict(os.environ, HOME=str(tmp_path), KUBECACHEDIR=str(tmp_path / "cache"))
        result = subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args], input=stdin,
                                capture_output=True, text=True, env=env, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {result.stderr}")
        return result

    return run
