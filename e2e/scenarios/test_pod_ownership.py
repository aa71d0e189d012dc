# SPDX-License-Identifier: Apache-2.0
"""The agent's status objects are owned by its speaker Pod (agent/reconcile/writes.cpp). When that Pod is
deleted and the DaemonSet creates it again (same name `speaker-<node>`, new uid), the test API
server's garbage collector removes what the old Pod owned, and the new agent writes it again
owned by the new Pod: at the end nothing is missing and nothing is left owned by the old uid."""

from __future__ import annotations

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import objects, show_logs_on_failure, start_cluster  # noqa: F401
from l2scenario import L2_POOL, expected, l2_spec, prepare, status_node, vip4, with_endpoints
from netlab import manifests as m
from netlab.proc import wait_until

STATUS_PATHS = {
    "ServiceL2Status": f"/apis/metallb.io/v1beta1/namespaces/{m.METALLB_NS}/servicel2statuses",
    "ConfigurationState":
        f"/apis/metallb.io/v1beta1/namespaces/{m.METALLB_NS}/configurationstates",
}


@pytest.fixture(scope="module")
def cluster():
    for c in start_cluster(l2_spec(2)):
        prepare(c)
        yield c


def _owned(cluster) -> dict:
    """Pod uid -> sorted (kind, node) of the status objects that uid owns."""
    out: dict = {}
    for kind, path in STATUS_PATHS.items():
        for obj in cluster.client.request("GET", path).get("items", []):
            node = (obj.get("status") or {}).get("node") or obj["metadata"]["name"]
            for ref in obj["metadata"].get("ownerReferences") or []:
                if ref.get("kind") == "Pod":
                    out.setdefault(ref["uid"], []).append((kind, node))
    return {uid: sorted(items) for uid, items in out.items()}


def test_recreated_speaker_pod_owns_the_status_objects_again(cluster, objects,
                                                             show_logs_on_failure):
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *with_endpoints(cluster, "owned", vip4(cluster, 30), cluster.node_names))
    node = expected(cluster, "owned")
    wait_until("the ServiceL2Status", lambda: status_node(cluster, "owned") == [node], 60)
    old_uid = cluster.client.get("Pod", f"speaker-{node}", m.METALLB_NS)["metadata"]["uid"]
    before = wait_until("the old Pod's objects", lambda: (
        lambda owned: owned.get(old_uid) if len(owned.get(old_uid, [])) >= 2 else None)(
            _owned(cluster)), 60)
    assert ("ServiceL2Status", node) in before and len(set(k for k, _ in before)) == 2, before

    # The kubelet stops the container, then deletes the Pod (grace 0); the DaemonSet creates
    # a new Pod of the same name, and the kubelet starts its container.
    cluster.stop_agent(node)
    cluster.client.request("DELETE", f"/api/v1/namespaces/{m.METALLB_NS}/pods/speaker-{node}",
                           {"gracePeriodSeconds": 0})
    wait_until("the old Pod's objects to be collected",
               lambda: old_uid not in _owned(cluster), 60)
    pod = cluster.speaker_pod(node)
    new_pod = cluster.client.create({k: v for k, v in pod.items() if k != "status"})
    cluster.client.merge_patch("Pod", f"speaker-{node}", m.METALLB_NS, {"status": pod["status"]},
                               "status")
    new_uid = new_pod["metadata"]["uid"]
    assert new_uid != old_uid
    cluster.start_agent(node)

    wait_until("the new Pod to own what the old one did",
               lambda: _owned(cluster).get(new_uid) == before, 60)
    wait_until("the ServiceL2Status", lambda: status_node(cluster, "owned") == [node], 60)
    owners = _owned(cluster)
    pods = {p["metadata"]["uid"] for p in cluster.client.list("Pod", m.METALLB_NS)}
    assert set(owners) <= pods, f"status objects owned by absent Pods: {owners}"
