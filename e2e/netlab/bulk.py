# SPDX-License-Identifier: Apache-2.0
"""Many LoadBalancer Services at once on the cluster lab: Service i gets address pool[i]
(metallb.io/loadBalancerIPs) and an EndpointSlice with endpoints on the given nodes. Writes go
through the test API server's REST API in parallel (netlab.kubeclient from threads inside the
lab's api namespace); the ToR is read through its kernel table (netlab.watch), far cheaper than
vtysh per sample. Used by bench/e2e_bgp.py and e2e/scenarios/test_bulk_frr.py."""

from __future__ import annotations

import datetime
import ipaddress
import json
import time
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from . import manifests as m
from .cluster import Cluster
from .proc import LabError
from .watch import read_kernel_routes

# 16,384 addresses, only ever routed inside the lab's own namespaces.
BULK_POOL = "10.200.0.0/18"


class BulkServices:
    """Creates and deletes numbered Services (and their EndpointSlices) in namespace."""

    def __init__(self, cluster: Cluster, namespace: str, pool: str = BULK_POOL):
        self.c = cluster
        self.namespace = namespace
        self.pool = ipaddress.ip_network(pool)
        self.tor_ns = cluster.ns("tor")

    def vip(self, i: int) -> str:
        return str(self.pool.network_address + i)

    def prefix(self, i: int) -> str:
        return f"{self.vip(i)}/32"

    def service(self, i: int, policy: str = "Cluster") -> dict:
        svc = m.service(f"s{i}", self.namespace, self.vip(i),
                        cluster_ip=f"10.97.{i // 250 % 250}.{1 + i % 250}", policy=policy,
                        annotations={"metallb.io/loadBalancerIPs": self.vip(i)})
        del svc["status"]  # the controller assigns it
        # Thousands of Services: no node ports (the 30000-32767 range holds 2,768).
        svc["spec"]["allocateLoadBalancerNodePorts"] = False
        return svc

    def endpoint_slice(self, i: int, nodes: Sequence[str]) -> dict:
        return m.endpoint_slice(f"s{i}", self.namespace,
                                [(f"10.244.{k}.{1 + i % 250}", n)
                                 for k, n in enumerate(nodes, start=1)])

    def create(self, indices: Iterable[int], nodes: Sequence[str] = ("node1",),
               policy: str = "Cluster") -> None:
        """Creates the Services and their slices, all requests in flight at once."""
        client = self.c.client
        futures = []
        for i in indices:
            futures.append(client.submit("POST", f"/api/v1/namespaces/{self.namespace}/services",
                                         self.service(i, policy)))
            futures.append(client.submit(
                "POST", f"/apis/discovery.k8s.io/v1/namespaces/{self.namespace}/endpointslices",
                self.endpoint_slice(i, list(nodes))))
        for f in futures:
            f.result()

    def delete(self, indices: Iterable[int]) -> None:
        """Deletes the Services and their slices, all requests in flight at once."""
        client = self.c.client
        futures = []
        for i in indices:
            futures.append(client.submit(
                "DELETE", f"/api/v1/namespaces/{self.namespace}/services/s{i}"))
            futures.append(client.submit(
                "DELETE", f"/apis/discovery.k8s.io/v1/namespaces/{self.namespace}/"
                f"endpointslices/s{i}-lab"))
        for f in futures:
            f.result()

    def routes(self) -> dict:
        """The ToR's kernel routes: prefix → next hops."""
        return read_kernel_routes(self.tor_ns)

    def wait(self, check: Callable[[dict], bool], timeout: float, what: str) -> float:
        """Polls the ToR's routes until check(routes) holds; returns the seconds it took.
        Raises LabError naming what after timeout."""
        start = time.monotonic()
        while True:
            if check(self.routes()):
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise LabError(f"ToR: {what} not within {timeout:.0f} s")
            time.sleep(0.01)


def log_time(ts: str) -> float:
    """Returns the Unix time of a log line's "ts" ("2026-01-02T03:04:05.678Z")."""
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def agent_events(log: Path, event: str, offset: int = 0) -> list:
    """Returns the JSON lines of an agent log with "event" equal to event, from byte offset."""
    out = []
    with open(log, "rb") as f:
        f.seek(offset)
        for raw in f:
            if f'"event":"{event}"'.encode() not in raw:
                continue
            try:
                out.append(json.loads(raw))
            except ValueError:
                continue
    return out


def last_seen(logs: Sequence[Path], event: str, services: set,
              offsets: Optional[dict] = None) -> float:
    """Returns the Unix time at which the last agent logged event ("serviceAnnounced",
    "serviceWithdrawn") for the last of services ("ns/name"): when the agents had seen the
    whole change. 0 when none was logged."""
    latest = 0.0
    for log in logs:
        for line in agent_events(log, event, (offsets or {}).get(log, 0)):
            if line.get("service") in services:
                latest = max(latest, log_time(line["ts"]))
    return latest
