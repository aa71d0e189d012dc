# SPDX-License-Identifier: Apache-2.0
"""Layer 2 on the wire, one lab of three nodes running only ingot-agent (memberlist + ARP/NDP
responder). Every expectation is the election `ingotctl plan` computes on the cluster's
objects; every observation is who answers ARP (IPv4) or Neighbor Solicitations (IPv6) on the
lab bridge, asked from the ToR, where exactly one MAC must answer: the winner's.

Covered: the winner for several IPv4 and IPv6 addresses (and its ServiceL2Status); dual-stack
Services answered by the node MetalLB elects on the first address of their status (a status
MetalLB wrote IPv6 first, adopted by a restarted controller; requested addresses); a killed
agent's addresses move to the next candidate and come back only where the returning node wins
(watched by an ARP probe: only the interim owner and the winner answer, the returning agent joins
memberlist only once synced and announces with gratuitous ARP); an agent stopped with SIGTERM
leaves gracefully and comes back the same way; metallb_speaker_announced follows the address;
L2Advertisement node selectors, the exclude-from-external-load-balancers label and the
NetworkUnavailable condition; externalTrafficPolicy Local following its endpoints; a shared
address; the interfaces list (a missing interface: no answer, and the winner's announceFailed
Warning); a deleted Service is no longer answered; address conflict detection (a rogue host
owning a new Service's address: nobody of the cluster answers, AddressConflict names the rogue's
MAC, the conflict gauge is set; the address is announced once the rogue lets it go) and that a
failover and a take-back send no probe."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import NS, endpoints
from l2scenario import (CONVERGE, L2_POOL, ArpWatch, agent_log, announced_l2, answers,
                        dual_service, expected, hold_owner, l2_spec, longest_silence,
                        metallb_order, prepare, samples, status_node, vip4, vip6, wait_owner,
                        with_endpoints)
from netlab import l2, manifests as m
from netlab.proc import kill_pid, run, wait_until

EXCLUDE = "node.kubernetes.io/exclude-from-external-load-balancers"
RACKS = {"node1": {"rack": "r1"}, "node2": {"rack": "r1"}, "node3": {"rack": "r2"}}


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(l2_spec(3, RACKS)):
        prepare(c)
        yield c


def _apply_services(cluster, objects, services, nodes=None) -> dict:
    """Applies an all-node advertisement and one Service (endpoints on nodes, default all)
    per (name, ip); returns name → the elected node."""
    objects.apply(m.l2_advertisement("all", [L2_POOL]))
    for name, ip in services:
        objects.apply(*with_endpoints(cluster, name, ip, nodes or cluster.node_names))
    return {name: expected(cluster, name) for name, _ in services}


def test_each_address_is_answered_by_the_elected_node_only(cluster, objects,
                                                           show_logs_on_failure):
    services = [(f"win{i}", vip4(cluster, 10 + i)) for i in range(4)]
    services += [(f"win6-{i}", vip6(cluster, 0x10 + i)) for i in range(2)]
    winners = _apply_services(cluster, objects, services)
    assert len(set(winners.values())) > 1, f"the election put every address on one node: {winners}"
    for name, ip in services:
        wait_owner(cluster, ip, winners[name])
    for name, _ in services:
        assert status_node(cluster, name) == [winners[name]], f"ServiceL2Status of {name}"
    objects.delete("Service", "win0")
    wait_owner(cluster, services[0][1], None)
    hold_owner(cluster, services[0][1], None)
    assert status_node(cluster, "win0") == []


def _check_take_back(cluster, data: dict, restart: float, node: str, interim: str,
                     record_figure) -> None:
    """What a client saw of one address while node's agent came back and took it back from
    interim: only those two answered, node announced itself with gratuitous ARP, and node's
    agent bound memberlist (became visible to the others) only after its caches synced and
    answered nothing before it had joined."""
    after = [who for t, who in data["replies"] if t >= restart]
    assert set(after) <= {node, interim}, f"answers during the take-back: {Counter(after)}"
    assert node in after, f"{node} never answered the watch: {Counter(after)}"
    garps = Counter(who for t, who in data["gratuitous"] if t >= restart)
    assert garps[node] > 0, f"no gratuitous ARP from {node} after its restart: {garps}"
    log = agent_log(cluster, node)
    order = [log.find(mark) for mark in ('"caches_synced"', '"memberlist started"',
                                         '"memberlist joined')]
    assert -1 < order[0] < order[1] < order[2], f"{node}: startup order {order}"
    first_answer = log.find('"answering ARP/NDP for the service"')
    assert first_answer == -1 or first_answer > order[2], f"{node} answered before joining"
    record_figure(f"take-back silence ({node})", longest_silence(data, restart), "s",
                  "longest run of unanswered ARP probes")


def test_killed_agent_hands_over_and_takes_back_only_what_it_wins(cluster, objects,
                                                                  show_logs_on_failure,
                                                                  record_figure):
    services = [(f"ha{i}", vip4(cluster, 20 + i)) for i in range(6)]
    winners = _apply_services(cluster, objects, services)
    victim = Counter(winners.values()).most_common(1)[0][0]
    survivors = [n for n in cluster.node_names if n != victim]
    for name, ip in services:
        wait_owner(cluster, ip, winners[name])
    watched, watched_ip = next((n, ip) for n, ip in services if winners[n] == victim)
    os.kill(cluster.procs[f"agent-{victim}"].pid, signal.SIGKILL)
    cluster.procs[f"agent-{victim}"].wait(timeout=10)
    watch = None
    try:
        for name, ip in services:
            wait_owner(cluster, ip, expected(cluster, name, live=survivors))
        watch = ArpWatch(cluster, watched_ip)
    finally:
        restart = time.monotonic()
        cluster.start_agent(victim)
    for name, ip in services:
        wait_owner(cluster, ip, winners[name])
    _check_take_back(cluster, watch.stop(), restart, victim,
                     expected(cluster, watched, live=survivors), record_figure)


def _leaves(cluster, node: str, gone: str, how: str) -> int:
    return agent_log(cluster, node).count(f'"node name":"{gone}","node event":"NodeLeave",'
                                          f'"left":"{how}"')


def test_stopped_agent_leaves_gracefully_and_comes_back_announcing(cluster, objects,
                                                                   show_logs_on_failure,
                                                                   record_figure):
    """SIGTERM: the agent leaves memberlist, so no failure detection is involved (the others log
    a graceful leave, never a death) and its addresses go to the next candidates; started again,
    it takes back what it wins, announcing it with gratuitous ARP."""
    services = [(f"term{i}", vip4(cluster, 80 + i)) for i in range(4)]
    winners = _apply_services(cluster, objects, services)
    victim = Counter(winners.values()).most_common(1)[0][0]
    survivors = [n for n in cluster.node_names if n != victim]
    for name, ip in services:
        wait_owner(cluster, ip, winners[name])
    watched, watched_ip = next((n, ip) for n, ip in services if winners[n] == victim)
    dead_before = {n: _leaves(cluster, n, victim, "declared dead") for n in survivors}
    watch = ArpWatch(cluster, watched_ip)
    proc = cluster.procs[f"agent-{victim}"]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, cluster.log_tail(f"agent-{victim}")
    assert '"left memberlist cluster"' in agent_log(cluster, victim)
    try:
        for node in survivors:
            wait_until(f"{node} sees {victim} leave", lambda n=node: _leaves(
                cluster, n, victim, "gracefully") > 0, CONVERGE)
        for name, ip in services:
            wait_owner(cluster, ip, expected(cluster, name, live=survivors))
        assert {n: _leaves(cluster, n, victim, "declared dead") for n in survivors} == dead_before
    finally:
        restart = time.monotonic()
        cluster.start_agent(victim)
    for name, ip in services:
        wait_owner(cluster, ip, winners[name])
    _check_take_back(cluster, watch.stop(), restart, victim,
                     expected(cluster, watched, live=survivors), record_figure)


def _layer2_samples(cluster, node: str, prefix: str) -> set:
    return {s for s in announced_l2(cluster, node) if s[0].startswith(f"{NS}/{prefix}")}


def test_announced_metric_follows_the_address(cluster, objects, show_logs_on_failure):
    """metallb_speaker_announced{protocol="layer2"}: only the node answering for an address
    exports it; a node that loses it (here: excluded by label, its agent still running) clears
    its sample, and the node taking it back clears the interim owner's."""
    ip = vip4(cluster, 90)
    winner = _apply_services(cluster, objects, [("metric", ip)])["metric"]
    sample = {(f"{NS}/metric", ip)}
    wait_owner(cluster, ip, winner)

    def exported(want: dict) -> None:
        for node in cluster.node_names:
            wait_until(f"{node} exports {want.get(node, set())}", lambda n=node: _layer2_samples(
                cluster, n, "metric") == want.get(n, set()), CONVERGE)
    exported({winner: sample})
    cluster.kubectl("label", "node", winner, f"{EXCLUDE}=")
    try:
        other = expected(cluster, "metric")
        assert other != winner, "ingotctl plan still elects the excluded node"
        wait_owner(cluster, ip, other)
        exported({other: sample})
    finally:
        cluster.kubectl("label", "node", winner, f"{EXCLUDE}-")
    wait_owner(cluster, ip, winner)
    exported({winner: sample})
    objects.delete("Service", "metric")
    wait_owner(cluster, ip, None)
    exported({})


def test_node_selectors_and_the_exclude_label_choose_the_candidates(cluster, objects,
                                                                     show_logs_on_failure):
    ip = vip4(cluster, 30)
    objects.apply(m.l2_advertisement("rack2", [L2_POOL], node_selector={"rack": "r2"}),
                  *with_endpoints(cluster, "sel", ip, cluster.node_names))
    assert expected(cluster, "sel") == "node3"
    wait_owner(cluster, ip, "node3")
    cluster.kubectl("label", "node", "node3", f"{EXCLUDE}=")
    try:
        wait_owner(cluster, ip, None)
        hold_owner(cluster, ip, None)
    finally:
        cluster.kubectl("label", "node", "node3", f"{EXCLUDE}-")
    wait_owner(cluster, ip, "node3")


def _set_network_unavailable(cluster, node: str, unavailable: bool) -> None:
    conditions = [{"type": "Ready", "status": "True"}]
    if unavailable:
        conditions.append({"type": "NetworkUnavailable", "status": "True"})
    cluster.client.merge_patch("Node", node, "", {"status": {"conditions": conditions}},
                               "status")


def test_network_unavailable_node_is_no_candidate(cluster, objects, show_logs_on_failure):
    ip = vip4(cluster, 40)
    winner = _apply_services(cluster, objects, [("netu", ip)])["netu"]
    wait_owner(cluster, ip, winner)
    _set_network_unavailable(cluster, winner, True)
    try:
        other = expected(cluster, "netu")
        assert other != winner, "ingotctl plan still elects the NetworkUnavailable node"
        wait_owner(cluster, ip, other)
    finally:
        _set_network_unavailable(cluster, winner, False)
    wait_owner(cluster, ip, winner)


def test_etp_local_follows_the_endpoints(cluster, objects, show_logs_on_failure):
    ip = vip4(cluster, 50)
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *with_endpoints(cluster, "local", ip, ["node2"], policy="Local"))
    for nodes in (["node2"], ["node3"], ["node1", "node3"], ["node1"]):
        objects.apply(endpoints("local", nodes))
        want = expected(cluster, "local")
        assert want in nodes
        wait_owner(cluster, ip, want)
    slice_ = endpoints("local", ["node1"])
    slice_["endpoints"][0]["conditions"] = {"ready": False, "serving": False,
                                            "terminating": False}
    objects.apply(slice_)
    wait_owner(cluster, ip, None)


def test_shared_address_has_one_owner_until_its_last_service_goes(cluster, objects,
                                                                   show_logs_on_failure):
    ip = vip4(cluster, 60)
    share = {"metallb.io/allow-shared-ip": "pair"}
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *with_endpoints(cluster, "share-a", ip, cluster.node_names,
                                  annotations=share, port=80),
                  *with_endpoints(cluster, "share-b", ip, cluster.node_names,
                                  annotations=share, port=443))
    winner = expected(cluster, "share-a")
    assert expected(cluster, "share-b") == winner
    wait_owner(cluster, ip, winner)
    objects.delete("Service", "share-a")
    hold_owner(cluster, ip, winner)
    objects.delete("Service", "share-b")
    wait_owner(cluster, ip, None)


def test_interfaces_list_restricts_where_the_address_is_answered(cluster, objects,
                                                                  show_logs_on_failure):
    ip, ip6 = vip4(cluster, 70), vip6(cluster, 0x70)
    objects.apply(m.l2_advertisement("eth0-only", [L2_POOL], interfaces=["eth0"]),
                  *with_endpoints(cluster, "ifv4", ip, cluster.node_names),
                  *with_endpoints(cluster, "ifv6", ip6, cluster.node_names))
    wait_owner(cluster, ip, expected(cluster, "ifv4"))
    wait_owner(cluster, ip6, expected(cluster, "ifv6"))
    objects.apply(m.l2_advertisement("eth0-only", [L2_POOL], interfaces=["nosuch0"]))
    wait_owner(cluster, ip, None)
    wait_owner(cluster, ip6, None)
    winner = expected(cluster, "ifv4")
    wait_until("the announceFailed Warning on ifv4", lambda: [
        e for e in cluster.client.list("Event", NS)
        if e.get("reason") == "announceFailed" and e.get("type") == "Warning"
        and e.get("involvedObject", {}).get("name") == "ifv4" and winner in e.get("message", "")],
        CONVERGE)


def _events(cluster, service: str, reason: str) -> list:
    return [e for e in cluster.client.list("Event", NS) if e.get("reason") == reason
            and e.get("involvedObject", {}).get("name") == service]


def _conflicts(cluster, node: str, ip: str) -> list:
    """(mac, interface) of node's ingot_agent_layer2_address_conflicts samples for ip."""
    return [(labels.get("mac"), labels.get("interface")) for labels, _ in
            samples(cluster, node, "ingot_agent_layer2_address_conflicts")
            if labels.get("ip") == ip]


def _total(cluster, node: str, name: str) -> float:
    return sum(value for _, value in samples(cluster, node, name))


def test_address_of_another_host_is_announced_only_once_free(cluster, objects,
                                                             show_logs_on_failure):
    """A host outside the cluster (a namespace on the lab bridge) owns the address of a new
    Service: its winner probes, finds the rogue's MAC, answers nothing and says so (Warning
    AddressConflict with IP, MAC and interface; the conflict gauge). The rogue drops the
    address: the winner's next probe round finds it free and announces it (gratuitous ARP)."""
    ip = vip4(cluster, 100)
    rogue = cluster.lab.add_host("rogue", 250, forwarding=False)
    try:
        rogue_mac = l2.link_mac(rogue.namespace)
        run(["ip", "-n", rogue.namespace, "addr", "add", f"{ip}/32", "dev", "eth0"])
        wait_until("the rogue answers", lambda: answers(cluster, ip) == [rogue_mac], CONVERGE)
        winner = _apply_services(cluster, objects, [("conflict", ip)])["conflict"]
        mac = rogue_mac.lower()
        wait_until("the AddressConflict Warning", lambda: [
            e for e in _events(cluster, "conflict", "AddressConflict")
            if e.get("type") == "Warning" and all(
                part in e.get("message", "") for part in (ip, mac, "eth0", winner))], CONVERGE)
        wait_until("the conflict gauge", lambda: _conflicts(cluster, winner, ip) == [
            (mac, "eth0")], CONVERGE)
        assert _total(cluster, winner, "ingot_agent_layer2_address_conflicts_detected_total") >= 1
        assert answers(cluster, ip) == [rogue_mac], "a cluster node answers a conflicting address"
        assert status_node(cluster, "conflict") == []
        assert (f"{NS}/conflict", ip) not in announced_l2(cluster, winner)
        watch = ArpWatch(cluster, ip)
        freed = time.monotonic()
        run(["ip", "-n", rogue.namespace, "addr", "del", f"{ip}/32", "dev", "eth0"])
        wait_owner(cluster, ip, winner)
        garps = [who for t, who in watch.stop()["gratuitous"] if t >= freed]
        assert winner in garps, f"no gratuitous ARP from {winner} once free: {Counter(garps)}"
        wait_until("the conflict gauge clears", lambda: _conflicts(cluster, winner, ip) == [],
                   CONVERGE)
        wait_until("the AddressConflictCleared Event", lambda: _events(
            cluster, "conflict", "AddressConflictCleared"), CONVERGE)
        wait_until("the ServiceL2Status", lambda: status_node(cluster, "conflict") == [winner],
                   CONVERGE)
    finally:
        run(["ip", "netns", "del", rogue.namespace], check=False)
        cluster.lab.hosts.pop("rogue", None)


def test_failover_and_take_back_send_no_probe(cluster, objects, show_logs_on_failure):
    """An address answered before (its ServiceL2Status exists) moves without probes: the
    interim owner and the returning agent send none, and nobody reports a conflict."""
    ip = vip4(cluster, 101)
    winner = _apply_services(cluster, objects, [("failover", ip)])["failover"]
    wait_owner(cluster, ip, winner)
    wait_until("the ServiceL2Status", lambda: status_node(cluster, "failover") == [winner],
               CONVERGE)
    survivors = [n for n in cluster.node_names if n != winner]
    interim = expected(cluster, "failover", live=survivors)
    sent = _total(cluster, interim, "ingot_agent_layer2_probes_sent_total")
    proc = cluster.procs[f"agent-{winner}"]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, cluster.log_tail(f"agent-{winner}")
    try:
        wait_owner(cluster, ip, interim)
        assert _total(cluster, interim, "ingot_agent_layer2_probes_sent_total") == sent
    finally:
        cluster.start_agent(winner)
    wait_owner(cluster, ip, winner)
    # Between the interim's first answer and its ServiceL2Status write, a returning agent sees
    # no status and probes one round (docs/l2.md); it hears only a member's MAC, so never more.
    assert _total(cluster, winner, "ingot_agent_layer2_probes_sent_total") <= 3
    for node in cluster.node_names:
        assert _conflicts(cluster, node, ip) == []
    assert _events(cluster, "failover", "AddressConflict") == []


def _ingress(cluster, name: str) -> list:
    svc = cluster.client.get("Service", name, NS) or {}
    return [i.get("ip") for i in svc.get("status", {}).get("loadBalancer", {}).get("ingress", [])]


def _pair_electing_apart(cluster, first_index: int) -> tuple:
    """The first (IPv4, IPv6) VIP pair from first_index on whose two addresses MetalLB's
    election gives to different nodes, so that the order of a status decides the owner."""
    for i in range(first_index, first_index + 40):
        v4, v6 = vip4(cluster, i), vip6(cluster, 0x100 + i)
        if metallb_order(v4, cluster.node_names)[0] != metallb_order(v6, cluster.node_names)[0]:
            return v4, v6
    raise AssertionError("no VIP pair whose addresses elect different nodes")


def test_dual_stack_owner_is_metallbs_in_either_family_order(cluster, objects,
                                                            show_logs_on_failure):
    """MetalLB's speakers elect a dual-stack Service on the first address of its status. A
    Service whose status MetalLB wrote IPv6 first (ipFamilies [IPv6, IPv4]) keeps that status
    when Ingot's controller takes over (it is stopped while the status is written, as before a
    migration, and its first full pass leaves the Service alone), and both of its addresses are
    answered (NDP and ARP) by the owner of the IPv6 address according to the Go oracle of
    MetalLB's election, not by the owner of the IPv4 one. A new Service requesting
    "IPv6,IPv4" gets MetalLB's status, text order (IPv4 first here), and the owner of its IPv4
    address. ingotctl plan and the ServiceL2Status name the same nodes."""
    nodes = cluster.node_names
    mv4, mv6 = _pair_electing_apart(cluster, 110)
    rv4, rv6 = _pair_electing_apart(cluster, 160)
    owner_m, owner_r = metallb_order(mv6, nodes)[0], metallb_order(rv4, nodes)[0]
    objects.apply(m.l2_advertisement("all", [L2_POOL]))
    migrated = dual_service(cluster, "ds-migrated", ["IPv6", "IPv4"],
                            {"metallb.io/ip-allocated-from-pool": L2_POOL})
    log = cluster.logdir / "controller.log"
    kill_pid(cluster.procs["controller"].pid)
    try:
        objects.apply(migrated, endpoints("ds-migrated", nodes))
        cluster.client.merge_patch("Service", "ds-migrated", NS, {"status": {"loadBalancer": {
            "ingress": [{"ip": mv6}, {"ip": mv4}]}}}, "status")
        offset = log.stat().st_size
    finally:
        cluster.start_controller()

    def loaded() -> bool:
        with open(log, "rb") as f:
            f.seek(offset)
            return b'"event":"initial_load_done"' in f.read()
    wait_until("the restarted controller's first full pass", loaded, CONVERGE, interval=0.1)
    objects.apply(dual_service(cluster, "ds-requested", ["IPv6", "IPv4"],
                               {"metallb.io/loadBalancerIPs": f"{rv6},{rv4}"}),
                  endpoints("ds-requested", nodes))
    wait_until("the requested addresses", lambda: _ingress(cluster, "ds-requested"), CONVERGE)
    assert _ingress(cluster, "ds-requested") == [rv4, rv6]
    assert expected(cluster, "ds-migrated") == owner_m
    assert expected(cluster, "ds-requested") == owner_r
    for ip, owner in ((mv6, owner_m), (mv4, owner_m), (rv4, owner_r), (rv6, owner_r)):
        wait_owner(cluster, ip, owner)
    hold_owner(cluster, mv4, owner_m)
    wait_until("the ServiceL2Status of ds-migrated",
               lambda: status_node(cluster, "ds-migrated") == [owner_m], CONVERGE)
    wait_until("the ServiceL2Status of ds-requested",
               lambda: status_node(cluster, "ds-requested") == [owner_r], CONVERGE)
    assert _ingress(cluster, "ds-migrated") == [mv6, mv4]
    with open(log, "rb") as f:
        f.seek(offset)
        written = [line for line in f.read().decode(errors="replace").splitlines()
                   if '"service addresses written"' in line and f"{NS}/ds-migrated" in line]
    assert written == [], f"the controller rewrote the adopted status: {written}"
