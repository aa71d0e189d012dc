# SPDX-License-Identifier: Apache-2.0
"""Layer 2 only, MetalLB's native flavour: a lab whose API server serves no frr-k8s CRD and whose
nodes run no FRR, the agents running `--bgp-mode none` under the RBAC of
charts/manifests/ingot-native.yaml. The ToR's ARP request for each Service address is answered by
the node the election (`ingotctl plan`) names, and by no other; a BGPPeer cannot be served there:
every agent reports it (ConfigurationState condition bgpBackendValid False, Warning Event
BGPNotAvailable on its Node) and Layer 2 goes on answering as before."""

from __future__ import annotations

import dataclasses

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import NODE_ASN, TOR_ASN
from l2scenario import (CONVERGE, L2_POOL, expected, hold_owner, l2_spec, prepare, status_node,
                        vip4, wait_owner, with_endpoints)
from netlab import manifests as m
from netlab.manifests import METALLB_NS
from netlab.proc import wait_until


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(dataclasses.replace(l2_spec(3), mode="none")):
        prepare(c)
        yield c


def _services(cluster, objects, first: int, count: int) -> dict:
    """An all-node advertisement and count Services with endpoints on every node; returns
    (name, ip) → the elected node."""
    objects.apply(m.l2_advertisement("all", [L2_POOL]))
    services = [(f"only{first + i}", vip4(cluster, first + i)) for i in range(count)]
    for name, ip in services:
        objects.apply(*with_endpoints(cluster, name, ip, cluster.node_names))
    return {(name, ip): expected(cluster, name) for name, ip in services}


def _bgp_report(cluster, node: str) -> str:
    """The message of speaker-<node>'s bgpBackendValid condition when False, else ""."""
    state = cluster.client.get("ConfigurationState", f"speaker-{node}", METALLB_NS) or {}
    for c in (state.get("status") or {}).get("conditions") or []:
        if c.get("type") == "bgpBackendValid" and c.get("status") == "False":
            return c.get("message", "")
    return ""


def test_the_elected_node_answers_arp_without_frr_or_frr_k8s(cluster, objects,
                                                              show_logs_on_failure):
    assert cluster.client.get("CustomResourceDefinition",
                              "frrconfigurations.frrk8s.metallb.io") is None
    assert not [role for role in cluster.procs if role.startswith("frr-k8s-")]
    winners = _services(cluster, objects, 30, 4)
    assert len(set(winners.values())) > 1, f"the election put every address on one node: {winners}"
    for (name, ip), node in winners.items():
        wait_owner(cluster, ip, node)
        hold_owner(cluster, ip, node)
        assert status_node(cluster, name) == [node], f"ServiceL2Status of {name}"
    for node in cluster.node_names:  # nothing to report without a BGPPeer
        assert _bgp_report(cluster, node) == "", node


def _bgp_events(cluster, node: str) -> list:
    """The BGPNotAvailable Events on the Node named node."""
    return [e for e in cluster.client.list("Event", "default")
            if e.get("reason") == "BGPNotAvailable" and
            e.get("involvedObject", {}).get("name") == node]


def test_a_bgp_peer_is_reported_not_served_and_layer2_goes_on(cluster, objects,
                                                             show_logs_on_failure):
    winners = _services(cluster, objects, 40, 2)
    objects.apply(m.bgp_peer("tor", NODE_ASN, TOR_ASN, cluster.address("tor")))
    for node in cluster.node_names:
        wait_until(f"speaker-{node} reports the BGPPeer",
                   lambda node=node: "BGPPeer tor not served" in _bgp_report(cluster, node),
                   CONVERGE)
        assert "--bgp-mode=none" in _bgp_report(cluster, node)
        # Events are written from the recorder's queue, after the ConfigurationState: wait.
        wait_until(f"a BGPNotAvailable Event on {node}",
                   lambda node=node: _bgp_events(cluster, node), CONVERGE)
        assert all(e["type"] == "Warning" for e in _bgp_events(cluster, node)), node
    for (name, ip), node in winners.items():
        wait_owner(cluster, ip, node)
        assert status_node(cluster, name) == [node], f"ServiceL2Status of {name}"
    assert cluster.client.list("ServiceBGPStatus", METALLB_NS) == [], "announced over BGP"
