# SPDX-License-Identifier: Apache-2.0
"""Layer 2 hold-down on the wire: a lab of three nodes whose agents run with --l2-hold-down 10s.
The owner of an address is killed (SIGKILL) and restarted ten times in a row; an ARP watch on
the ToR (a client on the segment, asking every 10 ms) must see the address move away once, to
the next candidate, and back once, after the hold-down of the last restart, and never two nodes
answering it side by side outside the instant of that one take-back."""

from __future__ import annotations

import dataclasses
import os
import signal
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from l2scenario import (CONVERGE, L2_POOL, ArpWatch, expected, l2_spec, longest_silence, prepare,
                        status_node, vip4, wait_owner, with_endpoints)
from netlab import manifests as m
from netlab.proc import wait_until

HOLD_DOWN = 10.0  # seconds, --l2-hold-down of every agent
RESTARTS = 10
STARTED: dict = {}  # run name → time.monotonic() when the lab's agents were running


@pytest.fixture(scope="module")
def cluster():
    spec = l2_spec(3)
    spec = dataclasses.replace(spec, agent_args=(*spec.agent_args, "--l2-hold-down", "10s"))
    for c in start_cluster(spec):
        STARTED[c.run_name] = time.monotonic()
        prepare(c)
        yield c


def _log(cluster, node: str) -> str:
    """Every line node's agents wrote (the lab appends the restarts to one file)."""
    return (cluster.logdir / f"agent-{node}.log").read_text(errors="replace")


def _kill(cluster, node: str) -> None:
    proc = cluster.procs[f"agent-{node}"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _restart_joined(cluster, node: str) -> None:
    """Starts node's agent again and waits until it joined memberlist (the others see it)."""
    joins = _log(cluster, node).count('"memberlist joined')
    cluster.start_agent(node)
    wait_until(f"{node}'s agent joined memberlist",
               lambda: _log(cluster, node).count('"memberlist joined') > joins, CONVERGE)


def _answer_runs(data: dict) -> list:
    """Who answered each probe (the replies between it and the next probe), as runs: a list of
    [sorted tuple of nodes, number of probes]; unanswered probes are left out."""
    sends = sorted(data["sends"])
    replies = sorted(data["replies"])
    runs: list = []
    j = 0
    for i, t in enumerate(sends):
        nxt = sends[i + 1] if i + 1 < len(sends) else float("inf")
        who = set()
        while j < len(replies) and replies[j][0] < nxt:
            if replies[j][0] >= t:
                who.add(replies[j][1])
            j += 1
        if not who:
            continue
        key = tuple(sorted(who))
        if runs and runs[-1][0] == key:
            runs[-1][1] += 1
        else:
            runs.append([key, 1])
    return runs


def test_a_flapping_owner_moves_its_address_away_once_and_back_once(cluster, objects,
                                                                     show_logs_on_failure,
                                                                     record_figure):
    ip = vip4(cluster, 40)
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *with_endpoints(cluster, "flap", ip, cluster.node_names))
    victim = expected(cluster, "flap")
    survivors = [n for n in cluster.node_names if n != victim]
    interim = expected(cluster, "flap", live=survivors)
    wait_owner(cluster, ip, victim)
    # The rule holds back a returning node only when another member joined at least a hold-down
    # before it: the lab's agents must have been members that long (a precondition in time, not a
    # synchronisation).
    wait_until("the agents have been members for a hold-down",
               lambda: time.monotonic() - STARTED[cluster.run_name] > HOLD_DOWN, HOLD_DOWN + 5,
               interval=0.2)
    watch = ArpWatch(cluster, ip)
    flap_start = time.monotonic()
    try:
        _kill(cluster, victim)
        wait_owner(cluster, ip, interim)
        for _ in range(RESTARTS - 1):
            _restart_joined(cluster, victim)
            _kill(cluster, victim)
        _restart_joined(cluster, victim)  # the tenth restart stays up
        flap_seconds = time.monotonic() - flap_start
        wait_owner(cluster, ip, victim, timeout=HOLD_DOWN + CONVERGE)
    finally:
        data = watch.stop()
    runs = _answer_runs(data)
    sequence = [who for who, _ in runs]
    both = tuple(sorted((victim, interim)))
    # Away once (no overlap possible: the owner is dead), back once; two nodes may answer the
    # same probe only at the one instant the address goes back (each agent's own timer ends the
    # hold-down, a few milliseconds apart).
    assert sequence in ([(victim,), (interim,), (victim,)],
                        [(victim,), (interim,), both, (victim,)]), f"answer runs: {runs}"
    wait_until(f"ServiceL2Status names only {victim}",
               lambda: status_node(cluster, "flap") == [victim], CONVERGE)
    for node in survivors:
        held = [line for line in _log(cluster, node).splitlines()
                if '"event":"heldDown"' in line and f'"node":"{victim}"' in line]
        assert held, f"{node} never logged {victim} held down"
    record_figure("flap duration", flap_seconds, "s", f"{RESTARTS} kills and restarts")
    record_figure("probes answered by two nodes", sum(n for who, n in runs if len(who) > 1),
                  "probes", "at the take-back, 10 ms apart")
    record_figure("longest silence", longest_silence(data, flap_start), "s",
                  "longest run of unanswered ARP probes during the flap")
