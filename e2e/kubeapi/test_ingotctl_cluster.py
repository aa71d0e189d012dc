# SPDX-License-Identifier: Apache-2.0
"""`ingotctl explain --kubeconfig` and `ingotctl support-bundle` against the test API server
with kubectl-applied objects (no lab, no root): explain's fallback liveness source (the agents'
ConfigurationStates when no agent pod exists) and what the status objects show, the error
without any cluster configuration, and a bundle whose metrics and FRR items fail and are
recorded in its index while every secret value stays out of it."""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import TOKEN  # noqa: F401  (the fixtures' token; the kubeconfig carries it)

REPO = Path(__file__).resolve().parents[2]
SECRET = "kubeapi-secret-8d1f0c"
PASSWORD = "kubeapi-password-77aa"

CONFIG = f"""
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {{name: pool, namespace: metallb-system}}
spec: {{addresses: [192.168.50.0/28]}}
---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata: {{name: all, namespace: metallb-system}}
spec: {{ipAddressPools: [pool]}}
---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: {{name: tor, namespace: metallb-system}}
spec: {{myASN: 64513, peerASN: 64512, peerAddress: 10.0.0.1, password: {PASSWORD}}}
---
apiVersion: v1
kind: Secret
metadata: {{name: other, namespace: metallb-system}}
data: {{key: {base64.b64encode(SECRET.encode()).decode()}}}
---
apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}
---
apiVersion: v1
kind: Node
metadata: {{name: n2, labels: {{kubernetes.io/hostname: n2}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: default, annotations: {{metallb.io/loadBalancerIPs: 192.168.50.3}}}}
spec: {{type: LoadBalancer, ports: [{{port: 80}}]}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {{name: web-1, namespace: default, labels: {{kubernetes.io/service-name: web}}}}
addressType: IPv4
endpoints:
- addresses: [10.244.0.5]
  nodeName: n1
  conditions: {{ready: true, serving: true, terminating: false}}
ports: [{{port: 80}}]
---
apiVersion: metallb.io/v1beta1
kind: ConfigurationState
metadata:
  name: speaker-n1
  namespace: metallb-system
  labels: {{metallb.io/component-type: speaker, metallb.io/node-name: n1}}
---
apiVersion: metallb.io/v1beta1
kind: ServiceBGPStatus
metadata:
  name: bgp-n1
  namespace: metallb-system
  labels: {{metallb.io/node: n1, metallb.io/service-name: web,
           metallb.io/service-namespace: default}}
"""


def ingotctl() -> Path:
    binary = Path(os.environ.get("INGOT_INGOTCTL", REPO / "build" / "cli" / "ingotctl"))
    if not binary.exists():
        pytest.skip(f"needs a built ingotctl ({binary})")
    return binary


@pytest.fixture
def cluster(server, kubectl, tmp_path) -> Path:
    kubectl("apply", "-f", "-", stdin=CONFIG)
    kubectl("patch", "configurationstate", "speaker-n1", "-n", "metallb-system",
            "--subresource=status", "--type=merge", "-p",
            '{"status": {"result": "Invalid", "errorSummary": "a pool overlaps"}}')
    kubectl("patch", "servicebgpstatus", "bgp-n1", "-n", "metallb-system",
            "--subresource=status", "--type=merge", "-p",
            '{"status": {"node": "n1", "serviceName": "web", "serviceNamespace": "default",'
            ' "peers": ["tor"]}}')
    kubeconfig = tmp_path / "kubeconfig"
    server.write_kubeconfig(kubeconfig, token=TOKEN)
    return kubeconfig


def run(*args: str, env: dict = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "HOME")}
    return subprocess.run([str(ingotctl()), *args], capture_output=True, text=True, timeout=60,
                          env=dict(base, **(env or {})))


def test_explain_falls_back_to_configuration_states(cluster):
    r = run("explain", "default/web", "--kubeconfig", str(cluster), "--output", "json")
    assert r.returncode == 0, r.stderr
    e = json.loads(r.stdout)
    assert e["liveness"]["source"] == "configurationStates"
    live = {n["name"]: n for n in e["liveness"]["nodes"]}
    assert live["n1"]["alive"] and live["n1"]["state"] == "configurationState"
    assert live["n1"]["configurationState"] == "Invalid"
    assert live["n1"]["configurationError"] == "a pool overlaps"
    assert live["n1"]["serviceBGPStatusPeers"] == ["tor"]
    assert not live["n2"]["alive"] and live["n2"]["state"] == "noConfigurationState"
    assert live["n2"]["serviceBGPStatusPeers"] is None
    nodes = {n["name"]: n for n in e["nodes"]}
    assert nodes["n1"]["bgp"]["announced"] and nodes["n1"]["bgp"]["announcements"][0]["peers"] \
        == ["tor"]
    assert nodes["n2"]["bgp"]["reason"] == "agentNotAlive" and e["deadNodes"] == ["n2"]
    assert e["ips"] == ["192.168.50.3"] and e["pool"]["source"] == "requestedIPs"
    text = run("explain", "default/web", env={"KUBECONFIG": str(cluster)})
    assert "liveness (source configurationStates)" in text.stdout, text.stderr
    assert "ConfigurationState Invalid (a pool overlaps)" in text.stdout


def test_explain_without_input_or_cluster_says_so(tmp_path):
    r = run("explain", "default/web", env={"HOME": str(tmp_path)})
    assert r.returncode == 1
    assert "no -f PATH" in r.stderr and "--kubeconfig" in r.stderr
    both = run("explain", "default/web", "-f", str(tmp_path), "--kubeconfig", "x")
    assert both.returncode == 2 and "not both" in both.stderr


def test_support_bundle_records_failures_and_keeps_secrets_out(cluster, kubectl, tmp_path):
    kubectl("apply", "-f", "-", stdin="""
apiVersion: v1
kind: Pod
metadata: {name: speaker-x, namespace: metallb-system, labels: {app: metallb, component: speaker}}
spec: {nodeName: n1, containers: [{name: speaker, image: x}]}
""")
    kubectl("patch", "pod", "speaker-x", "-n", "metallb-system", "--subresource=status",
            "--type=merge", "-p", '{"status": {"phase": "Running", "podIP": "127.0.0.1"}}')
    out = tmp_path / "b.tar.gz"
    # Port 1 on loopback: nothing listens, so the direct fetch fails at once.
    r = run("support-bundle", "--kubeconfig", str(cluster), "-o", str(out), "--metrics-port", "1",
            "--frr-pathspace", "ingot-no-such-pathspace")
    assert r.returncode == 0, r.stderr
    raw = out.read_bytes()
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as tar:
        files = {t.name.split("/", 1)[1]: tar.extractfile(t).read()
                 for t in tar.getmembers() if t.isfile()}
    index = json.loads(files["index.json"])
    entries = {e["what"]: e for e in index["entries"]}
    metrics = entries["metrics of pod speaker-x"]
    assert metrics["status"] == "failed" and "proxy:" in metrics["error"] \
        and "direct:" in metrics["error"]
    assert entries["FRR show running-config"]["status"] == "failed"
    assert "metrics/speaker-x.txt" not in files and "frr/running-config.txt" not in files
    assert entries["bgppeers in metallb-system"]["items"] == 1
    peers = json.loads(files["metallb/bgppeers.json"])["items"]
    assert peers[0]["spec"]["password"] == "<redacted>"
    states = json.loads(files["metallb/configurationstates.json"])["items"]
    assert states[0]["status"]["errorSummary"] == "a pool overlaps"
    stream = gzip.decompress(raw)
    for value in (SECRET, PASSWORD, base64.b64encode(SECRET.encode()).decode(), TOKEN):
        assert value.encode() not in stream, value
