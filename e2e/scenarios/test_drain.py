# SPDX-License-Identifier: Apache-2.0
"""Drain-awareness on the wire, BGP (docs/drain.md): the agents run with --drain-triggers cordon
and --drain-delay 6s (DRAIN_ARGS). Layer 2 is in test_drain_l2.py.

Both modes, two nodes announcing one VIP to the eBGP ToR, whose inbound policy is RFC 8326's,
netlab/torconf.py): cordoning node2 makes the ToR see node2's path with the GRACEFUL_SHUTDOWN
community and LOCAL_PREF 0, so only node1's path is installed; after the delay node2 withdraws
it; node2's BGP session is never reset. Uncordoning brings node2's path back. node2's
ConfigurationState says it drains, with the reason, and its Node gets the Events.

The sigterm trigger: node2's agent restarted with --drain-triggers sigterm only (a cordon alone
does not drain it), node2 cordoned, its agent SIGTERMed by PID: the ToR sees node2's path with
GRACEFUL_SHUTDOWN while that process still runs, and once it has exited node2 has no plain path
left (withdrawn, or at worst still carrying the community) and its session was never reset."""

from __future__ import annotations

import os
import signal
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (POOL, configure, endpoints, node_ips, service, vip_prefix, wait_established,
                      wait_nexthops, wait_paths)
from netlab import bgp, manifests as m
from netlab.cluster import ClusterSpec
from netlab.proc import wait_until

DRAIN_ARGS = ("--drain-triggers", "cordon", "--drain-delay", "6s")
GSHUT = {"65535:0", "gracefulShutdown", "graceful-shutdown"}  # how FRR may spell it


def cordon(cluster, node: str, on: bool = True) -> None:
    """kubectl cordon / uncordon: spec.unschedulable set, or removed."""
    cluster.client.merge_patch("Node", node, "", {"spec": {"unschedulable": True if on else None}})


def drain_condition(cluster, node: str) -> dict:
    """The draining condition of node's ConfigurationState ({} when there is none)."""
    state = cluster.client.get("ConfigurationState", f"speaker-{node}", m.METALLB_NS) or {}
    for c in state.get("status", {}).get("conditions", []):
        if c.get("type") == "draining":
            return c
    return {}


def drain_events(cluster, node: str) -> list:
    """The reasons of the drain Events on the Node named node, oldest first."""
    events = [e for e in cluster.client.list("Event", "default")
              if e.get("reason", "").startswith("Drain") and
              e.get("involvedObject", {}).get("name") == node]
    return [e["reason"] for e in sorted(events, key=lambda e: e.get("firstTimestamp") or "")]


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param, agent_args=DRAIN_ARGS)):
        configure(c)
        yield c


def test_cordon_shuts_bgp_down_gracefully_then_withdraws_and_uncordon_restores(
        cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "drained", 41),
                  endpoints("drained", cluster.node_names))
    prefix = vip_prefix(cluster, 41)
    both = node_ips(cluster, cluster.node_names)
    wait_nexthops(cluster, prefix, both)
    router = cluster.tor("tor")
    node2 = cluster.address("node2")
    sessions = bgp.query_sessions(router)
    cordon(cluster, "node2")
    try:
        paths = wait_paths(cluster, prefix, lambda ps: any(
            p.peer == node2 and GSHUT & set(p.communities) for p in ps))
        drained = next(p for p in paths if p.peer == node2)
        assert drained.local_pref == 0, paths  # the ToR's RFC 8326 policy
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]))
        cond = wait_until("node2's ConfigurationState says draining",
                          lambda: drain_condition(cluster, "node2") or None, 30)
        assert "cordoned" in cond["message"], cond
        wait_paths(cluster, prefix, lambda ps: all(p.peer != node2 for p in ps))
        wait_until("node2's ConfigurationState says withdrawn", lambda: drain_condition(
            cluster, "node2").get("reason") == "Withdrawn", 30)
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]))
        assert bgp.session_resets(sessions, bgp.query_sessions(router)) == []
    finally:
        cordon(cluster, "node2", False)
    wait_paths(cluster, prefix, lambda ps: any(
        p.peer == node2 and not GSHUT & set(p.communities) for p in ps))
    wait_nexthops(cluster, prefix, both)
    wait_until("node2's draining condition cleared",
               lambda: drain_condition(cluster, "node2") == {}, 30)
    wait_established(cluster, both)
    assert bgp.session_resets(sessions, bgp.query_sessions(router)) == []
    wait_until("node2's drain Events", lambda: drain_events(cluster, "node2")[-3:] == [
        "DrainStarted", "DrainWithdrawn", "DrainEnded"], 30)


def test_sigterm_while_cordoned_moves_the_traffic_before_the_agent_exits(
        cluster, objects, show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "stopped", 43),
                  endpoints("stopped", cluster.node_names))
    prefix = vip_prefix(cluster, 43)
    both = node_ips(cluster, cluster.node_names)
    router = cluster.tor("tor")
    node2 = cluster.address("node2")
    cluster.start_agent("node2", ["--drain-triggers", "sigterm"])
    wait_nexthops(cluster, prefix, both)
    sessions = bgp.query_sessions(router)
    cordon(cluster, "node2")
    agent = cluster.procs["agent-node2"]
    try:
        time.sleep(2.0)  # the cordon's watch event reaches node2's agent (nothing to poll)
        os.kill(agent.pid, signal.SIGTERM)
        wait_paths(cluster, prefix, lambda ps: any(
            p.peer == node2 and GSHUT & set(p.communities) for p in ps))
        assert agent.poll() is None, "node2's agent exited before its path carried 65535:0"
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]))
        wait_until("node2's agent exits", lambda: agent.poll() is not None, 30)
        paths = bgp.query_paths(router, prefix)
        assert all(p.peer != node2 or GSHUT & set(p.communities) for p in paths), paths
        wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]))
        assert bgp.session_resets(sessions, bgp.query_sessions(router)) == []
    finally:
        cordon(cluster, "node2", False)
        cluster.start_agent("node2")
    wait_nexthops(cluster, prefix, both)
