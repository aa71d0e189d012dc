# SPDX-License-Identifier: Apache-2.0
"""A BGP lab: ToR routers (hand-written FRR config, torconf.py) and Kubernetes node namespaces
running FRR that is configured only through frr-reload.py from Ingot's rendered frr.conf.

    BgpLab(lab, tors=[TorSpec("tor", 64512, 1)], nodes=["node1", "node2"], node_asn=64513).up()

The node FRRs start with an empty configuration; apply_node() hands one rendered frr.conf to
frr-reload.py (reload.FrrReload.apply: test → reload until the delta is empty). Issue 6's lab
replaces apply_node() by ingot-agent, which runs the same frr-reload.py sequence itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, Sequence

from . import bgp
from .frr import FrrRouter
from .proc import LabError, wait_until
from .reload import ApplyResult, FrrReload
from .topology import Host, Lab
from .torconf import TorConfig

NODE_OCTET_BASE = 10  # node1 is .11, node2 .12, …


@dataclass(frozen=True)
class TorSpec:
    role: str
    asn: int
    octet: int
    bfd: bool = True
    hold: int = 9  # seconds; keepalive = hold / 3


class BgpLab:
    """ToRs and nodes on one lab bridge. Every router is closed with the lab."""

    def __init__(self, lab: Lab, tors: Sequence[TorSpec], nodes: Sequence[str], node_asn: int):
        if not tors or not nodes:
            raise LabError("a BGP lab needs at least one ToR and one node")
        self.lab = lab
        self.tor_specs = list(tors)
        self.node_names = list(nodes)
        self.node_asn = node_asn
        self.hosts: dict = {}
        self.routers: dict = {}
        self.reloaders: dict = {}

    def up(self) -> "BgpLab":
        """Creates every host, starts the ToRs with their configuration and the nodes' FRR
        with an empty one. Does not wait for sessions (nodes have no configuration yet)."""
        for spec in self.tor_specs:
            self.hosts[spec.role] = self.lab.add_host(spec.role, spec.octet)
        for i, name in enumerate(self.node_names, start=1):
            self.hosts[name] = self.lab.add_host(name, NODE_OCTET_BASE + i)
        node_addrs = [self.hosts[n].ipv4 for n in self.node_names]
        for spec in self.tor_specs:
            host = self.hosts[spec.role]
            conf = TorConfig(spec.asn, host.ipv4, self.node_asn, node_addrs, bfd=spec.bfd,
                             keepalive=max(1, spec.hold // 3), hold=spec.hold)
            self.routers[spec.role] = FrrRouter(self.lab, host).start(conf.render())
        for name in self.node_names:
            router = FrrRouter(self.lab, self.hosts[name]).start()
            self.routers[name] = router
            self.reloaders[name] = FrrReload(router)
        return self

    # Accessors -------------------------------------------------------------------------------

    def host(self, role: str) -> Host:
        return self.hosts[role]

    def router(self, role: str) -> FrrRouter:
        return self.routers[role]

    @property
    def tor_roles(self) -> list:
        return [s.role for s in self.tor_specs]

    def node_addresses(self) -> list:
        return [self.hosts[n].ipv4 for n in self.node_names]

    # Applying and waiting --------------------------------------------------------------------

    def apply_node(self, node: str, frr_conf: str, max_passes: int = 3) -> ApplyResult:
        """Applies a rendered frr.conf to the node's FRR with frr-reload.py (bounded loop)."""
        return self.reloaders[node].apply(frr_conf, max_passes=max_passes)

    def wait_established(self, tor: str, timeout: float = 30.0,
                         peers: Optional[Sequence[str]] = None) -> float:
        """Waits until the ToR has every node (or peers) Established; returns the seconds."""
        want = set(peers if peers is not None else self.node_addresses())
        router = self.routers[tor]
        start = time.monotonic()
        wait_until(f"{tor}: BGP Established with {sorted(want)}",
                   lambda: want <= bgp.query_established(router), timeout, interval=0.1)
        return time.monotonic() - start

    def wait_bfd_up(self, tor: str, timeout: float = 30.0) -> float:
        want = set(self.node_addresses())
        router = self.routers[tor]
        start = time.monotonic()

        def up() -> bool:
            peers = bgp.query_bfd(router)
            return all(peers.get(p, {}).get("status") == "up" for p in want)

        wait_until(f"{tor}: BFD up with {sorted(want)}", up, timeout, interval=0.1)
        return time.monotonic() - start

    def wait_paths(self, tor: str, prefix: str, nexthops: Sequence[str],
                   timeout: float = 30.0) -> float:
        """Waits until the ToR's FIB has prefix with exactly these next hops."""
        router = self.routers[tor]
        want = sorted(nexthops)
        start = time.monotonic()
        wait_until(f"{tor}: {prefix} via {want}",
                   lambda: bgp.query_fib_nexthops(router, prefix) == want, timeout,
                   interval=0.05)
        return time.monotonic() - start
