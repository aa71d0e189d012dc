# SPDX-License-Identifier: Apache-2.0
"""Layer 2 hold-down on the wire: a lab of three nodes whose agents run with --l2-hold-down 10s.
The owner of an address is killed (SIGKILL) and restarted ten times in a row; an ARP watch on
the ToR (a client on the segment, asking every 10 ms) must see the address move away once, to
the next candidate, and back once, after the hold-down of the last restart, and never two nodes
answering the same probe while the node flaps; each surviving agent's decisions move it exactly
once each way."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import NS
from l2scenario import (CONVERGE, L2_POOL, ArpWatch, expected, l2_spec, longest_silence, prepare,
                        status_node, vip4, wait_owner, with_endpoints)
from netlab import manifests as m
from netlab.proc import wait_until

HOLD_DOWN = 10.0  # seconds, --l2-hold-down of every agent
RESTARTS = 10
STARTED: dict = {}  # run name → time.monotonic() when the lab's agents were running


# Failure detection that a starved process survives (docs/performance.md: the fast default
# declares a member dead after ~300 ms without CPU, and this test restarts agents back to back on
# a 2-core machine). A live member falsely declared dead makes two nodes answer whatever the
# hold-down does; this test is about the hold-down, so it checks that this did not happen.
TUNING = {"ProbeInterval": "1s", "ProbeTimeout": "500ms", "SuspicionMult": 4}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tuning = tmp_path_factory.mktemp("hold-down") / "memberlist.json"
    tuning.write_text(json.dumps(TUNING))
    spec = l2_spec(3)
    spec = dataclasses.replace(spec, agent_args=(*spec.agent_args, "--l2-hold-down", "10s",
                                                 "--ml-tuning-path", str(tuning)))
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


def _answered(data: dict) -> list:
    """(send time, sorted tuple of the nodes that answered) per probe, from the replies between
    it and the next probe; unanswered probes are left out."""
    sends = sorted(data["sends"])
    replies = sorted(data["replies"])
    out = []
    j = 0
    for i, t in enumerate(sends):
        nxt = sends[i + 1] if i + 1 < len(sends) else float("inf")
        who = set()
        while j < len(replies) and replies[j][0] < nxt:
            if replies[j][0] >= t:
                who.add(replies[j][1])
            j += 1
        if who:
            out.append((t, tuple(sorted(who))))
    return out


def _winners(cluster, node: str) -> list:
    """The winners node's agent logged for Service flap, in order, repeats collapsed (and the
    "no winner" of the moments before its endpoints were known left out at the start)."""
    out: list = []
    for line in _log(cluster, node).splitlines():
        if '"op":"layer2"' in line and f'"key":"{NS}/flap"' in line:
            winner = json.loads(line).get("winner", "")
            if (out or winner) and (not out or out[-1] != winner):
                out.append(winner)
    return out


def _owners(answered: list) -> list:
    """The nodes that answered alone, in order, each run of probes collapsed to one entry."""
    out: list = []
    for _, who in answered:
        if len(who) == 1 and (not out or out[-1] != who[0]):
            out.append(who[0])
    return out


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
        last_restart = time.monotonic()
        _restart_joined(cluster, victim)  # the tenth restart stays up
        flap_seconds = time.monotonic() - flap_start
        wait_owner(cluster, ip, victim, timeout=HOLD_DOWN + CONVERGE)
    finally:
        data = watch.stop()
    for node in survivors:
        other = next(n for n in survivors if n != node)
        assert f'"node name":"{other}","node event":"NodeLeave"' not in _log(cluster, node), \
            f"{node} declared the live {other} dead: failure detection, not hold-down, misfired"
    answered = _answered(data)
    flapping = [(t, who) for t, who in answered if t < last_restart]
    back = [(t, who) for t, who in answered if t >= last_restart]
    # While the node flapped the address moved away once, to the next candidate, and two nodes
    # never answered the same probe (no split brain).
    assert _owners(flapping) == [victim, interim], f"owners in order: {_owners(flapping)}"
    assert all(len(who) == 1 for _, who in flapping), \
        f"answered by two nodes: {[a for a in flapping if len(a[1]) > 1]}"
    # Back once: after the last restart only those two answered, and the victim at the end. At
    # the take-back both may answer a probe or a few: each agent's own timer ends the hold-down.
    assert {n for _, who in back for n in who} <= {victim, interim}, \
        f"answering after the last restart: {sorted({n for _, who in back for n in who})}"
    assert back and back[-1][1] == (victim,), f"last answers: {back[-5:]}"
    # The survivors' decisions moved the address exactly once each way.
    for node in survivors:
        assert _winners(cluster, node) == [victim, interim, victim], f"{node}'s decisions"
    wait_until(f"ServiceL2Status names only {victim}",
               lambda: status_node(cluster, "flap") == [victim], CONVERGE)
    for node in survivors:
        held = [line for line in _log(cluster, node).splitlines()
                if '"event":"heldDown"' in line and f'"node":"{victim}"' in line]
        assert held, f"{node} never logged {victim} held down"
    record_figure("flap duration", flap_seconds, "s", f"{RESTARTS} kills and restarts")
    record_figure("probes answered by two nodes", sum(len(who) > 1 for _, who in back), "probes",
                  "at the take-back, 10 ms apart")
    record_figure("longest silence", longest_silence(data, flap_start), "s",
                  "longest run of unanswered ARP probes during the flap")
