# SPDX-License-Identifier: Apache-2.0
"""The frr.conf of a top-of-rack router: the network side the nodes peer with. It is written
here by hand (it is not Ingot's output) following spec/lab-recipes.md §3: one peer group for the
nodes with BFD, fast timers (`timers 3 9`, `timers connect 2`), `no bgp ebgp-requires-policy`,
neighbor changes logged (with the NOTIFICATION that caused each session reset),
the route-map delay timer at 0 and forwarding on. It accepts whatever the nodes announce and
sends them nothing back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .proc import LabError


@dataclass
class TorConfig:
    asn: int
    router_id: str
    node_asn: int                                  # the nodes' ASN (= asn for iBGP)
    neighbors: list = field(default_factory=list)  # node addresses
    bfd: bool = True
    keepalive: int = 3
    hold: int = 9
    connect: int = 2

    def render(self) -> str:
        """Returns the ToR's frr.conf. Raises LabError on an ASN outside 1..4294967295 or an
        empty neighbor list."""
        for value, what in ((self.asn, "asn"), (self.node_asn, "node_asn")):
            if not 1 <= value <= 4294967295:
                raise LabError(f"TorConfig {self.router_id}: {what} {value} out of range")
        if not self.neighbors:
            raise LabError(f"TorConfig {self.router_id}: no neighbors")
        lines = ["frr defaults traditional", "log stdout informational",
                 "bgp route-map delay-timer 0", "ip forwarding", "ipv6 forwarding", "!",
                 f"router bgp {self.asn}", f" bgp router-id {self.router_id}",
                 " bgp log-neighbor-changes",
                 " no bgp ebgp-requires-policy", " no bgp default ipv4-unicast",
                 " neighbor NODES peer-group", f" neighbor NODES remote-as {self.node_asn}",
                 f" neighbor NODES timers {self.keepalive} {self.hold}",
                 f" neighbor NODES timers connect {self.connect}"]
        if self.bfd:
            lines.append(" neighbor NODES bfd")
        lines += [f" neighbor {n} peer-group NODES" for n in self.neighbors]
        lines += [" address-family ipv4 unicast", "  neighbor NODES activate",
                  "  neighbor NODES route-map NOTHING out", " exit-address-family", "exit", "!",
                  "route-map NOTHING deny 10", "exit", ""]
        return "\n".join(lines)
