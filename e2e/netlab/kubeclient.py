# SPDX-License-Identifier: Apache-2.0
"""A small Kubernetes REST client for the lab: JSON over HTTPS with a bearer token, for the test
API server (e2e/kubeapi/server.py) that runs inside the lab's `<run>-api` namespace.

The API server's address exists only inside the lab's namespaces, so a client in the root
namespace makes its connections from threads that entered one of them with setns(2) (which
changes the network namespace of the calling thread only). `KubeClient(..., netns=NAME)` runs
every request on such a thread; without netns it connects from the caller's thread (the frr-k8s
ingot-frr, which itself runs under `ip netns exec`).

Scenario tests change objects with kubectl (Cluster.kubectl); this client is for reads, for the
frr-k8s-mode tests and for bulk changes in the benchmarks.
"""

from __future__ import annotations

import ctypes
import http.client
import json
import os
import ssl
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from .proc import LabError

CLONE_NEWNET = 0x40000000

# Resource paths of the kinds the lab touches: (group/version prefix, plural, namespaced).
RESOURCES = {
    "Node": ("/api/v1", "nodes", False),
    "Namespace": ("/api/v1", "namespaces", False),
    "Service": ("/api/v1", "services", True),
    "Secret": ("/api/v1", "secrets", True),
    "ConfigMap": ("/api/v1", "configmaps", True),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "EndpointSlice": ("/apis/discovery.k8s.io/v1", "endpointslices", True),
    "IPAddressPool": ("/apis/metallb.io/v1beta1", "ipaddresspools", True),
    "BGPAdvertisement": ("/apis/metallb.io/v1beta1", "bgpadvertisements", True),
    "L2Advertisement": ("/apis/metallb.io/v1beta1", "l2advertisements", True),
    "ServiceL2Status": ("/apis/metallb.io/v1beta1", "servicel2statuses", True),
    "ConfigurationState": ("/apis/metallb.io/v1beta1", "configurationstates", True),
    "ServiceBGPStatus": ("/apis/metallb.io/v1beta1", "servicebgpstatuses", True),
    "BFDProfile": ("/apis/metallb.io/v1beta1", "bfdprofiles", True),
    "Community": ("/apis/metallb.io/v1beta1", "communities", True),
    "BGPPeer": ("/apis/metallb.io/v1beta2", "bgppeers", True),
    "FRRConfiguration": ("/apis/frrk8s.metallb.io/v1beta1", "frrconfigurations", True),
    "FRRNodeState": ("/apis/frrk8s.metallb.io/v1beta1", "frrnodestates", False),
    "ValidatingWebhookConfiguration": ("/apis/admissionregistration.k8s.io/v1",
                                       "validatingwebhookconfigurations", False),
    "CustomResourceDefinition": ("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions",
                                 False),
}


class ApiError(LabError):
    """An API request failed; status is the HTTP status (0 when the connection failed)."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


def enter_netns(name: str) -> None:
    """Moves the calling thread into network namespace `name` (/var/run/netns/<name>)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise LabError(f"setns into {name}: {os.strerror(err)}")
    finally:
        os.close(fd)


def resource_path(kind: str, namespace: str = "", name: str = "") -> str:
    """Returns the REST path of a kind's collection (or of one object, given name)."""
    if kind not in RESOURCES:
        raise LabError(f"kind {kind} is not in netlab.kubeclient.RESOURCES")
    prefix, plural, namespaced = RESOURCES[kind]
    path = prefix + (f"/namespaces/{namespace}" if namespaced and namespace else "")
    path += f"/{plural}"
    return path + (f"/{name}" if name else "")


class KubeClient:
    """Requests against one API server. Thread-safe: each worker thread keeps its own
    keep-alive connection."""

    def __init__(self, url: str, token: str, ca_file: str, netns: Optional[str] = None,
                 workers: int = 4, timeout: float = 30.0):
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port or 443
        self.token = token
        self.timeout = timeout
        self.context = ssl.create_default_context(cafile=ca_file)
        self.netns = netns
        self._local = threading.local()
        self._pool = (ThreadPoolExecutor(workers, thread_name_prefix=f"kube-{netns}",
                                         initializer=enter_netns, initargs=(netns,))
                      if netns else None)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def _connection(self) -> http.client.HTTPSConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context,
                                               timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _do(self, method: str, path: str, body: Any, content_type: str) -> Any:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in (1, 2):  # a keep-alive connection the server closed is retried once
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                break
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise ApiError(0, f"{method} {path}: {e}") from None
        text = payload.decode(errors="replace")
        if response.status >= 400:
            try:
                message = json.loads(text).get("message", text)
            except ValueError:
                message = text
            raise ApiError(response.status, f"{method} {path}: {response.status} {message}")
        return json.loads(text) if text.strip() else {}

    def request(self, method: str, path: str, body: Any = None,
                content_type: str = "application/json") -> Any:
        """Runs one request and returns the parsed answer. Raises ApiError on a status >= 400
        or a failed connection."""
        if self._pool is None:
            return self._do(method, path, body, content_type)
        return self._pool.submit(self._do, method, path, body, content_type).result()

    def submit(self, method: str, path: str, body: Any = None,
               content_type: str = "application/json"):
        """Like request(), but returns a Future (needs netns; requests run on the pool)."""
        if self._pool is None:
            raise LabError("KubeClient.submit needs a client created with netns")
        return self._pool.submit(self._do, method, path, body, content_type)

    # Conveniences ---------------------------------------------------------------------------

    def get(self, kind: str, name: str, namespace: str = "") -> Optional[dict]:
        """Returns the object, or None when it does not exist."""
        try:
            return self.request("GET", resource_path(kind, namespace, name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def list(self, kind: str, namespace: str = "") -> list:
        return self.request("GET", resource_path(kind, namespace)).get("items", [])

    def create(self, obj: dict) -> dict:
        meta = obj.get("metadata", {})
        return self.request("POST", resource_path(obj["kind"], meta.get("namespace", "")), obj)

    def delete(self, kind: str, name: str, namespace: str = "") -> bool:
        """Deletes the object; returns False when it did not exist."""
        try:
            self.request("DELETE", resource_path(kind, namespace, name))
            return True
        except ApiError as e:
            if e.status == 404:
                return False
            raise

    def merge_patch(self, kind: str, name: str, namespace: str, patch: dict,
                    subresource: str = "") -> dict:
        path = resource_path(kind, namespace, name) + (f"/{subresource}" if subresource else "")
        return self.request("PATCH", path, patch, "application/merge-patch+json")
