# SPDX-License-Identifier: Apache-2.0
"""An object broken only where it applies breaks only there, in both agent modes: each agent parses
only the BGPAdvertisements and BGPPeers that select its node (as MetalLB's speaker does), so an
advertisement with an undefined Community alias that selects node1 makes node1 reject its
configuration (and say so in its ConfigurationState) while node2 keeps taking changes and
announcing."""

from __future__ import annotations

import json

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (CONVERGE, POOL, configure, endpoints, hold_nexthops, node_ips, service,
                      vip_prefix, wait_nexthops)
from netlab import manifests as m
from netlab.cluster import ClusterSpec
from netlab.proc import wait_until

RACKS = {"node1": {"rack": "r1"}, "node2": {"rack": "r2"}}


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param, node_labels=RACKS)):
        configure(c)
        yield c


def _state(cluster, node: str) -> dict:
    """The status of node's ConfigurationState ({} while it does not exist)."""
    got = cluster.kubectl("get", "configurationstates", f"speaker-{node}", "-n", m.METALLB_NS,
                          "-o", "json", check=False)
    return json.loads(got.stdout).get("status", {}) if got.returncode == 0 else {}


def test_an_advertisement_broken_on_one_node_breaks_only_that_node(cluster, objects,
                                                                   show_logs_on_failure):
    on_rack1 = {"nodeSelectors": [{"matchLabels": {"rack": "r1"}}]}
    # Admitted: the webhook leaves aliases out, as MetalLB's does.
    objects.apply(m.bgp_advertisement("rack1-tagged", [POOL], communities=["rack1-routes"],
                                      extra=on_rack1))
    wait_until("node1 reports the undefined alias in its ConfigurationState",
               lambda: _state(cluster, "node1").get("result") == "Invalid" and
               "rack1-tagged" in _state(cluster, "node1").get("errorSummary", ""), CONVERGE)
    assert "rack1-routes" in _state(cluster, "node1")["errorSummary"]

    # node2 parses no rack1 object: it takes the new advertisement and announces; node1 keeps its
    # last good configuration, which has no advertisement.
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "pernode", 40),
                  endpoints("pernode", ["node1", "node2"]))
    prefix = vip_prefix(cluster, 40)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node2"]))
    hold_nexthops(cluster, prefix, node_ips(cluster, ["node2"]), 2.0)
    node2 = _state(cluster, "node2")
    assert node2.get("result") == "Valid", node2
    assert _state(cluster, "node1").get("result") == "Invalid"

    # Defining the alias mends node1: it now announces too.
    objects.apply(m.community_aliases("rack1", {"rack1-routes": "64512:300"}))
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
    wait_until("node1's ConfigurationState turns Valid",
               lambda: _state(cluster, "node1").get("result") == "Valid", CONVERGE)
