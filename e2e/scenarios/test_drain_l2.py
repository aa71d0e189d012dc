# SPDX-License-Identifier: Apache-2.0
"""Drain-awareness on the wire, Layer 2 (docs/drain.md): three nodes running only the agent,
with --drain-triggers cordon. Cordoning the owner of an address moves it to the next candidate
(the election without the cordoned node, as every agent reads the same Node); the cordoned
node's ConfigurationState says it drains; uncordoning moves the address back.

The order of the hand-off, on the wire (an ARP request every 10 ms from the ToR): the new owner
answers before the old one stops, i.e. the old owner still answers a probe after the new
owner's first answer, so no probe falls between the two. The old owner stops once the new
owner's ServiceL2Status names it (docs/drain.md)."""

from __future__ import annotations

import dataclasses
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from l2scenario import (L2_POOL, ArpWatch, expected, l2_spec, prepare, vip4, wait_owner,
                        with_endpoints)
from netlab import manifests as m
from netlab.proc import wait_until
from test_drain import DRAIN_ARGS, cordon, drain_condition


@pytest.fixture(scope="module")
def cluster():
    spec = l2_spec(3)
    spec = dataclasses.replace(spec, agent_args=(*spec.agent_args, *DRAIN_ARGS))
    for c in start_cluster(spec):
        prepare(c)
        yield c


def test_cordoned_owner_hands_its_address_to_the_next_candidate(cluster, objects,
                                                                show_logs_on_failure):
    ip = vip4(cluster, 42)
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *with_endpoints(cluster, "handoff", ip, cluster.node_names))
    owner = expected(cluster, "handoff")
    wait_owner(cluster, ip, owner)
    next_owner = expected(cluster, "handoff", live=[n for n in cluster.node_names if n != owner])
    watch = ArpWatch(cluster, ip)
    start = time.monotonic()
    cordon(cluster, owner)
    try:
        wait_owner(cluster, ip, next_owner)
        data = watch.stop()
        new = [t for t, node in data["replies"] if node == next_owner and t >= start]
        old = [t for t, node in data["replies"] if node == owner and t >= start]
        assert new, data["replies"][-5:]
        assert old and max(old) > min(new), (
            f"{owner} stopped answering at {max(old, default=start) - start:.3f} s, before "
            f"{next_owner} first answered at {min(new) - start:.3f} s")
        cond = wait_until(f"{owner}'s ConfigurationState says draining",
                          lambda: drain_condition(cluster, owner) or None, 30)
        assert "cordoned" in cond["message"], cond
    finally:
        cordon(cluster, owner, False)
    wait_owner(cluster, ip, owner)
    wait_until(f"{owner}'s draining condition cleared",
               lambda: drain_condition(cluster, owner) == {}, 30)
