#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Failure-detection time, false suspicions and probe traffic of Ingot's memberlist, 5 members
on 127.0.0.1 (ports from the kernel), for several timings, optionally under CPU load.

    /usr/bin/python3 bench/memberlist_timing.py [--soak 60] [--rounds 5] [--load 2]
        [--timing fast lan pi50 pi200 ...] [--peer build/agent/ingot-memberlist-peer]

For each timing: start 5 ingot-memberlist-peer processes, join them, start --load busy-loop
processes (nice 0, so they compete with the members for the 2 cores), then
  1. soak: --soak seconds with nobody failing; count suspicions and deaths every member raised
     (each is a false positive) and the UDP packets/bytes each member sent;
  2. --rounds times: SIGKILL one member (no leave) and time until every survivor printed its
     "event leave" line (detection = the slowest survivor), then restart it on the same port and
     wait until all 5 list it again.
Prints one row per timing. Figures only; nothing is asserted. Every process is stopped by PID.
Timing names: fast (Ingot's default), lan (Go's DefaultLANConfig, MetalLB's default),
piN (fast with probe interval N ms; timeout and gossip interval N/2), piN-smM (and suspicion
multiplier M).
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent" / "tests" / "memberlist"))
from memberlist_peers import Peer, ingot_peer_binary, wait_for  # noqa: E402

NODES = 5


def timing_args(name):
    if name == "fast":
        return []
    if name == "lan":
        return ["--timing", "lan"]
    args = []
    for part in name.split("-"):
        if part.startswith("pi"):
            args += ["--probe-interval-ms", part[2:]]
        elif part.startswith("sm"):
            args += ["--suspicion-mult", part[2:]]
        else:
            raise SystemExit(f"unknown timing {name}")
    return args


def start(peer_bin, name, extra, seed=None, port=0):
    argv = [str(peer_bin), "--name", name, "--port", str(port)] + extra
    if seed is not None:
        argv += ["--join", f"127.0.0.1:{seed.port}"]
    return Peer(argv, name)


def totals(peers):
    sums = {}
    for p in peers:
        for k, v in p.counters().items():
            sums[k] = sums.get(k, 0) + v
    return sums


def kill_round(peers, idx, peer_bin, extra, detect_limit):
    victim = peers[idx]
    survivors = [p for p in peers if p is not victim]
    marks = [len(p.events) for p in survivors]
    t0 = time.monotonic()
    victim.kill()

    def all_saw():
        return all(any(line == f"event leave {victim.name}" for _, line in p.events[m:])
                   for p, m in zip(survivors, marks))
    wait_for(all_saw, detect_limit, f"survivors saw {victim.name} die")
    took = max(next(t for t, line in p.events[m:] if line == f"event leave {victim.name}")
               for p, m in zip(survivors, marks)) - t0
    back = start(peer_bin, victim.name, extra, seed=survivors[0], port=victim.port)
    peers[idx] = back
    names = {p.name for p in peers}
    wait_for(lambda: all(p.members() == names for p in peers), detect_limit, "rejoin")
    return took


def run_timing(name, args, peer_bin):
    extra = timing_args(name)
    peers = []
    load = []
    try:
        peers.append(start(peer_bin, "m0", extra))
        for i in range(1, NODES):
            peers.append(start(peer_bin, f"m{i}", extra, seed=peers[0]))
        names = {p.name for p in peers}
        wait_for(lambda: all(p.members() == names for p in peers), 30, "convergence")
        for _ in range(args.load):
            load.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(1.0)  # let the load start before counting
        before = totals(peers)
        t0 = time.monotonic()
        time.sleep(args.soak)
        soak = time.monotonic() - t0
        after = totals(peers)
        false_susp = after["suspicions"] - before["suspicions"]
        false_dead = after["deaths"] - before["deaths"]
        pkts = (after["udp_out"] - before["udp_out"]) / soak / NODES
        byts = (after["udp_bytes_out"] - before["udp_bytes_out"]) / soak / NODES
        limit = 30 if name == "lan" else 10
        detect = [kill_round(peers, 1 + r % (NODES - 1), peer_bin, extra, limit)
                  for r in range(args.rounds)]
        print(f"{name:>12} soak {soak:5.0f} s  false suspicions {false_susp:3d} "
              f"({false_susp * 3600 / soak:7.1f}/h)  false deaths {false_dead:3d}  "
              f"detect ms min/median/max {min(detect) * 1000:6.0f} "
              f"{statistics.median(detect) * 1000:6.0f} {max(detect) * 1000:6.0f}  "
              f"per node {pkts:6.1f} pkt/s {byts:8.0f} B/s", flush=True)
    finally:
        for p in load:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
        for p in peers:
            p.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--soak", type=float, default=60)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--load", type=int, default=2, help="busy-loop processes during the run")
    ap.add_argument("--timing", nargs="+", default=["pi50", "fast", "pi200", "lan"])
    ap.add_argument("--peer", default=str(ingot_peer_binary()))
    args = ap.parse_args()
    print(f"{NODES} members on 127.0.0.1, {args.load} busy-loop processes, {os.cpu_count()} CPUs")
    for name in args.timing:
        run_timing(name, args, Path(args.peer))


if __name__ == "__main__":
    main()
