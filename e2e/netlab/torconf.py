# SPDX-License-Identifier: Apache-2.0
"""The frr.conf of a top-of-rack router: the network side the nodes peer with. It is written
here by hand (it is not Ingot's output): one peer group for the
nodes with BFD, fast timers (`timers 3 9`, `timers connect 2`), `no bgp ebgp-requires-policy`,
neighbor changes logged (with the NOTIFICATION that caused each session reset),
the route-map delay timer at 0 and forwarding on. It accepts whatever the nodes announce and
sends them nothing back. Inbound it applies the RFC 8326 policy an operator configures for
graceful shutdown (docs/drain.md): a path carrying the GRACEFUL_SHUTDOWN community 65535:0 gets
LOCAL_PREF 0, so the other nodes' paths win while a draining node still announces.

Weighted ECMP (docs/weighted-ecmp.md) needs multipath (bgp_multipath below; the nodes share one
ASN, so no `bgp bestpath as-path multipath-relax`) and nothing else: FRR turns the link-bandwidth
of the installed multipaths into next-hop weights by default when every one of them carries it.
There is deliberately no `bgp bestpath bandwidth` line: `ignore` would turn the weights off, and
`skip-missing` would starve a node whose agent sends no value (a rollout of --weighted-ecmp in
progress), where the default falls back to equal shares.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .proc import LabError


# RFC 8326 on the receiving side: match the well-known community, lower the preference.
RFC8326_POLICY = ("bgp community-list standard GSHUT permit 65535:0",
                  "route-map RFC8326 permit 10", " match community GSHUT",
                  " set local-preference 0", "exit", "route-map RFC8326 permit 20", "exit", "!")


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
    # BFD timers of the ToR side (ms; 0 keeps FRR's 300 ms). The node side's profile comes from
    # the BFDProfile; a session runs at the slower of the two, so a fast node profile only
    # shows up in the detect time when the ToR is as fast.
    bfd_interval_ms: int = 0
    bfd_multiplier: int = 3
    bgp_multipath: int = 0  # when set: maximum-paths (and ibgp) N, the ECMP the ToR installs

    def render(self) -> str:
        """Returns the ToR's frr.conf. Raises LabError on an ASN outside 1..4294967295 or an
        empty neighbor list."""
        for value, what in ((self.asn, "asn"), (self.node_asn, "node_asn")):
            if not 1 <= value <= 4294967295:
                raise LabError(f"TorConfig {self.router_id}: {what} {value} out of range")
        if not self.neighbors:
            raise LabError(f"TorConfig {self.router_id}: no neighbors")
        lines = ["frr defaults traditional", "log stdout informational",
                 "bgp route-map delay-timer 0", "ip forwarding", "ipv6 forwarding", "!"]
        if self.bfd and self.bfd_interval_ms:
            lines += ["bfd", " profile tor", f"  receive-interval {self.bfd_interval_ms}",
                      f"  transmit-interval {self.bfd_interval_ms}",
                      f"  detect-multiplier {self.bfd_multiplier}", " exit", "exit", "!"]
        lines += [f"router bgp {self.asn}", f" bgp router-id {self.router_id}",
                 " bgp log-neighbor-changes",
                 " no bgp ebgp-requires-policy", " no bgp default ipv4-unicast",
                 " neighbor NODES peer-group", f" neighbor NODES remote-as {self.node_asn}",
                 f" neighbor NODES timers {self.keepalive} {self.hold}",
                 f" neighbor NODES timers connect {self.connect}"]
        if self.bfd:
            lines.append(" neighbor NODES bfd")
            if self.bfd_interval_ms:
                lines.append(" neighbor NODES bfd profile tor")
        lines += [f" neighbor {n} peer-group NODES" for n in self.neighbors]
        lines += [" address-family ipv4 unicast", "  neighbor NODES activate",
                  "  neighbor NODES route-map RFC8326 in",
                  "  neighbor NODES route-map NOTHING out"]
        if self.bgp_multipath:
            lines += [f"  maximum-paths {self.bgp_multipath}",
                      f"  maximum-paths ibgp {self.bgp_multipath}"]
        lines += [" exit-address-family", "exit", "!", *RFC8326_POLICY,
                  "route-map NOTHING deny 10", "exit", ""]
        return "\n".join(lines)
