# SPDX-License-Identifier: Apache-2.0
"""The main job on a cluster lab: apply examples/, wait for the controller's addresses and the
ToR's routes, and describe them (Service → address → the ToR's route and its ECMP next hops,
with the BGP attributes the ToR received)."""

from __future__ import annotations

import ipaddress
import time
from pathlib import Path
from typing import Optional

from . import bgp
from .cluster import EXAMPLES, Cluster
from .proc import LabError, wait_until


def _yaml_docs(path: Path) -> list:
    import yaml

    docs = []
    for f in sorted(path.rglob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(f.read_text()) if isinstance(d, dict)]
    return docs


def apply_examples(cluster: Cluster, path: Path = EXAMPLES, timeout: float = 30.0) -> None:
    """kubectl-applies every manifest under path in two steps: first Namespaces and the
    configuration (everything but Services and EndpointSlices), waiting until the controller
    has written every IPAddressPool's status (so it has loaded them all); then the whole
    directory. Otherwise a Service may be allocated before the pool meant for it exists (as in
    a real cluster), and kubectl applies files in name order."""
    docs = _yaml_docs(path)
    first = [d for d in docs if d.get("kind") == "Namespace"]
    first += [d for d in docs if d.get("kind") not in ("Namespace", "Service", "EndpointSlice")]
    if first:
        cluster.apply(first)
    pools = {d["metadata"]["name"] for d in docs if d.get("kind") == "IPAddressPool"}

    def pools_loaded() -> bool:
        seen = {p["metadata"]["name"] for p in cluster.client.list("IPAddressPool")
                if p.get("status")}
        return pools <= seen
    wait_until("the controller's status on every IPAddressPool", pools_loaded, timeout,
               interval=0.2)
    cluster.kubectl("apply", "-R", "-f", str(path), timeout=120)


def lb_services(cluster: Cluster) -> list:
    """Returns the LoadBalancer Services, sorted by namespace/name."""
    items = [s for s in cluster.client.list("Service")
             if s.get("spec", {}).get("type") == "LoadBalancer"]
    return sorted(items, key=lambda s: (s["metadata"]["namespace"], s["metadata"]["name"]))


def ingress_ips(svc: dict) -> list:
    return [i["ip"] for i in svc.get("status", {}).get("loadBalancer", {}).get("ingress", [])
            if "ip" in i]


def wait_addresses(cluster: Cluster, timeout: float = 30.0) -> list:
    """Waits until every LoadBalancer Service has an address (or timeout passes) and returns
    the Services."""
    deadline = time.monotonic() + timeout
    while True:
        services = lb_services(cluster)
        if all(ingress_ips(s) for s in services) or time.monotonic() > deadline:
            return services
        time.sleep(0.2)


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


def bgp_ranges(cluster: Cluster) -> list:
    """Returns the (first, last) address ranges of the pools some BGPAdvertisement selects
    (by name, by matchLabels, or all pools when it names none)."""
    pools = cluster.client.list("IPAddressPool")
    chosen = {}
    for adv in cluster.client.list("BGPAdvertisement"):
        spec = adv.get("spec", {})
        names = set(spec.get("ipAddressPools", []))
        selectors = [s.get("matchLabels", {}) for s in spec.get("ipAddressPoolSelectors", [])]
        for pool in pools:
            labels = pool["metadata"].get("labels", {})
            if ((not names and not selectors) or pool["metadata"]["name"] in names or
                    any(all(labels.get(k) == v for k, v in sel.items()) for sel in selectors)):
                chosen[pool["metadata"]["name"]] = pool
    return [r for pool in chosen.values() for r in _pool_ranges(pool)]


def in_ranges(ip: str, ranges: list) -> bool:
    addr = ipaddress.ip_address(ip)
    return any(lo.version == addr.version and lo <= addr <= hi for lo, hi in ranges)


def tor_route(router, ip: str) -> tuple:
    """Returns (prefix, next hops) of the ToR's installed route for ip (longest match), or
    ("", []) when it has none."""
    family = "ipv6" if ":" in ip else "ip"
    table = router.show_json(f"show {family} route {ip} json")
    for prefix in table:
        hops = bgp.fib_nexthops(table, prefix)
        if hops:
            return prefix, hops
    return "", []


def bgp_routes(router) -> dict:
    """Returns prefix → next hops of every installed BGP route of the ToR (IPv4 and IPv6)."""
    out = {}
    for family in ("ip", "ipv6"):
        table = router.show_json(f"show {family} route bgp json")
        for prefix in table:
            hops = bgp.fib_nexthops(table, prefix)
            if hops:
                out[prefix] = hops
    return out


def wait_routes(cluster: Cluster, ips: list, timeout: float = 60.0) -> Optional[str]:
    """Waits until the ToR has a route for every ip and its BGP table stayed the same for
    1.5 s; returns None, or what was still missing at the timeout."""
    router = cluster.tor("tor")
    last: dict = {}
    stable_since = time.monotonic()

    def settled() -> bool:
        nonlocal last, stable_since
        now = bgp_routes(router)
        if now != last:
            last, stable_since = now, time.monotonic()
        missing = [ip for ip in ips if not tor_route(router, ip)[1]]
        return not missing and time.monotonic() - stable_since >= 1.5
    try:
        wait_until("the ToR's routes to the Service addresses", settled, timeout, interval=0.25)
        return None
    except LabError:
        missing = [ip for ip in ips if not tor_route(router, ip)[1]]
        return f"no ToR route after {timeout:.0f} s for {', '.join(missing) or '(none)'}"


def _attributes(router, prefix: str) -> str:
    paths = bgp.query_paths(router, prefix)
    parts = []
    for p in paths:
        extra = [f"as-path {p.as_path or '(empty)'}"]
        if p.local_pref is not None:
            extra.append(f"local-pref {p.local_pref}")
        if p.communities:
            extra.append("communities " + " ".join(p.communities))
        if p.large_communities:
            extra.append("large " + " ".join(p.large_communities))
        parts.append(f"{p.peer}{' best' if p.best else ''}{' multipath' if p.multipath else ''}"
                     f" ({', '.join(extra)})")
    return "; ".join(parts)


def describe(cluster: Cluster, out) -> None:
    """Prints every LoadBalancer Service's addresses and each ToR's route to them."""
    ranges = bgp_ranges(cluster)
    services = lb_services(cluster)
    print("Services (LoadBalancer):", file=out)
    for svc in services:
        meta, spec = svc["metadata"], svc.get("spec", {})
        ips = ingress_ips(svc)
        print(f"  {meta['namespace']}/{meta['name']}: {', '.join(ips) or '<pending>'}  "
              f"(externalTrafficPolicy {spec.get('externalTrafficPolicy', 'Cluster')})",
              file=out)
        for ip in ips:
            if not in_ranges(ip, ranges):
                print(f"    {ip}: not in a BGP-advertised pool", file=out)
                continue
            for role in cluster.tor_roles:
                prefix, hops = tor_route(cluster.tor(role), ip)
                shown = f"{prefix} via {', '.join(hops)}" if hops else "no route"
                ecmp = f"  [ECMP x{len(hops)}]" if len(hops) > 1 else ""
                print(f"    {role} ({cluster.address(role)}): {ip} → {shown}{ecmp}", file=out)
    for role in cluster.tor_roles:
        router = cluster.tor(role)
        routes = bgp_routes(router)
        print(f"ToR {role} ({cluster.address(role)}) BGP routes:", file=out)
        if not routes:
            print("  (none)", file=out)
        for prefix, hops in sorted(routes.items()):
            print(f"  {prefix} via {', '.join(hops)}", file=out)
            print(f"    paths: {_attributes(router, prefix)}", file=out)
