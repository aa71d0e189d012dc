#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The agent's own footprint with N Services, in frr-k8s mode (no FRR, no root, loopback only).

    /usr/bin/python3 bench/agent_rss.py --services 1000 10000 [--agents 1|2] [--agent PATH]
                                        [--agent-arg=--kube-api-qps --agent-arg=0] [--bound 900]
                                        [--wrap 'heaptrack -o /tmp/agent-%N']

For each N, a fresh run: the test API server (e2e/kubeapi/server.py, in this process), then
--agents ingot-agent processes (node1, node2) in frr-k8s mode; examples/bgp and
examples/cluster/nodes.yaml plus a /16 pool "bench-pool" (labelled so that bgp-adv announces it)
are applied. Then N LoadBalancer Services (ETP Cluster, no node ports) are written straight into
the server's store (no HTTP: the server's Python would otherwise be the bottleneck), each with one
EndpointSlice holding one serving endpoint on node1 and with status.loadBalancer.ingress set
through the status subresource, as the controller would. No controller runs.

It waits (bounded) until the FRRConfiguration metallb-node1 lists all N bench prefixes and prints:
the time from the last Service written to that point, then the agent's VmRSS/VmHWM
(/proc/<pid>/status), PSS, private and anonymous memory (/proc/<pid>/smaps_rollup), the
shared-library and executable text in its resident set (/proc/<pid>/smaps) and CPU time (utime+stime, /proc/<pid>/stat), once on convergence and once
more after the agent went idle (its ServiceBGPStatus writes etc. done). Figures only; nothing
about time is asserted. Every process is stopped by PID.

--wrap runs each agent under a profiler (the command is split on spaces, %N becomes the number
of Services); figures are then read from the agent itself (the wrapper's child), and once idle
the agent is ended with SIGKILL, so that what a heap profiler reports as "leaked" is exactly the
heap the idle agent held.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "e2e" / "kubeapi"))

from server import KubeApiServer  # noqa: E402

NS = "bench"
POOL = "10.200.0.0/16"  # 65,536 addresses; nothing is routed (no FRR runs)
TOKEN = "bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")
AGENT_CANDIDATES = ("build/agent/ingot-agent", "build-bench/agent/ingot-agent")


class Api:
    """Direct writes into the in-process test API server (same semantics as its REST API:
    resourceVersions, watch events, status subresource, hooks)."""

    def __init__(self, server: KubeApiServer):
        self.cluster = server.cluster
        self._res = {}

    def res(self, api_version: str, kind: str):
        if (api_version, kind) not in self._res:
            found = [r for r in self.cluster.registry.all()
                     if r.group_version == api_version and r.kind == kind]
            if not found:
                raise SystemExit(f"agent_rss: the test API server has no {api_version} {kind}")
            self._res[(api_version, kind)] = found[0]
        return self._res[(api_version, kind)]

    def create(self, obj: dict) -> None:
        """Creates obj, then writes its status (if any) through the status subresource."""
        res = self.res(obj["apiVersion"], obj["kind"])
        ns = obj["metadata"].get("namespace", "default") if res.namespaced else ""
        stored = self.cluster.create(res, ns, obj)
        if "status" in obj and res.status and stored.get("status") != obj["status"]:
            self.cluster.update(res, ns, obj["metadata"]["name"],
                                dict(stored, status=obj["status"]), "status")

    def get(self, api_version: str, kind: str, ns: str, name: str):
        res = self.res(api_version, kind)
        with self.cluster.store.cond:
            return self.cluster.store.get(res.key, ns, name)

    def count(self, api_version: str, kind: str, ns: str) -> int:
        res = self.res(api_version, kind)
        with self.cluster.store.cond:
            return len(self.cluster.store.list(res.key, ns))


def example_objects() -> list:
    files = sorted((ROOT / "examples" / "bgp").glob("*.yaml")) + [
        ROOT / "examples" / "cluster" / "nodes.yaml"]
    objects = [o for f in files for o in yaml.safe_load_all(f.read_text()) if o]
    pool = {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
            "metadata": {"name": "bench-pool", "namespace": "metallb-system",
                         "labels": {"ingot.example/announce": "bgp"}},
            "spec": {"addresses": [POOL], "autoAssign": False}}
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    # Namespaces and Nodes first, then configuration, then the example Services.
    rank = {"Namespace": 0, "Node": 1, "Service": 3, "EndpointSlice": 3}
    return sorted([namespace, pool] + objects, key=lambda o: rank.get(o["kind"], 2))


def vip(i: int) -> str:
    return str(ipaddress.ip_network(POOL).network_address + 1 + i)


def service(i: int) -> dict:
    name = f"s{i}"
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": NS,
                         "annotations": {"metallb.io/loadBalancerIPs": vip(i)}},
            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster",
                     "allocateLoadBalancerNodePorts": False, "selector": {"app": name},
                     "ports": [{"name": "http", "protocol": "TCP", "port": 80,
                                "targetPort": 8080}]},
            "status": {"loadBalancer": {"ingress": [{"ip": vip(i), "ipMode": "VIP"}]}}}


def endpoint_slice(i: int) -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"s{i}-a", "namespace": NS,
                         "labels": {"kubernetes.io/service-name": f"s{i}"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [f"10.244.{1 + i // 250 % 250}.{1 + i % 250}"],
                           "nodeName": "node1",
                           "conditions": {"ready": True, "serving": True, "terminating": False}}],
            "ports": [{"name": "http", "protocol": "TCP", "port": 8080}]}


def bench_prefixes(frr_config) -> int:
    """Number of distinct bench-pool prefixes in the FRRConfiguration's routers."""
    if not frr_config:
        return 0
    pool = ipaddress.ip_network(POOL)
    found = set()
    for router in frr_config.get("spec", {}).get("bgp", {}).get("routers", []) or []:
        for prefix in router.get("prefixes", []) or []:
            net = ipaddress.ip_network(prefix, strict=False)
            if net.version == 4 and net.subnet_of(pool):
                found.add(net)
    return len(found)


def proc_figures(pid: int) -> dict:
    status = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon"):
            status[key] = int(value.split()[0]) / 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    status["cpu"] = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
    return status


def rss_by_mapping(pid: int, top: int = 6) -> str:
    """The resident set by what maps it (/proc/<pid>/smaps): the executable, each shared
    library, the main heap ([heap]), other anonymous memory (thread arenas, stacks, mmapped
    allocations), in MiB, largest first."""
    exe = os.path.realpath(f"/proc/{pid}/exe")
    sums, name = {}, None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            path = head[5] if len(head) > 5 else ""
            name = ("executable" if path == exe else "[anonymous]" if not path
                    else path if path.startswith("[") else os.path.basename(path))
        elif head and head[0] == "Rss:":
            sums[name] = sums.get(name, 0) + int(head[1])
    ranked = sorted(sums.items(), key=lambda kv: -kv[1])
    rest = sum(v for _, v in ranked[top:])
    parts = [f"{k} {v / 1024:.1f}" for k, v in ranked[:top]] + [f"other {rest / 1024:.1f}"]
    return ", ".join(parts)


def memory_figures(pid: int) -> dict:
    """RSS, PSS, private and anonymous memory (/proc/<pid>/smaps_rollup), and what of the
    resident set is file-backed code (/proc/<pid>/smaps, executable mappings): of shared
    libraries (`lib_text`, its PSS `lib_text_pss`), of the executable (`exe_text`), and every
    mapping of a shared library, text, read-only data and relocations (`lib_all`). MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, value = line.partition(":")
        out[key] = int(value.split()[0]) / 1024
    out["Private"] = out["Private_Clean"] + out["Private_Dirty"]
    exe = os.path.realpath(f"/proc/{pid}/exe")
    sums = {"lib_text": 0, "lib_text_pss": 0, "exe_text": 0, "lib_all": 0}
    kind, text = None, False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            path = head[5] if len(head) > 5 else ""
            kind = ("exe" if path == exe
                    else "lib" if ".so" in os.path.basename(path) else None)
            text = "x" in head[1]
        elif kind and head and head[0] in ("Rss:", "Pss:"):
            kb = int(head[1])
            if kind == "lib" and head[0] == "Rss:":
                sums["lib_all"] += kb
            if text:
                slot = {("lib", "Rss:"): "lib_text", ("lib", "Pss:"): "lib_text_pss",
                        ("exe", "Rss:"): "exe_text"}.get((kind, head[0]))
                if slot:
                    sums[slot] += kb
    out.update({k: v / 1024 for k, v in sums.items()})
    return out


def describe(name: str, pid: int) -> str:
    f = proc_figures(pid)
    m = memory_figures(pid)
    return (f"{name}: VmRSS {f['VmRSS']:.1f} MiB (anonymous {f['RssAnon']:.1f}), "
            f"PSS {m['Pss']:.1f}, private {m['Private']:.1f} (anonymous {m['Anonymous']:.1f}); "
            f"shared-library text {m['lib_text']:.1f} (PSS {m['lib_text_pss']:.1f}; "
            f"all library mappings {m['lib_all']:.1f}), executable text {m['exe_text']:.1f}; "
            f"VmHWM {f['VmHWM']:.1f} MiB, CPU {f['cpu']:.2f} s")


def wait_idle(pid: int, window: float = 3.0, busy: float = 0.03, bound: float = 300.0) -> float:
    """Waits until the process used under `busy` CPU seconds in the last `window` seconds
    (watch bookmarks keep it from ever using none); bounded. Returns the wait."""
    start = time.monotonic()
    samples = [(start, proc_figures(pid)["cpu"])]
    while time.monotonic() - start < bound:
        time.sleep(0.5)
        samples.append((time.monotonic(), proc_figures(pid)["cpu"]))
        old = [s for s in samples if samples[-1][0] - s[0] >= window]
        if old and samples[-1][1] - old[-1][1] < busy:
            break
    return time.monotonic() - start


def agent_pid(proc: subprocess.Popen, name: str, bound: float = 60.0) -> int:
    """The agent's own PID: proc itself, or under a wrapper the descendant running `name`."""
    start = time.monotonic()
    while time.monotonic() - start < bound:
        todo = [proc.pid]
        while todo:
            pid = todo.pop()
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == name[:15]:
                    return pid
                for task in Path(f"/proc/{pid}/task").iterdir():
                    todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
        time.sleep(0.1)
    raise SystemExit(f"agent_rss: no {name} process under PID {proc.pid}")


class Run:
    def __init__(self, agent: Path, agents: int, extra: list, workdir: Path, wrap: list):
        self.agent, self.agents, self.extra, self.dir = agent, agents, extra, workdir
        self.wrap = wrap
        self.server = None
        self.procs = {}
        self.pids = {}

    def start(self) -> Api:
        self.server = KubeApiServer(tokens=[TOKEN], history=5000).start()
        kubeconfig = self.dir / "kubeconfig"
        self.server.write_kubeconfig(kubeconfig)
        api = Api(self.server)
        for obj in example_objects():
            api.create(obj)
        for k in range(1, self.agents + 1):
            node = f"node{k}"
            log = open(self.dir / f"agent-{node}.log", "wb")
            self.procs[node] = subprocess.Popen(
                [*self.wrap, str(self.agent), "--node-name", node, "--kubeconfig", str(kubeconfig),
                 "--bgp-mode", "frr-k8s", "--namespace", "metallb-system", "--port", "0",
                 "--health-probe-port", "0", *self.extra], stdout=log, stderr=subprocess.STDOUT)
            log.close()
            self.pids[node] = agent_pid(self.procs[node], self.agent.name)
        return api

    def kill_agents(self) -> None:
        """SIGKILL to the agents themselves; a wrapper then writes its report and exits."""
        for node, pid in self.pids.items():
            os.kill(pid, signal.SIGKILL)
            self.procs[node].wait(600)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.server is not None:
            self.server.stop()


def wait_for(check, bound: float, what: str, run: Run) -> float:
    start = time.monotonic()
    while not check():
        for node, proc in run.procs.items():
            if proc.poll() is not None:
                raise SystemExit(f"agent_rss: agent {node} exited ({proc.returncode}); "
                                 f"see {run.dir}/agent-{node}.log")
        if time.monotonic() - start > bound:
            raise SystemExit(f"agent_rss: {what} not within {bound:.0f} s; logs in {run.dir}")
        time.sleep(0.1)
    return time.monotonic() - start


def measure(agent: Path, agents: int, extra: list, n: int, bound: float, wrap: list) -> None:
    workdir = Path(tempfile.mkdtemp(prefix=f"ingot-agent-rss-{n}-"))
    run = Run(agent, agents, extra, workdir, [w.replace("%N", str(n)) for w in wrap])
    try:
        api = run.start()

        def frr_config(node="node1"):
            return api.get("frrk8s.metallb.io/v1beta1", "FRRConfiguration", "metallb-system",
                           f"metallb-{node}")

        wait_for(lambda: frr_config() is not None, bound, "FRRConfiguration metallb-node1", run)
        wait_idle(run.pids["node1"], bound=bound)
        print(f"N={n}: baseline (examples only, idle)")
        for node, pid in run.pids.items():
            print("  " + describe(f"agent {node}", pid))
        start = time.monotonic()
        for i in range(n):
            api.create(endpoint_slice(i))
            api.create(service(i))
            if i % 200 == 199:
                time.sleep(0.01)  # let the server's watch threads stream the events
        last_write = time.monotonic()
        print(f"  wrote {n} Services + {n} EndpointSlices + {n} status updates in "
              f"{last_write - start:.1f} s")
        waited = wait_for(lambda: bench_prefixes(frr_config()) >= n, bound,
                          f"all {n} prefixes in metallb-node1", run)
        print(f"  metallb-node1 lists all {n} prefixes {waited:.1f} s after the last Service "
              f"write ({time.monotonic() - start:.1f} s after the first)")
        for node, pid in run.pids.items():
            print("  at convergence: " + describe(f"agent {node}", pid))
        idle = wait_idle(run.pids["node1"])
        statuses = api.count("metallb.io/v1beta1", "ServiceBGPStatus", "metallb-system")
        print(f"  idle {idle:.1f} s later ({statuses} ServiceBGPStatus objects):")
        for node, pid in run.pids.items():
            print("  idle: " + describe(f"agent {node}", pid))
            print(f"  idle: RSS by mapping (MiB): {rss_by_mapping(pid)}; "
                  f"threads {len(os.listdir(f'/proc/{pid}/task'))}")
        sys.stdout.flush()
        if run.wrap:
            run.kill_agents()
    finally:
        run.stop()
    shutil.rmtree(workdir)  # kept (and named) when the run failed


def find_agent(explicit) -> Path:
    for candidate in ([explicit] if explicit else [ROOT / c for c in AGENT_CANDIDATES]):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise SystemExit("agent_rss: ingot-agent is not built (give --agent PATH)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--services", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--agents", type=int, choices=(1, 2), default=1)
    parser.add_argument("--agent", help="ingot-agent binary (default: build/agent/ingot-agent)")
    parser.add_argument("--agent-arg", action="append", default=[], metavar="ARG",
                        help="extra agent argument, repeatable (e.g. --agent-arg=--kube-api-qps"
                             " --agent-arg=0)")
    parser.add_argument("--wrap", default="",
                        help="profiler command to run each agent under, e.g. "
                             "'heaptrack -o /tmp/agent-%%N' (%%N: the number of Services)")
    parser.add_argument("--bound", type=float, default=900.0,
                        help="seconds to wait for all prefixes (default 900)")
    args = parser.parse_args()
    agent = find_agent(args.agent)
    print(f"agent {agent} {' '.join(args.agent_arg)}, {args.agents} agent process(es), "
          f"frr-k8s mode, load "
          f"{os.getloadavg()[0]:.1f}")
    for n in args.services:
        measure(agent, args.agents, args.agent_arg, n, args.bound, shlex.split(args.wrap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
