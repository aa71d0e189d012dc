# SPDX-License-Identifier: Apache-2.0
"""ingot-frr, the frr-k8s-compatible daemon, on the cluster lab without agents: hand-written
FRRConfigurations in frr-k8s-system reach the nodes' real FRR and the ToR, merged by frr-k8s'
rules (several objects for one node, the same neighbor in two objects, toReceive), and bad input
— a merge conflict, raw configuration, a missing or wrong-typed Secret, FRR down — is reported
on FRRNodeState and as a Warning Event while the last good configuration stays at the ToR; each
is applied once the input (or FRR) is fixed. The agent-written objects (MetalLB's shape) are
covered by the other scenario modules in frr-k8s mode.

Each test runs twice: with the lab's stand-in for an frr-k8s installed beside the chart (its own
flags), and with the chart's `frrk8s.ingotFrr.enabled`, where ingot-frr runs from its rendered
Pod (args, Downward API, ServiceAccount token and RBAC, the FRR init container's files)."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import show_logs_on_failure, start_cluster  # noqa: F401
from scenario import hold_nexthops, node_ips, wait_nexthops, wait_paths
from netlab.cluster import FRRK8S_NS, NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until

P1 = "198.51.100.1/32"   # node1 only (object "base")
P2 = "198.51.100.2/32"   # every node (object "shared"), with a community
CONVERGE = 60
# With FRR down, frr-reload.py's passes each wait for vtysh's timeouts before the failure is known.
FRR_DOWN = 300


@pytest.fixture(scope="module", params=[False, True], ids=["stand-in", "ingotFrr"])
def cluster(request):
    yield from start_cluster(ClusterSpec(nodes=2, mode="frr-k8s", start_agents=False,
                                         ingot_frr=request.param), need_agent=False)


def frr_config(name: str, neighbor: dict, prefixes: list, node: str = "", **spec) -> dict:
    """An FRRConfiguration with one router (the nodes' AS) and one neighbor (the ToR)."""
    body = {"bgp": {"routers": [{"asn": NODE_ASN, "prefixes": prefixes,
                                 "neighbors": [neighbor]}],
                    "bfdProfiles": [{"name": "lab", "receiveInterval": 100,
                                     "transmitInterval": 100, "detectMultiplier": 3}]}, **spec}
    if node:
        body["nodeSelector"] = {"matchLabels": {"kubernetes.io/hostname": node}}
    return {"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration",
            "metadata": {"name": name, "namespace": FRRK8S_NS}, "spec": body}


def tor_neighbor(cluster, **extra) -> dict:
    return {"address": cluster.address("tor"), "asn": TOR_ASN, "bfdProfile": "lab", **extra}


def node_state(cluster, node: str) -> dict:
    obj = cluster.client.get("FRRNodeState", node)
    return (obj or {}).get("status", {})


def wait_state(cluster, node: str, check, what: str, timeout: float = CONVERGE) -> dict:
    return wait_until(f"FRRNodeState {node}: {what}",
                      lambda: (lambda s: s if check(s) else None)(node_state(cluster, node)),
                      timeout, interval=0.2)


def warnings(cluster, node: str, reason: str) -> list:
    return [e for e in cluster.client.list("Event", "default")
            if e.get("reason") == reason and e.get("involvedObject", {}).get("name") == node]


def delete(cluster, kind: str, name: str) -> None:
    cluster.kubectl("delete", kind, name, "-n", FRRK8S_NS, "--ignore-not-found")


def test_several_objects_merge_for_each_node(cluster, show_logs_on_failure):
    shared_neighbor = tor_neighbor(cluster, toAdvertise={
        "allowed": {"prefixes": [P2]},
        "withCommunity": [{"community": "64512:9", "prefixes": [P2]}]},
        toReceive={"allowed": {"prefixes": [{"prefix": "203.0.113.0/24", "le": 32}]}})
    cluster.apply([
        frr_config("base", tor_neighbor(cluster, toAdvertise={"allowed": {"prefixes": [P1]}}),
                   [P1], node="node1"),
        frr_config("shared", shared_neighbor, [P2])])
    wait_nexthops(cluster, P1, node_ips(cluster, ["node1"]))
    wait_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]))
    wait_paths(cluster, P2, lambda ps: len(ps) == 2 and
               all(p.communities == ("64512:9",) for p in ps))
    for node in ("node1", "node2"):
        # toReceive reached FRR: the neighbor's inbound list accepts the selector.
        state = wait_state(cluster, node, lambda s: s.get("lastReloadResult") == "success" and
                           "permit 203.0.113.0/24 le 32" in s.get("runningConfig", ""),
                           "reload success, inbound selector in the running configuration")
        assert state["lastConversionResult"] == "success"
        assert state["runningConfig"].startswith("Building configuration")
    # A change to one object moves only what it owns: P1 leaves, P2 stays on both nodes.
    delete(cluster, "frrconfiguration", "base")
    wait_nexthops(cluster, P1, [])
    hold_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]), 1.0)


def test_a_merge_conflict_keeps_the_last_good_configuration(cluster, show_logs_on_failure):
    wait_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]))
    cluster.apply([frr_config("conflict", tor_neighbor(cluster, asn=65000), [], node="node1")])
    state = wait_state(cluster, "node1",
                       lambda s: s.get("lastConversionResult", "").startswith("failed:"),
                       "conversion failure")
    assert "multiple asns" in state["lastConversionResult"]
    wait_until("Warning ConversionFailed on Node node1",
               lambda: warnings(cluster, "node1", "ConversionFailed"), CONVERGE)
    hold_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]), 1.0)
    assert node_state(cluster, "node2")["lastConversionResult"] == "success"
    delete(cluster, "frrconfiguration", "conflict")
    wait_state(cluster, "node1", lambda s: s.get("lastConversionResult") == "success",
               "conversion success again")


def test_raw_configuration_is_appended_as_frr_k8s_does(cluster, show_logs_on_failure):
    # spec.raw reaches FRR as in frr-k8s: appended to the rendered file, applied whole.
    raw = frr_config("raw", tor_neighbor(cluster), [], node="node2",
                     raw={"priority": 5, "rawConfig": "route-map ingot-e2e-raw permit 10\n"})
    cluster.apply([raw])
    state = wait_state(cluster, "node2",
                       lambda s: "route-map ingot-e2e-raw permit 10" in s.get("runningConfig", ""),
                       "raw applied")
    assert state["lastConversionResult"] == "success"
    hold_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]), 1.0)
    delete(cluster, "frrconfiguration", "raw")
    wait_state(cluster, "node2",
               lambda s: "ingot-e2e-raw" not in s.get("runningConfig", ""), "raw removed")
    hold_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]), 1.0)


def test_a_missing_then_wrong_then_right_secret(cluster, show_logs_on_failure):
    cluster.apply([frr_config("pw", {"address": "192.0.2.77", "asn": 64999,
                                     "passwordSecret": {"name": "peer-pw",
                                                        "namespace": FRRK8S_NS}},
                              [], node="node2")])
    wait_state(cluster, "node2", lambda s: "peer-pw" in s.get("lastConversionResult", ""),
               "missing Secret reported")
    secret = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
              "metadata": {"name": "peer-pw", "namespace": FRRK8S_NS},
              "stringData": {"password": "n0t-in-status"}}
    cluster.apply([secret])
    wait_state(cluster, "node2", lambda s: "basic-auth" in s.get("lastConversionResult", ""),
               "wrong Secret type reported")
    delete(cluster, "secret", "peer-pw")
    cluster.apply([{**secret, "type": "kubernetes.io/basic-auth"}])
    state = wait_state(cluster, "node2",
                       lambda s: s.get("lastConversionResult") == "success" and
                       "192.0.2.77 password" in s.get("runningConfig", ""),
                       "Secret resolved and applied")
    assert "n0t-in-status" not in state["runningConfig"]
    assert "192.0.2.77 password <retracted>" in state["runningConfig"]
    hold_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]), 1.0)
    delete(cluster, "frrconfiguration", "pw")
    delete(cluster, "secret", "peer-pw")


def test_frr_down_is_reported_and_retried(cluster, show_logs_on_failure):
    # FRR restarts as a whole (as its container or service does): vtysh merges the running
    # configuration of every daemon, so a lone bgpd restart would look half-configured.
    router = cluster.routers["node2"]
    router.stop_daemon("bgpd")
    router.stop_daemon("zebra")
    cluster.apply([frr_config("later", tor_neighbor(cluster, toAdvertise={
        "allowed": {"prefixes": ["198.51.100.3/32"]}}), ["198.51.100.3/32"], node="node2")])
    state = wait_state(cluster, "node2",
                       lambda s: s.get("lastReloadResult", "").startswith("failed:"),
                       "reload failure", timeout=FRR_DOWN)
    assert state["lastConversionResult"] == "success"
    wait_until("Warning ReloadFailed on Node node2",
               lambda: warnings(cluster, "node2", "ReloadFailed"), CONVERGE)
    router.start_daemon("zebra")
    router.start_daemon("bgpd")
    wait_nexthops(cluster, "198.51.100.3/32", node_ips(cluster, ["node2"]), timeout=FRR_DOWN)
    wait_nexthops(cluster, P2, node_ips(cluster, ["node1", "node2"]))
    wait_state(cluster, "node2", lambda s: s.get("lastReloadResult") == "success",
               "reload success after FRR came back", timeout=FRR_DOWN)
    assert cluster.procs["frr-k8s-node2"].poll() is None
