# SPDX-License-Identifier: Apache-2.0
"""frr and frr-k8s mode (ingot-frr) under bulk change, and frr mode under agent restarts,
without an outage: 1,000 Services appear at once and then disappear at once, and (frr mode) each
node's agent is stopped with SIGTERM and SIGKILL and started again. Throughout, ten unrelated
sentinel Services must keep both next hops at the ToR (its kernel table is polled, and `ip
monitor` reports every deletion), and no BGP session or BFD session with the ToR may go down (the
ToR's established/dropped counters and BFD session-up/down counters do not move). Waits are bounded; the times are printed as figures, not asserted."""

from __future__ import annotations

import os
import signal
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import wait_bfd_up, wait_established
from netlab import bgp, manifests as m
from netlab.bulk import BULK_POOL, BulkServices, last_seen
from netlab.cluster import NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until
from netlab.watch import RouteWatcher

NS = "bulk"
SENTINELS = range(0, 10)
BULK = 1000
BOUND = 120.0  # seconds any wait may take (bounded polling; never asserted as a figure)


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    # No client-side API throttling: the controller's 1,000 status writes would take 50 s at its
    # default 20 qps, and the figures are about the agent and FRR. In frr-k8s mode the agents
    # write FRRConfigurations and ingot-frr applies them to each node's FRR.
    no_qps = ("--kube-api-qps", "0")
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param, agent_args=no_qps,
                                       controller_args=no_qps)):
        # BFD at FRR's defaults (300 ms x 3): the lab shares two cores with builds.
        c.apply([m.namespace(NS), m.ip_address_pool("bulk", [BULK_POOL]),
                 m.bfd_profile("bulk-bfd", 300, 300, 3),
                 m.bgp_peer("tor", NODE_ASN, TOR_ASN, c.address("tor"),
                            bfd_profile_name="bulk-bfd"),
                 m.bgp_advertisement("bulk", ["bulk"])])
        peers = sorted(c.address(n) for n in c.node_names)
        wait_established(c, peers)
        # BFD comes up after BGP: a first session-up inside a test would read as a flap.
        wait_bfd_up(c, peers)
        yield c


@pytest.fixture(scope="module")
def bulk(cluster):
    """The Services, with the sentinels announced from both nodes."""
    b = BulkServices(cluster, NS)
    b.create(SENTINELS, nodes=cluster.node_names)
    hops = tuple(sorted(cluster.address(n) for n in cluster.node_names))
    b.wait(lambda r: all(r.get(b.prefix(i)) == hops for i in SENTINELS), BOUND,
           "sentinel routes via both nodes")
    return b


class Outage:
    """Watches the sentinels and the ToR's sessions around a change; check() fails on a
    sentinel route that lost a next hop, a BGP session reset or a BFD flap."""

    def __init__(self, cluster, bulk: BulkServices):
        self.router = cluster.tor("tor")
        expected = {bulk.prefix(i): len(cluster.node_names) for i in SENTINELS}
        self.watcher = RouteWatcher(bulk.tor_ns, expected, ledger=cluster.ledger)

    def __enter__(self) -> "Outage":
        self.sessions = bgp.query_sessions(self.router)
        self.bfd = bgp.query_bfd_counters(self.router)
        self.watcher.start()
        return self

    def __exit__(self, *exc) -> None:
        self.report = self.watcher.stop()

    def check(self) -> None:
        problems = bgp.session_resets(self.sessions, bgp.query_sessions(self.router))
        problems += bgp.bfd_flaps(self.bfd, bgp.query_bfd_counters(self.router))
        problems += [f"sentinel route lost a next hop: {g}" for g in self.report.gaps]
        problems += [f"sentinel route deleted: {line}" for line in self.report.deleted_events]
        assert not problems, "\n".join(problems)
        assert self.report.samples > 0, "the ToR was never read"


def test_1000_services_appear_and_disappear_without_an_outage(cluster, bulk, record_figure,
                                                             show_logs_on_failure):
    indices = range(1000, 1000 + BULK)
    names = {f"{NS}/s{i}" for i in indices}
    logs = [cluster.logdir / f"agent-{n}.log" for n in cluster.node_names]
    hops = tuple(sorted(cluster.address(n) for n in cluster.node_names))
    with Outage(cluster, bulk) as outage:
        bulk.create(indices)
        added = bulk.wait(lambda r: all(r.get(bulk.prefix(i)) == hops for i in indices), BOUND,
                          f"{BULK} new routes via both nodes")
        added_at = time.time()
        bulk.delete(indices)
        removed = bulk.wait(lambda r: not any(bulk.prefix(i) in r for i in indices), BOUND,
                            f"{BULK} routes withdrawn")
        removed_at = time.time()
    outage.check()
    mode = cluster.spec.mode
    record_figure(f"{BULK} Services ({mode}): all routes at the ToR after the last API write",
                  added, "s")
    record_figure(f"{BULK} Services ({mode}): all routes at the ToR after the agents saw the "
                  "last one", added_at - last_seen(logs, "serviceAnnounced", names), "s")
    record_figure(f"{BULK} Services deleted ({mode}): all routes gone after the last API write",
                  removed, "s")
    record_figure(f"{BULK} Services deleted ({mode}): all routes gone after the agents saw the "
                  "last one", removed_at - last_seen(logs, "serviceWithdrawn", names), "s")


def _agent_log_size(cluster, node: str) -> int:
    try:
        return (cluster.logdir / f"agent-{node}.log").stat().st_size
    except OSError:
        return 0


def _restart(cluster, node: str, sig: int) -> None:
    """Stops node's agent with sig, starts it again and waits for its start-up full reload."""
    offset = _agent_log_size(cluster, node)
    proc = cluster.procs[f"agent-{node}"]
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    cluster.start_agent(node)
    log = cluster.logdir / f"agent-{node}.log"

    def reloaded() -> bool:
        with open(log, "rb") as f:
            f.seek(offset)
            tail = f.read().decode(errors="replace")
        return any('"event":"frr_applied"' in line and '"reason":"start-up"' in line
                   for line in tail.splitlines())
    wait_until(f"{node}: the restarted agent's start-up apply", reloaded, BOUND, interval=0.1)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_agent_restart_withdraws_no_route(cluster, bulk, sig, show_logs_on_failure):
    if cluster.spec.mode != "frr":
        pytest.skip("frr mode: there the agent itself applies to FRR (its start-up full reload)")
    with Outage(cluster, bulk) as outage:
        for node in cluster.node_names:
            _restart(cluster, node, sig)
    outage.check()
