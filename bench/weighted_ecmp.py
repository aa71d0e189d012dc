#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Endpoint-weighted ECMP as the ToR applies it (docs/weighted-ecmp.md): how fast a weight change
reaches the ToR's kernel route next to an ordinary route change, and how flows split between the
nodes, weighted and unweighted, in one run. Root; FRR; a built ingot-agent, ingot-controller and
ingotctl (as the cluster lab). Prints figures; asserts nothing.

    /usr/bin/python3 bench/weighted_ecmp.py [--mode frr|frr-k8s] [--changes 20] [--flows 10000]

A two-node cluster lab with a FRR ToR (multipath, FRR's default link-bandwidth handling,
e2e/netlab/torconf.py) and three externalTrafficPolicy Local Services:
- W opts in (ingot.dev/weighted-ecmp), endpoints 3 on node1 and 1 on node2;
- U does not, same endpoints (the unweighted split);
- R does not, one endpoint on node1 and one on node2 that comes and goes.

(a) Latency: --changes times, alternately, W's endpoints switch between 3:1 and 1:1 (a weight
change: the kernel route's weights go 75/25 ↔ 50/50) and R's node2 endpoint is added or removed
(an ordinary route change: node2 announces or withdraws, the kernel route gains or loses a next
hop). Each is timed from the EndpointSlice PATCH (sent to the API server from this process) to
the first `ip -j route show` in the ToR namespace that shows the new route (polled back to back,
a few ms apart).

(b) Split: a client namespace behind the ToR (its own veth to the ToR, which forwards and hashes
flows on L4: fib_multipath_hash_policy=1) sends one UDP datagram from each of --flows distinct
source ports to W's address and as many to U's. Both nodes hold both addresses on lo and count
the datagrams per address (a UDP socket per address; nothing answers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "e2e"))
sys.path.insert(0, str(BENCH.parent / "e2e" / "scenarios"))

from netlab import manifests as m  # noqa: E402
from netlab.cluster import Cluster, ClusterSpec  # noqa: E402
from netlab.watch import read_kernel_weights  # noqa: E402
from scenario import (NS, POOL, configure, endpoints_per_node as spread, service, vip,  # noqa: E402
                      vip_prefix, weights_match as close_to)

PORT = 9999
WEIGHTED = {"ingot.dev/weighted-ecmp": "true"}
CLIENT_NET = ("192.0.2.1", "192.0.2.2")  # the ToR's and the client's end of their veth

# Counts datagrams per local address until SIGTERM, then prints {address: count} as JSON.
COUNT = r"""
import json, selectors, signal, socket, sys
counts, sel = {}, selectors.DefaultSelector()
for addr in sys.argv[2:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((addr, int(sys.argv[1])))
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, addr)
    counts[addr] = 0
def done(*_):
    print(json.dumps(counts), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
print("ready", flush=True)
while True:
    for key, _ in sel.select(timeout=0.5):
        try:
            while True:
                key.fileobj.recv(64)
                counts[key.data] += 1
        except BlockingIOError:
            pass
"""
# One datagram to each address from each source port base..base+flows-1, paced.
SEND = r"""
import socket, sys, time
src, port, base, flows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for dst in sys.argv[5:]:
    for i in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((src, base + i))
        s.sendto(b"x", (dst, port))
        s.close()
        if i % 200 == 199:
            time.sleep(0.01)
"""


def opted_in(cluster: Cluster, name: str, index: int, weighted: bool) -> dict:
    svc = service(cluster, name, index, policy="Local")
    if weighted:
        svc["metadata"]["annotations"].update(WEIGHTED)
    return svc


def timed_change(cluster: Cluster, tor_ns: str, name: str, counts: dict, prefix: str,
                 want: dict, timeout: float = 60.0) -> float:
    """PATCHes name's EndpointSlice to counts; returns the seconds until the ToR's kernel route
    of prefix has the next hops and weights want."""
    endpoints = spread(name, counts)["endpoints"]
    start = time.monotonic()
    cluster.client.merge_patch("EndpointSlice", f"{name}-lab", NS, {"endpoints": endpoints})
    while time.monotonic() - start < timeout:
        if close_to(read_kernel_weights(tor_ns, prefix), want):
            return time.monotonic() - start
        time.sleep(0.002)
    raise RuntimeError(f"{prefix}: not {want} after {timeout} s")


def wait_weights(tor_ns: str, prefix: str, want: dict, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not close_to(read_kernel_weights(tor_ns, prefix), want):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{prefix}: {read_kernel_weights(tor_ns, prefix)}, not {want}")
        time.sleep(0.1)


def sh(*argv: str) -> None:
    subprocess.run(list(argv), check=True)


def add_client(cluster: Cluster) -> str:
    """A namespace behind the ToR: veth to the ToR, default route through it."""
    client = cluster.ns("wclient")
    cluster.ledger.add_namespace(client)
    tor = cluster.ns("tor")
    a, b = f"wca{os.getpid() % 100000}", f"wcb{os.getpid() % 100000}"
    sh("ip", "netns", "add", client)
    sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
    sh("ip", "link", "set", a, "netns", tor)
    sh("ip", "link", "set", b, "netns", client)
    sh("ip", "-n", tor, "addr", "add", f"{CLIENT_NET[0]}/30", "dev", a)
    sh("ip", "-n", client, "addr", "add", f"{CLIENT_NET[1]}/30", "dev", b)
    for ns, dev in ((tor, a), (client, b), (client, "lo")):
        sh("ip", "-n", ns, "link", "set", dev, "up")
    sh("ip", "-n", client, "route", "add", "default", "via", CLIENT_NET[0])
    sh("ip", "netns", "exec", tor, "sysctl", "-qw", "net.ipv4.fib_multipath_hash_policy=1")
    return client


def split(cluster: Cluster, client: str, vips: list, flows: int) -> dict:
    """Returns node → {vip: datagrams received}."""
    counters = {}
    for n in cluster.node_names:
        ns = cluster.ns(n)
        for v in vips:
            sh("ip", "-n", ns, "addr", "add", f"{v}/32", "dev", "lo")
        for key in ("all", "eth0", "lo"):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv4.conf.{key}.rp_filter=0")
        p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", COUNT, str(PORT),
                              *vips], stdout=subprocess.PIPE, text=True)
        cluster.ledger.add_process(p.pid, ns, "python3")
        assert p.stdout.readline().strip() == "ready"
        counters[n] = p
    try:
        sh("ip", "netns", "exec", client, sys.executable, "-c", SEND, CLIENT_NET[1], str(PORT),
           "20000", str(flows), *vips)
        time.sleep(1.0)
    finally:
        out = {}
        for n, p in counters.items():
            p.terminate()
            text, _ = p.communicate(timeout=10)
            out[n] = json.loads(text.strip().splitlines()[-1])
    return out


def pct(values: list, q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def run(mode: str, changes: int, flows: int) -> None:
    cluster = Cluster(ClusterSpec(nodes=2, mode=mode)).up()
    client = None
    try:
        configure(cluster)
        addr = {n: cluster.address(n) for n in cluster.node_names}
        tor = cluster.ns("tor")
        w, u, r = (vip_prefix(cluster, i) for i in (29, 30, 31))
        cluster.apply([m.bgp_advertisement("all", [POOL]),
                       opted_in(cluster, "w", 29, True), spread("w", {"node1": 3, "node2": 1}),
                       opted_in(cluster, "u", 30, False), spread("u", {"node1": 3, "node2": 1}),
                       opted_in(cluster, "r", 31, False), spread("r", {"node1": 1, "node2": 1})])
        wait_weights(tor, w, {addr["node1"]: 3, addr["node2"]: 1})
        wait_weights(tor, u, {addr["node1"]: 1, addr["node2"]: 1})
        wait_weights(tor, r, {addr["node1"]: 1, addr["node2"]: 1})
        weight_s, route_s = [], []
        for i in range(changes):
            wc = {"node1": 1, "node2": 1} if i % 2 == 0 else {"node1": 3, "node2": 1}
            weight_s.append(timed_change(cluster, tor, "w", wc, w,
                                         {addr[n]: c for n, c in wc.items()}))
            rc = {"node1": 1, "node2": 0} if i % 2 == 0 else {"node1": 1, "node2": 1}
            route_s.append(timed_change(cluster, tor, "r", rc, r,
                                        {addr[n]: c for n, c in rc.items() if c}))
            time.sleep(0.3)
        # W back at 3:1 for the split
        if changes % 2:
            timed_change(cluster, tor, "w", {"node1": 3, "node2": 1}, w,
                         {addr["node1"]: 3, addr["node2"]: 1})
        kw, ku = read_kernel_weights(tor, w), read_kernel_weights(tor, u)
        print(f"\nmode {mode}: ToR kernel weights W {kw}, U {ku}")
        print(f"{'change':28} {'n':>3} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        for label, xs in (("weight (3:1 <-> 1:1)", weight_s),
                          ("route (announce/withdraw)", route_s)):
            print(f"{label:28} {len(xs):3} {statistics.median(xs) * 1000:8.0f} "
                  f"{pct(xs, 0.99) * 1000:8.0f} {max(xs) * 1000:8.0f}")
        client = add_client(cluster)
        counts = split(cluster, client, [vip(cluster, 29), vip(cluster, 30)], flows)
        print(f"\n{'service':22} {'sent':>6} {'node1':>6} {'node2':>6} {'node1 share':>11} "
              f"{'expected':>8} {'error':>7}")
        for label, v, expected in (("W weighted (3:1)", vip(cluster, 29), 0.75),
                                   ("U unweighted", vip(cluster, 30), 0.5)):
            n1, n2 = counts["node1"][v], counts["node2"][v]
            share = n1 / (n1 + n2) if n1 + n2 else 0.0
            print(f"{label:22} {flows:6} {n1:6} {n2:6} {share:11.4f} {expected:8.2f} "
                  f"{(share - expected) / expected * 100:+6.2f}%")
    finally:
        if client is not None:
            subprocess.run(["ip", "netns", "del", client])
        cluster.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="frr", choices=("frr", "frr-k8s"))
    p.add_argument("--changes", type=int, default=20)
    p.add_argument("--flows", type=int, default=10000)
    a = p.parse_args()
    run(a.mode, a.changes, a.flows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
