#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end BGP figures on the cluster lab (e2e/netlab/cluster.py; root, FRR, a built
ingot-agent, ingot-controller and ingotctl). Prints figures; asserts nothing about time.

    /usr/bin/python3 bench/e2e_bgp.py [--mode frr|frr-k8s] [--services 50]
                                      [--apply incremental reload] [--bulk 1000 5000]
                                      [--rss 1000 10000] [--skip ...] [--bfd-ms 300]
                                      [--keep-logs DIR]

Phases (each can be skipped with --skip NAME):
  create   Service (ETP Cluster, endpoint on node1) created → its /32 in the ToR's kernel table
           with both nodes as next hops; one Service at a time, p50/p99 over --services, split
           into API+controller, agent, FRR and BGP from the agents' logs. In frr mode once per
           --apply value (the agents restarted with --frr-apply), side by side with the ratio.
  local    ETP Local Service with endpoints on both nodes; one endpoint removed → the ToR drops
           that next hop; p50/p99 over --services/2 removals (alternating nodes).
  bulk     each --bulk count of Services created at once (parallel API writes) → all their
           routes at the ToR; then all deleted → all withdrawn. The ToR is polled from the first
           write on, so the times (after the last API write returned, and after the agents
           logged the last Service) hold even when the ToR converged before the writes ended.
           Per phase: BGP and BFD session resets at the ToR (with every router's BFD
           diagnostics when there was one), ten sentinel Services that must keep both next
           hops, the CPU seconds of the lab's processes, and the stalls of a probe process.
  rss      the agents' VmRSS (from /proc/<pid>/status) with each --rss count of Services
           present (their routes at the ToR or not: the wait is bounded and reported).

Services are created through the test API server's REST API (netlab.kubeclient, from threads
inside the lab's api namespace), and the ToR is watched through `ip -j route show` in its
namespace (netlab.watch), which is far cheaper than vtysh per sample.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

E2E = Path(__file__).resolve().parents[1] / "e2e"
sys.path.insert(0, str(E2E))

from netlab import bgp, manifests as m  # noqa: E402
from netlab.cluster import NODE_ASN, TOR_ASN, Cluster, ClusterSpec, find_agent  # noqa: E402
from netlab.frr import frr_missing  # noqa: E402
from netlab.proc import LabError  # noqa: E402
from netlab.bulk import BULK_POOL, agent_events, last_seen, log_time  # noqa: E402
from netlab.watch import read_kernel_routes  # noqa: E402

NS = "bench"
# Unrelated Services announced throughout the bulk phases: they must never lose a next hop.
SENTINELS = range(9990, 10000)


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def summary(name, values, unit="ms", scale=1000.0):
    if not values:
        print(f"{name}: no samples")
        return
    v = [x * scale for x in values]
    print(f"{name}: n={len(v)} p50={pct(v, 50):.0f} {unit} p90={pct(v, 90):.0f} {unit} "
          f"p95={pct(v, 95):.0f} {unit} p99={pct(v, 99):.0f} {unit} "
          f"min={min(v):.0f} max={max(v):.0f} mean={statistics.mean(v):.0f}")


# A normal-priority process that sleeps 20 ms at a time and prints every wake-up that came more
# than 50 ms late (monotonic time, lateness): the CPU starvation every lab daemon (bfdd too) sees.
STALL_PROBE = """
import sys, time
while True:
    t = time.monotonic()
    time.sleep(0.02)
    late = time.monotonic() - t - 0.02
    if late > 0.05:
        print(f"{time.monotonic():.3f} {late:.3f}", flush=True)
"""


class StallProbe:
    """Runs STALL_PROBE and reports the stalls it saw in a time window."""

    def __init__(self, path: Path):
        self.path = path
        self.out = open(path, "w")
        self.proc = subprocess.Popen([sys.executable, "-c", STALL_PROBE], stdout=self.out)

    def stalls(self, start: float, end: float) -> list:
        rows = [line.split() for line in self.path.read_text().splitlines()]
        return [float(late) for t, late in rows if start <= float(t) <= end]

    def describe(self, start: float, end: float) -> str:
        late = self.stalls(start, end)
        if not late:
            return "no wake-up more than 50 ms late"
        return (f"{len(late)} wake-ups more than 50 ms late, {sum(x > 0.3 for x in late)} more "
                f"than 300 ms, worst {max(late) * 1000:.0f} ms")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.out.close()


class Convergence:
    """When the ToR's kernel table first satisfied a check (Unix time), polled in a thread."""

    def __init__(self, bench: "Bench", check, sentinels: list):
        self.bench = bench
        self.check = check
        self.sentinels = sentinels
        self.sentinel_gaps: list = []  # "prefix: n hops" for every poll that saw one short
        self.started = time.time()
        self.api = 0.0        # seconds the API writes took
        self.writes_end = 0.0  # Unix time the last API write returned
        self.converged = 0.0  # Unix time the check first held (0 = not yet)
        self.stop = False

    def writes_done(self) -> None:
        self.writes_end = time.time()
        self.api = self.writes_end - self.started

    def run(self) -> None:
        while not self.stop:
            routes = self.bench.routes()
            self.sentinel_gaps += [f"{p}: {len(routes.get(p, ()))} hops" for p in self.sentinels
                                   if len(routes.get(p, ())) < 2]
            if not self.converged and self.check(routes):
                self.converged = time.time()
            time.sleep(0.01 if self.writes_end else 0.1)

    def describe(self, logs, event: str, names: set) -> str:
        if not self.converged:
            return "NOT within the bound"
        seen = last_seen(logs, event, names)
        gaps = f"sentinel routes short {len(self.sentinel_gaps)} times {self.sentinel_gaps[:3]}"
        return (f"{self.converged - self.writes_end:+.2f} s after the last API write returned, "
                f"{self.converged - seen:.2f} s after the agents saw the last change; "
                f"{gaps if self.sentinel_gaps else 'sentinels never short of a next hop'}")


class Bench:
    def __init__(self, cluster: Cluster, bfd_ms: int):
        self.c = cluster
        self.bfd_ms = bfd_ms
        self.tor_ns = cluster.ns("tor")
        self.nodes = sorted(cluster.address(n) for n in cluster.node_names)
        self.pool = ipaddress.ip_network(BULK_POOL)
        self.results: dict = {}
        self.probe = StallProbe(cluster.workdir / "stalls.log")
        self.sentinels_up = False

    def vip(self, i: int) -> str:
        return str(self.pool.network_address + i)

    def service(self, i: int, policy: str = "Cluster") -> dict:
        svc = m.service(f"s{i}", NS, self.vip(i), cluster_ip=f"10.97.{i // 250}.{1 + i % 250}",
                        policy=policy, annotations={"metallb.io/loadBalancerIPs": self.vip(i)})
        del svc["status"]
        # Thousands of Services: no node ports (the 30000-32767 range holds 2,768).
        svc["spec"]["allocateLoadBalancerNodePorts"] = False
        return svc

    def slice_(self, i: int, nodes) -> dict:
        return m.endpoint_slice(f"s{i}", NS, [(f"10.244.{k}.{1 + i % 250}", n)
                                              for k, n in enumerate(nodes, start=1)])

    def setup(self) -> None:
        self.c.apply([m.namespace(NS), m.ip_address_pool("bench", [BULK_POOL]),
                      m.bfd_profile("fast", self.bfd_ms, self.bfd_ms, 3),
                      m.bgp_peer("tor", NODE_ASN, TOR_ASN, self.c.address("tor"),
                                 bfd_profile_name="fast"),
                      m.bgp_advertisement("bench", ["bench"])])
        router = self.c.tor("tor")
        deadline = time.monotonic() + 60
        while set(self.nodes) - bgp.query_established(router):
            if time.monotonic() > deadline:
                raise LabError("BGP sessions did not come up in 60 s")
            time.sleep(0.2)
        self.settle()

    def settle(self) -> None:
        """Waits (up to 120 s) until no agent runs frr-reload.py: the sessions come up during the
        first pass of the reload that added the BGPPeer, and a sample taken before its last pass
        ended would wait behind it (the record of the running reload's process group exists
        while it runs)."""
        if self.c.spec.mode != "frr":
            return
        records = [self.c.routers[n].dir / "reload.pgid" for n in self.c.node_names]
        deadline = time.monotonic() + 120
        quiet = 0
        while quiet < 10 and time.monotonic() < deadline:
            quiet = 0 if any(r.exists() for r in records) else quiet + 1
            time.sleep(0.1)

    def routes(self) -> dict:
        return read_kernel_routes(self.tor_ns)

    def wait(self, check, timeout: float) -> float:
        start = time.monotonic()
        while True:
            if check(self.routes()):
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise LabError(f"ToR did not converge in {timeout:.0f} s")
            time.sleep(0.01)

    def create_one(self, i, policy="Cluster", nodes=("node1",)):
        self.c.client.create(self.service(i, policy))
        self.c.client.create(self.slice_(i, list(nodes)))

    def delete_many(self, indices) -> None:
        futures = [self.c.client.submit("DELETE", f"/api/v1/namespaces/{NS}/services/s{i}")
                   for i in indices]
        futures += [self.c.client.submit(
            "DELETE", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices/s{i}-lab")
            for i in indices]
        for f in futures:
            f.result()

    def create_many(self, indices, nodes=("node1",)) -> None:
        futures = []
        for i in indices:
            futures.append(self.c.client.submit("POST", f"/api/v1/namespaces/{NS}/services",
                                                self.service(i)))
            futures.append(self.c.client.submit(
                "POST", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices",
                self.slice_(i, list(nodes))))
        for f in futures:
            f.result()

    # Phases ----------------------------------------------------------------------------------

    def phase_create(self, n: int, label: str) -> None:
        """One Service at a time → both next hops at the ToR, with the time split from the
        agents' logs (serviceAnnounced, frr_applied with send_ms / verify_ms)."""
        totals, parts = [], {"API+controller": [], "agent": [], "FRR": [], "BGP": []}
        logs = {node: self.c.logdir / f"agent-{node}.log" for node in self.c.node_names}
        # frr-k8s mode: FRR is applied by ingot-frr (event "applied" with the same send_ms /
        # verify_ms), so "agent" also holds the FRRConfiguration write and ingot-frr's watch.
        frrk8s = self.c.spec.mode == "frr-k8s"
        appliers = {node: self.c.logdir / f"frr-k8s-{node}.log" for node in self.c.node_names} \
            if frrk8s else logs
        event = "applied" if frrk8s else "frr_applied"
        base = 15000  # inside the /18 pool, clear of the bulk phase's range
        for i in range(base, base + n):
            prefix = f"{self.vip(i)}/32"
            offsets = {node: log.stat().st_size for node, log in logs.items()}
            applier_offsets = {node: log.stat().st_size for node, log in appliers.items()}
            t0 = time.time()
            self.create_one(i)
            self.wait(lambda r: list(r.get(prefix, ())) == self.nodes, 60)
            t_tor = time.time()
            totals.append(t_tor - t0)
            split = self.split((logs, offsets), (appliers, applier_offsets, event),
                               f"{NS}/s{i}", t0, t_tor)
            for k, v in split.items():
                parts[k].append(v)
        summary(f"[{label}] create → route at ToR (both next hops)", totals)
        for k, v in parts.items():
            summary(f"[{label}]   of which {k}", v)
        sys.stdout.flush()
        self.results[label] = totals
        self.delete_many(range(base, base + n))
        self.wait(lambda r: not any(f"{self.vip(i)}/32" in r for i in range(base, base + n)), 300)

    @staticmethod
    def split(agents: tuple, appliers: tuple, service: str, t0: float, t_tor: float) -> dict:
        """Splits one create → ToR interval at the slower node: API+controller until its agent
        logged the Service as announced, agent until it (or ingot-frr, in frr-k8s mode) started
        sending to FRR, FRR while the delta (or frr-reload.py) ran, BGP from then until the ToR
        had the route. agents = (logs, offsets); appliers = (logs, offsets, apply event)."""
        logs, offsets = agents
        applier_logs, applier_offsets, event = appliers
        seen = applied_start = applied_end = 0.0
        for node, log in logs.items():
            announced = [e for e in agent_events(log, "serviceAnnounced", offsets[node])
                         if e.get("service") == service]
            if not announced:
                continue
            t_seen = log_time(announced[0]["ts"])
            applied = [e for e in agent_events(applier_logs[node], event, applier_offsets[node])
                       if log_time(e["ts"]) >= t_seen - 0.002]
            if not applied:
                continue
            end = log_time(applied[0]["ts"]) - applied[0].get("verify_ms", 0) / 1000.0
            if end - applied[0].get("send_ms", 0) / 1000.0 < t_seen - 0.002:
                # An apply that began before the agent saw the Service (a start-up reload
                # still running): which part of it carried this Service cannot be told.
                continue
            if end > applied_end:
                seen, applied_end = t_seen, end
                applied_start = end - applied[0].get("send_ms", 0) / 1000.0
        if applied_end == 0.0:
            return {}
        return {"API+controller": seen - t0, "agent": max(0.0, applied_start - seen),
                "FRR": applied_end - applied_start, "BGP": t_tor - applied_end}

    def restart_agents(self, extra) -> None:
        """Restarts every agent with extra flags and waits for its first apply."""
        for node in self.c.node_names:
            log = self.c.logdir / f"agent-{node}.log"
            offset = log.stat().st_size
            self.c.start_agent(node, extra)
            deadline = time.monotonic() + 120
            while not agent_events(log, "frr_applied", offset):
                if time.monotonic() > deadline:
                    raise LabError(f"{node}: the restarted agent did not apply in 120 s")
                time.sleep(0.1)
        self.settle()

    def phase_local(self, n: int) -> None:
        i = 5000
        prefix = f"{self.vip(i)}/32"
        self.create_one(i, "Local", ("node1", "node2"))
        self.wait(lambda r: list(r.get(prefix, ())) == self.nodes, 60)
        samples = []
        names = self.c.node_names
        for k in range(n):
            gone = names[k % 2]
            keep = [x for x in names if x != gone]
            start = time.monotonic()
            self.c.client.request("PUT", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/"
                                  f"endpointslices/s{i}-lab", self.slice_(i, keep))
            want = [self.c.address(x) for x in keep]
            self.wait(lambda r: list(r.get(prefix, ())) == want, 60)
            samples.append(time.monotonic() - start)
            self.c.client.request("PUT", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/"
                                  f"endpointslices/s{i}-lab", self.slice_(i, names))
            self.wait(lambda r: list(r.get(prefix, ())) == self.nodes, 60)
        summary("ETP Local endpoint removed → next hop removed at ToR", samples)
        sys.stdout.flush()
        self.delete_many([i])

    def phase_bulk(self, n: int) -> None:
        if not self.sentinels_up:
            self.create_many(SENTINELS, ("node1", "node2"))
            self.wait(lambda r: all(len(r.get(f"{self.vip(i)}/32", ())) == 2
                                    for i in SENTINELS), 120)
            self.sentinels_up = True
        logs = [self.c.logdir / f"agent-{node}.log" for node in self.c.node_names]
        indices = range(10000, 10000 + n)
        names = {f"{NS}/s{i}" for i in indices}
        prefixes = [f"{self.vip(i)}/32" for i in indices]
        cpu = self.cpu_seconds()
        with self.outages() as resets, self.converges(
                lambda r: all(len(r.get(p, ())) == 2 for p in prefixes)) as watch:
            start = time.monotonic()
            self.create_many(indices)
            watch.writes_done()
        print(f"bulk {n}: created via API in {watch.api:.1f} s; all routes at the ToR "
              f"{watch.describe(logs, 'serviceAnnounced', names)}; BGP/BFD session resets: "
              f"{resets or 'none'}; {self.probe.describe(start, time.monotonic())}", flush=True)
        print(self.describe_cpu(cpu, time.monotonic() - start))
        cpu = self.cpu_seconds()
        with self.outages() as resets, self.converges(
                lambda r: not any(p in r for p in prefixes)) as watch:
            start = time.monotonic()
            self.delete_many(indices)
            watch.writes_done()
        print(f"bulk {n}: deleted via API in {watch.api:.1f} s; all withdrawn at the ToR "
              f"{watch.describe(logs, 'serviceWithdrawn', names)}; BGP/BFD session resets: "
              f"{resets or 'none'}; {self.probe.describe(start, time.monotonic())}", flush=True)
        print(self.describe_cpu(cpu, time.monotonic() - start), flush=True)

    @contextlib.contextmanager
    def converges(self, check, timeout: float = 900):
        """Yields a Convergence that polls the ToR from the start of the block (every 100 ms
        while the API writes run, every 10 ms after writes_done()) and, at the end of the block,
        waits until check held once (bounded by timeout)."""
        watch = Convergence(self, check, [f"{self.vip(i)}/32" for i in SENTINELS])
        thread = threading.Thread(target=watch.run, daemon=True)
        thread.start()
        try:
            yield watch
            deadline = time.monotonic() + timeout
            while not watch.converged and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # a last look at the sentinels after the change settled
        finally:
            watch.stop = True
            thread.join()

    def cpu_seconds(self) -> dict:
        """Returns role → user+system CPU seconds of the lab's processes so far (the agents,
        the controller, the API server, and every router's FRR daemons)."""
        pids = {role: p.pid for role, p in self.c.procs.items()}
        for role, router in self.c.routers.items():
            pids.update({f"{role}/{d}": p.pid for d, p in getattr(router, "pids", {}).items()})
        ticks = os.sysconf("SC_CLK_TCK")
        out = {}
        for role, pid in pids.items():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[role] = (int(fields[11]) + int(fields[12])) / ticks
        return out

    def describe_cpu(self, before: dict, seconds: float) -> str:
        used = {k: v - before.get(k, 0.0) for k, v in self.cpu_seconds().items()}
        top = sorted(used.items(), key=lambda kv: -kv[1])[:8]
        return (f"CPU over {seconds:.1f} s: " +
                ", ".join(f"{k} {v:.1f} s" for k, v in top if v >= 0.05))

    @contextlib.contextmanager
    def outages(self):
        """Yields a list that, after the block, holds the ToR's BGP and BFD session resets
        during it, followed by each BFD peer's last diagnostics (local and remote) on every
        router when there was one."""
        router = self.c.tor("tor")
        before = bgp.query_sessions(router)
        bfd_before = bgp.query_bfd_counters(router)
        resets: list = []
        yield resets
        resets += bgp.session_resets(before, bgp.query_sessions(router))
        resets += bgp.bfd_flaps(bfd_before, bgp.query_bfd_counters(router))
        if resets:
            for role in ["tor", *self.c.node_names]:
                peers = bgp.bfd_peers(self.c.routers[role].show_json("show bfd peers json"))
                resets += [f"{role} BFD {p}: diagnostic {e.get('diagnostic')!r}, remote "
                           f"{e.get('remote-diagnostic')!r}" for p, e in peers.items()]

    def timed(self, check, timeout: float) -> str:
        """Waits like wait() and describes the outcome, including a timeout (with how many of
        the routes were there), instead of raising."""
        try:
            return f"after {self.wait(check, timeout):.1f} s"
        except LabError:
            return f"NOT within {timeout:.0f} s"

    def rss(self) -> dict:
        out = {}
        for node in self.c.node_names:
            pid = self.c.procs[f"agent-{node}"].pid
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out[node] = int(line.split()[1]) // 1024
        return out

    def phase_rss(self, counts) -> None:
        present = 0
        base = 20000
        print(f"agent RSS with 0 Services: {self.rss()} MiB")
        for count in sorted(counts):
            start = time.monotonic()
            for chunk in range(present, count, 500):
                self.create_many(range(base + chunk, base + min(count, chunk + 500)))
            present = count
            api = time.monotonic() - start
            prefixes = [f"{self.vip(base + i)}/32" for i in range(count)]
            try:
                waited = self.wait(lambda r: all(p in r for p in prefixes), 600)
                routes = f"all {count} routes at the ToR {waited:.0f} s after the last write"
            except LabError:
                have = sum(p in self.routes() for p in prefixes)
                routes = f"only {have}/{count} routes at the ToR after 600 s"
            print(f"agent RSS with {count} Services: {self.rss()} MiB (API writes {api:.0f} s;"
                  f" {routes})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("frr", "frr-k8s"), default="frr")
    parser.add_argument("--apply", nargs="*", default=["incremental", "reload"],
                        choices=("incremental", "reload"),
                        help="frr mode: the agents' --frr-apply values the create phase runs "
                        "with, one after the other in the same lab (side by side)")
    parser.add_argument("--services", type=int, default=50)
    parser.add_argument("--bulk", type=int, nargs="*", default=[1000, 5000])
    parser.add_argument("--rss", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=("create", "local", "bulk", "rss"))
    parser.add_argument("--bfd-ms", type=int, default=300,
                        help="the BFD profile's transmit and receive interval (detect "
                        "multiplier 3)")
    parser.add_argument("--keep-logs", type=Path, metavar="DIR",
                        help="copy the lab's log files (agents, controller, FRR daemons) to DIR "
                        "before the lab is removed")
    args = parser.parse_args()
    problem = frr_missing() or (None if find_agent() else "ingot-agent is not built")
    if problem:
        print(f"e2e_bgp: {problem}", file=sys.stderr)
        return 1
    # No client-side API throttling in the daemons: the bulk phases measure the agent and FRR,
    # not the controller's 20 qps status writes.
    no_qps = ("--kube-api-qps", "0")
    cluster = Cluster(ClusterSpec(nodes=2, mode=args.mode, agent_args=no_qps,
                                  controller_args=no_qps)).up()
    b = None
    try:
        print(f"lab {cluster.run_name}, mode {args.mode}, agent {cluster.agent}")
        b = Bench(cluster, args.bfd_ms)
        b.setup()
        if "create" not in args.skip:
            applies = args.apply if args.mode == "frr" else ["frr-k8s"]
            for k, apply in enumerate(applies):
                if args.mode == "frr" and (k > 0 or apply != "incremental"):
                    b.restart_agents(["--frr-apply", apply])
                b.phase_create(args.services, apply)
            if len(b.results) == 2:
                inc, rel = (b.results.get(a) for a in ("incremental", "reload"))
                print(f"reload / incremental: p50 x{pct(rel, 50) / pct(inc, 50):.1f}, "
                      f"p99 x{pct(rel, 99) / pct(inc, 99):.1f}")
            if args.mode == "frr" and applies[-1] != "incremental":
                b.restart_agents(["--frr-apply", "incremental"])
        if "local" not in args.skip:
            b.phase_local(max(2, args.services // 2))
        if "bulk" not in args.skip:
            for count in args.bulk:
                b.phase_bulk(count)
        if "rss" not in args.skip and args.rss:
            b.phase_rss(args.rss)
    finally:
        if b is not None:
            b.probe.close()
        if args.keep_logs:
            keep_logs(cluster.workdir, args.keep_logs)
        cluster.close()
    return 0


def keep_logs(workdir: Path, dest: Path) -> None:
    """Copies every *.log under workdir to dest, keeping the relative paths."""
    for log in workdir.rglob("*.log"):
        target = dest / log.relative_to(workdir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, target)
    print(f"logs kept in {dest}")


if __name__ == "__main__":
    sys.exit(main())
