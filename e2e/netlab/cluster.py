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

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from . import chart as chart_mod
from . import ledger as ledger_mod
from . import podrun, podspec, rbac
from . import webhooks
from .frr import VTYSH, FrrRouter
from .kubeclient import KubeClient
from .manifests import node as node_manifest, to_yaml
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
    agent_args: tuple = ()          # ingot-agent flags after the chart's
    controller_args: tuple = ()     # ingot-controller flags after the chart's
    ingot_frr: bool = False         # frr-k8s mode: frrk8s.ingotFrr.enabled, ingot-frr runs
                                    # from the render (else the lab's stand-in for frr-k8s)
    chart_values: tuple = ()        # further `--set k=v` of the chart render
    mutate: Optional[Callable[[list], None]] = None  # changes the rendered objects in place
                                                     # before the lab uses them (tests)
    bfd_interval_ms: int = 100      # the ToRs' BFD timers (the examples' profile is 100 ms)
    start_agents: bool = True       # False: no agent (tests of the lab itself)
    memberlist: bool = True         # agents gossip (speaker.memberlist.enabled)
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
        if self.ingot_frr and self.mode != "frr-k8s":
            raise LabError("ingot_frr (frrk8s.ingotFrr.enabled) needs mode frr-k8s")
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
        self.render: list = []       # the chart's objects for this flavour (chart.py)
        self.daemons: dict = {}      # daemon → (workload, container name) in the render
        self.pods: dict = {}         # role → the Pod object the lab made for it
        self.plans: dict = {}        # role → its podspec.LaunchPlan
        self._tokens: dict = {}      # (namespace, ServiceAccount) → token
        self._initialised: set = set()  # Pods whose init containers ran

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
        self._render_chart()
        self._add_hosts()
        self._save_info()
        self._start_frr()
        self._start_api()
        self._apply_chart()
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
                self.start_agent(node, wait=False)
            for node in self.node_names:
                self._wait_ready(f"agent-{node}")
        if self.spec.mode == "frr-k8s" and self.spec.node_frr:
            for node in self.node_names:
                self.start_frrk8s(node)
        self._save_info()

    def _render_chart(self) -> None:
        """Renders the chart for the spec's flavour (chart.py) and finds its daemons."""
        self.render = chart_mod.render(self.spec.mode, self.spec.ingot_frr, self.spec.memberlist,
                                       self.spec.chart_values)
        if self.spec.mutate is not None:
            self.spec.mutate(self.render)
        self.daemons = rbac.daemons(self.render)

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
               cwd: Optional[Path] = None, program: str = "",
               exact_env: bool = False) -> subprocess.Popen:
        """Starts argv in host's namespace (argv as given when it already starts with
        `ip netns exec`). program: what finally runs (recorded in the ledger), argv[0] by
        default. exact_env: env is the whole environment, not additions to ours."""
        log = open(self.logdir / f"{role}.log", "ab")
        full_env = dict(env or {}) if exact_env else dict(os.environ, **(env or {}))
        if list(argv[:3]) != ["ip", "netns", "exec"]:
            argv = ["ip", "netns", "exec", self.ns(host), *argv]
        # `ip netns exec` (and unshare, sh) exec the next program, so the PID recorded is the
        # daemon's own.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True, env=full_env,
                                cwd=cwd)
        log.close()
        self.ledger.add_process(proc.pid, self.ns(host), program or argv[4])
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

    def _apply_chart(self) -> None:
        """Applies the render's ServiceAccounts and RBAC, a token Secret per daemon's
        ServiceAccount (rbac.py), its ConfigMaps and Secrets, and the controller's Deployment
        (which the controller reads), with the admin token, as `helm install` would."""
        objects, accounts = rbac.chart_rbac(self.render)
        config = [d for d in self.render if d.get("kind") in ("ConfigMap", "Secret")]
        # One kubectl run, in order: the ServiceAccounts come first, then their token Secrets.
        self.apply(objects + [rbac.token_secret(ns, sa) for ns, sa in accounts.values()] +
                   config + [self.daemons["controller"][0]])
        for ns, sa in accounts.values():
            self._tokens[(ns, sa)] = rbac.wait_token(self.client.get, ns, sa)

    def _node_labels(self, node: str) -> dict:
        labels = self.spec.node_labels.get(node)
        if labels is None:
            labels = example_node_labels().get(node, {"ingot.example/bgp-speaker": "true"})
        return {"kubernetes.io/hostname": node, **labels}

    def _create_cluster_objects(self) -> None:
        """Nodes, and the Pods of the render's workloads as their controllers would create
        them (podspec.pod_from_template): the controller's on the api host, one of each
        DaemonSet per node (the agents' memberlist finds its seeds by these Pods' labels and
        IPs). Their status is written through the status subresource."""
        nodes = [node_manifest(n, self.addresses[n], self._node_labels(n))
                 for n in self.node_names]
        deployment = self.daemons["controller"][0]
        self.pods["controller"] = podspec.pod_from_template(
            deployment, f"{deployment['metadata']['name']}-lab", "", self.addresses["api"])
        for n in self.node_names:
            self.pods[f"agent-{n}"] = self.speaker_pod(n)
            if "ingot-frr" in self.daemons:
                self.pods[f"frr-k8s-{n}"] = podspec.pod_from_template(
                    self.daemons["ingot-frr"][0], f"frr-k8s-{n}", n, self.addresses[n])
        self.kubectl("apply", "-f", "-", stdin=to_yaml(nodes + [
            {k: v for k, v in p.items() if k != "status"} for p in self.pods.values()]))
        for pod in self.pods.values():
            self.client.merge_patch("Pod", pod["metadata"]["name"], pod["metadata"]["namespace"],
                                    {"status": pod["status"]}, "status")

    def speaker_pod(self, node: str) -> dict:
        """The agent's Pod on node (`speaker-<node>`) from the render's DaemonSet template,
        with the node's address as pod and host IP (status: written separately, the server
        resets it on create)."""
        return podspec.pod_from_template(self.daemons["agent"][0], f"speaker-{node}", node,
                                         self.addresses[node])

    @property
    def speaker_selector(self) -> str:
        """The label selector of the agents' Pods (the render's DaemonSet template labels)."""
        labels = self.daemons["agent"][0]["spec"]["template"]["metadata"]["labels"]
        return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))

    # Running the render's Pods --------------------------------------------------------------------

    def _lookup(self, kind: str, namespace: str, name: str) -> Optional[dict]:
        return self.client.get(kind, name, namespace)

    def _service_account_files(self, pod: dict) -> dict:
        """kubelet's kube-api-access projection: the ServiceAccount's token, the CA, the
        namespace."""
        ns = pod["metadata"]["namespace"]
        sa = pod["spec"].get("serviceAccountName") or "default"
        if (ns, sa) not in self._tokens:
            self.apply([rbac.token_secret(ns, sa)])
            self._tokens[(ns, sa)] = rbac.wait_token(self.client.get, ns, sa)
        return {"token": (self._tokens[(ns, sa)].encode(), 0o644),
                "ca.crt": (self.ca_file.read_bytes(), 0o644), "namespace": (ns.encode(), 0o644)}

    def _plan(self, role: str, container: str, init: bool = False) -> podspec.LaunchPlan:
        """The launch plan of a container of role's Pod; waits (bounded) for the Secrets and
        ConfigMaps it refers to, as a kubelet does (e.g. the memberlist Secret the controller
        creates)."""
        pod = self.pods[role]
        env = podrun.base_env(pod, self.addresses["api"], API_PORT)
        deadline = time.monotonic() + 30
        while True:
            try:
                return podspec.plan(pod, container, self._lookup, podrun.image_entrypoint,
                                    lambda: self._service_account_files(pod), env, init)
            except podspec.Missing as e:
                if time.monotonic() >= deadline:
                    raise LabError(f"{e} (waited 30 s)") from None
                time.sleep(0.1)

    def _program(self, plan: podspec.LaunchPlan) -> str:
        """The host program for the plan's in-image argv[0] (LAB_OVERRIDES: images)."""
        built = {"ingot-agent": self.agent, "ingot-controller": self.controller,
                 "ingot-frr": find_ingot_frr()}
        name = os.path.basename(plan.program)
        if name in built:
            if built[name] is None:
                raise LabError(f"{plan.pod} container {plan.container} runs {plan.program}, "
                               f"and {name} is not built")
            return str(built[name])
        if os.path.isabs(plan.program) and os.access(plan.program, os.X_OK):
            return plan.program
        raise LabError(f"{plan.pod} container {plan.container} runs {plan.program!r}: neither "
                       "a binary of the build nor a program of this host")

    def _replaced_volumes(self, role: str, host: str) -> dict:
        """emptyDir volume → host directory, for the volumes the Pod shares with the FRR
        container the lab replaces by its node FRR (LAB_OVERRIDES: frr); also checks that the
        Pod has no other container the lab would not run."""
        pod, runs = self.pods[role], self._container_of(role)
        out = {}
        for c in pod["spec"].get("containers", []):
            if c["name"] == runs:
                continue
            image = c.get("image", "").split("@")[0].rsplit("/", 1)[-1].split(":")[0]
            if image != "frr":
                raise LabError(f"{role}: the Pod's container {c['name']} ({c.get('image')}) is "
                               "neither the daemon nor FRR: the lab does not run it")
            router = self.routers.get(host)
            for m in c.get("volumeMounts", []) if router is not None else []:
                if m["mountPath"] == "/var/run/frr":
                    out[m["name"]] = router.rundir
                elif m["mountPath"] == "/etc/frr":
                    out[m["name"]] = router.dir
        return out

    def _container_of(self, role: str) -> str:
        daemon = "controller" if role == "controller" else \
            "ingot-frr" if role.startswith("frr-k8s-") else "agent"
        return self.daemons[daemon][1]

    def _pod_dir(self, role: str) -> Path:
        meta = self.pods[role]["metadata"]
        return self.workdir / "pods" / f"{meta['namespace']}_{meta['name']}"

    def _start_pod(self, role: str, host: str, extra: Sequence[str] = (),
                   wait: bool = True) -> None:
        """Runs role's Pod as a kubelet would: its init containers (once per Pod), then its
        daemon container from the launch plan, and (wait) its probes and ports."""
        replaced = self._replaced_volumes(role, host)
        shared = replaced.get
        if role not in self._initialised:
            for c in self.pods[role]["spec"].get("initContainers", []):
                self._run_init(role, host, c["name"], shared)
            self._initialised.add(role)
        plan = self._plan(role, self._container_of(role))
        binds = podrun.materialise(plan, self._pod_dir(role), shared)
        program = self._program(plan)
        argv = podrun.command(plan, self.ns(host), program, binds, extra=tuple(extra))
        self.plans[role] = plan
        proc = self._spawn(role, host, argv, env=plan.env, program=program, exact_env=True)
        time.sleep(0.2)
        if proc.poll() is not None:
            raise LabError(f"{role} ({plan.pod} container {plan.container}) exited "
                           f"{proc.returncode} at start: {self.log_tail(role)}")
        if wait:
            self._wait_ready(role)

    def _run_init(self, role: str, host: str, container: str, shared) -> None:
        plan = self._plan(role, container, init=True)
        binds = podrun.materialise(plan, self._pod_dir(role), shared)
        argv = podrun.command(plan, self.ns(host), self._program(plan), binds)
        log = f"{role}-init-{container}"
        proc = self._spawn(log, host, argv, env=plan.env, program=self._program(plan),
                           exact_env=True)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill_pid(proc.pid)
        self.procs.pop(log, None)
        if proc.returncode != 0:
            raise LabError(f"{role}: init container {container} of {plan.pod} exited "
                           f"{proc.returncode}: {self.log_tail(log)}")

    def _wait_ready(self, role: str) -> None:
        """Polls role's probes (podrun.wait_ready), then checks its declared ports."""
        plan, proc = self.plans[role], self.procs[role]
        host = self.pods[role]["spec"].get("nodeName") or "api"

        def stopped() -> Optional[str]:
            if proc.poll() is None:
                return None
            return f"exited {proc.returncode}: {self.log_tail(role)}"
        podrun.wait_ready(plan, self.ns(host), stopped)
        wait_until(f"{role}: the declared ports of {plan.pod} container {plan.container}",
                   lambda: podrun.check_ports(plan, proc.pid) is None, 10)

    def start_agent(self, node: str, extra: Sequence[str] = (), wait: bool = True) -> None:
        """Starts ingot-agent on node (stopping a running one first) from its Pod in the
        render, with the spec's and extra flags after the chart's; waits for its probes unless
        wait is False. Raises LabError when no agent is built."""
        if self.agent is None:
            raise LabError("ingot-agent is not built (build/agent/ingot-agent, or set "
                           "INGOT_AGENT)")
        self.stop_agent(node)
        self._start_pod(f"agent-{node}", node, (*self.spec.agent_args, *extra), wait)

    def start_controller(self) -> None:
        """Starts self.controller from its Pod in the render (stopping a running one first, as
        stop_agent does) with the spec's flags after the chart's, and waits for its probes."""
        proc = self.procs.pop("controller", None)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)
        self._start_pod("controller", "api", self.spec.controller_args)

    def stop_agent(self, node: str) -> None:
        proc = self.procs.pop(f"agent-{node}", None)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)

    def start_frrk8s(self, node: str, extra: Sequence[str] = ()) -> None:
        """Starts ingot-frr on node as role frr-k8s-<node> (stopping a running one first) on the
        node's FRR: from its Pod in the render with frrk8s.ingotFrr.enabled, else as the lab's
        stand-in for the frr-k8s the chart does not render (own flags, admin kubeconfig,
        reading the frr-k8s namespace). Raises LabError when it is not built."""
        binary = find_ingot_frr()
        if binary is None:
            raise LabError("frr-k8s mode needs ingot-frr (cmake --build build --target "
                           "ingot-frr, or set INGOT_FRR)")
        self.stop_frrk8s(node)
        if "ingot-frr" in self.daemons:
            self._start_pod(f"frr-k8s-{node}", node, extra)
            return
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
