# SPDX-License-Identifier: Apache-2.0
"""What a router's FRR says about BGP, BFD and routes, as plain Python values: the pure functions
take the parsed JSON of one `show … json` command (the fields read are FRR 8.4's), the
query functions run that command on a lab router first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .frr import FrrRouter


# BGP sessions ------------------------------------------------------------------------------


def established_peers(summary: dict, afi: str = "ipv4Unicast") -> set:
    """Returns the peers in state Established in `show bgp summary json`."""
    peers = summary.get(afi, {}).get("peers", {})
    return {p for p, v in peers.items() if v.get("state") == "Established"}


@dataclass(frozen=True)
class Session:
    """The reset-relevant counters of one neighbor (`show bgp neighbors json`)."""
    peer: str
    state: str
    established: int      # connectionsEstablished: +1 for every session that came up
    dropped: int          # connectionsDropped: +1 for every session that went down
    up_msec: int          # bgpTimerUpMsec: time in Established
    up_epoch: int         # bgpTimerUpEstablishedEpoch: when it last became Established
    last_reset: str


def sessions(neighbors: dict) -> dict:
    """Returns peer → Session from `show bgp neighbors json`."""
    out = {}
    for peer, v in neighbors.items():
        if not isinstance(v, dict) or "bgpState" not in v:
            continue
        out[peer] = Session(peer, v.get("bgpState", ""), int(v.get("connectionsEstablished", 0)),
                            int(v.get("connectionsDropped", 0)), int(v.get("bgpTimerUpMsec", 0)),
                            int(v.get("bgpTimerUpEstablishedEpoch", 0)),
                            str(v.get("lastResetDueTo", "")))
    return out


def session_resets(before: dict, after: dict) -> list:
    """Compares two sessions() snapshots taken in this order and returns one sentence per peer
    whose session was reset in between (or is not Established now); [] means none was."""
    problems = []
    for peer, b in sorted(before.items()):
        a = after.get(peer)
        if a is None:
            problems.append(f"{peer}: gone")
        elif a.state != "Established":
            problems.append(f"{peer}: state {a.state} (last reset: {a.last_reset})")
        elif (a.established, a.dropped) != (b.established, b.dropped):
            problems.append(f"{peer}: connections established {b.established}→{a.established}, "
                            f"dropped {b.dropped}→{a.dropped} (last reset: {a.last_reset})")
        # The epoch is derived from the uptime in whole seconds, so it jitters by one.
        elif abs(a.up_epoch - b.up_epoch) > 1 or a.up_msec < b.up_msec:
            problems.append(f"{peer}: up since epoch {b.up_epoch}→{a.up_epoch}, "
                            f"up {b.up_msec}→{a.up_msec} ms")
    return problems


# BFD ---------------------------------------------------------------------------------------


def bfd_peers(peers: list) -> dict:
    """Returns peer address → entry from `show bfd peers json` (or `… counters json`)."""
    return {p["peer"]: p for p in peers if isinstance(p, dict) and "peer" in p}


def bfd_flaps(before: dict, after: dict) -> list:
    """Compares two bfd_peers() snapshots of `show bfd peers counters json` and returns one
    sentence per peer whose session went down or came up again in between."""
    problems = []
    for peer, b in sorted(before.items()):
        a = after.get(peer, {})
        for key in ("session-down", "session-up"):
            if a.get(key) != b.get(key):
                problems.append(f"BFD {peer}: {key} {b.get(key)}→{a.get(key)}")
    return problems


# Routes ------------------------------------------------------------------------------------


def fib_nexthops(route: dict, prefix: str) -> list:
    """Returns the sorted addresses of the installed, active next hops of prefix in
    `show ip route P json` ([] when it is not installed)."""
    out = set()
    for entry in route.get(prefix, []):
        if not entry.get("installed"):
            continue
        out |= {h["ip"] for h in entry.get("nexthops", []) if h.get("active") and "ip" in h}
    return sorted(out)


@dataclass(frozen=True)
class BgpPath:
    """One path of a prefix in `show bgp ipv4 unicast P json`."""
    peer: str
    nexthop: str
    best: bool
    multipath: bool
    local_pref: Optional[int]
    communities: tuple
    large_communities: tuple
    as_path: str


def bgp_paths(prefix_json: dict) -> list:
    """Returns the paths of `show bgp ipv4|ipv6 unicast P json`, sorted by peer."""
    out = []
    for p in prefix_json.get("paths", []):
        hops = p.get("nexthops", [])
        out.append(BgpPath(
            peer=p.get("peer", {}).get("peerId", ""),
            nexthop=hops[0].get("ip", "") if hops else "",
            best=bool(p.get("bestpath", {}).get("overall")),
            multipath=bool(p.get("multipath")),
            local_pref=p.get("locPrf", p.get("localpref")),
            communities=tuple(p.get("community", {}).get("list", [])),
            large_communities=tuple(p.get("largeCommunity", {}).get("list", [])),
            as_path=p.get("aspath", {}).get("string", "")))
    return sorted(out, key=lambda x: x.peer)


# Queries on a router -----------------------------------------------------------------------


def query_established(router: FrrRouter) -> set:
    return established_peers(router.show_json("show bgp summary json"))


def query_sessions(router: FrrRouter) -> dict:
    return sessions(router.show_json("show bgp neighbors json"))


def query_bfd(router: FrrRouter) -> dict:
    return bfd_peers(router.show_json("show bfd peers json"))


def query_bfd_counters(router: FrrRouter) -> dict:
    return bfd_peers(router.show_json("show bfd peers counters json"))


def query_fib_nexthops(router: FrrRouter, prefix: str) -> list:
    return fib_nexthops(router.show_json(f"show ip route {prefix} json"), prefix)


def query_paths(router: FrrRouter, prefix: str) -> list:
    afi = "ipv6" if ":" in prefix else "ipv4"
    return bgp_paths(router.show_json(f"show bgp {afi} unicast {prefix} json"))
