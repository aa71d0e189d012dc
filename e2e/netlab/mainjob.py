# SPDX-License-Identifier: Apache-2.0
"""The main job on a cluster lab: apply examples/, wait for the controller's addresses and the
ToR's routes, and describe them (Service → address → the ToR's route and its ECMP next hops,
with the BGP attributes the ToR received; for Layer 2 addresses, the elected node, the
ServiceL2Status and who answers ARP/NDP on the lab bridge)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

from . import bgp, l2
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


def bgp_ranges(cluster: Cluster) -> list:
    """Returns the (first, last) address ranges of the pools some BGPAdvertisement selects."""
    return l2.advertised_ranges(cluster.client, "BGPAdvertisement")


in_ranges = l2.in_ranges


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
    l2_ranges = l2.advertised_ranges(cluster.client, l2.L2_KIND)
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
                where = "Layer 2, see below" if in_ranges(ip, l2_ranges) else \
                    "not in an advertised pool"
                print(f"    {ip}: {where}", file=out)
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


def l2_addresses(cluster: Cluster) -> list:
    """Returns ("namespace/name", ip) for every address of a LoadBalancer Service that lies
    in a pool some L2Advertisement selects."""
    ranges = l2.advertised_ranges(cluster.client, l2.L2_KIND)
    return [(f"{s['metadata']['namespace']}/{s['metadata']['name']}", ip)
            for s in lb_services(cluster) for ip in ingress_ips(s) if l2.in_ranges(ip, ranges)]


def add_l2_routes(cluster: Cluster, role: str = "tor") -> list:
    """Gives role (the ToR, the lab's client) an on-link route on eth0 for every pool an
    L2Advertisement selects, except what a BGPAdvertisement also selects (the ToR learns
    those by BGP). Returns the CIDRs."""
    bgp_ranges_ = bgp_ranges(cluster)
    ranges = [r for r in l2.advertised_ranges(cluster.client, l2.L2_KIND)
              if not (l2.in_ranges(str(r[0]), bgp_ranges_) or l2.in_ranges(str(r[1]), bgp_ranges_))]
    return l2.add_onlink_routes(cluster.ns(role), l2.range_cidrs(ranges))


def _plan_or_reason(cluster: Cluster):
    from .ingotctl import find_ingotctl

    ingotctl = find_ingotctl("render")
    if ingotctl is None:
        return None, "no ingotctl built"
    try:
        return l2.plan_cluster(cluster.client, ingotctl, cluster.workdir), ""
    except LabError as e:
        return None, str(e)


def l2_answers(cluster: Cluster, addresses: list, role: str = "tor") -> list:
    """Returns, per ("namespace/name", ip), every MAC that answered role's ARP request or
    Neighbor Solicitation (asked in parallel)."""
    from concurrent.futures import ThreadPoolExecutor

    ips = sorted({ip for _, ip in addresses})  # a shared address is asked once
    with ThreadPoolExecutor(8) as pool:
        found = dict(zip(ips, pool.map(lambda ip: l2.resolve(cluster.ns(role), ip), ips)))
    return [found[ip] for _, ip in addresses]


def wait_l2(cluster: Cluster, timeout: float = 20.0) -> Optional[str]:
    """Waits until exactly one MAC answers each L2 address from the ToR; returns None, or
    which addresses did not have exactly one answer at the timeout."""
    addresses = l2_addresses(cluster)
    last: list = []

    def settled() -> bool:
        nonlocal last
        last = l2_answers(cluster, addresses)
        return all(len(set(macs)) == 1 for macs in last)
    try:
        wait_until("one ARP/NDP answer per L2 address", settled, timeout, interval=0.2)
        return None
    except LabError:
        bad = [f"{ip} ({len(set(macs))} answers)" for (_, ip), macs in zip(addresses, last)
               if len(set(macs)) != 1]
        return f"after {timeout:.0f} s not exactly one answer for {', '.join(bad)}"


def describe_l2(cluster: Cluster, out, role: str = "tor") -> None:
    """Prints, for every L2 address, the node the election names (ingotctl plan on the
    cluster's objects), the node(s) whose ServiceL2Status claims the Service, and every MAC
    that answered the ToR's ARP request / Neighbor Solicitation on the lab bridge."""
    addresses = l2_addresses(cluster)
    print(f"Layer 2 (who answers ARP/NDP on the lab bridge, asked from {role}):", file=out)
    if not addresses:
        print("  (no Service address in an L2-advertised pool)", file=out)
        return
    node_by_mac = {l2.link_mac(cluster.ns(n)): n for n in cluster.node_names}
    plan, why = _plan_or_reason(cluster)
    owners = l2.l2_owners(cluster.client)
    answers = l2_answers(cluster, addresses, role)
    for (svc, ip), macs in zip(addresses, answers):
        elected = plan.get(svc, {}) if plan is not None else {}
        winner = elected.get("winner") or (f"none ({elected.get('reason')})" if elected
                                           else f"unknown ({why})")
        status = ", ".join(owners.get(svc, [])) or "none"
        verdict = "no node answered" if not macs else l2.describe_answers(macs, node_by_mac)
        if len(set(macs)) > 1:
            verdict += "  [MORE THAN ONE ANSWER]"
        print(f"  {svc} {ip}: elected {winner}; ServiceL2Status {status}; on the wire: "
              f"{verdict}", file=out)
