# SPDX-License-Identifier: Apache-2.0
"""A BGPPeer with a value FRR refuses (a 65,536-character TCP-MD5 password, which FRR and the kernel
cap at 80 bytes), in frr mode. The webhook refuses it (controller unit tests); here the lab runs
without webhooks, so it reaches the agents as an object admitted before validation knew the limit
would. Each agent's ConfigurationState turns Invalid naming the BGPPeer, the field and the reason;
the last good configuration stays in use, so the working peer keeps its routes and gets the
routes of a Service created meanwhile, whose ServiceBGPStatus objects name only the working peer.
Deleting the bad peer clears the state.

While a node's FRR is down (its daemons killed by PID), every apply of that node fails: a Service
created meanwhile gets no ServiceBGPStatus, no nodeAssigned Event and no
metallb_speaker_announced sample from that node (the other node's appear), and its
ConfigurationState carries the failure; once FRR is back they all appear."""

from __future__ import annotations

import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (CONVERGE, NS, configure, endpoints, node_ips, service, vip_prefix,
                      wait_nexthops)
from l2scenario import METRICS_PORT, samples
from netlab import manifests as m
from netlab.cluster import NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until

BAD = "tor-long-key"
FRR_DOWN = 300  # an apply retried with backoff while FRR was down reaches it within this


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(ClusterSpec(nodes=2, mode="frr", webhooks=False,
                                             agent_args=("--plain-metrics-bind-address", f":{METRICS_PORT}"))):
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


def _announced_bgp(cluster, node: str, name: str) -> list:
    """IPs of the metallb_speaker_announced{protocol="bgp"} samples of Service name on node."""
    return [labels.get("ip") for labels, _ in samples(cluster, node, "metallb_speaker_announced")
            if labels.get("protocol") == "bgp" and labels.get("service") == f"{NS}/{name}"]


def _assigned(cluster, node: str, name: str) -> list:
    """The nodeAssigned Events of Service name that node recorded."""
    return [e for e in cluster.client.list("Event", NS)
            if e.get("reason") == "nodeAssigned" and
            e.get("involvedObject", {}).get("name") == name and
            f'"{node}"' in e.get("message", "")]


def test_nothing_is_claimed_for_a_node_whose_frr_is_down_until_it_is_back(
        cluster, objects, show_logs_on_failure):
    nodes = cluster.node_names
    up, down = nodes[0], nodes[1]
    objects.apply(m.bgp_advertisement("all", ["lab-pool"]))
    router = cluster.routers[down]
    # FRR goes down as a whole (vtysh reaches no daemon it needs): every apply of `down` fails.
    router.stop_daemon("bgpd")
    router.stop_daemon("zebra")
    try:
        objects.apply(service(cluster, "during", 42), endpoints("during", nodes))
        prefix = vip_prefix(cluster, 42)
        wait_nexthops(cluster, prefix, node_ips(cluster, [up]))
        wait_until(f"ServiceBGPStatus of 'during' from {up}",
                   lambda: _bgp_status_peers(cluster, "during").get(up) == ["tor"], CONVERGE)
        wait_until(f"{down}'s ConfigurationState carries the failed apply",
                   lambda: _state(cluster, down).get("errorSummary", ""), CONVERGE)
        assert _assigned(cluster, up, "during")
        assert _announced_bgp(cluster, up, "during")
        # Hold: `down` decided to announce, and keeps failing to apply; it claims nothing.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            assert down not in _bgp_status_peers(cluster, "during")
            assert not _announced_bgp(cluster, down, "during")
            assert not _assigned(cluster, down, "during")
            time.sleep(0.5)
        frr_condition = [c for c in _state(cluster, down).get("conditions", [])
                         if c.get("type") == "frrReloadValid"]
        assert frr_condition and frr_condition[0]["status"] == "False", frr_condition
    finally:
        router.start_daemon("zebra")
        router.start_daemon("bgpd")
    # FRR is back: the retried apply takes the Service, and every claim follows.
    wait_nexthops(cluster, prefix, node_ips(cluster, nodes), timeout=FRR_DOWN)
    wait_until(f"ServiceBGPStatus of 'during' from {down}",
               lambda: _bgp_status_peers(cluster, "during").get(down) == ["tor"], CONVERGE)
    wait_until(f"metallb_speaker_announced of 'during' on {down}",
               lambda: _announced_bgp(cluster, down, "during"), CONVERGE)
    wait_until(f"nodeAssigned from {down}", lambda: _assigned(cluster, down, "during"), CONVERGE)
    wait_until(f"{down}'s ConfigurationState is clean again",
               lambda: not _state(cluster, down).get("errorSummary"), CONVERGE)
