# SPDX-License-Identifier: Apache-2.0
"""externalTrafficPolicy at the ToR, in both agent modes: ETP Cluster is announced by exactly the
nodes the advertisement selects; ETP Local only by nodes with a serving endpoint, following the
endpoints as they move; a deleted Service is withdrawn."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (POOL, configure, endpoints, hold_nexthops, node_ips, service, vip_prefix,
                      wait_nexthops)
from netlab import manifests as m
from netlab.cluster import ClusterSpec

ZONES = {"node1": {"zone": "a"}, "node2": {"zone": "a"}, "node3": {"zone": "b"}}


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    spec = ClusterSpec(nodes=3, mode=request.param, node_labels=ZONES)
    for c in start_cluster(spec):
        configure(c)
        yield c


def test_etp_cluster_next_hops_are_exactly_the_selected_nodes(cluster, objects,
                                                              show_logs_on_failure):
    objects.apply(m.bgp_advertisement("zone-a", [POOL],
                                      extra={"nodeSelectors": [{"matchLabels": {"zone": "a"}}]}),
                  service(cluster, "cluster-svc", 1), endpoints("cluster-svc", ["node3"]))
    prefix = vip_prefix(cluster, 1)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2"]))
    hold_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2"]), 2.0)
    # An advertisement without node selectors adds node3 (the endpoint's node is irrelevant).
    objects.apply(m.bgp_advertisement("everyone", [POOL]))
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2", "node3"]))
    objects.delete("BGPAdvertisement", "everyone", m.METALLB_NS)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node1", "node2"]))


def test_etp_local_follows_the_serving_endpoints(cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "local-svc", 2, "Local"),
                  endpoints("local-svc", ["node1"]))
    prefix = vip_prefix(cluster, 2)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]))
    for nodes in (["node2"], ["node2", "node3"], ["node1", "node2", "node3"], ["node3"]):
        objects.apply(endpoints("local-svc", nodes))
        wait_nexthops(cluster, prefix, node_ips(cluster, nodes))
    # A not-ready endpoint does not count: no serving endpoint left, no route.
    slice_ = endpoints("local-svc", ["node3"])
    slice_["endpoints"][0]["conditions"] = {"ready": False, "serving": False,
                                            "terminating": False}
    objects.apply(slice_)
    wait_nexthops(cluster, prefix, [])


def test_deleting_a_service_withdraws_its_route(cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "doomed", 4),
                  endpoints("doomed", ["node1"]))
    prefix = vip_prefix(cluster, 4)
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
    objects.delete("Service", "doomed")
    wait_nexthops(cluster, prefix, [])
