# SPDX-License-Identifier: Apache-2.0
"""The loud no-announcer in the lab (docs/diagnostics.md): a Service with externalTrafficPolicy
Local whose only endpoint is on a node excluded from load balancers holds an address nobody
announces. After the grace period the controller writes a Warning Event naming the reason per
node and the condition ingot.dev/Announced False on the Service. Removing the exclude label lets
that node's agent announce the address (checked on the wire: it answers ARP), and the condition
goes away with a Normal Event. One lab of two nodes running only ingot-agent; the controller's
grace period is shortened to 3 s to keep the scenario short."""

from __future__ import annotations

import dataclasses

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import NS
from l2scenario import CONVERGE, L2_POOL, expected, l2_spec, prepare, vip4, wait_owner
from l2scenario import with_endpoints
from netlab import manifests as m
from netlab.proc import wait_until

EXCLUDE = "node.kubernetes.io/exclude-from-external-load-balancers"
CONDITION = "ingot.dev/Announced"


@pytest.fixture(scope="module")
def cluster():
    spec = dataclasses.replace(l2_spec(2), controller_args=("--unannounced-grace-seconds", "3"))
    for c in start_cluster(spec):
        prepare(c)
        yield c


def _condition(cluster, name: str):
    svc = cluster.client.get("Service", name, NS) or {}
    for c in (svc.get("status") or {}).get("conditions") or []:
        if c.get("type") == CONDITION:
            return c
    return None


def _events(cluster, name: str) -> list:
    return [(e.get("type"), e.get("reason"), e.get("message"), e.get("count", 1))
            for e in cluster.client.list("Event", NS)
            if (e.get("involvedObject") or {}).get("name") == name]


def test_excluded_only_endpoint_node_is_reported_then_cleared(cluster, objects,
                                                              show_logs_on_failure):
    ip = vip4(cluster, 60)
    cluster.kubectl("label", "node", "node2", f"{EXCLUDE}=")
    try:
        objects.apply(m.l2_advertisement("all", [L2_POOL]),
                      *with_endpoints(cluster, "lonely", ip, ["node2"], policy="Local"))
        message = (f"no node announces {ip}: node1: no local endpoint (ETP Local); "
                   f"node2: excluded by {EXCLUDE}")
        wait_until("the controller reports the unannounced address",
                   lambda: _condition(cluster, "lonely"), CONVERGE)
        condition = _condition(cluster, "lonely")
        assert (condition["status"], condition["reason"], condition["message"]) == \
            ("False", "NoAnnouncingNode", message)
        wait_until("the NotAnnounced Warning Event",
                   lambda: ("Warning", "NotAnnounced", message, 1) in _events(cluster, "lonely"),
                   CONVERGE)
        wait_owner(cluster, ip, None)
    finally:
        cluster.kubectl("label", "node", "node2", f"{EXCLUDE}-")
    assert expected(cluster, "lonely") == "node2"
    wait_owner(cluster, ip, "node2")
    wait_until("the condition is removed once node2 announces",
               lambda: _condition(cluster, "lonely") is None, CONVERGE)
    wait_until("the Announced Normal Event",
               lambda: ("Normal", "Announced", f"{ip} is announced again", 1)
               in _events(cluster, "lonely"), CONVERGE)
    # One Warning per change of the reason: the reason never changed, so one Event, once.
    warnings = [e for e in _events(cluster, "lonely") if e[1] == "NotAnnounced"]
    assert warnings == [("Warning", "NotAnnounced", message, 1)]
