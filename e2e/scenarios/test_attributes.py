# SPDX-License-Identifier: Apache-2.0
"""What the ToRs receive besides next hops, in both agent modes: communities (plain, aliased via
a Community object, large), local preference at an iBGP ToR, aggregationLength, and the
BFDProfile's timers as the ToR's BFD session sees them."""

from __future__ import annotations

import ipaddress

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (POOL, configure, endpoints, node_ips, service, vip, vip_prefix,
                      wait_nexthops, wait_paths)
from netlab import bgp, manifests as m
from netlab.cluster import ClusterSpec
from netlab.proc import wait_until


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param, ibgp_tor=True)):
        configure(c, tor2=True)
        yield c


def test_communities_and_large_communities_reach_the_tor(cluster, objects,
                                                         show_logs_on_failure):
    objects.apply(m.community_aliases("aliases", {"vip-routes": "64512:100"}),
                  m.bgp_advertisement("tagged", [POOL], communities=[
                      "vip-routes", "64512:200", "large:64512:7:8"]),
                  service(cluster, "tagged", 10), endpoints("tagged", ["node1"]))
    prefix = vip_prefix(cluster, 10)
    paths = wait_paths(cluster, prefix, lambda ps: len(ps) == 2 and all(
        set(p.communities) == {"64512:100", "64512:200"} and
        p.large_communities == ("64512:7:8",) for p in ps))
    assert {p.peer for p in paths} == set(node_ips(cluster, cluster.node_names))


def test_local_pref_is_seen_at_the_ibgp_tor(cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("preferred", [POOL], local_pref=250, peers=["tor2"]),
                  service(cluster, "pref", 11), endpoints("pref", ["node2"]))
    prefix = vip_prefix(cluster, 11)
    paths = wait_paths(cluster, prefix, lambda ps: len(ps) == 2 and all(
        p.local_pref == 250 for p in ps), tor="tor2")
    assert all(p.as_path in ("", "Local") for p in paths)  # iBGP: no AS prepended
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names), tor="tor2")
    # The advertisement names only tor2: the eBGP ToR gets nothing.
    wait_nexthops(cluster, prefix, [], tor="tor")


def test_aggregation_length_announces_the_covering_prefix(cluster, objects,
                                                          show_logs_on_failure):
    objects.apply(m.bgp_advertisement("agg", [POOL], extra={"aggregationLength": 28}),
                  service(cluster, "agg-a", 33, "Local"), endpoints("agg-a", ["node1"]),
                  service(cluster, "agg-b", 34, "Local"), endpoints("agg-b", ["node2"]))
    aggregate = str(ipaddress.ip_network(f"{vip(cluster, 33)}/28", strict=False))
    # Both Services fall in one /28: one route, from both nodes.
    wait_nexthops(cluster, aggregate, node_ips(cluster, cluster.node_names))
    assert bgp.query_fib_nexthops(cluster.tor("tor"), vip_prefix(cluster, 33)) == []
    objects.delete("Service", "agg-b")
    wait_nexthops(cluster, aggregate, node_ips(cluster, ["node1"]))


def _bfd_timers(cluster, node: str):
    peer = bgp.query_bfd(cluster.tor("tor")).get(cluster.address(node), {})
    if peer.get("status") != "up":
        return None
    return (peer.get("remote-receive-interval"), peer.get("remote-transmit-interval"),
            peer.get("remote-detect-multiplier"))


def test_bfd_profile_timers_are_seen_at_the_tor(cluster, objects, show_logs_on_failure):
    for node in cluster.node_names:
        wait_until(f"BFD timers of {node} at the ToR",
                   lambda: _bfd_timers(cluster, node) == (100, 100, 3), 60, interval=0.2)
    objects.apply(m.bfd_profile("fast", 200, 250, 5))
    try:
        for node in cluster.node_names:
            wait_until(f"new BFD timers of {node} at the ToR",
                       lambda: _bfd_timers(cluster, node) == (200, 250, 5), 60, interval=0.2)
    finally:
        objects.applied.clear()  # keep the profile (the peers use it); restore the timers
        cluster.apply([m.bfd_profile("fast", 100, 100, 3)])
