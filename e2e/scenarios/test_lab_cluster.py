# SPDX-License-Identifier: Apache-2.0
"""The cluster lab itself, without ingot-agent (so it runs before the agent exists): the API
server inside the lab, the controller assigning addresses, the Nodes as the lab created them,
and ingot-frr applying FRRConfigurations to a node's FRR (the FRRConfiguration is the
one `ingotctl render` computes, i.e. what the agent would write), seen at the ToR."""

from __future__ import annotations

import json
import subprocess

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from scenario import (NS, base_objects, endpoints, node_ips, service, vip, vip_prefix,
                      wait_established, wait_nexthops)
from netlab import ledger, manifests as m
from netlab.cluster import FRRK8S_NS, ClusterSpec
from netlab.ingotctl import find_ingotctl


@pytest.fixture(scope="module")
def cluster():
    yield from start_cluster(ClusterSpec(nodes=2, mode="frr-k8s", start_agents=False),
                             need_agent=False)


def test_nodes_carry_the_example_labels_and_their_lab_address(cluster):
    nodes = {n["metadata"]["name"]: n for n in cluster.client.list("Node")}
    assert sorted(nodes) == ["node1", "node2"]
    for name, node in nodes.items():
        labels = node["metadata"]["labels"]
        assert labels["kubernetes.io/hostname"] == name
        assert labels["ingot.example/bgp-speaker"] == "true"
        assert node["status"]["addresses"] == [{"type": "InternalIP",
                                                "address": cluster.address(name)}]
    assert all("ingot.example/l2-speaker" in n["metadata"]["labels"] for n in nodes.values())


def test_speaker_pods_are_the_memberlist_seeds(cluster):
    """One speaker Pod per node made from the rendered DaemonSet's template, found by the labels
    the agents' memberlist selects (the chart's METALLB_ML_LABELS), with the node's address as
    its podIP (what the agents' memberlist joins); the memberlist Secret the agents mount is the
    one the controller created."""
    workload, container = cluster.daemons["agent"]
    template = workload["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in next(
        c for c in template["containers"] if c["name"] == container)["env"]}
    out = cluster.kubectl("get", "pods", "-n", m.METALLB_NS, "-l", env["METALLB_ML_LABELS"],
                          "-o", "json").stdout
    pods = {p["spec"]["nodeName"]: p for p in json.loads(out)["items"]}
    assert sorted(pods) == cluster.node_names
    for node, pod in pods.items():
        assert pod["status"]["podIP"] == cluster.address(node)
        assert pod["status"]["phase"] == "Running"
    name = next(v["secret"]["secretName"] for v in template["volumes"] if "secret" in v)
    secret = cluster.client.get("Secret", name, m.METALLB_NS)
    assert secret and secret["data"]["secretkey"]


def test_tor_gets_on_link_routes_for_the_l2_pools_only(cluster, objects):
    from netlab.mainjob import add_l2_routes

    objects.apply(m.ip_address_pool("l2-only", ["192.0.2.0/28", "2001:db8:5::/124"]),
                  m.ip_address_pool("both", ["198.18.0.0/30"]),
                  m.l2_advertisement("l2", ["l2-only", "both"]),
                  m.bgp_advertisement("bgp", ["both"]))
    assert add_l2_routes(cluster) == ["192.0.2.0/28", "2001:db8:5::/124"]
    routes = subprocess.run(["ip", "-n", cluster.ns("tor"), "route", "show", "192.0.2.0/28"],
                            capture_output=True, text=True, check=True).stdout
    assert "dev eth0" in routes and "via" not in routes


def test_api_server_listens_only_on_its_lab_address(cluster):
    assert cluster.api_url == f"https://{cluster.address('api')}:6443"
    out = cluster.kubectl("get", "namespaces", "-o", "json").stdout
    names = {i["metadata"]["name"] for i in json.loads(out)["items"]}
    assert {"metallb-system", FRRK8S_NS} <= names
    # Not reachable from the root namespace: the address exists only inside the lab.
    probe = subprocess.run(["ip", "-j", "route", "get", cluster.address("api")],
                           capture_output=True, text=True)
    lab_net = str(cluster.lab.addressing.link_v4)
    assert lab_net not in subprocess.run(["ip", "route"], capture_output=True,
                                         text=True).stdout, probe.stdout


def test_controller_assigns_the_requested_address(cluster):
    cluster.apply(base_objects(cluster) + [service(cluster, "web", 3)])
    from netlab.proc import wait_until
    got = wait_until("web's address", lambda: cluster.service_addresses(NS, "web"), 30)
    assert got == [vip(cluster, 3)]
    assert ledger.all_ledgers() and any(l.run == cluster.run_name for l in ledger.all_ledgers())


def test_ingot_frr_applies_the_frrconfiguration_to_the_node_frr(cluster, tmp_path):
    ingotctl = find_ingotctl("frr-k8s")
    objs = base_objects(cluster) + [
        m.bgp_advertisement("adv", ["lab-pool"], communities=["64512:7"]),
        service(cluster, "web", 3), endpoints("web", ["node1"]),
        m.node("node1", cluster.address("node1"), {"ingot.example/bgp-speaker": "true"})]
    # render wants the Service's address in its status (as the controller wrote it).
    objs[-3]["status"] = {"loadBalancer": {"ingress": [{"ip": vip(cluster, 3)}]}}
    m.write(tmp_path / "in.yaml", objs)
    rendered = subprocess.run(
        [str(ingotctl), "render", "--node", "node1", "--frrk8s-namespace", FRRK8S_NS, "-f",
         str(tmp_path / "in.yaml")], capture_output=True, text=True, timeout=60)
    assert rendered.returncode == 0, rendered.stderr
    cluster.kubectl("apply", "-f", "-", stdin=rendered.stdout)
    wait_established(cluster, node_ips(cluster, ["node1"]))
    wait_nexthops(cluster, vip_prefix(cluster, 3), node_ips(cluster, ["node1"]))
    # Deleting the FRRConfiguration withdraws the route: ingot-frr follows the API.
    cluster.kubectl("delete", "frrconfigurations", "-n", FRRK8S_NS, "--all")
    wait_nexthops(cluster, vip_prefix(cluster, 3), [])


# The controller's webhooks, registered by the lab as the chart registers them
# (netlab/webhooks.py).

def test_an_invalid_pool_is_denied_at_apply_time(cluster, objects, show_logs_on_failure):
    objects.apply(m.ip_address_pool("wide", ["198.51.100.0/24"]))
    denied = cluster.kubectl("apply", "-f", "-", check=False,
                             stdin=m.to_yaml([m.ip_address_pool("inside", ["198.51.100.64/26"])]))
    assert denied.returncode != 0
    assert ('admission webhook "ipaddresspoolvalidationwebhook.metallb.io" denied the request: '
            'CIDR "198.51.100.64/26" in pool "inside" overlaps with already defined CIDR '
            '"198.51.100.0/24"') in denied.stderr
    assert cluster.client.get("IPAddressPool", "inside", m.METALLB_NS) is None


def test_a_v1beta1_peer_is_stored_as_v1beta2_and_read_back(cluster, objects,
                                                           show_logs_on_failure):
    # The webhook sees it too (matchPolicy Equivalent, as v1beta2): an address no other
    # BGPPeer of the module uses, or it is denied as a duplicate peer, as on a real cluster.
    address = "192.0.2.10"
    peer = {"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
            "metadata": {"name": "old-style", "namespace": m.METALLB_NS},
            "spec": {"myASN": 64513, "peerASN": 64512, "peerAddress": address,
                     "holdTime": "90s"}}
    objects.apply(peer)
    stored = cluster.client.get("BGPPeer", "old-style", m.METALLB_NS)  # v1beta2, the storage
    assert stored["apiVersion"] == "metallb.io/v1beta2"
    assert stored["spec"]["peerAddress"] == address
    assert stored["spec"]["holdTime"] == "90s"
    down = json.loads(cluster.kubectl("get", "bgppeers.v1beta1.metallb.io", "old-style", "-n",
                                      m.METALLB_NS, "-o", "json").stdout)
    assert down["apiVersion"] == "metallb.io/v1beta1" and down["spec"]["peerASN"] == 64512
