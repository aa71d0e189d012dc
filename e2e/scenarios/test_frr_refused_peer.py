# SPDX-License-Identifier: Apache-2.0
"""A BGPPeer with a value FRR refuses (a 65,536-character TCP-MD5 password, which FRR and the kernel
cap at 80 bytes), in frr mode. The webhook refuses it (controller unit tests); here the lab runs
without webhooks, so it reaches the agents as an object admitted before validation knew the limit
would. Each agent's ConfigurationState turns Invalid naming the BGPPeer, the field and the reason;
the last good configuration stays in use, so the working peer keeps its routes and gets the
routes of a Service created meanwhile, whose ServiceBGPStatus objects name only the working peer.
Deleting the bad peer clears the state."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (CONVERGE, NS, configure, endpoints, node_ips, service, vip_prefix,
                      wait_nexthops)
from netlab import manifests as m
from netlab.cluster import NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until

BAD = "tor-long-key"


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(ClusterSpec(nodes=2, mode="frr", webhooks=False)):
        configure(c)
        yield c


def _state(cluster, node: str) -> dict:
    state = cluster.client.get("ConfigurationState", f"speaker-{node}", m.METALLB_NS) or {}
    return state.get("status") or {}


def _bgp_status_peers(cluster, name: str) -> dict:
    """node → peers of the Service's ServiceBGPStatus objects."""
    out = {}
    for s in cluster.client.list("ServiceBGPStatus", m.METALLB_NS):
        st = s.get("status") or {}
        if st.get("serviceName") == name and st.get("serviceNamespace") == NS:
            out[st.get("node")] = sorted(st.get("peers") or [])
    return out


def test_a_peer_frr_refuses_is_reported_and_the_working_peer_keeps_every_change(
        cluster, objects, show_logs_on_failure):
    nodes = cluster.node_names
    objects.apply(m.bgp_advertisement("all", ["lab-pool"]),
                  service(cluster, "before", 40), endpoints("before", nodes))
    before = vip_prefix(cluster, 40)
    wait_nexthops(cluster, before, node_ips(cluster, nodes))
    bad = m.bgp_peer(BAD, NODE_ASN, TOR_ASN, "10.255.255.1", extra={"password": "k" * 65536})
    objects.apply(bad)
    for node in nodes:
        wait_until(f"{node}'s ConfigurationState names {BAD}",
                   lambda: BAD in _state(cluster, node).get("errorSummary", ""), CONVERGE)
        status = _state(cluster, node)
        assert status["result"] == "Invalid"
        assert "spec.password" in status["errorSummary"]
        assert "TCP-MD5 keys are at most 80 bytes" in status["errorSummary"]
    # The working peer still gets every change: a Service created now reaches the ToR, and the
    # statuses name only the peer FRR holds a session for.
    objects.apply(service(cluster, "after", 41), endpoints("after", nodes))
    wait_nexthops(cluster, vip_prefix(cluster, 41), node_ips(cluster, nodes))
    wait_until("ServiceBGPStatus of 'after' on every node",
               lambda: _bgp_status_peers(cluster, "after") == {n: ["tor"] for n in nodes},
               CONVERGE)
    wait_nexthops(cluster, before, node_ips(cluster, nodes))
    objects.delete("BGPPeer", BAD, m.METALLB_NS)
    for node in nodes:
        wait_until(f"{node}'s ConfigurationState is valid again",
                   lambda: _state(cluster, node).get("result") == "Valid" and
                   not _state(cluster, node).get("errorSummary"), CONVERGE)
