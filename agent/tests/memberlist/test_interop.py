# SPDX-License-Identifier: Apache-2.0
"""Ingot's memberlist against hashicorp/memberlist (Debian's Go package) on 127.0.0.1, every
port chosen by the kernel. Go members run DefaultLANConfig (MetalLB's timing), Ingot members
their fast default, so every cluster here is also a mixed-timing cluster."""

import pytest

from memberlist_peers import Peer, build_go_peer, ingot_peer_binary, wait_for

SECRET = "interop-secret-not-32-bytes"


@pytest.fixture(scope="module")
def go_peer():
    binary, reason = build_go_peer()
    if binary is None:
        pytest.skip(reason)
    return binary


@pytest.fixture
def cluster(tmp_path, go_peer):
    peers = []
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    other = tmp_path / "other"
    other.write_text("a different secret")

    def start(kind, name, join=None, port=0, key=secret, meta=None):
        argv = ([str(go_peer)] if kind == "go" else [str(ingot_peer_binary())])
        dash = "-" if kind == "go" else "--"
        argv += [dash + "name", name, dash + "port", str(port), dash + "secret-file", str(key)]
        if meta is not None:
            argv += ["--meta", meta]
        if join is not None:
            argv += [dash + "join", f"127.0.0.1:{join.port}"]
        peer = Peer(argv, name)
        peers.append(peer)
        return peer

    start.other_key = other
    yield start
    for p in peers:
        p.kill()


def converged(peers, names):
    return all(p.members() == names for p in peers)


def check_kill_and_restart(start, live, victim, kind, seed):
    names = {p.name for p in live} | {victim.name}
    victim.kill()
    wait_for(lambda: converged(live, names - {victim.name}), 30,
             f"{victim.name} declared dead by {[p.name for p in live]}")
    back = start(kind, victim.name, join=seed, port=victim.port)
    wait_for(lambda: converged(live + [back], names), 30, f"{victim.name} alive again")


def test_ingot_joins_a_go_cluster_and_both_sides_track_death_and_restart(cluster):
    g1 = cluster("go", "g1")
    g2 = cluster("go", "g2", join=g1)
    i1 = cluster("ingot", "i1", join=g1)
    wait_for(lambda: converged([g1, g2, i1], {"g1", "g2", "i1"}), 20, "three members everywhere")
    check_kill_and_restart(cluster, [g1, i1], g2, "go", g1)
    assert i1.counters().get("drop_decrypt", 0) == 0


def test_go_joins_an_ingot_cluster_and_both_sides_track_death_and_restart(cluster):
    i1 = cluster("ingot", "i1")
    i2 = cluster("ingot", "i2", join=i1)
    g1 = cluster("go", "g1", join=i1)
    wait_for(lambda: converged([i1, i2, g1], {"i1", "i2", "g1"}), 20, "three members everywhere")
    check_kill_and_restart(cluster, [i1, g1], i2, "ingot", i1)


def test_graceful_leave_is_seen_by_go(cluster):
    i1 = cluster("ingot", "i1")
    g1 = cluster("go", "g1", join=i1)
    wait_for(lambda: converged([i1, g1], {"i1", "g1"}), 20, "two members")
    i1.command("leave", "left")
    wait_for(lambda: g1.members() == {"g1"}, 10, "g1 saw i1 leave")
    assert any(line == "event leave i1" for _, line in list(g1.events))


@pytest.mark.parametrize("joiner", ["go", "ingot"])
def test_a_member_with_the_wrong_key_does_not_join(cluster, joiner):
    seed = cluster("ingot" if joiner == "go" else "go", "seed")
    intruder = cluster(joiner, "intruder", join=seed, key=cluster.other_key)
    ingot = seed if joiner == "go" else intruder
    wait_for(lambda: ingot.counters().get("drop_decrypt", 0) > 0, 10,
             "the Ingot side counted undecryptable input")
    assert seed.members() == {"seed"}
    assert intruder.members() == {"intruder"}


def hold_down(peer, now_ms):
    """(held names, off reason) of the Layer 2 hold-down rule over peer's members at now_ms."""
    line = peer.command(f"holddown {now_ms}", "holddown")
    held, _, off = line.split(" ", 1)[1].partition(" off=")
    return set(filter(None, held.removeprefix("held=").split(","))), off


def test_a_go_member_switches_the_hold_down_off_for_every_ingot_member(cluster):
    """Ingot agents advertise when they joined and their hold-down; a MetalLB speaker (a Go
    member) advertises nothing, and its arrival over the wire must switch the rule off on every
    Ingot member, and its death switch it back on."""
    hour = 3_600_000
    now = 10 * hour
    i1 = cluster("ingot", "i1", meta=f"ingot/1 joined=0 holddown={hour}")
    i2 = cluster("ingot", "i2", join=i1, meta=f"ingot/1 joined={now} holddown={hour}")
    wait_for(lambda: converged([i1, i2], {"i1", "i2"}), 20, "two members")
    assert hold_down(i1, now) == hold_down(i2, now) == ({"i2"}, "")
    g1 = cluster("go", "g1", join=i1)
    wait_for(lambda: converged([i1, i2, g1], {"i1", "i2", "g1"}), 20, "three members")
    off = (set(), "member g1 is not an Ingot agent")
    assert hold_down(i1, now) == hold_down(i2, now) == off
    g1.kill()
    wait_for(lambda: converged([i1, i2], {"i1", "i2"}), 30, "g1 declared dead")
    assert hold_down(i1, now) == hold_down(i2, now) == ({"i2"}, "")
