# SPDX-License-Identifier: Apache-2.0
"""The cluster lab: a small Kubernetes cluster running Ingot, out of network namespaces.

    <run>-sw (bridge)  ── <run>-tor   FRR, AS 64512 (eBGP ToR), host octet 1
                       ── <run>-tor2  FRR, AS 64513 (iBGP ToR, optional), octet 2
                       ── <run>-api   test API server (e2e/kubeapi/server.py) + ingot-controller,
                                      octet 5
                       ── <run>-nodeK FRR (empty; configured only by Ingot) + ingot-agent,
                                      octet 10+K; in frr-k8s mode also ingot-frr

Every daemon runs under `ip netns exec` with its PID in the run ledger and its log in
<run dir>/logs/. kubectl runs inside the api namespace (Cluster.kubectl). Nodes are Node
objects labelled as in examples/cluster/nodes.yaml, with their lab address as InternalIP; each
has a speaker Pod (labels app=metallb, component=speaker; podIP = the node's address), from
which the agents' memberlist takes its seeds. The agents share the run's memberlist key.

Modes: "frr" — each agent renders frr.conf and runs frr-reload.py against its node's FRR;
"frr-k8s" — each agent only writes its FRRConfiguration, and ingot-frr (the frr-k8s-compatible
daemon, role `frr-k8s-nodeK`) applies the FRRConfigurations of the frr-k8s namespace that select
its node to the node's FRR, incrementally, and writes FRRNodeState <node>;
"none" — Layer 2 only (MetalLB's native flavour, charts/manifests/ingot-native.yaml): the API
server serves no frr-k8s CRD, the nodes run no FRR, the agents run `--bgp-mode none`.

A Cluster is either built here (up()) or attached to a running persistent one from its ledger
(attach(); used by `e2e/lab status`), which can query but not change processes.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from . import ledger as ledger_mod
from . import rbac
from . import webhooks
from .frr import VTYSH, FrrRouter
from .kubeclient import KubeClient
from .manifests import METALLB_NS, SPEAKER_LABELS, node as node_manifest, pod_status, \
    speaker_pod, to_yaml
from .proc import LabError, kill_pid, pid_alive, run, wait_until
from .topology import Lab
from .torconf import TorConfig

REPO = Path(__file__).resolve().parents[2]
E2E = REPO / "e2e"
EXAMPLES = REPO / "examples"
KUBEAPI_SERVER = E2E / "kubeapi" / "server.py"
PYTHON = "/usr/bin/python3"
KUBECTL = os.environ.get("INGOT_KUBECTL", "/usr/bin/kubectl")
TOKEN = "ingot-lab-token"
API_OCTET = 5
API_PORT = 6443
TOR_ASN = 64512
NODE_ASN = 64513
FRRK8S_NS = "frr-k8s-system"
MODES = ("frr", "frr-k8s", "none")
SERVICE_CIDRS = ("10.96.0.0/12", "fd00:10:96::/108")
CLUSTER_KIND = "cluster"  # ledger.info["kind"] of a cluster lab


def _newest(candidates: Sequence[Path]) -> Optional[Path]:
    found = [p for p in candidates if p.is_file() and os.access(p, os.X_OK)]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def find_binary(env: str, relative: str) -> Optional[Path]:
    """Returns $env when set (None if it is not a file), else <repo>/build/<relative>, else the
    newest <repo>/build*/<relative>."""
    if os.environ.get(env):
        path = Path(os.environ[env])
        return path if path.is_file() else None
    default = REPO / "build" / relative
    if default.is_file() and os.access(default, os.X_OK):
        return default
    return _newest(sorted(REPO.glob(f"build*/{relative}")))


def find_agent() -> Optional[Path]:
    return find_binary("INGOT_AGENT", "agent/ingot-agent")


def find_ingot_frr() -> Optional[Path]:
    return find_binary("INGOT_FRR", "ingotfrr/ingot-frr")


def find_controller() -> Optional[Path]:
    return find_binary("INGOT_CONTROLLER", "controller/ingot-controller")


def example_node_labels() -> dict:
    """Returns node name → labels of the Nodes in examples/cluster/nodes.yaml."""
    import yaml  # Debian's python3-yaml; only the lab needs it

    out = {}
    for doc in yaml.safe_load_all((EXAMPLES / "cluster" / "nodes.yaml").read_text()):
        if doc and doc.get("kind") == "Node":
            out[doc["metadata"]["name"]] = dict(doc["metadata"].get("labels", {}))
    return out


@dataclass
class ClusterSpec:
    nodes: int = 2
    mode: str = "frr"
    ibgp_tor: bool = False          # also start tor2 (AS = the nodes' AS: iBGP)
    slot: Optional[int] = None      # None: any free slot; `e2e/lab up` uses 0
    persistent: bool = False        # outlives this process (`e2e/lab up`)
    node_labels: dict = field(default_factory=dict)  # name → labels, replacing the defaults
    agent_args: tuple = ()          # extra ingot-agent flags
    controller_args: tuple = ()     # extra ingot-controller flags
    bfd_interval_ms: int = 100      # the ToRs' BFD timers (the examples' profile is 100 ms)
    start_agents: bool = True       # False: no agent (tests of the lab itself)
    memberlist: bool = True         # agents gossip (encrypted with the lab's secret)
    node_frr: bool = True           # FRR (and in frr-k8s mode ingot-frr) on every node; False
                                    # (frr-k8s and none modes): the nodes run nothing but the
                                    # agent (mode none sets it False)
    authz_log: Optional[str] = None  # the API server's RBAC decision record (rbac.py); None:
                                     # <run dir>/api/authz.jsonl
    webhooks: bool = True           # register the controller's webhooks (netlab/webhooks.py)
                                    # (the API server converts BGPPeers through it)

    def __post_init__(self):
        if self.mode not in MODES:
            raise LabError(f"mode {self.mode!r}: must be one of {', '.join(MODES)}")
        if not 1 <= self.nodes <= 20:
            raise LabError(f"nodes {self.nodes}: must be 1..20")
        if self.mode == "none":
            self.node_frr = False  # Layer 2 only: nothing but the agent on the nodes
        if not self.node_frr and self.mode == "frr":
            raise LabError("node_frr=False needs mode frr-k8s (the agent then writes "
                           "FRRConfigurations only) or none")


class AttachedRouter:
    """vtysh access to a lab router by its directory and pathspace (no process handles)."""

    def __init__(self, directory: str, namespace: str):
        self.dir = Path(directory)
        self.namespace = namespace

    def vtysh(self, *commands: str, timeout: float = 30.0) -> str:
        argv = [VTYSH, "--config_dir", str(self.dir), "-N", self.namespace]
        for c in commands:
            argv += ["-c", c]
        return run(argv, timeout=timeout).stdout

    def show_json(self, command: str):
        text = self.vtysh(command)
        try:
            return json.loads(text) if text.strip() else {}
        except ValueError as e:
            raise LabError(f"{self.namespace}: `{command}` did not return JSON ({e})") from None


class Cluster:
    """One cluster lab. up() builds it; close() removes it (not for persistent runs, whose
    `e2e/lab down` releases the ledger)."""

    def __init__(self, spec: ClusterSpec):
        self.spec = spec
        self.lab: Optional[Lab] = None
        self.ledger: Optional[ledger_mod.Ledger] = None
        self.routers: dict = {}      # role → FrrRouter (or AttachedRouter)
        self.procs: dict = {}        # role → Popen
        self.addresses: dict = {}    # role → IPv4 address
        self.agent = find_agent()
        self.controller = find_controller()
        self._client: Optional[KubeClient] = None
        self._controller_env: dict = {}  # the chart's controller environment (rbac.py)

    # Naming ---------------------------------------------------------------------------------

    @property
    def run_name(self) -> str:
        return self.ledger.run

    @property
    def workdir(self) -> Path:
        return self.ledger.path

    @property
    def logdir(self) -> Path:
        return self.workdir / "logs"

    def ns(self, role: str) -> str:
        return f"{self.run_name}-{role}"

    @property
    def node_names(self) -> list:
        return [f"node{i}" for i in range(1, self.spec.nodes + 1)]

    @property
    def tor_roles(self) -> list:
        return ["tor"] + (["tor2"] if self.spec.ibgp_tor else [])

    @property
    def kubeconfig(self) -> Path:
        """kubectl's and the test's kubeconfig (admin token)."""
        return self.workdir / "api" / "kubeconfig"

    def daemon_kubeconfig(self, daemon: str) -> Path:
        """The kubeconfig of the controller or the agents: their ServiceAccount's token."""
        return self.workdir / "api" / f"kubeconfig-{daemon}"

    @property
    def authz_log(self) -> Path:
        return Path(self.spec.authz_log or self.workdir / "api" / "authz.jsonl")

    def authz_denials(self) -> list:
        """Every request of a daemon the chart's RBAC refused so far."""
        return [d for d in rbac.read_record(self.authz_log) if not d["allowed"]]

    @property
    def ca_file(self) -> Path:
        return self.workdir / "api" / "certs" / "ca.crt"

    @property
    def api_url(self) -> str:
        return f"https://{self.addresses['api']}:{API_PORT}"

    def address(self, role: str) -> str:
        return self.addresses[role]

    def tor(self, role: str = "tor"):
        return self.routers[role]

    # Bringing it up ---------------------------------------------------------------------------

    def up(self) -> "Cluster":
        """Builds the whole lab; on any failure removes what was built and raises LabError."""
        if self.controller is None:
            raise LabError("ingot-controller is not built (cmake --build build --target "
                           "ingot-controller, or set INGOT_CONTROLLER)")
        self.lab = Lab(slot=self.spec.slot, persistent=self.spec.persistent)
        self.ledger = self.lab.ledger
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def _build(self) -> None:
        self.logdir.mkdir(parents=True, exist_ok=True)
        self._add_hosts()
        self._save_info()
        self._start_frr()
        self._start_api()
        self._apply_chart_rbac()
        self._create_cluster_objects()
        if self.spec.webhooks:
            self.apply(webhooks.webhook_objects(self.addresses["api"]))
        self.start_controller()
        if self.spec.webhooks:
            wait_until("the controller's webhook CA bundles",
                       lambda: self._controller_alive() and
                       webhooks.ca_bundles_published(self.client), 60)
        if self.spec.start_agents and self.agent is not None:
            for node in self.node_names:
                self.start_agent(node)
        if self.spec.mode == "frr-k8s" and self.spec.node_frr:
            for node in self.node_names:
                self.start_frrk8s(node)
        self._save_info()

    def _controller_alive(self) -> bool:
        proc = self.procs["controller"]
        if proc.poll() is not None:
            raise LabError(f"controller exited {proc.returncode}: {self.log_tail('controller')}")
        return True

    def _add_hosts(self) -> None:
        octets = {"tor": 1, "tor2": 2, "api": API_OCTET}
        for role in self.tor_roles + ["api"]:
            self.addresses[role] = self.lab.add_host(role, octets[role]).ipv4
        for i, node in enumerate(self.node_names, start=1):
            self.addresses[node] = self.lab.add_host(node, 10 + i).ipv4

    def _start_frr(self) -> None:
        nodes = [self.addresses[n] for n in self.node_names]
        for role in self.tor_roles:
            asn = TOR_ASN if role == "tor" else NODE_ASN
            conf = TorConfig(asn, self.addresses[role], NODE_ASN, nodes,
                             bfd_interval_ms=self.spec.bfd_interval_ms, bgp_multipath=16)
            self.routers[role] = FrrRouter(self.lab, self.lab.hosts[role]).start(conf.render())
        for node in self.node_names if self.spec.node_frr else []:
            self.routers[node] = FrrRouter(self.lab, self.lab.hosts[node]).start()

    def _spawn(self, role: str, host: str, argv: Sequence[str], env: Optional[dict] = None,
               cwd: Optional[Path] = None) -> subprocess.Popen:
        log = open(self.logdir / f"{role}.log", "ab")
        full_env = dict(os.environ, **(env or {}))
        # `ip netns exec` execs argv[0], so the PID recorded is the daemon's own.
        proc = subprocess.Popen(["ip", "netns", "exec", self.ns(host), *argv],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=full_env, cwd=cwd)
        log.close()
        self.ledger.add_process(proc.pid, self.ns(host), argv[0])
        self.procs[role] = proc
        self._save_info()
        return proc

    def spawn(self, role: str, host: str, argv: Sequence[str]) -> subprocess.Popen:
        """Starts argv inside host's namespace as role (log <run dir>/logs/<role>.log, PID in
        the ledger, so the run's teardown stops it); for benchmarks' own processes."""
        return self._spawn(role, host, argv)

    def _start_daemon(self, role: str, host: str, argv: Sequence[str],
                      env: Optional[dict] = None) -> None:
        proc = self._spawn(role, host, argv, env)
        time.sleep(0.2)
        if proc.poll() is not None:
            raise LabError(f"{role} exited {proc.returncode} at start: {self.log_tail(role)}")

    def _start_api(self) -> None:
        apidir = self.workdir / "api"
        apidir.mkdir(exist_ok=True)
        argv = [PYTHON, str(KUBEAPI_SERVER), "--address", self.addresses["api"], "--port",
                str(API_PORT), "--port-file", str(apidir / "port"), "--kubeconfig-out",
                str(self.kubeconfig), "--cert-dir", str(apidir / "certs"), "--token", TOKEN,
                "--namespace", FRRK8S_NS, "--history", "200000", "--authz-log",
                str(self.authz_log)]
        if self.spec.mode == "none":  # the metallb.io CRDs only: frr-k8s is not installed
            argv += ["--crd-dir", str(REPO / "crds")]
        for cidr in SERVICE_CIDRS:
            argv += ["--service-cidr", cidr]
        proc = self._spawn("api", "api", argv)

        def ready() -> bool:
            if proc.poll() is not None:
                raise _Fatal(f"the test API server exited {proc.returncode}: "
                             f"{self.log_tail('api')}")
            return (apidir / "port").exists()
        try:
            wait_until("the test API server's port file", ready, 30)
        except _Fatal as e:
            raise LabError(str(e)) from None

    def _apply_chart_rbac(self) -> None:
        """Applies the chart's ServiceAccounts and RBAC (the plain manifest of the mode) and
        writes each daemon's kubeconfig with its ServiceAccount's token (rbac.py)."""
        objects, accounts = rbac.chart_rbac(self.spec.mode)
        workload, self._controller_env = rbac.controller_workload(self.spec.mode)
        if not self.spec.memberlist:  # as the chart with speaker.memberlist.enabled=false
            for name in ("METALLB_ML_SECRET_NAME", "METALLB_DEPLOYMENT"):
                self._controller_env.pop(name, None)
        # One kubectl run, in order: the ServiceAccounts come first, then their token Secrets.
        self.apply(objects + [rbac.token_secret(ns, sa) for ns, sa in accounts.values()] +
                   workload)
        admin = self.kubeconfig.read_text()
        for daemon, (ns, sa) in accounts.items():
            token = rbac.wait_token(self.client.get, ns, sa)
            path = self.daemon_kubeconfig(daemon)
            path.write_text(rbac.daemon_kubeconfig(admin, TOKEN, token))
            path.chmod(0o600)

    def _node_labels(self, node: str) -> dict:
        labels = self.spec.node_labels.get(node)
        if labels is None:
            labels = example_node_labels().get(node, {"ingot.example/bgp-speaker": "true"})
        return {"kubernetes.io/hostname": node, **labels}

    def _create_cluster_objects(self) -> None:
        """Nodes, and the agents' Pods as the speaker DaemonSet would have them (the agents'
        memberlist finds its seeds by these Pods' labels and IPs)."""
        nodes = [node_manifest(n, self.addresses[n], self._node_labels(n))
                 for n in self.node_names]
        pods = [speaker_pod(n, self.addresses[n]) for n in self.node_names]
        self.kubectl("apply", "-f", "-", stdin=to_yaml(nodes + pods))
        for n in self.node_names:
            self.client.merge_patch("Pod", f"speaker-{n}", METALLB_NS,
                                    {"status": pod_status(self.addresses[n])}, "status")

    @property
    def memberlist_secret_dir(self) -> Path:
        """The directory holding the lab's memberlist key (file `secretkey`, as MetalLB's
        `memberlist` Secret is mounted); written once per run."""
        path = self.workdir / "memberlist"
        key = path / "secretkey"
        if not key.exists():
            path.mkdir(mode=0o700, exist_ok=True)
            key.write_text(base64.b64encode(os.urandom(128)).decode())
            key.chmod(0o600)
        return path

    def memberlist_args(self, node: str) -> list:
        """The agent's memberlist flags (MetalLB's names): bind to the node's lab address,
        seeds by the speaker Pods' labels, the lab's key. [] when the spec turns memberlist
        off (then every Node counts as live)."""
        if not self.spec.memberlist:
            return []
        labels = ",".join(f"{k}={v}" for k, v in sorted(SPEAKER_LABELS.items()))
        return ["--ml-bindaddr", self.addresses[node], "--ml-labels", labels,
                "--ml-secret-key-path", str(self.memberlist_secret_dir)]

    def start_agent(self, node: str, extra: Sequence[str] = ()) -> None:
        """Starts ingot-agent on node (stopping a running one first) with the spec's and extra
        flags. Raises LabError when no agent is built."""
        if self.agent is None:
            raise LabError("ingot-agent is not built (build/agent/ingot-agent, or set "
                           "INGOT_AGENT)")
        self.stop_agent(node)
        argv = [str(self.agent), "--node-name", node, "--namespace", METALLB_NS,
                "--kubeconfig", str(self.daemon_kubeconfig("agent")), "--bgp-mode",
                self.spec.mode,
                "--log-level", "info", "--port", "0", "--health-probe-port", "0",
                *self.memberlist_args(node), *self.spec.agent_args, *extra]
        if self.spec.mode == "frr":
            router = self.routers[node]
            argv += ["--frr-pathspace", router.namespace, "--frr-workdir", str(router.dir)]
        elif self.spec.mode == "frr-k8s":
            argv += ["--frrk8s-namespace", FRRK8S_NS]
        # Its speaker Pod (the owner of its ConfigurationState), as the DaemonSet's Downward API
        # tells it.
        self._start_daemon(f"agent-{node}", node, argv,
                           env={"METALLB_POD_NAME": f"speaker-{node}"})

    def start_controller(self) -> None:
        """Starts self.controller (stopping a running one first, as stop_agent does) with the
        spec's flags."""
        proc = self.procs.pop("controller", None)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)
        self._start_daemon("controller", "api", [
            str(self.controller), "--kubeconfig", str(self.daemon_kubeconfig("controller")),
            "--namespace", METALLB_NS, "--port", "0", "--health-probe-port", "0",
            "--log-level", "info", *self.spec.controller_args],
            env=dict(self._controller_env, METALLB_BGP_TYPE=self.spec.mode))

    def stop_agent(self, node: str) -> None:
        proc = self.procs.pop(f"agent-{node}", None)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)

    def start_frrk8s(self, node: str, extra: Sequence[str] = ()) -> None:
        """Starts ingot-frr on node as role frr-k8s-<node> (stopping a running one first), on the
        node's FRR, reading the frr-k8s namespace. Raises LabError when it is not built."""
        binary = find_ingot_frr()
        if binary is None:
            raise LabError("frr-k8s mode needs ingot-frr (cmake --build build --target "
                           "ingot-frr, or set INGOT_FRR)")
        self.stop_frrk8s(node)
        router = self.routers[node]
        argv = [str(binary), "--node-name", node, "--namespace", FRRK8S_NS, "--kubeconfig",
                str(self.kubeconfig), "--log-level", "info", "--metrics-bind-address", "0",
                "--health-probe-bind-address", "0", "--frr-pathspace", router.namespace,
                "--frr-workdir", str(router.dir / "ingot-frr"), *extra]
        self._start_daemon(f"frr-k8s-{node}", node, argv)

    def stop_frrk8s(self, node: str) -> None:
        proc = self.procs.pop(f"frr-k8s-{node}", None)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)

    def _save_info(self) -> None:
        self.ledger.set_info(
            kind=CLUSTER_KIND, mode=self.spec.mode, nodes=self.node_names,
            tors=self.tor_roles, addresses=self.addresses,
            routers={r: [str(x.dir), x.namespace] for r, x in self.routers.items()},
            processes={r: p.pid for r, p in self.procs.items()},
            agent=str(self.agent) if self.agent else "", kubeconfig=str(self.kubeconfig))

    # Attaching to a running lab -----------------------------------------------------------------

    @classmethod
    def attach(cls, ledger: ledger_mod.Ledger) -> "Cluster":
        """Returns a view of a running cluster lab from its ledger (queries only)."""
        info = ledger.info
        if info.get("kind") != CLUSTER_KIND:
            raise LabError(f"run {ledger.run} is not a cluster lab")
        spec = ClusterSpec(nodes=len(info["nodes"]), mode=info["mode"],
                           ibgp_tor="tor2" in info["tors"], slot=ledger.slot)
        c = cls(spec)
        c.ledger = ledger
        c.addresses = dict(info["addresses"])
        c.routers = {r: AttachedRouter(d, ns) for r, (d, ns) in info["routers"].items()}
        return c

    def process_states(self) -> dict:
        """Returns role → (pid, alive) for every daemon of the lab (FRR per daemon)."""
        out = {r: (pid, pid_alive(pid))
               for r, pid in self.ledger.info.get("processes", {}).items()}
        for record in self.ledger.processes:
            program = os.path.basename(record.program)
            if program in ("zebra", "bfdd", "bgpd", "staticd"):
                role = record.namespace[len(self.run_name) + 1:]
                out[f"{role}/{program}"] = (record.pid, pid_alive(record.pid))
        return out

    # The API ------------------------------------------------------------------------------------

    def kubectl(self, *args: str, stdin: Optional[str] = None, check: bool = True,
                timeout: float = 60) -> subprocess.CompletedProcess:
        """Runs kubectl inside the api namespace against the lab's API server."""
        env = dict(os.environ, HOME=str(self.workdir), KUBECACHEDIR=str(self.workdir / "kcache"))
        return run(["ip", "netns", "exec", self.ns("api"), KUBECTL, "--kubeconfig",
                    str(self.kubeconfig), *args], input_text=stdin, check=check,
                   timeout=timeout, env=env)

    def apply(self, objects: Sequence[dict]) -> None:
        """`kubectl apply -f -` of the objects."""
        self.kubectl("apply", "-f", "-", stdin=to_yaml(objects))

    @property
    def client(self) -> KubeClient:
        if self._client is None:
            self._client = KubeClient(self.api_url, TOKEN, str(self.ca_file),
                                      netns=self.ns("api"), workers=8)
        return self._client

    def service_addresses(self, namespace: str, name: str) -> list:
        svc = self.client.get("Service", name, namespace) or {}
        return [i["ip"] for i in svc.get("status", {}).get("loadBalancer", {})
                .get("ingress", []) if "ip" in i]

    # Teardown -----------------------------------------------------------------------------------

    def log_tail(self, role: str, chars: int = 2000) -> str:
        try:
            return (self.logdir / f"{role}.log").read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def close(self) -> None:
        """Stops everything and removes the run (idempotent)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.lab is not None:
            run_name = self.lab.run
            self.lab.close()
            ledger_mod.assert_released(run_name)

    def __enter__(self) -> "Cluster":
        return self.up()

    def __exit__(self, *exc) -> None:
        self.close()


class _Fatal(Exception):
    """A daemon died while we waited for it (not retried by wait_until)."""
