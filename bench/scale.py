#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Scale run: N Services on a cluster of M Nodes, ingot-controller and one ingot-agent against
the test API server, in frr-k8s mode (no root, no FRR, loopback only) and/or frr mode (root: the
agent's node has a real FRR 8.4 in a network namespace, bench/scale_frr.py).

    /usr/bin/python3 bench/scale.py [--mode frr-k8s|frr ...] [--services 10000] [--nodes 100]
        [--qps 0] [--steady 30] [--agent PATH] [--controller PATH] [--bound 1800]

Each --mode (several run one after the other, each on a fresh server, fresh daemons and, in frr
mode, a fresh FRR) starts the agent with --bgp-mode of that name. In frr-k8s mode the agent
writes the FRRConfiguration metallb-<node>; in frr mode it applies the same announcements to
its FRR (the incremental path: `network` lines through vtysh), and the peers configured do not
exist, so no BGP session comes up and nothing leaves the namespace.

The test API server (e2e/kubeapi) runs inside this process, as in bench/agent_rss.py (whose
helpers this reuses). The cluster is what a user of MetalLB's BGP mode would have: M Nodes
labelled as BGP speakers, two top-of-rack BGPPeers with a BFD profile, one IPv4 pool (/16) with
an advertisement carrying communities and a local preference, and N LoadBalancer Services in one
namespace with one EndpointSlice each (two endpoints on two of the M nodes). Half the Services
have externalTrafficPolicy Cluster (every node announces them), half Local (only nodes with a
serving endpoint announce them), so the measured node (the first) announces about half and a
bit. The Services carry no address: the controller assigns them from the pool.

Each daemon has its own bearer token; the server's authorizer counts every request by daemon,
verb and resource. The bench waits until the daemons are idle, writes the N EndpointSlices and
Services straight into the server's store (as agent_rss.py does: the writer is not the
bottleneck) and prints:
  - the time from the first Service write until the controller has assigned every Service and
    until the agent's FRRConfiguration (frr mode: bgpd's table) holds exactly the prefixes its
    node should announce; in frr mode also the agent's applies to FRR (from its log);
  - VmRSS/VmHWM and CPU (utime+stime) of each daemon (frr mode: and of each FRR daemon) and of
    this process (server and writer), at the start, at convergence and at steady state;
  - the requests each daemon made in each phase;
  - when the agent has written every ServiceBGPStatus of its node (bounded by --status-bound);
  - a steady-state window of --steady seconds after both daemons went idle: requests and CPU.
Figures only; nothing is asserted here (bench/scale_test.py runs it at a tiny scale). Every
process is stopped by PID, and the lab of frr mode removed, also on failure, Ctrl-C or SIGTERM;
the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import collections
import ipaddress
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_rss import (POOL, Api, Run, bench_prefixes, describe, find_agent,  # noqa: E402
                       proc_figures, rss_by_mapping, wait_for, wait_idle)
from scale_frr import NodeFrr, agent_events, applies  # noqa: E402
from server import KubeApiServer  # noqa: E402  (agent_rss put e2e/kubeapi on sys.path)

ROOT = Path(__file__).resolve().parents[1]
NS = "scale"
MS = "metallb-system"
TOKENS = {"controller": "scale-controller", "agent": "scale-agent", "bench": "scale-bench"}


class CountingAuthorizer:
    """Wraps the server's authorizer and counts each resource request by token, verb and
    resource (with its subresource)."""

    def __init__(self, inner):
        self.inner = inner
        self.counts = collections.Counter()
        self.lock = threading.Lock()

    def authorize(self, a) -> None:
        key = (a.token, a.verb, a.res.plural + ("/" + a.sub if a.sub else ""))
        with self.lock:
            self.counts[key] += 1
        self.inner.authorize(a)

    def authorize_path(self, user, verb: str, path: str) -> None:
        self.inner.authorize_path(user, verb, path)

    def snapshot(self) -> collections.Counter:
        with self.lock:
            return collections.Counter(self.counts)


def node_name(k: int) -> str:
    return f"node{k + 1:03d}"


def config_objects(nodes: int) -> list:
    """Namespace, M Nodes, two ToR peers with BFD, communities, one /16 pool and its
    advertisement."""
    meta = {"namespace": MS}
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
    for k in range(nodes):
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": node_name(k),
                                  "labels": {"kubernetes.io/hostname": node_name(k),
                                             "ingot.example/bgp-speaker": "true"}},
                     "status": {"addresses": [{"type": "InternalIP",
                                               "address": f"10.99.{1 + k // 250}.{1 + k % 250}"}],
                                "conditions": [{"type": "Ready", "status": "True"}]}})
    objs.append({"apiVersion": "metallb.io/v1beta1", "kind": "BFDProfile",
                 "metadata": dict(meta, name="tor"),
                 "spec": {"receiveInterval": 300, "transmitInterval": 300,
                          "detectMultiplier": 3}})
    for t in (1, 2):
        objs.append({"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
                     "metadata": dict(meta, name=f"tor{t}"),
                     "spec": {"myASN": 64513, "peerASN": 64512, "peerAddress": f"10.99.0.{t}",
                              "holdTime": "90s", "bfdProfile": "tor",
                              "nodeSelectors": [{"matchLabels": {
                                  "ingot.example/bgp-speaker": "true"}}]}})
    objs.append({"apiVersion": "metallb.io/v1beta1", "kind": "Community",
                 "metadata": dict(meta, name="communities"),
                 "spec": {"communities": [{"name": "vip-routes", "value": "64512:100"}]}})
    objs.append({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
                 "metadata": dict(meta, name="scale-pool"),
                 "spec": {"addresses": [POOL], "autoAssign": True}})
    objs.append({"apiVersion": "metallb.io/v1beta1", "kind": "BGPAdvertisement",
                 "metadata": dict(meta, name="scale-adv"),
                 "spec": {"ipAddressPools": ["scale-pool"], "communities": ["vip-routes"],
                          "localPref": 150}})
    return objs


def endpoint_nodes(i: int, nodes: int) -> tuple:
    """The two nodes holding Service i's endpoints (distinct when nodes > 1)."""
    a = (i * 7) % nodes
    b = (a + 1 + (i * 13) % max(1, nodes - 1)) % nodes
    return (a, b) if nodes > 1 else (a,)


def local_policy(i: int) -> bool:
    return i % 2 == 1


def service(i: int) -> dict:
    name = f"s{i:05d}"
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"type": "LoadBalancer",
                     "externalTrafficPolicy": "Local" if local_policy(i) else "Cluster",
                     "allocateLoadBalancerNodePorts": False, "selector": {"app": name},
                     "ports": [{"name": "http", "protocol": "TCP", "port": 80,
                                "targetPort": 8080}]}}


def endpoint_slice(i: int, nodes: int) -> dict:
    endpoints = [{"addresses": [f"10.244.{k % 250}.{1 + i % 250}"], "nodeName": node_name(k),
                  "conditions": {"ready": True, "serving": True, "terminating": False}}
                 for k in endpoint_nodes(i, nodes)]
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"s{i:05d}-a", "namespace": NS,
                         "labels": {"kubernetes.io/service-name": f"s{i:05d}"}},
            "addressType": "IPv4", "endpoints": endpoints,
            "ports": [{"name": "http", "protocol": "TCP", "port": 8080}]}


def announced_by_first(n: int, nodes: int) -> int:
    """How many of the N Services the first node announces (Cluster: all; Local: with an
    endpoint there)."""
    return sum(1 for i in range(n) if not local_policy(i) or 0 in endpoint_nodes(i, nodes))


def assigned(api: Api) -> int:
    res = api.res("v1", "Service")
    with api.cluster.store.cond:
        objs = api.cluster.store.list(res.key, NS)
    return sum(1 for o in objs if (o.get("status", {}).get("loadBalancer", {}) or {})
               .get("ingress"))


def self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def requests_line(counts: collections.Counter, token: str) -> str:
    mine = {(verb, res): c for (t, verb, res), c in counts.items() if t == token and c}
    writes = sum(c for (verb, _), c in mine.items()
                 if verb in ("create", "update", "patch", "delete"))
    detail = ", ".join(f"{verb} {res} {c}" for (verb, res), c in sorted(mine.items()))
    return f"{sum(mine.values())} requests, {writes} writes ({detail or 'none'})"


class Daemons(Run):
    """agent_rss's Run with the controller beside the agent, a token per daemon and, in frr
    mode, the node's FRR."""

    def __init__(self, agent: Path, controller: Path, node: str, qps: str, workdir: Path,
                 mode: str):
        super().__init__(agent, 1, ["--kube-api-qps", qps], workdir, [])
        self.controller, self.node, self.qps, self.mode = controller, node, qps, mode
        self.counter = None
        self.frr = NodeFrr() if mode == "frr" else None
        self.log_mark = 0  # agent log offset where the current phase began

    def start_server(self, nodes: int) -> Api:
        self.server = KubeApiServer(tokens=list(TOKENS.values()), history=200000).start()
        self.counter = CountingAuthorizer(self.server.authorizer)
        self.server.authorizer = self.counter
        api = Api(self.server)
        for obj in config_objects(nodes):
            api.create(obj)
        return api

    def spawn(self, role: str, argv: list) -> None:
        kubeconfig = self.dir / f"kubeconfig-{role}"
        self.server.write_kubeconfig(kubeconfig, token=TOKENS[role])
        log = open(self.dir / f"agent-{role}.log", "wb")  # the name wait_for reports
        self.procs[role] = subprocess.Popen(
            [*argv, "--kubeconfig", str(kubeconfig), "--namespace", MS, "--port", "0",
             "--health-probe-port", "0", "--kube-api-qps", self.qps, "--log-level", "info"],
            stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, METALLB_BGP_TYPE=self.mode))
        log.close()
        self.pids[role] = self.procs[role].pid

    def start_daemons(self) -> None:
        mode = ["--bgp-mode", "frr-k8s"]
        if self.frr is not None:
            mode = self.frr.start(self.node).agent_args()
        self.spawn("controller", [str(self.controller)])
        self.spawn("agent", [str(self.agent), "--node-name", self.node, *mode])

    @property
    def agent_log(self) -> Path:
        return self.dir / "agent-agent.log"

    def announced(self, api: Api) -> int:
        """The bench prefixes the agent's output holds: its FRRConfiguration's, or in frr mode
        bgpd's table."""
        if self.frr is not None:
            return self.frr.prefixes()
        return bench_prefixes(api.get("frrk8s.metallb.io/v1beta1", "FRRConfiguration", MS,
                                      f"metallb-{self.node}"))

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            if self.frr is not None:
                self.frr.close()


def figures(run: Daemons, label: str) -> None:
    for role in ("controller", "agent"):
        print(f"  {label}: " + describe(role, run.pids[role]))
    for daemon, pid in (run.frr.pids() if run.frr else {}).items():
        print(f"  {label}: " + describe(f"FRR {daemon}", pid))
    print(f"  {label}: test API server + writer (this process): CPU {self_cpu():.2f} s, "
          f"VmRSS {proc_figures(os.getpid())['VmRSS']:.1f} MiB, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)


def requests(run: Daemons, label: str, since: collections.Counter) -> collections.Counter:
    now = run.counter.snapshot()
    delta = now - since
    for role in ("controller", "agent"):
        print(f"  {label}: {role} " + requests_line(delta, TOKENS[role]))
    return now


def write_all(api: Api, n: int, nodes: int) -> float:
    start = time.monotonic()
    for i in range(n):
        api.create(endpoint_slice(i, nodes))
        api.create(service(i))
        if i % 200 == 199:
            time.sleep(0.01)  # let the server's watch threads stream the events
    return start


def converge(api: Api, run: Daemons, n: int, expected: int, start: float, bound: float) -> None:
    """Waits until every Service has an address and the agent's FRRConfiguration (frr mode:
    bgpd) holds exactly the expected prefixes; prints when each happened (measured from the
    first write)."""
    done = {}
    where = f"bgpd in {run.frr.router.namespace} holds" if run.frr else f"metallb-{run.node} lists"

    def check() -> bool:
        now = time.monotonic()
        if "controller" not in done and assigned(api) >= n:
            done["controller"] = now
            print(f"  controller: all {n} Services have an address "
                  f"{now - start:.1f} s after the first write", flush=True)
        if "controller" in done and run.announced(api) == expected:
            done["agent"] = now
            print(f"  agent: {where} all {expected} prefixes "
                  f"{now - start:.1f} s after the first write", flush=True)
            return True
        return False
    wait_for(check, bound, "convergence", run)


def statuses_done(api: Api, expected: int, start: float, bound: float) -> None:
    """Waits (bounded) until the agent has written a ServiceBGPStatus for each Service it
    announces: the agent is not at steady state before."""
    def count() -> int:
        return api.count("metallb.io/v1beta1", "ServiceBGPStatus", MS)
    until = time.monotonic() + bound
    while count() < expected and time.monotonic() < until:
        time.sleep(1.0)
    written = count()
    print(f"  agent: {written} of {expected} ServiceBGPStatus objects written "
          f"{time.monotonic() - start:.1f} s after the first write"
          + ("" if written >= expected else f" (--status-bound {bound:.0f} s reached)"),
          flush=True)


def cpu_of(run: Daemons) -> dict:
    """CPU seconds so far of each daemon (frr mode: and each FRR daemon), by name."""
    pids = dict(run.pids, **(run.frr.pids() if run.frr else {}))
    return {name: proc_figures(pid)["cpu"] for name, pid in pids.items()}


def cpu_line(run: Daemons, since: dict, label: str, per: int = 0) -> None:
    used = {name: cpu - since[name] for name, cpu in cpu_of(run).items()}
    each = ", ".join(f"{name} {cpu:.2f} s" + (f" ({cpu / per * 1000:.2f} ms per Service)"
                                               if per and name in run.pids else "")
                     for name, cpu in used.items())
    print(f"  {label}: CPU {each}", flush=True)


def start_up(args, run: Daemons) -> Api:
    """Starts the server, the daemons (and FRR) and waits until both daemons are idle with
    their first output written: the FRRConfiguration, or in frr mode the first FRR apply."""
    api = run.start_server(args.nodes)
    run.start_daemons()
    if run.frr is not None:
        wait_for(lambda: run.frr.check_alive() or agent_events(run.agent_log, "frr_applied"),
                 args.bound, "the agent's first FRR apply", run)
    else:
        wait_for(lambda: api.get("frrk8s.metallb.io/v1beta1", "FRRConfiguration", MS,
                                 f"metallb-{run.node}") is not None, args.bound,
                 f"FRRConfiguration metallb-{run.node}", run)
    for role in ("controller", "agent"):
        wait_idle(run.pids[role], window=args.idle_window, bound=args.bound)
    return api


def to_idle(args, api: Api, run: Daemons, expected: int, start: float) -> None:
    """After convergence: waits for the agent's statuses and for both daemons to go idle."""
    statuses_done(api, expected, start, args.status_bound)
    idle = max(wait_idle(run.pids[r], window=args.idle_window, bound=args.bound)
               for r in ("controller", "agent"))
    statuses = api.count("metallb.io/v1beta1", "ServiceBGPStatus", MS)
    print(f"  both idle {idle:.1f} s later ({statuses} ServiceBGPStatus objects)")
    figures(run, "idle after")


def steady(args, run: Daemons, counts: collections.Counter) -> None:
    cpu = cpu_of(run)
    time.sleep(args.steady)
    cpu_line(run, cpu, f"steady {args.steady:.0f} s")
    for role in ("controller", "agent"):
        print(f"  steady {args.steady:.0f} s: {role} RSS by mapping (MiB): "
              f"{rss_by_mapping(run.pids[role])}")
    requests(run, f"steady {args.steady:.0f} s", counts)
    if run.frr is not None:
        print(f"  steady {args.steady:.0f} s: agent " + applies(run.agent_log, run.log_mark))


def measure(args, mode: str, agent: Path, controller: Path) -> None:
    workdir = Path(tempfile.mkdtemp(prefix=f"ingot-scale-{mode}-"))
    run = Daemons(agent, controller, node_name(0), args.qps, workdir, mode)
    try:
        api = start_up(args, run)
        expected = announced_by_first(args.services, args.nodes)
        print(f"{mode} mode: {args.services} Services, {args.nodes} Nodes, {run.node} should "
              f"announce {expected}; --kube-api-qps {args.qps}; load {os.getloadavg()[0]:.1f}")
        figures(run, "idle before")
        counts = requests(run, "start-up", collections.Counter())
        run.log_mark = run.agent_log.stat().st_size
        cpu = cpu_of(run)
        start = write_all(api, args.services, args.nodes)
        print(f"  wrote {args.services} EndpointSlices and Services in "
              f"{time.monotonic() - start:.1f} s", flush=True)
        converge(api, run, args.services, expected, start, args.bound)
        figures(run, "at convergence")
        cpu_line(run, cpu, "first write to convergence", per=args.services)
        counts = requests(run, "until convergence", counts)
        if run.frr is not None:
            print("  until convergence: agent " + applies(run.agent_log, run.log_mark))
        to_idle(args, api, run, expected, start)
        cpu_line(run, cpu, "first write to idle", per=args.services)
        counts = requests(run, "convergence to idle", counts)
        if run.frr is not None:
            print("  first write to idle: agent " + applies(run.agent_log, run.log_mark))
            run.log_mark = run.agent_log.stat().st_size
        steady(args, run, counts)
        sys.stdout.flush()
    finally:
        run.stop()
    shutil.rmtree(workdir)  # kept (and named) when the run failed


def find_controller(explicit) -> Path:
    for candidate in ([explicit] if explicit else [ROOT / "build/controller/ingot-controller"]):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise SystemExit("scale: ingot-controller is not built (give --controller PATH)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", nargs="+", choices=("frr-k8s", "frr"), default=["frr-k8s"],
                        help="the agent's --bgp-mode; several run one after the other "
                             "(frr needs root and FRR 8.4)")
    parser.add_argument("--services", type=int, default=10000)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--qps", default="0", help="both daemons' --kube-api-qps (0: no limit)")
    parser.add_argument("--steady", type=float, default=30.0,
                        help="seconds of steady state measured after both went idle")
    parser.add_argument("--agent", help="ingot-agent binary (default: build/agent/ingot-agent)")
    parser.add_argument("--controller", help="ingot-controller binary")
    parser.add_argument("--idle-window", type=float, default=3.0,
                        help="a daemon is idle after this many seconds with under 0.03 s of CPU")
    parser.add_argument("--status-bound", type=float, default=3600.0,
                        help="seconds to wait for every ServiceBGPStatus after convergence")
    parser.add_argument("--bound", type=float, default=1800.0,
                        help="seconds any wait may take (default 1800)")
    args = parser.parse_args()
    if args.services > ipaddress.ip_network(POOL).num_addresses - 2 or args.nodes < 1:
        raise SystemExit(f"scale: --services must fit in {POOL}, --nodes must be ≥ 1")
    agent, controller = find_agent(args.agent), find_controller(args.controller)
    # SIGTERM unwinds like Ctrl-C, so that every process and the lab are removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    for mode in args.mode:
        measure(args, mode, agent, controller)
    return 0


if __name__ == "__main__":
    sys.exit(main())
