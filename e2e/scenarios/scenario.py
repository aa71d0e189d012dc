# SPDX-License-Identifier: Apache-2.0
"""Building blocks of the BGP scenarios: the lab fixture helper (one cluster lab per module and
mode; skipped with the reason when root, FRR, a built ingot-controller, ingotctl or ingot-agent
is missing), the lab's MetalLB configuration (made from the lab's own addresses, so any slot
works), Services with endpoints, and bounded waits on what the ToR shows.

There is deliberately no conftest.py here: e2e/kubeapi's tests import helpers with `from
conftest import …`, which only works while theirs is the last conftest module pytest loaded.
The fixtures below are imported by the test modules instead."""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

import pytest

E2E = Path(__file__).resolve().parents[1]
if str(E2E) not in sys.path:
    sys.path.insert(0, str(E2E))

from netlab import bgp, manifests as m  # noqa: E402
from netlab.cluster import NODE_ASN, TOR_ASN, Cluster, ClusterSpec, find_agent, find_controller, \
    find_ingot_frr
from netlab.frr import frr_missing
from netlab.ingotctl import find_ingotctl
from netlab.proc import LabError, wait_until

NS = "scen"
# The RBAC decision records of this pytest process's labs, one file per lab named
# <n>-<mode>-<test module>.jsonl; test_zz_rbac_record.py checks them against the chart.
AUTHZ_RECORD_DIR = Path(tempfile.gettempdir()) / f"ingot-authz-{os.getpid()}"
atexit.register(shutil.rmtree, AUTHZ_RECORD_DIR, True)
POOL = "lab-pool"
CONVERGE = 60.0  # seconds a scenario waits for the ToR (bounded polling; never asserted)


def lab_skip_reason(need_agent: bool = True, need_ingot_frr: bool = True):
    """Returns why a cluster lab cannot run here, or None. need_ingot_frr: the lab runs ingot-frr
    on its nodes (frr-k8s mode with node FRR)."""
    if os.geteuid() != 0:
        return "cluster lab tests need root (network namespaces); run as root"
    missing = frr_missing()
    if missing:
        return f"cluster lab tests need FRR: {missing}"
    if find_controller() is None:
        return ("cluster lab tests need a built ingot-controller (build/controller/"
                "ingot-controller or $INGOT_CONTROLLER)")
    if find_ingotctl("frr-k8s") is None:
        return ("cluster lab tests need a built ingotctl with the frr-k8s subcommand "
                "(build/cli/ingotctl or $INGOT_INGOTCTL)")
    if need_ingot_frr and find_ingot_frr() is None:
        return ("cluster lab tests need a built ingot-frr (the frr-k8s mode's daemon: "
                "build/ingotfrr/ingot-frr or $INGOT_FRR)")
    if need_agent and find_agent() is None:
        return ("BGP scenarios need a built ingot-agent (build/agent/ingot-agent, "
                "build*/agent/ingot-agent or $INGOT_AGENT); not faked")
    return None


def start_cluster(spec: ClusterSpec, need_agent: bool = True):
    """Generator for a module fixture: skips without the prerequisites, yields the running
    Cluster, removes it afterwards and prints the daemons' log tails when a test failed."""
    reason = lab_skip_reason(need_agent, spec.mode == "frr-k8s" and spec.node_frr)
    if reason:
        pytest.skip(reason)
    cluster = Cluster(_recorded(spec)).up()
    try:
        yield cluster
    finally:
        cluster.close()


def _recorded(spec: ClusterSpec) -> ClusterSpec:
    """spec with its API server's RBAC decisions recorded in AUTHZ_RECORD_DIR."""
    AUTHZ_RECORD_DIR.mkdir(exist_ok=True)
    test = os.environ.get("PYTEST_CURRENT_TEST", "lab").split("::")[0]
    module = Path(test).stem
    index = len(list(AUTHZ_RECORD_DIR.iterdir()))
    path = AUTHZ_RECORD_DIR / f"{index}-{spec.mode}-{module}.jsonl"
    path.touch()
    return dataclasses.replace(spec, authz_log=str(path))


def vip(cluster: Cluster, index: int) -> str:
    return cluster.lab.addressing.vip(index) if cluster.lab else ""


def vip_prefix(cluster: Cluster, index: int) -> str:
    return f"{vip(cluster, index)}/32"


def node_ips(cluster: Cluster, nodes: Sequence[str]) -> list:
    return sorted(cluster.address(n) for n in nodes)


def base_objects(cluster: Cluster, *, tor2: bool = False, peer_extra: Optional[dict] = None,
                 bfd=(100, 100, 3)) -> list:
    """The namespace, the lab's pool, a BFD profile and a BGPPeer per ToR."""
    objs = [m.namespace(NS), m.ip_address_pool(POOL, [str(cluster.lab.addressing.vip_v4)]),
            m.bfd_profile("fast", *bfd),
            m.bgp_peer("tor", NODE_ASN, TOR_ASN, cluster.address("tor"),
                       bfd_profile_name="fast", extra=peer_extra)]
    if tor2:
        objs.append(m.bgp_peer("tor2", NODE_ASN, NODE_ASN, cluster.address("tor2"),
                               bfd_profile_name="fast"))
    return objs


def service(cluster: Cluster, name: str, index: int, policy: str = "Cluster",
            labels: Optional[dict] = None) -> dict:
    return m.service(name, NS, vip(cluster, index), cluster_ip=f"10.96.{100 + index // 250}."
                     f"{1 + index % 250}", labels=labels, policy=policy,
                     annotations={"metallb.io/loadBalancerIPs": vip(cluster, index)})


def endpoints(name: str, nodes: Sequence[str]) -> dict:
    return m.endpoint_slice(name, NS, [(f"10.244.{i}.{7 + i}", n)
                                       for i, n in enumerate(nodes, start=1)])


def endpoints_per_node(name: str, counts: dict) -> dict:
    """name's EndpointSlice with counts[node] ready endpoints on each node (weighted ECMP)."""
    eps = []
    for i, (node, n) in enumerate(sorted(counts.items()), start=1):
        eps += [(f"10.244.{i}.{10 + k}", node) for k in range(n)]
    return m.endpoint_slice(name, NS, eps)


def weights_match(weights: dict, want: dict) -> bool:
    """Whether kernel next-hop weights (gateway → weight) are in the proportion of want (gateway
    → endpoint count; 0 = no next hop). FRR maps each path's share to 1..100, truncating, hence
    the tolerance of 0.02 on each share."""
    want = {k: v for k, v in want.items() if v}
    if set(weights) != set(want):
        return False
    total_w, total_c = sum(weights.values()), sum(want.values())
    return all(abs(weights[k] / total_w - want[k] / total_c) <= 0.02 for k in want)


def wait_nexthops(cluster: Cluster, prefix: str, want: Sequence[str], tor: str = "tor",
                  timeout: float = CONVERGE) -> float:
    """Waits until the ToR's FIB holds prefix with exactly the next hops want ([] = no route);
    returns the seconds it took. Raises LabError with what the ToR showed last."""
    router = cluster.tor(tor)
    target = sorted(want)
    start = time.monotonic()
    wait_until(f"{tor}: {prefix} via {target}",
               lambda: bgp.query_fib_nexthops(router, prefix) == target, timeout, interval=0.1)
    return time.monotonic() - start


def wait_paths(cluster: Cluster, prefix: str, check, tor: str = "tor",
               timeout: float = CONVERGE) -> list:
    """Waits until check(paths) holds for the ToR's BGP paths of prefix; returns the paths."""
    router = cluster.tor(tor)
    return wait_until(f"{tor}: BGP paths of {prefix} as expected",
                      lambda: (lambda p: p if p and check(p) else None)(
                          bgp.query_paths(router, prefix)), timeout, interval=0.1)


def hold_nexthops(cluster: Cluster, prefix: str, want: Sequence[str], seconds: float,
                  tor: str = "tor") -> None:
    """Checks that the ToR keeps exactly want for prefix during seconds (e.g. that a node that
    must not announce does not start to)."""
    router = cluster.tor(tor)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        have = bgp.query_fib_nexthops(router, prefix)
        if have != sorted(want):
            raise LabError(f"{tor}: {prefix} via {have}, expected {sorted(want)} to hold")
        time.sleep(0.2)


def wait_established(cluster: Cluster, peers: Sequence[str], tor: str = "tor",
                     timeout: float = CONVERGE) -> None:
    router = cluster.tor(tor)
    want = set(peers)
    wait_until(f"{tor}: BGP Established with {sorted(want)}",
               lambda: want <= bgp.query_established(router), timeout, interval=0.2)


def wait_bfd_up(cluster: Cluster, peers: Sequence[str], tor: str = "tor",
                timeout: float = CONVERGE) -> None:
    """Waits until the ToR's BFD sessions with peers are up (BGP can be Established first)."""
    router = cluster.tor(tor)

    def up() -> bool:
        state = bgp.query_bfd(router)
        return all(state.get(p, {}).get("status") == "up" for p in peers)

    wait_until(f"{tor}: BFD up with {sorted(peers)}", up, timeout, interval=0.2)


def delete_scenario_objects(cluster: Cluster) -> None:
    """Removes the scenario namespace's Services and EndpointSlices and the MetalLB objects,
    so that the next test of the module starts clean."""
    cluster.kubectl("delete", "namespace", NS, "--ignore-not-found", "--wait=false")
    for kind in ("bgpadvertisements", "bgppeers", "bfdprofiles", "communities",
                 "ipaddresspools"):
        cluster.kubectl("delete", kind, "-n", m.METALLB_NS, "--all", "--wait=false")


class Objects:
    """Objects one test applies (kubectl apply) and removes again at its end (kubectl delete),
    so the tests of a module share one lab without seeing each other's configuration."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.applied: dict = {}

    def apply(self, *objs: dict) -> None:
        self.cluster.apply(list(objs))
        for o in objs:
            meta = o["metadata"]
            self.applied[(o["kind"], meta.get("namespace", ""), meta["name"])] = o

    def delete(self, kind: str, name: str, namespace: str = NS) -> None:
        self.cluster.kubectl("delete", kind.lower(), name, "-n", namespace, "--ignore-not-found")
        self.applied.pop((kind, namespace, name), None)

    def cleanup(self) -> None:
        for (kind, ns, name) in reversed(list(self.applied)):
            args = ["delete", kind.lower(), name, "--ignore-not-found"]
            self.cluster.kubectl(*(args + (["-n", ns] if ns else [])))
        self.applied.clear()


def configure(cluster: Cluster, *, tor2: bool = False) -> None:
    """Applies base_objects and waits until every node's session with every ToR is up (the
    agents configure the peers before anything is announced)."""
    cluster.apply(base_objects(cluster, tor2=tor2))
    for tor in cluster.tor_roles:
        wait_established(cluster, node_ips(cluster, cluster.node_names), tor=tor)


# Fixtures (imported by the test modules) ------------------------------------------------------


@pytest.fixture
def objects(cluster):
    """Objects applied by one test, deleted after it (Objects)."""
    objs = Objects(cluster)
    yield objs
    objs.cleanup()


@pytest.fixture
def show_logs_on_failure(request, cluster):
    """Prints the daemons' log tails when the test failed (they go away with the run)."""
    failed_before = request.session.testsfailed
    yield
    if request.session.testsfailed > failed_before:
        for role in sorted(cluster.procs):
            print(f"----- {role} log tail -----\n{cluster.log_tail(role, 3000)}")


@pytest.fixture
def record_figure(request):
    """Returns a function recording a measured figure (name, value, unit, note): written to the
    terminal at once and kept in the test's user_properties (junit XML). Figures are
    observations; only correctness bounds are asserted."""
    plugins = request.config.pluginmanager
    reporter = plugins.getplugin("terminalreporter")
    capture = plugins.getplugin("capturemanager")

    def record(name: str, value: float, unit: str, note: str = "") -> None:
        line = f"[figure] {request.node.nodeid}: {name} = {value:.3f} {unit} {note}".rstrip()
        request.node.user_properties.append((name, value))
        print(line)  # in the captured output, shown with -rP or on failure
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line("")
                reporter.write_line(line)
    return record
