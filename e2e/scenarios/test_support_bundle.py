# SPDX-License-Identifier: Apache-2.0
"""`ingotctl explain --kubeconfig` and `ingotctl support-bundle` against the cluster lab (frr
mode, two nodes with FRR, agents exporting /metrics).

explain reads the lab's API: the verdicts (BGP on both nodes to the ToR, the Layer 2 owner and
why the other node is excluded) come from the same code as on files, and liveness from the agent
pods; a node whose agent pod is not Ready is reported as not alive. The support bundle is
unpacked and checked for its files, its index, FRR's state read with vtysh, the agents' metrics,
and that no secret value (BGP passwords, every Secret's data, the API token) appears in any byte
of it, while FRR's own running config does hold the passwords (so the check can fail)."""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import secrets
import tarfile
import tempfile
from pathlib import Path

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import NS, POOL, configure, endpoints, node_ips, service, vip_prefix, wait_nexthops
from netlab import manifests as m
from netlab.cluster import TOKEN, ClusterSpec
from netlab.ingotctl import find_ingotctl
from netlab.proc import run, wait_until

METRICS_PORT = 7472  # the agents' plain copy of /metrics (--plain-metrics-bind-address)
SECRET_IN_SECRET = "sb-" + secrets.token_hex(12)   # a BGPPeer's passwordSecret
PLAIN_PASSWORD = "pw-" + secrets.token_hex(12)     # a BGPPeer's spec.password
UNRELATED = "un-" + secrets.token_hex(12)          # data of a Secret nothing references


@pytest.fixture(scope="module")
def cluster():
    # The bundle reads the agents' metrics over plain HTTP (the pod IP, as the API server's pod
    # proxy would): the agents serve that copy besides HTTPS.
    spec = ClusterSpec(nodes=2, mode="frr",
                       agent_args=("--plain-metrics-bind-address", f":{METRICS_PORT}"))
    for c in start_cluster(spec):
        configure(c)
        apply_scenario(c)
        yield c


def apply_scenario(c) -> None:
    """The secrets and password peers (to lab addresses no host uses), a Service announced by
    BGP from both nodes and by Layer 2 from node1 only, with endpoints on both."""
    host = c.lab.addressing.host_v4
    c.apply([
        {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/basic-auth",
         "metadata": {"name": "peer-auth", "namespace": m.METALLB_NS},
         "data": {"password": base64.b64encode(SECRET_IN_SECRET.encode()).decode()}},
        {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
         "metadata": {"name": "unrelated", "namespace": m.METALLB_NS},
         "stringData": {"key": UNRELATED}},
        m.bgp_peer("guarded", 64513, 64600, host(98), extra={"passwordSecret":
                                                             {"name": "peer-auth"}}),
        m.bgp_peer("plain", 64513, 64601, host(99), extra={"password": PLAIN_PASSWORD}),
        m.bgp_advertisement("all", [POOL]),
        m.l2_advertisement("l2-node1", [POOL], node_selector={"kubernetes.io/hostname": "node1"}),
        service(c, "web", 1), endpoints("web", ["node1", "node2"])])
    wait_nexthops(c, vip_prefix(c, 1), node_ips(c, c.node_names))
    wait_until("ServiceL2Status of scen/web on node1",
               lambda: any(s.get("status", {}).get("node") == "node1"
                           for s in c.client.list("ServiceL2Status", m.METALLB_NS)), 60)


def ingotctl(c, *args: str, env: dict = None) -> str:
    binary = find_ingotctl("support-bundle")
    if binary is None:
        pytest.skip("needs a built ingotctl with support-bundle (build/cli/ingotctl)")
    full_env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    full_env.update(env or {})
    return run(["ip", "netns", "exec", c.ns("api"), str(binary), *args], env=full_env,
               timeout=120).stdout


def explain(c, *extra: str, env: dict = None) -> dict:
    return json.loads(ingotctl(c, "explain", f"{NS}/web", "--output", "json", *extra, env=env))


def set_pod_ready(c, node: str, ready: bool) -> None:
    c.client.merge_patch("Pod", f"speaker-{node}", m.METALLB_NS, {"status": {"conditions": [
        {"type": "Ready", "status": "True" if ready else "False"}]}}, "status")


def by_name(items: list) -> dict:
    return {i["name"]: i for i in items}


def test_explain_reads_the_cluster_and_takes_liveness_from_agent_pods(cluster,
                                                                      show_logs_on_failure):
    e = explain(cluster, "--kubeconfig", str(cluster.kubeconfig))
    assert e["liveness"]["source"] == "agentPods"
    assert e["ips"] == [service(cluster, "web", 1)["metadata"]["annotations"]
                        ["metallb.io/loadBalancerIPs"]]
    assert e["pool"]["name"] == POOL and e["deadNodes"] == []
    nodes = by_name(e["nodes"])
    for node in cluster.node_names:
        bgp = nodes[node]["bgp"]
        assert bgp["announced"] and bgp["reason"] is None, node
        peers = {p for a in bgp["announcements"] for p in a["peers"]}
        assert {"tor", "guarded", "plain"} <= peers, node
    assert e["l2"]["winner"] == "node1" and e["l2"]["candidates"] == ["node1"]
    assert nodes["node1"]["l2"]["owner"] is True
    assert nodes["node2"]["l2"] == {"owner": False, "reason": "noMatchingAdvertisement", "rank": None,
                                    "excluded": "notSelectedByAdvertisement", "interfaces": None}
    live = by_name(e["liveness"]["nodes"])
    for node in cluster.node_names:
        assert live[node]["alive"] and live[node]["state"] == "podReady", node
        assert live[node]["agentPod"] == f"speaker-{node}"
        assert live[node]["configurationState"] == "Valid", node
    # What the agents wrote: node1 answers ARP (ServiceL2Status), the ToR sees both.
    assert live["node1"]["serviceL2Status"] and not live["node2"]["serviceL2Status"]


def test_explain_reports_a_node_whose_agent_pod_is_not_ready_as_not_alive(cluster,
                                                                         show_logs_on_failure):
    set_pod_ready(cluster, "node1", False)
    try:
        # $KUBECONFIG instead of --kubeconfig.
        e = explain(cluster, env={"KUBECONFIG": str(cluster.kubeconfig)})
        text = ingotctl(cluster, "explain", f"{NS}/web", "--kubeconfig", str(cluster.kubeconfig))
    finally:
        set_pod_ready(cluster, "node1", True)
    assert e["liveness"]["source"] == "agentPods" and e["deadNodes"] == ["node1"]
    live = by_name(e["liveness"]["nodes"])
    assert not live["node1"]["alive"] and live["node1"]["state"] == "podNotReady"
    assert live["node2"]["alive"]
    nodes = by_name(e["nodes"])
    assert nodes["node1"]["live"] is False
    assert nodes["node1"]["bgp"] == {"announced": False, "reason": "agentNotAlive",
                                     "announcements": []}
    assert nodes["node1"]["l2"]["excluded"] == "agentNotAlive"
    assert e["l2"]["winner"] is None and e["l2"]["reason"] == "noCandidateNode"
    assert nodes["node2"]["bgp"]["announced"]
    assert "liveness (source agentPods)" in text and "not alive: node1" in text
    assert "node node1 (agent not alive)" in text


PUBLIC_KEYS = {"namespace", "ca.crt", "tls.crt"}  # public values kept outside the Secrets


def secret_values(c) -> set:
    """Every value the bundle must not carry: the scenario's passwords, every Secret's data in
    the lab (decoded and as stored; not the public keys), and the admin token."""
    values = {SECRET_IN_SECRET, PLAIN_PASSWORD, UNRELATED, TOKEN}
    for ns in (m.METALLB_NS, "frr-k8s-system"):
        for s in c.client.list("Secret", ns):
            for k, v in (s.get("data") or {}).items():
                if k not in PUBLIC_KEYS:
                    values |= {v, base64.b64decode(v).decode("latin-1")}
            values |= {v for k, v in (s.get("stringData") or {}).items() if k not in PUBLIC_KEYS}
    return {v for v in values if len(v) >= 6}


def unpack(raw: bytes) -> dict:
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as tar:
        members = [t for t in tar.getmembers() if t.isfile()]
        top = {t.name.split("/", 1)[0] for t in members}
        assert len(top) == 1, top
        return {t.name.split("/", 1)[1]: tar.extractfile(t).read() for t in members}


def test_support_bundle_collects_and_redacts(cluster, show_logs_on_failure):
    node1 = cluster.routers["node1"]
    running = node1.vtysh("show running-config")
    # The precondition that makes the secret check meaningful: FRR holds both passwords.
    assert SECRET_IN_SECRET in running and PLAIN_PASSWORD in running
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bundle.tar.gz"
        ingotctl(cluster, "support-bundle", "--kubeconfig", str(cluster.kubeconfig),
                 "--frr-pathspace", node1.namespace, "-o", str(out))
        raw = out.read_bytes()
    files = unpack(raw)
    for name in ("index.json", "metallb/bgppeers.json", "metallb/ipaddresspools.json",
                 "metallb/configurationstates.json", "metallb/servicel2statuses.json",
                 "metallb/servicebgpstatuses.json", "cluster/nodes.json",
                 "services/services.json", "services/endpointslices.json",
                 "services/events.json", f"events/{m.METALLB_NS}.json",
                 "frrk8s/frrconfigurations.json", f"secrets/{m.METALLB_NS}.json",
                 "frr/running-config.txt", "frr/bgp-summary.txt", "frr/bfd-peers.txt",
                 "metrics/speaker-node1.txt", "metrics/speaker-node2.txt"):
        assert name in files, f"{name} missing; have {sorted(files)}"
    index = json.loads(files["index.json"])
    entries = {e["what"]: e for e in index["entries"]}
    for node in cluster.node_names:
        e = entries[f"metrics of pod speaker-{node}"]
        assert e["status"] == "ok" and e["source"] == "direct", e
        assert b"ingot_" in files[f"metrics/speaker-{node}.txt"]
    for e in index["entries"]:
        assert e["status"] == "ok" or e["error"], e
        assert (e["path"] in files) == (e["status"] == "ok"), e
    assert index["redaction"]["scrubbedOccurrences"] >= 0
    peers = {p["metadata"]["name"]: p for p in json.loads(files["metallb/bgppeers.json"])["items"]}
    assert peers["plain"]["spec"]["password"] == "<redacted>"
    assert peers["guarded"]["spec"]["passwordSecret"]["name"] == "peer-auth"
    bundled_secrets = {s["metadata"]["name"]: s for s in
                       json.loads(files[f"secrets/{m.METALLB_NS}.json"])["items"]}
    assert set(bundled_secrets["peer-auth"]["data"].values()) == {"<redacted>"}
    services = json.loads(files["services/services.json"])["items"]
    assert any(s["metadata"]["name"] == "web" and s["status"]["loadBalancer"]["ingress"]
               for s in services)
    frr = files["frr/running-config.txt"].decode()
    assert "router bgp" in frr and "password <redacted>" in frr
    # Every byte: each file and the decompressed archive as a whole.
    stream = gzip.decompress(raw)
    for value in secret_values(cluster):
        needle = value.encode("latin-1")
        assert needle not in stream, f"a secret value ({len(value)} chars) is in the bundle"
        for name, content in files.items():
            assert needle not in content, f"a secret value is in {name}"
