# SPDX-License-Identifier: Apache-2.0
"""Building blocks of the Layer 2 scenarios: a lab whose nodes run only ingot-agent (no FRR),
whose ToR has on-link routes for the lab's IPv4 and IPv6 VIP blocks, Services (IPv4 or IPv6)
in an L2-advertised pool, and bounded waits on who answers ARP/NDP on the lab bridge.

The expected owner always comes from `ingotctl plan` on the cluster's current objects (the
election MetalLB runs), never from the test: l2_plan(). Answers come from the wire, asked from
the ToR namespace (arping / ndisc6, every answer counted): wait_owner() requires exactly one
MAC, the winner's."""

from __future__ import annotations

import ipaddress
import json
import re
import signal
import time
import zlib
from pathlib import Path
from typing import Optional, Sequence

import pytest

from scenario import NS, endpoints
from netlab import l2, manifests as m
from netlab.cluster import PYTHON, Cluster, ClusterSpec, find_binary
from netlab.ingotctl import find_ingotctl
from netlab.proc import LabError, run, wait_until

L2_POOL = "l2-pool"
L2PROBE = Path(__file__).resolve().parents[2] / "bench" / "l2probe.py"
METRICS_PORT = 9120  # the chart's --port of the agents: /metrics in their node namespace
LABEL = re.compile(r'(\w+)="([^"]*)"')
CONVERGE = 45.0  # seconds a scenario waits for the wire (bounded polling; never asserted)


def l2_spec(nodes: int = 3, node_labels: Optional[dict] = None) -> ClusterSpec:
    return ClusterSpec(nodes=nodes, mode="frr-k8s", node_frr=False,
                       node_labels=node_labels or {})


def prepare(cluster: Cluster) -> None:
    """On-link routes for the VIP blocks on the ToR; the node MACs; the base objects."""
    addressing = cluster.lab.addressing
    l2.add_onlink_routes(cluster.ns("tor"), [str(addressing.vip_v4), str(addressing.vip_v6)])
    cluster.apply([m.namespace(NS),
                   m.ip_address_pool(L2_POOL, [str(addressing.vip_v4), str(addressing.vip_v6)])])


def vip4(cluster: Cluster, index: int) -> str:
    return cluster.lab.addressing.vip(index)


def vip6(cluster: Cluster, index: int) -> str:
    return str(cluster.lab.addressing.vip_v6.network_address + index)


def l2_service(cluster: Cluster, name: str, ip: str, policy: str = "Cluster",
               annotations: Optional[dict] = None, port: int = 80) -> dict:
    """A LoadBalancer Service asking for ip (IPv4 or IPv6) in the L2 pool."""
    index = zlib.crc32(name.encode()) % 4000
    if ":" in ip:
        cluster_ip, family = f"fd00:10:96::{index + 1:x}", "IPv6"
    else:
        cluster_ip, family = f"10.96.{200 + index // 250}.{1 + index % 250}", "IPv4"
    svc = m.service(name, NS, ip, cluster_ip=cluster_ip, policy=policy, annotations={
        "metallb.io/loadBalancerIPs": ip, **(annotations or {})})
    svc["spec"]["ipFamilies"] = [family]
    svc["spec"]["ports"][0]["port"] = port
    svc.pop("status")
    return svc


def dual_service(cluster: Cluster, name: str, families: Sequence[str],
                 annotations: Optional[dict] = None) -> dict:
    """A RequireDualStack LoadBalancer Service in the L2 pool whose clusterIPs and ipFamilies
    are in the order of families ("IPv4"/"IPv6"); it asks for no address unless annotations
    do."""
    index = zlib.crc32(name.encode()) % 4000
    by_family = {"IPv4": f"10.96.{200 + index // 250}.{1 + index % 250}",
                 "IPv6": f"fd00:10:96::{index + 1:x}"}
    svc = m.service(name, NS, "", cluster_ip=by_family[families[0]],
                    annotations=annotations or {})
    svc["spec"].update(clusterIPs=[by_family[f] for f in families], ipFamilies=list(families),
                       ipFamilyPolicy="RequireDualStack")
    svc.pop("status")
    return svc


def metallb_order(ip: str, nodes: Sequence[str]) -> list:
    """The order in which MetalLB's speakers rank nodes for an election on ip, winner first,
    from the Go oracle of the election (agent/tests/core/oracle, built as build/agent/l2oracle;
    $INGOT_L2_ORACLE overrides): Go's own address text and sha256. Skips without it."""
    oracle = find_binary("INGOT_L2_ORACLE", "agent/l2oracle")
    if oracle is None:
        pytest.skip("the Go election oracle is not built (cmake --build build --target "
                    "ingot_l2oracle, or set INGOT_L2_ORACLE)")
    addr = ipaddress.ip_address(ip)
    if addr.version == 4:
        addr = ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + addr.packed)
    out = run([str(oracle)], input_text=f"{addr.packed.hex()} {' '.join(nodes)}\n").stdout
    words = out.split()
    if len(words) != len(nodes) + 1:
        raise LabError(f"the election oracle answered {out!r} for {ip}")
    return words[1:]


def with_endpoints(cluster: Cluster, name: str, ip: str, nodes: Sequence[str],
                   **kwargs) -> list:
    return [l2_service(cluster, name, ip, **kwargs), endpoints(name, nodes)]


def l2_plan(cluster: Cluster) -> dict:
    """"namespace/name" → {"winner", "reason", "candidates"} from ingotctl plan."""
    return l2.plan_cluster(cluster.client, find_ingotctl("render"), cluster.workdir)


def expected(cluster: Cluster, name: str, live: Optional[Sequence[str]] = None) -> str:
    """The node the election names for Service name (NS): the first of plan's candidates
    that is in live (default: all nodes). Raises when plan names no candidate."""
    entry = l2_plan(cluster).get(f"{NS}/{name}")
    if not entry or not entry.get("candidates"):
        raise LabError(f"ingotctl plan has no L2 candidate for {NS}/{name}: {entry}")
    alive = set(live if live is not None else cluster.node_names)
    for node in entry["candidates"]:
        if node in alive:
            return node
    raise LabError(f"{NS}/{name}: no live candidate among {entry['candidates']}")


def answers(cluster: Cluster, ip: str) -> list:
    return l2.resolve(cluster.ns("tor"), ip)


_MACS: dict = {}  # run name → {MAC: node}


def _names(cluster: Cluster, macs: Sequence[str]) -> list:
    by_mac = _MACS.get(cluster.run_name)
    if by_mac is None:
        by_mac = {l2.link_mac(cluster.ns(n)): n for n in cluster.node_names}
        _MACS[cluster.run_name] = by_mac
    return sorted(by_mac.get(mac, mac) for mac in set(macs))


def wait_owner(cluster: Cluster, ip: str, node: Optional[str],
               timeout: float = CONVERGE) -> float:
    """Waits until exactly node answers ip on the wire (node None: nobody answers); returns
    the seconds it took. Raises LabError naming who answered last."""
    want = [] if node is None else [node]
    last: list = []
    start = time.monotonic()

    def probe() -> bool:
        nonlocal last
        last = _names(cluster, answers(cluster, ip))
        return last == want
    try:
        wait_until(f"{ip} answered by {want or 'nobody'}", probe, timeout, interval=0.1)
    except LabError:
        raise LabError(f"{ip}: expected {want or 'no answer'} on the wire within {timeout:.0f} s;"
                       f" answering: {last or 'nobody'}; ServiceL2Status: "
                       f"{l2.l2_owners(cluster.client)}") from None
    return time.monotonic() - start


def hold_owner(cluster: Cluster, ip: str, node: Optional[str], rounds: int = 2) -> None:
    """Checks that exactly node (None: nobody) keeps answering ip for rounds more asks."""
    want = [] if node is None else [node]
    for _ in range(rounds):
        have = _names(cluster, answers(cluster, ip))
        if have != want:
            raise LabError(f"{ip}: answered by {have or 'nobody'}, expected {want or 'nobody'}")


def status_node(cluster: Cluster, name: str) -> list:
    """The nodes whose ServiceL2Status names Service name (NS)."""
    return l2.l2_owners(cluster.client).get(f"{NS}/{name}", [])


def samples(cluster: Cluster, node: str, name: str) -> list:
    """(labels, value) of every sample of metric name the agent of node exports (scraped
    inside its namespace)."""
    url = f"http://127.0.0.1:{METRICS_PORT}/metrics"
    script = f"import urllib.request; print(urllib.request.urlopen({url!r}, timeout=5).read().decode())"
    out = run(["ip", "netns", "exec", cluster.ns(node), PYTHON, "-c", script], timeout=20).stdout
    found = []
    for line in out.splitlines():
        if not (line.startswith(name + "{") or line.startswith(name + " ")):
            continue
        labels = dict(LABEL.findall(line.partition("{")[2].rpartition("}")[0]))
        found.append((labels, float(line.rsplit(" ", 1)[1])))
    return found


def announced_l2(cluster: Cluster, node: str) -> set:
    """(service, ip) of every metallb_speaker_announced{protocol="layer2"} sample the agent of
    node exports."""
    return {(labels.get("service"), labels.get("ip"))
            for labels, _ in samples(cluster, node, "metallb_speaker_announced")
            if labels.get("protocol") == "layer2" and labels.get("node") == node}


def agent_log(cluster: Cluster, node: str) -> str:
    """The log of node's current agent process (the lab appends the restarts to one file)."""
    text = (cluster.logdir / f"agent-{node}.log").read_text(errors="replace")
    return text[text.rfind('"ingot-agent starting"'):]


class ArpWatch:
    """bench/l2probe.py arp in a lab namespace (default the ToR): a broadcast ARP request for ip
    every 10 ms, and every answer and gratuitous ARP for it recorded with its MAC."""

    def __init__(self, cluster: Cluster, ip: str, host: str = "tor", role: str = "arpwatch"):
        self.cluster, self.ip, self.role = cluster, ip, role
        self.out = cluster.workdir / f"{role}-{ip}.json"
        self.proc = cluster.spawn(role, host, [PYTHON, str(L2PROBE), "arp", "--vip", ip,
                                               "--out", str(self.out)])

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise LabError(f"{role} exited {self.proc.returncode}: {cluster.log_tail(role)}")
            return "ready" in cluster.log_tail(role)
        wait_until(f"the ARP watch on {ip}", ready, 30)

    def stop(self) -> dict:
        """Stops the probe; returns {"sends": [t], "replies": [[t, node]], "gratuitous":
        [[t, node]]} with MACs turned into node names (unknown MACs stay as they are)."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        data = json.loads(self.out.read_text())
        for kind in ("replies", "gratuitous"):
            data[kind] = [[t, _names(self.cluster, [mac])[0]] for t, mac in data[kind]]
        return data


def longest_silence(data: dict, start: float) -> float:
    """The longest run of probes sent after start that got no answer, in seconds (from the
    first unanswered probe to the next answered one); a figure, never asserted."""
    replies = sorted(t for t, _ in data["replies"])
    sends = [t for t in data["sends"] if t >= start]
    longest, first_lost, j = 0.0, None, 0
    for i, t in enumerate(sends):
        nxt = sends[i + 1] if i + 1 < len(sends) else t + 0.1
        while j < len(replies) and replies[j] < t:
            j += 1
        answered = j < len(replies) and replies[j] < nxt
        if not answered:
            first_lost = t if first_lost is None else first_lost
        elif first_lost is not None:
            longest = max(longest, t - first_lost)
            first_lost = None
    return longest
