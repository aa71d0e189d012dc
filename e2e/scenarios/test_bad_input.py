# SPDX-License-Identifier: Apache-2.0
"""Bad input against running daemons: one lab of two nodes running only ingot-agent (memberlist
+ ARP/NDP responder) and the controller with its webhooks, one IPv4 and one IPv6 Service in an
L2 pool. Each test replays one family of probes from the ToR's namespace, then checks that every
daemon still runs, that each address is still answered on the wire by exactly its elected node
(the ToR's neighbour entry for the IPv4 address names it too), and that no daemon's resident
memory grew past a generous bound (VmRSS before and after).

Probes: memberlist garbage, wrongly encrypted and oversized datagrams, unauthenticated and
endless TCP streams; webhook bodies that are not JSON, 20 MB, without request.kind or naming
another kind; random ARP/NDP frames, a VLAN-tagged ARP request, requests from broadcast, zero
and multicast senders, an NS from ff02::1; another host's DAD for an owned IPv6 address (it must
be defended: an NA to all nodes, and a real kernel's DAD fails); an ARP flood (no amplification,
nothing for an address no one owns).

Figures (printed with -s or -rP, recorded in docs/performance.md): the ARP answer time under or
right after each probe, the webhook's time for a normal review after the malformed ones, RSS
before/after. Only correctness is asserted, never a time."""

from __future__ import annotations

import ipaddress
import random
import socket
import struct
import threading
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from l2scenario import (L2_POOL, answers, expected, l2_spec, prepare, samples, vip4, vip6,
                        wait_owner, with_endpoints, agent_log)
from badinput import (ALL_NODES, BROADCAST, UNSPECIFIED, Wire, admission_review, arp, in_netns,
                      link_local, mac_bytes, neighbor_solicit, parse_arp, parse_na,
                      post_webhook, rss_kib)
from netlab import l2, manifests as m
from netlab.proc import run, wait_until
from netlab.webhooks import PORT as WEBHOOK_PORT

RSS_BOUND_KIB = 64 * 1024  # generous: a leak per probe frame would pass it many times over
MEMBERLIST_PORT = 7946
POOL_PATH = "/validate-metallb-io-v1beta1-ipaddresspool"
FLOOD = 20000


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(l2_spec(2)):
        prepare(c)
        yield c


@pytest.fixture(scope="module")
def lab(cluster):
    """The two Services, answered; their owners; the ToR's raw view of the link."""
    cluster.apply([m.l2_advertisement("all", [L2_POOL]),
                   *with_endpoints(cluster, "bad4", vip4(cluster, 40), cluster.node_names),
                   *with_endpoints(cluster, "bad6", vip6(cluster, 0x40), cluster.node_names)])
    owners = {vip4(cluster, 40): expected(cluster, "bad4"),
              vip6(cluster, 0x40): expected(cluster, "bad6")}
    for ip, node in owners.items():
        wait_owner(cluster, ip, node)
    wire = Wire(cluster.ns("tor"))
    yield {"owners": owners, "v4": vip4(cluster, 40), "v6": vip6(cluster, 0x40), "wire": wire,
           "tor_ip": cluster.address("tor"), "tor_ll": link_local(cluster.ns("tor"))}
    wire.close()


def daemons(cluster) -> dict:
    return {role: proc for role, proc in cluster.procs.items()
            if role == "controller" or role.startswith("agent-")}


def snapshot(cluster) -> dict:
    return {role: rss_kib(proc.pid) for role, proc in daemons(cluster).items()}


def check_intact(cluster, lab, before: dict, record, probe: str) -> None:
    """Every daemon alive, RSS within the bound, each address answered by its owner only (and
    the ToR's neighbour entry for the IPv4 address on the owner's MAC); records the figures."""
    for role, proc in daemons(cluster).items():
        assert proc.poll() is None, f"{role} exited {proc.returncode} after {probe}: " \
                                    f"{cluster.log_tail(role)}"
    after = snapshot(cluster)
    for role, kib in after.items():
        record(f"{probe}: {role} RSS", kib / 1024, "MiB", f"before {before[role] / 1024:.1f} MiB")
        assert kib - before[role] < RSS_BOUND_KIB, \
            f"{role} grew from {before[role]} KiB to {kib} KiB during {probe}"
    wire = lab["wire"]
    seconds, macs = wire.ask_arp(lab["tor_ip"], lab["v4"])
    owner_mac = l2.link_mac(cluster.ns(lab["owners"][lab["v4"]]))
    assert macs == [owner_mac], f"after {probe}: {lab['v4']} answered by {macs}"
    record(f"{probe}: ARP answer after", seconds * 1000, "ms")
    for ip, node in lab["owners"].items():
        assert [l2.link_mac(cluster.ns(node))] == answers(cluster, ip), f"{ip} after {probe}"
    run(["ip", "netns", "exec", cluster.ns("tor"), "ping", "-c", "1", "-W", "1", lab["v4"]],
        check=False)
    neigh = run(["ip", "-n", cluster.ns("tor"), "neigh", "show", lab["v4"]]).stdout.upper()
    assert owner_mac in neigh, f"the ToR's neighbour entry for {lab['v4']}: {neigh!r}"


def drops(cluster, node: str) -> dict:
    """reason → ingot_agent_layer2_frames_dropped_total of node's agent."""
    return {labels["reason"]: value for labels, value in
            samples(cluster, node, "ingot_agent_layer2_frames_dropped_total")}


COUNTERS = ("metallb_layer2_requests_received", "metallb_layer2_responses_sent")


def per_ip(cluster, node: str, name: str, ip: str) -> float:
    """The value of node's per-address counter name for ip (0 when absent)."""
    return sum(v for labels, v in samples(cluster, node, name) if labels.get("ip") == ip)


def timed_arp_under(cluster, lab, load) -> list:
    """Runs load() while asking the ToR's ARP for the IPv4 address every 20 ms from a second
    socket; returns the answer times in ms (None: no answer within 1 s)."""
    asker = Wire(cluster.ns("tor"))
    times, done = [], threading.Event()

    def ask():
        while not done.is_set():
            seconds, _ = asker.ask_arp(lab["tor_ip"], lab["v4"], first_only=True)
            times.append(None if seconds is None else seconds * 1000)
            time.sleep(0.02)
    thread = threading.Thread(target=ask)
    thread.start()
    try:
        load()
    finally:
        done.set()
        thread.join()
        asker.close()
    return times


def record_times(record, probe: str, times: list) -> None:
    answered = sorted(t for t in times if t is not None)
    if answered:
        record(f"{probe}: ARP answer under load (median)", answered[len(answered) // 2], "ms",
               f"worst {answered[-1]:.2f} ms, {len(times) - len(answered)} of {len(times)} "
               f"unanswered")


def test_memberlist_garbage_wrong_keys_and_endless_streams(cluster, lab, record_figure,
                                                           show_logs_on_failure):
    before = snapshot(cluster)
    leaves = {n: agent_log(cluster, n).count("NodeLeave") for n in cluster.node_names}
    targets = [(cluster.address(n), MEMBERLIST_PORT) for n in cluster.node_names]
    rng = random.Random(11)

    def datagrams():
        sock = in_netns(cluster.ns("tor"), socket.socket, socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for i in range(4000):
                target = targets[i % len(targets)]
                kind = i % 4
                if kind == 0:  # garbage of any length
                    payload = rng.randbytes(rng.randrange(1, 1400))
                elif kind == 1:  # encryption version 1 under another key
                    payload = b"\x01" + rng.randbytes(12 + 16 + rng.randrange(1, 200))
                elif kind == 2:  # plaintext ping to an encrypted member
                    payload = b"\x00" + rng.randbytes(40)
                elif i % 40 == 3:  # the largest datagram there is
                    payload = rng.randbytes(65000)
                else:  # a compound message claiming more parts than it has
                    payload = b"\x07\xff" + rng.randbytes(20)
                try:
                    sock.sendto(payload, target)
                except OSError:
                    pass
        finally:
            sock.close()

    def streams():
        for host, port in targets:
            # An unauthenticated stream of 5 MB, an encrypted header announcing 2 GiB, and a
            # header that never gets its body (cut by the stream deadline).
            for payload, hold in [(rng.randbytes(5 << 20), 0.0),
                                  (b"\x0a" + struct.pack("!I", 0x7FFFFFFF), 0.0),
                                  (b"\x0a" + struct.pack("!I", 1000) + b"x" * 10, 1.5)]:
                conn = in_netns(cluster.ns("tor"), socket.create_connection, (host, port), 5)
                try:
                    conn.sendall(payload)
                    time.sleep(hold)
                except OSError:
                    pass  # refused from its first bytes: the member closed the connection
                finally:
                    conn.close()

    times = timed_arp_under(cluster, lab, lambda: (datagrams(), streams()))
    record_times(record_figure, "memberlist garbage", times)
    for node in cluster.node_names:
        wait_until(f"{node}'s agent logs its gossip drops",
                   lambda n=node: "dropped gossip input" in agent_log(cluster, n), 10)
        # Neither member lost the other meanwhile.
        assert agent_log(cluster, node).count("NodeLeave") == leaves[node], \
            agent_log(cluster, node)[-3000:]
    check_intact(cluster, lab, before, record_figure, "memberlist garbage")


def test_webhook_malformed_bodies_are_refused(cluster, lab, record_figure, show_logs_on_failure):
    before = snapshot(cluster)
    api, tor = cluster.address("api"), cluster.ns("tor")

    def post(body: bytes, path: str = POOL_PATH):
        return post_webhook(tor, api, WEBHOOK_PORT, path, body)

    pool = m.ip_address_pool("probe", ["198.18.0.0/28"])
    pool_kind = {"group": "metallb.io", "version": "v1beta1", "kind": "IPAddressPool"}
    status, payload, _ = post(b"{not json")
    assert status == 400, (status, payload)
    status, payload, _ = post(b"")
    assert status == 400, (status, payload)
    big = b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","pad":"' + \
        b"x" * (20 << 20) + b'"}'
    status, payload, seconds = post(big)
    record_figure("webhook: 20 MB body answered", seconds * 1000, "ms", f"status {status}")
    assert status in (0, 413), (status, str(payload)[:200])
    for desc, body in [
            ("no request.kind", admission_review(None, pool)),
            ("a pool review whose kind says BGPPeer",
             admission_review(dict(pool_kind, kind="BGPPeer"), pool)),
            ("an object of another kind", admission_review(pool_kind, dict(pool, kind="BGPPeer")))]:
        status, payload, _ = post(body)
        assert status == 200, (desc, status, payload)
        response = payload["response"]
        assert response["allowed"] is False, (desc, response)
        assert response["status"]["code"] == 400, (desc, response)
    # A normal review is still served.
    status, payload, seconds = post(admission_review(pool_kind, pool))
    assert status == 200 and payload["response"]["allowed"] is True, (status, payload)
    record_figure("webhook: a normal review after the malformed ones", seconds * 1000, "ms")
    check_intact(cluster, lab, before, record_figure, "webhook bodies")


def test_malformed_and_unanswerable_l2_frames(cluster, lab, record_figure, show_logs_on_failure):
    before = snapshot(cluster)
    wire, v4, v6 = lab["wire"], lab["v4"], lab["v6"]
    owner4, owner6 = lab["owners"][v4], lab["owners"][v6]
    me = wire.mac
    fake_ip = str(ipaddress.IPv4Address(lab["tor_ip"]) + 200)  # names our bad requests
    rng = random.Random(5)
    good = [arp(me, me, fake_ip, v4),
            neighbor_solicit(me, lab["tor_ll"], v6, option_mac=me)]

    def garbage():
        for i in range(6000):
            frame = bytearray(good[i % 2])
            for _ in range(rng.randrange(1, 6)):
                frame[rng.randrange(14, len(frame))] = rng.randrange(256)
            wire.send(bytes(frame[:rng.randrange(14, len(frame) + 1)]))
    times = timed_arp_under(cluster, lab, garbage)
    record_times(record_figure, "random ARP/NDP frames", times)

    wire.collect(0.5)  # the last garbage is handled before the counters are read
    drops4, drops6 = drops(cluster, owner4), drops(cluster, owner6)
    bad = [arp(me, me, fake_ip, v4, vlan=5),                  # a VLAN no node is on
           arp(me, BROADCAST, fake_ip, v4),                   # the answer would be broadcast
           arp(me, b"\x00" * 6, fake_ip, v4),                 # ... go nowhere
           arp(me, b"\x01\x00\x5e\x00\x00\x01", fake_ip, v4),  # ... be multicast
           neighbor_solicit(me, ALL_NODES, v6, option_mac=me),  # RFC 4291: never a source
           neighbor_solicit(me, lab["tor_ll"], v6, option_mac=BROADCAST),
           neighbor_solicit(me, lab["tor_ll"], v6, option_mac=me, vlan=7)]
    for frame in bad:
        wire.send(frame)
    seen = wire.collect(1.5)
    for frame in seen:
        assert frame[12:14] != b"\x81\x00", f"a tagged frame came back: {frame.hex()}"
        p = parse_arp(frame)
        assert not (p and p["op"] == 2 and p["target_ip"] == fake_ip), \
            f"a bad request was answered: {p}"
        na = parse_na(frame)
        assert not (na and na["solicited"] and na["ip_dst"] == ALL_NODES), \
            f"an NS from ff02::1 was answered to ff02::1: {na}"
        assert not (na and na["eth_dst"] == BROADCAST), f"an NA went to broadcast: {na}"
    # Every node hears the broadcast ARP; the IPv6 owner (in the solicited-node group) the NS.
    grew4 = {r: v - drops4.get(r, 0) for r, v in drops(cluster, owner4).items()}
    assert grew4.get("foreign_vlan", 0) >= 1 and grew4.get("bad_sender", 0) >= 3, grew4
    grew6 = {r: v - drops6.get(r, 0) for r, v in drops(cluster, owner6).items()}
    assert grew6.get("foreign_vlan", 0) >= 2 and grew6.get("bad_sender", 0) >= 4 and \
        grew6.get("bad_source", 0) >= 1, grew6
    check_intact(cluster, lab, before, record_figure, "malformed L2 frames")


def test_another_hosts_dad_probe_for_an_owned_ipv6_address_is_defended(
        cluster, lab, record_figure, show_logs_on_failure):
    before = snapshot(cluster)
    wire, v6 = lab["wire"], lab["v6"]
    owner_mac = mac_bytes(l2.link_mac(cluster.ns(lab["owners"][v6])))
    wire.drain()
    start = time.monotonic()
    wire.send(neighbor_solicit(wire.mac, UNSPECIFIED, v6))
    defence = None
    while defence is None and time.monotonic() - start < 2.0:
        frame = wire.receive(2.0 - (time.monotonic() - start))
        na = parse_na(frame) if frame else None
        if na and na["target"] == ipaddress.IPv6Address(v6) and na["eth_src"] == owner_mac:
            defence = na
            record_figure("DAD probe: defended after", (time.monotonic() - start) * 1000, "ms")
    assert defence is not None, f"no NA for {v6} from its owner after a DAD probe"
    assert defence["ip_dst"] == ALL_NODES and defence["eth_dst"] == b"\x33\x33\x00\x00\x00\x01"
    assert not defence["solicited"] and defence["override"]
    # A real kernel probing the address finds it taken.
    tor = cluster.ns("tor")
    run(["ip", "netns", "exec", tor, "sysctl", "-qw", "net.ipv6.conf.eth0.accept_dad=1"])
    run(["ip", "-n", tor, "addr", "add", f"{v6}/128", "dev", "eth0"])
    try:
        wait_until(f"the ToR's DAD for {v6} fails",
                   lambda: "dadfailed" in run(["ip", "-n", tor, "-6", "addr", "show", "dev",
                                               "eth0"]).stdout, 10)
    finally:
        run(["ip", "-n", tor, "addr", "del", f"{v6}/128", "dev", "eth0"], check=False)
    # IPv4 for comparison: an ARP probe (sender 0.0.0.0) is answered to the prober.
    macs = []
    wire.drain()
    wire.send(arp(wire.mac, wire.mac, "0.0.0.0", lab["v4"]))
    for frame in wire.collect(1.0):
        p = parse_arp(frame)
        if p and p["op"] == 2 and p["sender_ip"] == lab["v4"] and p["target_mac"] == wire.mac:
            macs.append(p["sender_mac"].hex(":").upper())
    assert macs == [l2.link_mac(cluster.ns(lab["owners"][lab["v4"]]))], macs
    check_intact(cluster, lab, before, record_figure, "DAD probes")


def test_arp_flood_is_answered_one_for_one_and_never_for_unowned(cluster, lab, record_figure,
                                                                  show_logs_on_failure):
    before = snapshot(cluster)
    wire, v4 = lab["wire"], lab["v4"]
    owner = lab["owners"][v4]
    counted = {name: per_ip(cluster, owner, name, v4) for name in COUNTERS}
    unowned = vip4(cluster, 41)
    me, fake_ip = wire.mac, str(ipaddress.IPv4Address(lab["tor_ip"]) + 201)
    owned_req, unowned_req = arp(me, me, fake_ip, v4), arp(me, me, fake_ip, unowned)
    wire.drain()
    replies = {v4: 0, unowned: 0}
    stop = threading.Event()
    listener = Wire(cluster.ns("tor"))

    def listen():
        while not stop.is_set() or listener.receive(0) is not None:
            frame = listener.receive(0.2)
            p = parse_arp(frame) if frame else None
            if p and p["op"] == 2 and p["target_ip"] == fake_ip and p["sender_ip"] in replies:
                replies[p["sender_ip"]] += 1
    thread = threading.Thread(target=listen)
    thread.start()
    flood_seconds = [0.0]

    def flood():
        start = time.monotonic()
        for _ in range(FLOOD):
            wire.send(owned_req)
            wire.send(unowned_req)
        flood_seconds[0] = time.monotonic() - start
    try:
        times = timed_arp_under(cluster, lab, flood)
        time.sleep(1.0)  # the last answers
    finally:
        stop.set()
        thread.join()
        listener.close()
    record_figure("ARP flood: requests sent", 2 * FLOOD / flood_seconds[0], "frames/s",
                  f"{2 * FLOOD} in {flood_seconds[0]:.2f} s")
    grew = {name: per_ip(cluster, owner, name, v4) - counted[name] for name in COUNTERS}
    record_figure("ARP flood: owned requests answered", replies[v4], "replies",
                  f"of {FLOOD} sent; the owner counted {grew[COUNTERS[0]]:.0f} received, "
                  f"{grew[COUNTERS[1]]:.0f} answered")
    record_times(record_figure, "ARP flood", times)
    assert replies[unowned] == 0
    # One answer per request at most (the asker's own requests add to the counters).
    assert 0 < replies[v4] <= grew[COUNTERS[1]] <= grew[COUNTERS[0]] <= FLOOD + len(times)
    check_intact(cluster, lab, before, record_figure, "ARP flood")
