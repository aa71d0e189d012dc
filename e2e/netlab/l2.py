# SPDX-License-Identifier: Apache-2.0
"""Layer 2 in the cluster lab: which addresses are announced with ARP/NDP, the ToR's on-link
routes for them, who answers them on the wire, and who the cluster says owns them.

- advertised_ranges(client, kind): the address ranges of the pools an L2Advertisement (or a
  BGPAdvertisement) selects.
- add_onlink_routes(): L2 pools normally lie outside the lab subnet; a client reaches them only
  with an on-link route (`ip route replace <cidr> dev eth0`), as a host on the same VLAN would.
- resolve(): asks the wire from a lab namespace: `arping -I eth0 -c 1` (iputils; it waits about
  a second and prints every reply) or one Neighbor Solicitation (nsprobe.py; every Neighbor
  Advertisement within 0.7 s). Returns every MAC that answered, so "exactly one node answers"
  is checkable.
- l2_owners(): node(s) per address from the ServiceL2Status objects the agents write.
- plan_winners(): the election's winner and candidates per address from `ingotctl plan`.
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Optional, Sequence

from .proc import CommandError, LabError, run

# Only unicast replies answer the request; broadcast ones are gratuitous announcements.
ARP_REPLY = re.compile(r"Unicast reply from (\S+) \[([0-9A-Fa-f:]{17})\]")
NA_TARGET = re.compile(r"^([0-9A-F:]{17})$", re.M)
NSPROBE = Path(__file__).resolve().parent / "nsprobe.py"
L2_KIND = "L2Advertisement"


def _pool_ranges(pool: dict) -> list:
    out = []
    for entry in pool.get("spec", {}).get("addresses", []):
        if "-" in entry:
            lo, hi = (ipaddress.ip_address(x.strip()) for x in entry.split("-", 1))
            out.append((lo, hi))
        else:
            net = ipaddress.ip_network(entry, strict=False)
            out.append((net[0], net[-1]))
    return out


def _selects(adv: dict, pool: dict) -> bool:
    spec = adv.get("spec", {})
    names = set(spec.get("ipAddressPools", []))
    selectors = [s.get("matchLabels", {}) for s in spec.get("ipAddressPoolSelectors", [])]
    if not names and not selectors:
        return True
    labels = pool["metadata"].get("labels", {})
    return (pool["metadata"]["name"] in names or
            any(all(labels.get(k) == v for k, v in sel.items()) for sel in selectors))


def advertised_ranges(client, kind: str) -> list:
    """Returns the (first, last) address ranges of the pools some advertisement of kind
    (L2Advertisement or BGPAdvertisement) selects: by name, by matchLabels, or all pools when
    it names none."""
    pools = client.list("IPAddressPool")
    chosen = {}
    for adv in client.list(kind):
        for pool in pools:
            if _selects(adv, pool):
                chosen[pool["metadata"]["name"]] = pool
    return [r for pool in chosen.values() for r in _pool_ranges(pool)]


def in_ranges(ip: str, ranges: Sequence) -> bool:
    addr = ipaddress.ip_address(ip)
    return any(lo.version == addr.version and lo <= addr <= hi for lo, hi in ranges)


def range_cidrs(ranges: Sequence) -> list:
    """Returns the smallest CIDR list covering the ranges, as strings."""
    nets = []
    for lo, hi in ranges:
        nets += ipaddress.summarize_address_range(lo, hi)
    return [str(n) for n in ipaddress.collapse_addresses([n for n in nets if n.version == 4])] + \
        [str(n) for n in ipaddress.collapse_addresses([n for n in nets if n.version == 6])]


def add_onlink_routes(namespace: str, cidrs: Sequence[str], device: str = "eth0") -> list:
    """Adds (replaces) an on-link route for every CIDR in a lab namespace; returns them."""
    for cidr in cidrs:
        family = "-6" if ":" in cidr else "-4"
        run(["ip", "-n", namespace, family, "route", "replace", cidr, "dev", device])
    return list(cidrs)


def link_mac(namespace: str, device: str = "eth0") -> str:
    """Returns the MAC address of a device in a lab namespace, upper case."""
    out = run(["ip", "-n", namespace, "-j", "link", "show", device]).stdout
    try:
        return json.loads(out)[0]["address"].upper()
    except (ValueError, LookupError):
        raise LabError(f"{namespace}: no MAC address for {device} in {out!r}") from None


def resolve(namespace: str, ip: str, device: str = "eth0") -> list:
    """Asks who has ip on the link (one ARP request, or one Neighbor Solicitation) and returns
    every MAC that answered (upper case, in arrival order; [] when nobody did)."""
    if ":" in ip:
        argv = ["/usr/bin/python3", str(NSPROBE), ip, device, "700"]
        pattern = NA_TARGET
    else:
        argv = ["arping", "-I", device, "-c", "1", ip]
        pattern = ARP_REPLY
    try:
        out = run(["ip", "netns", "exec", namespace, *argv], check=False, timeout=10).stdout
    except CommandError as e:
        raise LabError(f"{namespace}: {' '.join(argv)} did not finish: {e}") from None
    macs = []
    for m in pattern.finditer(out):
        mac = m.groups()[-1].upper()
        if ":" not in ip and m.group(1) != ip:
            continue
        macs.append(mac)
    return macs


def l2_owners(client) -> dict:
    """Returns "namespace/name" of a Service → sorted nodes whose ServiceL2Status names it."""
    out: dict = {}
    for obj in client.list("ServiceL2Status"):
        status = obj.get("status", {})
        key = f"{status.get('serviceNamespace', '')}/{status.get('serviceName', '')}"
        if status.get("node"):
            out.setdefault(key, set()).add(status["node"])
    return {k: sorted(v) for k, v in out.items()}


def plan_winners(ingotctl: Path, files: Sequence[Path]) -> dict:
    """Returns "namespace/name" → {"winner": node or None, "reason": …, "candidates": […]}
    from `ingotctl plan --output json` (the election over every Node of the files)."""
    argv = [str(ingotctl), "plan", "--output", "json"]
    for f in files:
        argv += ["-f", str(f)]
    try:
        data = json.loads(run(argv, timeout=60).stdout)
    except (CommandError, ValueError) as e:
        raise LabError(f"ingotctl plan failed: {e}") from None
    return {f"{s['namespace']}/{s['name']}": s["l2"] for s in data.get("services", [])
            if s.get("l2")}


def describe_answers(macs: Sequence[str], node_by_mac: dict) -> str:
    """Returns "node1 (AA:…)" for each distinct MAC, or "no answer"."""
    if not macs:
        return "no answer"
    return ", ".join(f"{node_by_mac.get(mac, 'unknown host')} ({mac})"
                     for mac in dict.fromkeys(macs))


def single_owner(macs: Sequence[str], node_by_mac: dict) -> Optional[str]:
    """Returns the node when exactly one distinct MAC answered and it is a node's, else None."""
    distinct = sorted(set(macs))
    return node_by_mac.get(distinct[0]) if len(distinct) == 1 else None


PLAN_KINDS = ("Namespace", "Node", "Service", "EndpointSlice", "IPAddressPool", L2_KIND,
              "BGPAdvertisement", "BGPPeer", "BFDProfile", "Community")
SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields",
                 "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers",
                 "ownerReferences")


def _plain(obj: dict, kind: str) -> dict:
    """obj without what the API server adds, with its kind and apiVersion set. A Service keeps
    its status: ingotctl plan adopts what the controller assigned, in the status' order, which
    is the order the election depends on (asking for the same addresses by annotation would
    not keep it)."""
    out = {k: v for k, v in obj.items() if k != "status" or kind in ("Node", "Service")}
    out["kind"] = kind
    out["metadata"] = {k: v for k, v in obj.get("metadata", {}).items()
                       if k not in SERVER_FIELDS}
    return out


def plan_cluster(client, ingotctl: Path, workdir: Path) -> dict:
    """plan_winners() of the cluster's current objects (dumped to workdir/plan-input.yaml)."""
    from .kubeclient import RESOURCES

    objs = []
    for kind in PLAN_KINDS:
        api_version = RESOURCES[kind][0].removeprefix("/api/").removeprefix("/apis/")
        for obj in client.list(kind):
            plain = _plain(obj, kind)
            plain["apiVersion"] = api_version
            objs.append(plain)
    path = workdir / "plan-input.yaml"
    path.write_text("".join(f"---\n{json.dumps(o, sort_keys=True)}\n" for o in objs))
    return plan_winners(ingotctl, [path])
