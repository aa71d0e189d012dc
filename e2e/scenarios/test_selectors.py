# SPDX-License-Identifier: Apache-2.0
"""Who announces to whom, in both agent modes: BGPAdvertisement nodeSelectors and peers, BGPPeer
nodeSelectors, and the exclude-from-external-load-balancers label with and without the
agent's --ignore-exclude-lb."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (POOL, configure, endpoints, hold_nexthops, node_ips, service, vip_prefix,
                      wait_nexthops)
from netlab import bgp, manifests as m
from netlab.cluster import NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until

EXCLUDE = "node.kubernetes.io/exclude-from-external-load-balancers"
RACKS = {"node1": {"rack": "r1"}, "node2": {"rack": "r1"}, "node3": {"rack": "r2"}}


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=3, mode=request.param, ibgp_tor=True,
                                       node_labels=RACKS)):
        configure(c, tor2=True)
        yield c


def test_advertisement_node_selectors_pick_the_announcing_nodes(cluster, objects,
                                                                show_logs_on_failure):
    objects.apply(m.bgp_advertisement("rack2", [POOL], extra={
        "nodeSelectors": [{"matchExpressions": [{"key": "rack", "operator": "In",
                                                 "values": ["r2"]}]}]}),
                  service(cluster, "sel", 20), endpoints("sel", ["node1"]))
    prefix = vip_prefix(cluster, 20)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node3"]))
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node3"]), tor="tor2")


def test_advertisement_peers_pick_the_receiving_tors(cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("only-tor", [POOL], peers=["tor"]),
                  service(cluster, "peers", 21), endpoints("peers", ["node1"]))
    prefix = vip_prefix(cluster, 21)
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
    hold_nexthops(cluster, prefix, [], 2.0, tor="tor2")


def test_exclude_label_stops_announcements_unless_ignored(cluster, objects,
                                                          show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "excl", 22),
                  endpoints("excl", ["node1"]))
    prefix = vip_prefix(cluster, 22)
    everyone = node_ips(cluster, cluster.node_names)
    wait_nexthops(cluster, prefix, everyone)
    cluster.kubectl("label", "node", "node3", f"{EXCLUDE}=")
    try:
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2"]))
        cluster.start_agent("node3", ["--ignore-exclude-lb"])
        wait_nexthops(cluster, prefix, everyone)
    finally:
        cluster.kubectl("label", "node", "node3", f"{EXCLUDE}-")
        cluster.start_agent("node3")
    wait_nexthops(cluster, prefix, everyone)


def test_bgppeer_node_selectors_pick_the_peering_nodes(cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "peersel", 23),
                  endpoints("peersel", ["node1"]))
    prefix = vip_prefix(cluster, 23)
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
    rack1 = {"nodeSelectors": [{"matchLabels": {"rack": "r1"}}]}
    peer = m.bgp_peer("tor", NODE_ASN, TOR_ASN, cluster.address("tor"),
                      bfd_profile_name="fast", extra=rack1)
    cluster.apply([peer])
    try:
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2"]))
        node3 = cluster.address("node3")
        wait_until("node3's session with the ToR to go away",
                   lambda: node3 not in bgp.query_established(cluster.tor("tor")), 60)
        # tor2's peer has no selector: all three nodes still announce there.
        wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names), tor="tor2")
    finally:
        cluster.kubectl("patch", "bgppeers", "tor", "-n", m.METALLB_NS, "--type", "json",
                        "-p", '[{"op": "remove", "path": "/spec/nodeSelectors"}]')
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
