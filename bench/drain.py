#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Planned node maintenance over BGP as traffic sees it: drain-awareness on and off side by side
in one run. Root; FRR; a built ingot-agent, ingot-controller and ingotctl (as the cluster lab).
Prints figures; asserts nothing.

    /usr/bin/python3 bench/drain_bgp.py [--mode frr|frr-k8s] [--nodes 3] [--pps 2000]
                                        [--flows 64] [--delay 3]

For each system (off: the agents' defaults, MetalLB's behaviour; on: --drain-triggers cordon
--drain-delay <delay>s) a fresh cluster lab announces one ECMP VIP (ETP Cluster, endpoints on
every node) to the ToR, whose inbound policy is RFC 8326's (e2e/netlab/torconf.py). Every node
holds the VIP on lo and runs a UDP echo server; the ToR namespace sends a steady stream of
sequence-numbered datagrams over --flows source ports (the ToR hashes flows on L4 over the
installed next hops) and counts the echoes. Then `kubectl drain` semantics on the last node:
cordon, wait --delay + 2 s, and the node stops (its FRR's bgpd/bfdd, its agent and its echo
server SIGKILLed, its VIP removed). The ToR notices the dead node through BFD (100 ms x 3)
unless the node moved its traffic away first. Lost = datagrams sent and never echoed (the
last 0.5 s excluded).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "e2e"))
sys.path.insert(0, str(BENCH.parent / "e2e" / "scenarios"))

from netlab import manifests as m  # noqa: E402
from netlab.cluster import Cluster, ClusterSpec  # noqa: E402
from scenario import (POOL, configure, endpoints, node_ips, service, vip,  # noqa: E402
                      vip_prefix, wait_nexthops)

PORT = 9999
ECHO = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
while True:
    data, peer = s.recvfrom(64)
    s.sendto(data, peer)
"""
# Sends seq-numbered datagrams round-robin over N sockets at a fixed rate for T seconds and
# prints "sent <n>" then one "<flow> <seq>" line per echo received.
STREAM = r"""
import selectors, socket, sys, time
dst, port, flows, pps, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), float(sys.argv[5])
socks = []
for _ in range(flows):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    socks.append(s)
sel = selectors.DefaultSelector()
for i, s in enumerate(socks):
    sel.register(s, selectors.EVENT_READ, i)
got, sent, start = [], [], time.monotonic()
n = 0
while True:
    now = time.monotonic()
    if now - start > seconds + 1.0:
        break
    while now - start <= seconds and n < (now - start) * pps:
        flow = n % flows
        try:
            socks[flow].sendto(n.to_bytes(8, "big"), (dst, port))
            sent.append((n, now - start))
        except OSError:
            pass
        n += 1
    for key, _ in sel.select(timeout=0.0005):
        try:
            while True:
                data = key.fileobj.recv(64)
                got.append(int.from_bytes(data[:8], "big"))
        except BlockingIOError:
            pass
print("sent", len(sent))
echoed = set(got)
lost = [t for seq, t in sent if seq not in echoed and t < seconds - 0.5]
print("lost", len(lost))
if lost:
    print("lost_window", f"{min(lost):.3f}", f"{max(lost):.3f}")
"""


def ns_run(ns: str, *argv: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(["ip", "netns", "exec", ns, *argv], **kw)


def one(mode: str, nodes: int, drain: bool, pps: int, flows: int, delay: float) -> dict:
    args = ("--drain-triggers", "cordon", "--drain-delay", f"{delay:g}s") if drain else ()
    cluster = Cluster(ClusterSpec(nodes=nodes, mode=mode, agent_args=args)).up()
    echoes = []
    try:
        configure(cluster)
        names = cluster.node_names
        cluster.apply([m.bgp_advertisement("all", [POOL]), service(cluster, "stream", 7),
                       endpoints("stream", names)])
        wait_nexthops(cluster, vip_prefix(cluster, 7), node_ips(cluster, names))
        ip = vip(cluster, 7)
        tor = cluster.ns("tor")
        subprocess.run(["ip", "netns", "exec", tor, "sysctl", "-qw",
                        "net.ipv4.fib_multipath_hash_policy=1"], check=True)
        for n in names:
            subprocess.run(["ip", "-n", cluster.ns(n), "addr", "add", f"{ip}/32", "dev", "lo"],
                           check=True)
            echoes.append(ns_run(cluster.ns(n), sys.executable, "-c", ECHO, str(PORT)))
        time.sleep(1)
        total = delay + 8.0
        stream = ns_run(tor, sys.executable, "-c", STREAM, ip, str(PORT), str(flows), str(pps),
                        str(total), stdout=subprocess.PIPE, text=True)
        time.sleep(2.0)
        victim = names[-1]
        cordon_at = time.monotonic()
        cluster.client.merge_patch("Node", victim, "", {"spec": {"unschedulable": True}})
        time.sleep(delay + 2.0)
        stop_at = time.monotonic()
        for role in (f"agent-{victim}",):
            proc = cluster.procs.get(role)
            if proc is not None:
                os.kill(proc.pid, signal.SIGKILL)
        for daemon in ("bfdd", "bgpd"):
            os.kill(cluster.routers[victim].pids[daemon].pid, signal.SIGKILL)
        echoes[-1].kill()
        subprocess.run(["ip", "-n", cluster.ns(victim), "addr", "del", f"{ip}/32", "dev", "lo"])
        out, _ = stream.communicate(timeout=total + 30)
        fields = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
        return {"system": "on" if drain else "off", "mode": mode, "sent": int(fields["sent"]),
                "lost": int(fields["lost"]), "window": fields.get("lost_window", "-"),
                "cordon_to_stop_s": stop_at - cordon_at}
    finally:
        for e in echoes:
            e.kill()
        cluster.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="frr", choices=("frr", "frr-k8s"))
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--pps", type=int, default=2000)
    p.add_argument("--flows", type=int, default=64)
    p.add_argument("--delay", type=float, default=3.0)
    a = p.parse_args()
    rows = [one(a.mode, a.nodes, drain, a.pps, a.flows, a.delay) for drain in (False, True)]
    print(f"\n{'drain-awareness':16} {'mode':8} {'sent':>7} {'lost':>6}  lost window (s into run)")
    for r in rows:
        print(f"{r['system']:16} {r['mode']:8} {r['sent']:7} {r['lost']:6}  {r['window']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
