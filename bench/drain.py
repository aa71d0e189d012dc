#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Planned node maintenance as traffic sees it: drain-awareness on and off side by side in one
run, for an ECMP BGP VIP and a Layer 2 VIP of the same cluster. Root; FRR; a built ingot-agent,
ingot-controller, ingotctl (and ingot-frr for frr-k8s), as the cluster lab. Prints figures;
asserts nothing.

    /usr/bin/python3 bench/drain.py [--mode frr|frr-k8s] [--nodes 3] [--pps 1000]
                                    [--cps 100] [--flows 64] [--delay 3]

For each system (off: the agents' defaults, MetalLB's behaviour; on: --drain-triggers cordon
--drain-delay <delay>s) a fresh cluster lab of --nodes nodes gets two Services (ETP Cluster,
endpoints on every node): one in a BGP pool (the first half of the lab's VIP block), announced
to the ToR, whose inbound policy is RFC 8326's (e2e/netlab/torconf.py) and whose BFD runs at
100 ms x 3; one in a Layer 2 pool (the second half), which the ToR reaches through an on-link
route. Every node holds both VIPs on lo with arp_ignore=1 / arp_announce=2 (the kernel accepts
the traffic but answers no ARP: only the agents' responders do) and runs a UDP echo server and
a TCP acceptor. The ToR namespace, per VIP: a stream of --pps sequence-numbered datagrams/s over
--flows source ports (the ToR hashes flows on L4 over the installed next hops), counting the
echoes; and --cps TCP connects/s, each from a new source port, failed when not established
within 1 s. The drained node is the Layer 2 VIP's owner. `kubectl drain` semantics: cordon,
wait --delay + 2 s, then the node stops: its FRR's bgpd/bfdd, its agent and its servers are
SIGKILLed, its VIPs removed from lo and its eth0 set down. Lost = datagrams sent and never
echoed; failed = connects not established (the last second excluded from both).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "e2e"))
sys.path.insert(0, str(BENCH.parent / "e2e" / "scenarios"))

from netlab import l2, manifests as m  # noqa: E402
from netlab.cluster import Cluster, ClusterSpec  # noqa: E402
from netlab.proc import wait_until  # noqa: E402
from scenario import (NS, POOL, base_objects, endpoints, node_ips,  # noqa: E402
                      wait_established, wait_nexthops)

UDP_PORT, TCP_PORT = 9999, 9998
L2_POOL = "l2-pool"
# Per node: echoes UDP datagrams and accepts (then closes) TCP connections, on every address.
SERVERS = r"""
import selectors, socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("0.0.0.0", int(sys.argv[1])))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("0.0.0.0", int(sys.argv[2])))
t.listen(4096)
sel = selectors.DefaultSelector()
sel.register(u, selectors.EVENT_READ, "u")
sel.register(t, selectors.EVENT_READ, "t")
while True:
    for key, _ in sel.select():
        if key.data == "u":
            data, peer = u.recvfrom(64)
            u.sendto(data, peer)
        else:
            c, _ = t.accept()
            c.close()
"""
# In the ToR: a UDP stream and TCP connects to one VIP for T seconds; prints "sent", "lost",
# "lost_window" (seconds into the run), "connects", "failed", "failed_window".
CLIENT = r"""
import errno, selectors, socket, sys, time
dst, uport, tport, flows, pps, cps, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
sel = selectors.DefaultSelector()
socks = []
for i in range(flows):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, ("u", i))
    socks.append(s)
got, sent, start = set(), [], time.monotonic()
pending, done = {}, []  # connect socket -> start time; (start, ok)
n = c = 0
while True:
    now = time.monotonic() - start
    if now > seconds + 1.5 and not pending:
        break
    while now <= seconds and n < now * pps:
        try:
            socks[n % flows].sendto(n.to_bytes(8, "big"), (dst, uport))
            sent.append((n, now))
        except OSError:
            pass
        n += 1
    while now <= seconds and c < now * cps:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
        err = s.connect_ex((dst, tport))
        if err in (0, errno.EINPROGRESS):
            pending[s] = now
            sel.register(s, selectors.EVENT_WRITE, ("t", 0))
        else:
            done.append((now, False))
            s.close()
        c += 1
    for key, _ in sel.select(timeout=0.0005):
        kind, _ = key.data
        if kind == "u":
            try:
                while True:
                    got.add(int.from_bytes(key.fileobj.recv(64)[:8], "big"))
            except BlockingIOError:
                pass
        else:
            s = key.fileobj
            ok = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
            done.append((pending.pop(s), ok))
            sel.unregister(s)
            s.close()
    for s, t0 in list(pending.items()):
        if now - t0 > 1.0:
            done.append((pending.pop(s), False))
            sel.unregister(s)
            s.close()
lost = [t for seq, t in sent if seq not in got and t < seconds - 1.0]
failed = [t for t, ok in done if not ok and t < seconds - 1.0]
print("sent", len(sent))
print("lost", len(lost))
print("lost_window", f"{min(lost):.2f}-{max(lost):.2f}" if lost else "-")
print("connects", len([t for t, _ in done if t < seconds - 1.0]))
print("failed", len(failed))
print("failed_window", f"{min(failed):.2f}-{max(failed):.2f}" if failed else "-")
"""


def ns_run(ns: str, *argv: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(["ip", "netns", "exec", ns, *argv], **kw)


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True)


def pools(cluster: Cluster) -> tuple:
    """The BGP and the Layer 2 halves of the lab's VIP block."""
    bgp_half, l2_half = cluster.lab.addressing.vip_v4.subnets(prefixlen_diff=1)
    return bgp_half, l2_half


def setup(cluster: Cluster) -> tuple:
    """The objects, the VIPs on lo, the servers; returns (bgp VIP, L2 VIP, server processes)."""
    bgp_half, l2_half = pools(cluster)
    bgp_ip, l2_ip = str(bgp_half.network_address + 7), str(l2_half.network_address + 7)
    objs = [o for o in base_objects(cluster) if o["kind"] != "IPAddressPool"]
    objs += [m.ip_address_pool(POOL, [str(bgp_half)]), m.ip_address_pool(L2_POOL, [str(l2_half)]),
             m.bgp_advertisement("all", [POOL]), m.l2_advertisement("all", [L2_POOL])]
    names = cluster.node_names
    for name, ip, index in (("bgpvip", bgp_ip, 7), ("l2vip", l2_ip, 8)):
        objs += [m.service(name, NS, ip, cluster_ip=f"10.96.100.{index}",
                           annotations={"metallb.io/loadBalancerIPs": ip}),
                 endpoints(name, names)]
    cluster.apply(objs)
    wait_established(cluster, node_ips(cluster, names))
    wait_nexthops(cluster, f"{bgp_ip}/32", node_ips(cluster, names))
    tor = cluster.ns("tor")
    l2.add_onlink_routes(tor, [str(l2_half)])
    sh("ip", "netns", "exec", tor, "sysctl", "-qw", "net.ipv4.fib_multipath_hash_policy=1")
    servers = []
    for n in names:
        ns = cluster.ns(n)
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1",
           "net.ipv4.conf.all.arp_announce=2", "net.ipv4.conf.eth0.arp_ignore=1",
           "net.ipv4.conf.eth0.arp_announce=2")
        for ip in (bgp_ip, l2_ip):
            sh("ip", "-n", ns, "addr", "add", f"{ip}/32", "dev", "lo")
        servers.append(ns_run(ns, sys.executable, "-c", SERVERS, str(UDP_PORT), str(TCP_PORT)))
    wait_until("the Layer 2 VIP has one owner",
               lambda: len(l2.l2_owners(cluster.client).get(f"{NS}/l2vip", [])) == 1, 60)
    return bgp_ip, l2_ip, servers


def stop_node(cluster: Cluster, node: str, vips, server: subprocess.Popen) -> None:
    proc = cluster.procs.get(f"agent-{node}")
    if proc is not None:
        os.kill(proc.pid, signal.SIGKILL)
    for daemon in ("bfdd", "bgpd"):
        os.kill(cluster.routers[node].pids[daemon].pid, signal.SIGKILL)
    server.kill()
    for ip in vips:
        subprocess.run(["ip", "-n", cluster.ns(node), "addr", "del", f"{ip}/32", "dev", "lo"])
    subprocess.run(["ip", "-n", cluster.ns(node), "link", "set", "eth0", "down"])


def one(mode: str, nodes: int, drain: bool, a) -> list:
    args = ("--drain-triggers", "cordon", "--drain-delay", f"{a.delay:g}s") if drain else ()
    cluster = Cluster(ClusterSpec(nodes=nodes, mode=mode, agent_args=args)).up()
    servers = []
    try:
        bgp_ip, l2_ip, servers = setup(cluster)
        victim = l2.l2_owners(cluster.client)[f"{NS}/l2vip"][0]
        time.sleep(1)
        total = a.delay + 9.0
        clients = {vip: ns_run(cluster.ns("tor"), sys.executable, "-c", CLIENT, ip,
                               str(UDP_PORT), str(TCP_PORT), str(a.flows), str(a.pps),
                               str(a.cps), str(total), stdout=subprocess.PIPE, text=True)
                   for vip, ip in (("bgp", bgp_ip), ("l2", l2_ip))}
        time.sleep(2.0)
        cluster.client.merge_patch("Node", victim, "", {"spec": {"unschedulable": True}})
        time.sleep(a.delay + 2.0)
        stop_node(cluster, victim, (bgp_ip, l2_ip), servers[cluster.node_names.index(victim)])
        rows = []
        for vip, proc in clients.items():
            out, _ = proc.communicate(timeout=total + 60)
            f = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
            rows.append({"drain": "on" if drain else "off", "mode": mode, "vip": vip, **f})
        return rows
    finally:
        for s in servers:
            s.kill()
        cluster.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="frr", choices=("frr", "frr-k8s"))
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--pps", type=int, default=1000)
    p.add_argument("--cps", type=int, default=100)
    p.add_argument("--flows", type=int, default=64)
    p.add_argument("--delay", type=float, default=3.0)
    a = p.parse_args()
    rows = [r for drain in (False, True) for r in one(a.mode, a.nodes, drain, a)]
    print(f"\n{'drain':6} {'mode':8} {'vip':4} {'sent':>6} {'lost':>5} {'lost window':>12} "
          f"{'connects':>8} {'failed':>6} {'failed window':>13}   (windows: s into the run)")
    for r in rows:
        print(f"{r['drain']:6} {r['mode']:8} {r['vip']:4} {r['sent']:>6} {r['lost']:>5} "
              f"{r['lost_window']:>12} {r['connects']:>8} {r['failed']:>6} "
              f"{r['failed_window']:>13}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
