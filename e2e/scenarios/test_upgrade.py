# SPDX-License-Identifier: Apache-2.0
"""A rolling upgrade, as a DaemonSet and then a Deployment rollout performs it: each node's agent
gets SIGTERM and a "new" ingot-agent binary (a copy at another path, so the running process can be
told apart by /proc/<pid>/exe) starts in its place, one node after the other, then the controller
likewise. Throughout:

- no route is withdrawn at the ToR: ten sentinel BGP Services keep both next hops (the ToR's
  kernel table polled, `ip monitor` for deletions), and no BGP or BFD session resets (frr mode:
  FRR keeps running while the agent restarts);
- no Layer 2 address owned by a node that is not being upgraded is answered by another MAC, and
  the addresses of the node being upgraded are answered by their owner again once its new agent
  is up (while it restarts they go to the next node: the agent leaves memberlist on SIGTERM, as
  MetalLB's speaker does);
- no Service is written: every Service's resourceVersion is the same afterwards (the new
  controller adopts the status the old one wrote)."""

from __future__ import annotations

import os
import shutil
import signal
import threading

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import NS as L2_NS, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import wait_bfd_up, wait_established
from l2scenario import answers, vip4, wait_owner, with_endpoints, _names
from netlab import l2, manifests as m
from netlab.bulk import BULK_POOL, BulkServices
from netlab.cluster import NODE_ASN, TOR_ASN, ClusterSpec
from netlab.proc import wait_until
from test_bulk_frr import SENTINELS, Outage, _restart

NS = "upgrade"
L2_SERVICES = [f"l2-{i}" for i in range(6)]
BOUND = 120.0  # seconds any wait may take (bounded polling; never asserted as a figure)


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(ClusterSpec(nodes=2, mode="frr")):
        vips = str(c.lab.addressing.vip_v4)
        l2.add_onlink_routes(c.ns("tor"), [vips])
        c.apply([m.namespace(NS), m.namespace(L2_NS), m.ip_address_pool("bulk", [BULK_POOL]),
                 m.ip_address_pool("l2", [vips]), m.bfd_profile("upgrade-bfd", 300, 300, 3),
                 m.bgp_peer("tor", NODE_ASN, TOR_ASN, c.address("tor"),
                            bfd_profile_name="upgrade-bfd"),
                 m.bgp_advertisement("bulk", ["bulk"]), m.l2_advertisement("l2", ["l2"])])
        peers = sorted(c.address(n) for n in c.node_names)
        wait_established(c, peers)
        wait_bfd_up(c, peers)  # a first BFD session-up inside the test would read as a flap
        yield c


@pytest.fixture(scope="module")
def services(cluster):
    """The BGP sentinels via both nodes and the Layer 2 Services; returns VIP → owner node."""
    bulk = BulkServices(cluster, NS)
    bulk.create(SENTINELS, nodes=cluster.node_names)
    hops = tuple(sorted(cluster.address(n) for n in cluster.node_names))
    bulk.wait(lambda r: all(r.get(bulk.prefix(i)) == hops for i in SENTINELS), BOUND,
              "sentinel routes via both nodes")
    objs = []
    for index, name in enumerate(L2_SERVICES):
        objs += with_endpoints(cluster, name, vip4(cluster, index + 1), cluster.node_names)
    cluster.apply(objs)
    owners = {}
    for index, name in enumerate(L2_SERVICES):
        ip = vip4(cluster, index + 1)
        wait_until(f"{L2_NS}/{name}: one ServiceL2Status",
                   lambda: len(l2.l2_owners(cluster.client).get(f"{L2_NS}/{name}", [])) == 1,
                   BOUND, interval=0.2)
        owners[ip] = l2.l2_owners(cluster.client)[f"{L2_NS}/{name}"][0]
        wait_owner(cluster, ip, owners[ip], BOUND)
    return bulk, owners


def resource_versions(cluster) -> dict:
    return {f"{s['metadata']['namespace']}/{s['metadata']['name']}":
            s["metadata"]["resourceVersion"] for s in cluster.client.list("Service")}


class WireWatch:
    """Asks, in a loop until stopped, who answers each of addresses; records every answer by
    a node other than the address's owner. A missed answer (nobody) is not a move."""

    def __init__(self, cluster, owners: dict):
        self.cluster, self.owners = cluster, owners
        self.moves: list = []
        self.rounds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for ip, owner in self.owners.items():
                others = [n for n in _names(self.cluster, answers(self.cluster, ip)) if n != owner]
                if others:
                    self.moves.append(f"{ip} (owner {owner}) answered by {others}")
            self.rounds += 1

    def __enter__(self) -> "WireWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def new_binary(cluster, built) -> str:
    """A copy of built under the run's directory: the "new version" of the rollout."""
    target = cluster.workdir / "upgrade" / built.name
    target.parent.mkdir(exist_ok=True)
    shutil.copy2(built, target)
    return os.path.realpath(target)


def running_binary(cluster, role: str) -> str:
    return os.path.realpath(f"/proc/{cluster.procs[role].pid}/exe")


def controller_log_size(cluster) -> int:
    return (cluster.logdir / "controller.log").stat().st_size


class Rollout:
    """What one rolling upgrade did: the ToR watch, the Layer 2 answers by a node other than the
    owner (per upgraded node), the Services' resourceVersions before and after, and the
    binaries running afterwards."""

    def __init__(self):
        self.outage = None
        self.moves: dict = {}
        self.rounds: dict = {}
        self.versions_before: dict = {}
        self.versions_after: dict = {}
        self.running: dict = {}
        self.expected: dict = {}


def roll(cluster, bulk, owners: dict) -> Rollout:
    """Upgrades every agent, one node after the other, then the controller."""
    r = Rollout()
    r.versions_before = resource_versions(cluster)
    cluster.agent = new_binary(cluster, cluster.agent)
    with Outage(cluster, bulk) as r.outage:
        for node in cluster.node_names:
            others = {ip: o for ip, o in owners.items() if o != node}
            with WireWatch(cluster, others) as watch:
                _restart(cluster, node, signal.SIGTERM)
                for ip, owner in owners.items():
                    if owner == node:
                        wait_owner(cluster, ip, owner, BOUND)
            r.moves[node], r.rounds[node] = watch.moves, watch.rounds
            r.running[f"agent-{node}"] = running_binary(cluster, f"agent-{node}")
            r.expected[f"agent-{node}"] = cluster.agent
        offset = controller_log_size(cluster)
        cluster.controller = new_binary(cluster, cluster.controller)
        cluster.start_controller()

        def loaded() -> bool:
            with open(cluster.logdir / "controller.log", "rb") as f:
                f.seek(offset)
                return b'"event":"initial_load_done"' in f.read()
        wait_until("the new controller's first full pass", loaded, BOUND, interval=0.1)
        r.running["controller"] = running_binary(cluster, "controller")
        r.expected["controller"] = cluster.controller
    r.versions_after = resource_versions(cluster)
    return r


@pytest.fixture(scope="module")
def rollout(cluster, services):
    bulk, owners = services
    return roll(cluster, bulk, owners)


def test_rollout_runs_the_new_binaries(rollout):
    assert rollout.running == rollout.expected


def test_rollout_withdraws_no_route_and_resets_no_session(rollout, show_logs_on_failure):
    rollout.outage.check()


def test_rollout_writes_no_service(rollout, services):
    # The lab's own Services (metallb-system: the webhook's) are compared too, counted apart.
    ours = [k for k in rollout.versions_before if not k.startswith("metallb-system/")]
    assert len(ours) == len(SENTINELS) + len(L2_SERVICES)
    assert rollout.versions_after == rollout.versions_before, "the upgrade rewrote Services"


def test_after_the_rollout_every_layer2_address_has_its_owner(cluster, services, rollout):
    _, owners = services
    for ip, owner in owners.items():
        wait_owner(cluster, ip, owner, BOUND)


# A restarted agent answers for no address until its first memberlist join has finished, so it
# never takes another node's addresses, not even for a moment after its start.
def test_rollout_moves_no_layer2_address_of_another_node(rollout, services):
    _, owners = services
    for node in rollout.moves:
        assert rollout.rounds[node] > 0 or all(o == node for o in owners.values())
    moved = [m for moves in rollout.moves.values() for m in moves]
    assert not moved, "upgrading moved addresses:\n" + "\n".join(moved)
