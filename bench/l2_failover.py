#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Layer 2 failover as a client sees it: Ingot (agent with memberlist + ARP/NDP responder)
and keepalived VRRP, side by side on the same lab namespaces in one run. Root; a built
ingot-agent, ingot-controller and ingotctl; keepalived, arping. Prints figures; asserts nothing.

    /usr/bin/python3 bench/l2_failover.py [--kills 20] [--nodes 3]
        [--systems keepalived keepalived-0.1 ingot ingot-pi50] [--scenarios daemon node]
        [--interval-ms 10] [--idle 10] [--ingot-args "--flag value …"]
        [--baseline-agent PATH  (with ingot-baseline in --systems)]

The cluster lab (frr-k8s mode, no FRR on the nodes, so a node namespace runs only the system
under test) gets two client namespaces on the bridge, each with an on-link route to the VIP
block: one probes ARP (bench/l2probe.py arp: raw broadcast requests, every reply recorded with
its MAC), the other ICMP echo through its kernel (its neighbour cache follows gratuitous ARP,
as a real client's does). Every node holds the VIPs on lo with arp_ignore=1 / arp_announce=2,
as kube-proxy's IPVS mode does: the kernel answers traffic for a VIP but never ARP, so only
Ingot's responder (or keepalived's VIP on eth0 of the VRRP master) answers ARP.

Systems: keepalived (advert_int 1, priorities 150/100/50 in node order, preemption on),
keepalived-0.1 (advert_int 0.1, which needs VRRP version 3), ingot (its defaults),
ingot-pi50 (memberlist tuning file: 50 ms probe interval, 25 ms probe timeout and gossip
interval), ingot-baseline (the agent binary --baseline-agent names, at its defaults: another
build side by side, e.g. before and after a change); --ingot-args adds agent flags to all of
them (the row is then named ingot+args).
Scenarios, each --kills times against the current owner:
  daemon  SIGKILL of the announcing daemon (ingot-agent; keepalived's processes)
  node    the node dies: its switch port goes down and every process of its namespace is
          SIGKILLed at once
then the node is restored (port up, daemon restarted) and the address must come back to it
(the election's winner / the higher priority) before the next kill.
Gaps: for each probe kind, from the first probe after the kill that got no answer to the
first probe answered by another node (ARP) or answered at all (ICMP, reply within 200 ms);
0 when no probe was lost. Take-back: the longest run of unanswered probes after the restore
(whoever answers: the interim owner may rightly answer until the returning node does). "dup" counts rounds
in which a probe got answers from two MACs. Idle: CPU of the node namespaces' processes and
the frames the nodes send (tcpdump on the switch ports; API traffic and the refusals of the
lab ToR's BGP/BFD attempts excluded), over --idle
seconds, 8 s after the VIP is owned (past the gratuitous bursts), with no probes running.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "e2e"))

from netlab import l2, manifests as m  # noqa: E402
from netlab.cluster import Cluster, ClusterSpec, PYTHON  # noqa: E402
from netlab.ingotctl import find_ingotctl  # noqa: E402
from netlab.proc import LabError, pid_alive, run, wait_until  # noqa: E402

NS = "failover"
CLIENTS = {"client": 20, "arpclient": 21}
ANSWER_WINDOW = 0.2  # an echo reply later than this counts as a lost probe
TICKS = os.sysconf("SC_CLK_TCK")
# Not counted at idle: the agents' API traffic, and the nodes' refusals (TCP reset, ICMP
# unreachable) of the lab ToR's BGP and BFD attempts (nothing listens there on these nodes).
IDLE_FILTER = "not (tcp port 6443 or tcp port 179 or icmp[icmptype] == icmp-unreach)"
SETTLE = 8.0  # keepalived repeats its gratuitous ARPs 5 s after a transition, Ingot for 5 s


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def namespace_pids(ns: str) -> list:
    out = run(["ip", "netns", "pids", ns], check=False).stdout
    return [int(p) for p in out.split()]


def cpu_seconds(pids) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICKS


# Gap analysis ------------------------------------------------------------------------------


def arp_answers(data: dict, start: float, end: float) -> list:
    """Returns [(send time, set of MACs that answered before the next probe)] in [start, end)."""
    sends, replies = data["sends"], data["replies"]
    out, j = [], 0
    for i, t in enumerate(sends):
        nxt = sends[i + 1] if i + 1 < len(sends) else t + 1.0
        while j < len(replies) and replies[j][0] < t:
            j += 1
        k, macs = j, set()
        while k < len(replies) and replies[k][0] < nxt:
            macs.add(replies[k][1])
            k += 1
        if start <= t < end:
            out.append((t, macs))
    return out


def icmp_answers(data: dict, start: float, end: float) -> list:
    """Returns [(send time, {"ok"} or set())] for the echoes sent in [start, end)."""
    answered = {}
    for t, index in data["replies"]:
        answered.setdefault(index, t)
    out = []
    for i, t in enumerate(data["sends"]):
        if start <= t < end:
            ok = i in answered and answered[i] - t <= ANSWER_WINDOW
            out.append((t, {"ok"} if ok else set()))
    return out


def gap(probes: list, old=None) -> tuple:
    """Returns (gap, dup). ARP (old = the MAC that answered before): from the first
    unanswered probe to the first probe answered by another MAC; 0 when none went unanswered;
    None when no other MAC ever answered. ICMP (old None): from the first lost echo to the
    next answered one; 0 when none was lost. dup: some probe got answers from two MACs."""
    dup = any(len(macs) > 1 for _, macs in probes)
    first_lost = None
    for t, macs in probes:
        if not macs:
            first_lost = t if first_lost is None else first_lost
            continue
        moved = bool(macs - {old}) if old is not None else first_lost is not None
        if moved:
            return (t - first_lost if first_lost is not None else 0.0), dup
    if old is None and first_lost is None:
        return 0.0, dup
    return None, dup


def silence(probes: list) -> float:
    """The longest run of unanswered probes (from the first of the run to the next answered
    one, whoever answered): what a client resolving the address in that run waits."""
    longest, first_lost = 0.0, None
    for t, macs in probes:
        if not macs:
            first_lost = t if first_lost is None else first_lost
        elif first_lost is not None:
            longest, first_lost = max(longest, t - first_lost), None
    return longest


# Systems --------------------------------------------------------------------------------------


class Keepalived:
    def __init__(self, harness, advert: float):
        self.h = harness
        self.advert = advert
        self.name = "keepalived" if advert == 1.0 else f"keepalived-{advert:g}"
        self.vip = harness.vip(8 if advert == 1.0 else 9)
        self.procs = {}
        self.starts = 0

    def config(self, node: str, priority: int) -> Path:
        path = self.h.cluster.workdir / f"{self.name}-{node}.conf"
        path.write_text(
            f"global_defs {{\n  router_id {node}\n}}\n"
            f"vrrp_instance VI_1 {{\n  state BACKUP\n  interface eth0\n"
            + ("  version 3\n" if self.advert < 1 else "") +
            f"  virtual_router_id {51 if self.advert == 1.0 else 52}\n"
            f"  priority {priority}\n  advert_int {self.advert:g}\n"
            f"  virtual_ipaddress {{\n    {self.vip}/32 dev eth0\n  }}\n}}\n")
        return path

    def start(self, node: str) -> None:
        c = self.h.cluster
        run(["ip", "-n", c.ns(node), "addr", "del", f"{self.vip}/32", "dev", "eth0"],
            check=False)  # a killed master leaves its VIP behind
        i = c.node_names.index(node)
        d = c.workdir / "keepalived"
        d.mkdir(exist_ok=True)
        conf = self.config(node, 150 - 50 * i if i < 3 else 10)
        # Fresh pid files per start: a killed instance's pid may still be a zombie for a moment,
        # and keepalived refuses to start while its pid file names a live process.
        self.starts += 1
        pidfile = d / f"{self.name}-{node}-{self.starts}"
        self.procs[node] = c.spawn(f"{self.name}-{node}", node, [
            "/usr/sbin/keepalived", "-n", "-l", "-D", "-P", "-f", str(conf), "-p",
            f"{pidfile}.pid", "-r", f"{pidfile}-vrrp.pid"])

    def setup(self) -> str:
        for node in self.h.cluster.node_names:
            self.start(node)
        return self.h.cluster.node_names[0]

    def daemon_pids(self, node: str) -> list:
        return [p for p in namespace_pids(self.h.cluster.ns(node))
                if "keepalived" in Path(f"/proc/{p}/comm").read_text(errors="replace")]

    def stop(self) -> None:
        for node in self.h.cluster.node_names:
            for pid in self.daemon_pids(node):
                os.kill(pid, signal.SIGKILL)
            proc = self.procs.pop(node, None)
            if proc is not None:
                proc.wait(timeout=10)
            run(["ip", "-n", self.h.cluster.ns(node), "addr", "del", f"{self.vip}/32", "dev",
                 "eth0"], check=False)

    def reap(self, node: str) -> None:
        proc = self.procs.pop(node, None)
        if proc is not None:
            proc.wait(timeout=10)


TUNINGS = {  # memberlist tuning files (MetalLB's format, Go field names) by system name
    "ingot-pi50": {"ProbeInterval": "50ms", "ProbeTimeout": "25ms", "GossipInterval": "25ms"},
}


class Ingot:
    def __init__(self, harness, name: str, extra: list, binary=None):
        self.h = harness
        self.extra = list(extra)
        self.binary = binary  # None: the lab's (build/agent/ingot-agent)
        self.name = name + ("+" + " ".join(extra) if extra else "")
        self.vip = harness.vip(7)
        if name in TUNINGS:
            path = harness.cluster.workdir / f"{name}.json"
            path.write_text(json.dumps(TUNINGS[name]))
            self.extra += ["--ml-tuning-path", str(path)]

    def start(self, node: str) -> None:
        c = self.h.cluster
        default, c.agent = c.agent, self.binary or c.agent
        try:
            c.start_agent(node, self.extra)
        finally:
            c.agent = default

    def setup(self) -> str:
        c = self.h.cluster
        for node in c.node_names:
            self.start(node)
        block = str(c.lab.addressing.vip_v4)
        c.apply([m.namespace(NS), m.ip_address_pool("failover", [block]),
                 m.l2_advertisement("failover", ["failover"]),
                 m.service("vip", NS, self.vip, cluster_ip="10.96.200.1",
                           annotations={"metallb.io/loadBalancerIPs": self.vip}),
                 m.endpoint_slice("vip", NS, [(f"10.244.{i}.10", n)
                                              for i, n in enumerate(c.node_names, 1)])])
        wait_until("the controller's address for the failover Service",
                   lambda: c.service_addresses(NS, "vip") == [self.vip], 60)
        ingotctl = find_ingotctl("render")
        plan = l2.plan_cluster(c.client, ingotctl, c.workdir)
        winner = plan.get(f"{NS}/vip", {}).get("winner")
        if not winner:
            raise LabError(f"ingotctl plan elects nobody for {self.vip}: {plan}")
        return winner

    def daemon_pids(self, node: str) -> list:
        proc = self.h.cluster.procs.get(f"agent-{node}")
        return [proc.pid] if proc is not None and proc.poll() is None else []

    def stop(self) -> None:
        for node in self.h.cluster.node_names:
            self.h.cluster.stop_agent(node)

    def reap(self, node: str) -> None:
        proc = self.h.cluster.procs.get(f"agent-{node}")
        if proc is not None:
            proc.wait(timeout=10)


# The harness ----------------------------------------------------------------------------------


class Harness:
    def __init__(self, cluster: Cluster, interval_ms: float):
        self.cluster = cluster
        self.interval_ms = interval_ms
        self.macs = {}

    def vip(self, index: int) -> str:
        return self.cluster.lab.addressing.vip(index)

    def prepare(self) -> None:
        c = self.cluster
        block = str(c.lab.addressing.vip_v4)
        for role, octet in CLIENTS.items():
            c.lab.add_host(role, octet)
            l2.add_onlink_routes(c.ns(role), [block])
        for node in c.node_names:
            ns = c.ns(node)
            run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.conf.all.arp_ignore=1",
                 "net.ipv4.conf.all.arp_announce=2", "net.ipv4.conf.eth0.arp_ignore=1",
                 "net.ipv4.conf.eth0.arp_announce=2"])
            for index in (7, 8, 9):
                run(["ip", "-n", ns, "addr", "add", f"{self.vip(index)}/32", "dev", "lo"])
            self.macs[node] = l2.link_mac(ns)
        c.lab.on_close(self.kill_node_processes)

    def kill_node_processes(self) -> None:
        for node in self.cluster.node_names:
            for pid in namespace_pids(self.cluster.ns(node)):
                os.kill(pid, signal.SIGKILL)

    def answers(self, vip: str) -> set:
        return set(l2.resolve(self.cluster.ns("arpclient"), vip))

    def wait_answers(self, what: str, vip: str, check, timeout: float = 60.0) -> set:
        last: set = set()

        def probe():
            nonlocal last
            last = self.answers(vip)
            return last if check(last) else None
        try:
            return wait_until(f"{vip}: {what}", probe, timeout, interval=0.0)
        except LabError:
            who = {mac: node for node, mac in self.macs.items()}
            raise LabError(f"{vip}: no {what} after {timeout:.0f} s; answering: "
                           f"{sorted(who.get(m, m) for m in last) or 'nobody'}") from None

    def start_probes(self, vip: str) -> dict:
        probes = {}
        for kind, role in (("arp", "arpclient"), ("icmp", "client")):
            out = self.cluster.workdir / f"probe-{kind}-{vip}.json"
            proc = self.cluster.spawn(f"probe-{kind}", role, [
                PYTHON, str(BENCH / "l2probe.py"), kind, "--vip", vip, "--out", str(out),
                "--interval-ms", str(self.interval_ms)])
            wait_until(f"the {kind} probe to start",
                       lambda: self._probe_ready(proc, f"probe-{kind}"), 30)
            probes[kind] = (proc, out)
        return probes

    def _probe_ready(self, proc, role: str) -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"{role} exited {proc.returncode}: {self.cluster.log_tail(role)}")
        return "ready" in self.cluster.log_tail(role)

    def stop_probes(self, probes: dict) -> dict:
        data = {}
        for kind, (proc, out) in probes.items():
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            data[kind] = json.loads(out.read_text())
        return data

    def idle(self, seconds: float) -> tuple:
        """Returns (CPU % of one core used by the nodes' processes, frames/s the nodes send
        other than API traffic) over seconds."""
        c = self.cluster
        captures = [subprocess.Popen(
            ["ip", "netns", "exec", c.ns("sw"), "timeout", "-s", "INT", str(seconds), "tcpdump",
             "-i", f"p-{n}"[:15], "-Q", "in", "-n", "-p", "-w", "/dev/null",
             IDLE_FILTER], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for n in c.node_names]
        pids = [p for n in c.node_names for p in namespace_pids(c.ns(n))]
        before = cpu_seconds(pids)
        start = time.monotonic()
        frames = 0
        for cap in captures:
            _, err = cap.communicate(timeout=seconds + 30)
            for line in err.splitlines():
                if "packets captured" in line:
                    frames += int(line.split()[0])
        elapsed = time.monotonic() - start
        return 100.0 * (cpu_seconds(pids) - before) / elapsed, frames / elapsed

    def kill(self, system, node: str, scenario: str) -> float:
        c = self.cluster
        pids = namespace_pids(c.ns(node)) if scenario == "node" else system.daemon_pids(node)
        if not pids:
            raise LabError(f"{system.name}: nothing to kill on {node}")
        t = time.monotonic()
        if scenario == "node":
            c.lab.set_link(node, False)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        system.reap(node)
        wait_until(f"{node}: killed processes gone", lambda: not any(map(pid_alive, pids)), 10)
        return t

    def round(self, system, owner: str, scenario: str) -> dict:
        """One kill of owner and its restore; returns the probe window times and MACs."""
        old = self.macs[owner]
        t_kill = self.kill(system, owner, scenario)
        interim = self.wait_answers("another node answers", system.vip, lambda a: a - {old})
        time.sleep(0.5)
        if scenario == "node":
            self.cluster.lab.set_link(owner, True)
        t_restore = time.monotonic()
        system.start(owner)
        self.wait_answers(f"only {owner} answers again", system.vip, lambda a: a == {old})
        time.sleep(0.5)
        return {"kill": t_kill, "restore": t_restore, "end": time.monotonic(), "old": old,
                "interim": sorted(interim - {old})[0]}


def measure(h: Harness, system, scenarios, kills: int, idle_s: float) -> list:
    """Runs one system: setup, idle figures, then kills per scenario; returns result rows."""
    owner = system.setup()
    h.wait_answers(f"only {owner} answers", system.vip, lambda a: a == {h.macs[owner]})
    time.sleep(SETTLE)  # past the gratuitous bursts of the first announcement
    cpu, fps = h.idle(idle_s)
    print(f"{system.name}: owner {owner}; idle: CPU {cpu:.2f} % of a core (all nodes), "
          f"{fps:.1f} frames/s sent by the nodes", flush=True)
    rows = []
    for scenario in scenarios:
        probes = h.start_probes(system.vip)
        start = time.monotonic()
        rounds = [h.round(system, owner, scenario) for _ in range(kills)]
        data = h.stop_probes(probes)
        print(f"  {scenario}: {kills} kills in {time.monotonic() - start:.0f} s", flush=True)
        rows.append(analyse(system.name, scenario, rounds, data, cpu, fps))
    system.stop()
    return rows


def analyse(name: str, scenario: str, rounds: list, data: dict, cpu: float, fps: float) -> dict:
    out = {"system": name, "scenario": scenario, "cpu": cpu, "fps": fps, "n": len(rounds)}
    for kind in ("arp", "icmp"):
        answers = arp_answers if kind == "arp" else icmp_answers
        fail, back, dups, missing = [], [], 0, 0
        for r in rounds:
            old, interim = (r["old"], r["interim"]) if kind == "arp" else (None, None)
            g, dup = gap(answers(data[kind], r["kill"], r["restore"]), old)
            window = answers(data[kind], r["restore"], r["end"])
            _, dup2 = gap(window, interim)
            dups += dup or dup2
            missing += g is None
            fail += [g] if g is not None else []
            back.append(silence(window))
        out[kind] = {"failover": fail, "takeback": back, "dup": dups, "missing": missing}
    return out


def fmt(values) -> str:
    if not values:
        return "-"
    return f"{pct(values, 50) * 1000:.0f} / {pct(values, 99) * 1000:.0f} / {max(values) * 1000:.0f}"


def print_table(rows: list) -> None:
    print("\nfailover gap as the client sees it, ms p50 / p99 / max (take-back after the restore "
          "in the same form; dup = rounds where two MACs answered one probe)")
    head = (f"{'system':<16} {'scenario':<8} {'n':>3}  {'ARP failover':<17} {'ICMP failover':<17} "
            f"{'ARP take-back':<17} {'ICMP take-back':<17} {'dup':>3}  idle CPU %  idle frames/s")
    print(head)
    for r in rows:
        dup = r["arp"]["dup"] + r["icmp"]["dup"]
        note = "" if not r["arp"]["missing"] else f"  ({r['arp']['missing']} rounds unmeasured)"
        print(f"{r['system']:<16} {r['scenario']:<8} {r['n']:>3}  {fmt(r['arp']['failover']):<17} "
              f"{fmt(r['icmp']['failover']):<17} {fmt(r['arp']['takeback']):<17} "
              f"{fmt(r['icmp']['takeback']):<17} {dup:>3}  {r['cpu']:>10.2f}  {r['fps']:>13.1f}"
              f"{note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--systems", nargs="+", default=["keepalived", "keepalived-0.1", "ingot", "ingot-pi50"])
    parser.add_argument("--scenarios", nargs="+", default=["daemon", "node"],
                        choices=["daemon", "node"])
    parser.add_argument("--interval-ms", type=float, default=10.0)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--ingot-args", default="", help="extra ingot-agent flags")
    parser.add_argument("--baseline-agent",
                        help="another ingot-agent binary, run as system ingot-baseline (e.g. "
                             "the previous commit's, to compare both in one run)")
    parser.add_argument("--json", help="also write the raw gaps here")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("l2_failover: needs root (network namespaces)", file=sys.stderr)
        return 1
    spec = ClusterSpec(nodes=args.nodes, mode="frr-k8s", node_frr=False, start_agents=False)
    rows = []
    with Cluster(spec) as cluster:
        h = Harness(cluster, args.interval_ms)
        h.prepare()
        for name in args.systems:
            if name.startswith("keepalived"):
                system = Keepalived(h, float(name.partition("-")[2] or 1.0))
            elif name == "ingot" or name in TUNINGS:
                system = Ingot(h, name, shlex.split(args.ingot_args))
            elif name == "ingot-baseline":
                if not args.baseline_agent:
                    raise SystemExit("ingot-baseline needs --baseline-agent PATH")
                system = Ingot(h, name, shlex.split(args.ingot_args), Path(args.baseline_agent))
            else:
                raise SystemExit(f"unknown system {name}")
            try:
                rows += measure(h, system, args.scenarios, args.kills, args.idle)
                print_table(rows[-len(args.scenarios):])
            except (LabError, RuntimeError):
                for role in sorted(cluster.procs):
                    print(f"----- {role} -----\n{cluster.log_tail(role, 1500)}")
                raise
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
