# SPDX-License-Identifier: Apache-2.0
"""A node dies: its agent (and, in frr-k8s mode, its frr-k8s) and its FRR's bgpd and bfdd are
killed with SIGKILL. The ToR must drop that node's next hop within the BFD detect time (the
BFDProfile's 100 ms x 3) plus a 2 s margin; the measured time is printed in the run's summary.
This is a correctness bound, not a benchmark."""

from __future__ import annotations

import os
import signal
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import POOL, configure, endpoints, node_ips, service, vip_prefix, wait_nexthops
from netlab import bgp, manifests as m
from netlab.cluster import ClusterSpec
from netlab.proc import wait_until

MARGIN = 2.0


@pytest.fixture(scope="module", params=["frr", "frr-k8s"])
def cluster(request):
    for c in start_cluster(ClusterSpec(nodes=2, mode=request.param)):
        configure(c)
        yield c


def _detect_seconds(cluster, node: str) -> float:
    """The ToR's detect time for node's BFD session: the node's multiplier times the slower of
    the ToR's required receive interval and the node's transmit interval."""
    peer = wait_until(f"BFD up with {node}", lambda: (lambda p: p if p.get("status") == "up"
                                                      else None)(
        bgp.query_bfd(cluster.tor("tor")).get(cluster.address(node), {})), 60, interval=0.2)
    interval = max(peer["receive-interval"], peer["remote-transmit-interval"])
    return peer["remote-detect-multiplier"] * interval / 1000.0


def test_killed_node_loses_its_next_hop_within_the_bfd_bound(cluster, objects, record_figure,
                                                             show_logs_on_failure):
    objects.apply(m.bgp_advertisement("all", [POOL]), service(cluster, "survivor", 40),
                  endpoints("survivor", ["node1"]))
    prefix = vip_prefix(cluster, 40)
    wait_nexthops(cluster, prefix, node_ips(cluster, cluster.node_names))
    detect = _detect_seconds(cluster, "node2")
    for role in ("agent-node2", "frr-k8s-node2"):
        proc = cluster.procs.get(role)
        if proc is not None:
            os.kill(proc.pid, signal.SIGKILL)
    router = cluster.routers["node2"]
    start = time.monotonic()
    for daemon in ("bfdd", "bgpd"):
        os.kill(router.pids[daemon].pid, signal.SIGKILL)
    wait_nexthops(cluster, prefix, node_ips(cluster, ["node1"]), timeout=detect + 30)
    took = time.monotonic() - start
    record_figure(f"next hop removed after node kill ({cluster.spec.mode})", took, "s",
                  f"(BFD detect {detect * 1000:.0f} ms, bound {detect + MARGIN:.1f} s)")
    assert took <= detect + MARGIN, (f"the ToR kept the dead node's next hop for {took:.2f} s; "
                                     f"BFD detect time {detect:.2f} s + {MARGIN} s margin")
