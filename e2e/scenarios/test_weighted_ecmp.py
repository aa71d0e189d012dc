# SPDX-License-Identifier: Apache-2.0
"""Endpoint-weighted ECMP on a real FRR ToR (docs/weighted-ecmp.md).

A Service opting in with the ingot.dev/weighted-ecmp annotation (externalTrafficPolicy Local)
has ready endpoints on two nodes; each node attaches the link-bandwidth extended community with
its count, and the ToR (FRR, multipath, netlab/torconf.py) installs the kernel route with next-hop
weights in that proportion. The counts then change (3:1 → 1:1 → 0:1 → 2:3): the kernel weights
follow, no BGP session is reset and the kernel route is never missing on the way (RouteWatcher:
polled, and every `ip monitor` deletion)."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import POOL, configure, endpoints_per_node, service, vip_prefix, weights_match
from netlab import bgp, manifests as m
from netlab.cluster import ClusterSpec
from netlab.proc import wait_until
from netlab.watch import RouteWatcher, read_kernel_weights

WEIGHTED = {"ingot.dev/weighted-ecmp": "true"}
STEPS = ({"node1": 3, "node2": 1}, {"node1": 1, "node2": 1}, {"node1": 0, "node2": 1},
         {"node1": 2, "node2": 3})


def weighted_service(cluster, name: str, index: int) -> dict:
    """An externalTrafficPolicy Local Service that opts in to weighted ECMP."""
    svc = service(cluster, name, index, policy="Local")
    svc["metadata"]["annotations"].update(WEIGHTED)
    return svc


def wait_weights(cluster, prefix: str, want: dict) -> dict:
    tor = cluster.ns("tor")
    return wait_until(f"tor: kernel route {prefix} weighted {want}",
                      lambda: (lambda w: w if weights_match(w, want) else None)(
                          read_kernel_weights(tor, prefix)), 60, interval=0.1)


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param)):
        configure(c)
        yield c


def test_tor_weights_follow_ready_endpoints_without_withdraw_or_reset(
        cluster, objects, show_logs_on_failure):
    prefix = vip_prefix(cluster, 29)
    addr = {n: cluster.address(n) for n in cluster.node_names}
    objects.apply(m.bgp_advertisement("all", [POOL]), weighted_service(cluster, "weighted", 29),
                  endpoints_per_node("weighted", STEPS[0]))
    wait_weights(cluster, prefix, {addr[n]: c for n, c in STEPS[0].items()})
    router = cluster.tor("tor")
    sessions = bgp.query_sessions(router)
    watch = RouteWatcher(cluster.ns("tor"), {prefix: 1}, ledger=cluster.ledger)
    with watch:
        for counts in STEPS[1:]:
            objects.apply(endpoints_per_node("weighted", counts))
            wait_weights(cluster, prefix, {addr[n]: c for n, c in counts.items()})
    assert watch.report.gaps == [] and watch.report.deleted_events == [], watch.report.describe()
    assert bgp.session_resets(sessions, bgp.query_sessions(router)) == []
    # the ToR's BGP paths carry the community (FRR prints it as LB:<asn>:<bytes/s>)
    paths = router.show_json(f"show bgp ipv4 unicast {prefix} json")["paths"]
    assert all("LB:" in p.get("extendedCommunity", {}).get("string", "") for p in paths), paths
