# SPDX-License-Identifier: Apache-2.0
"""Ingot against a misbehaving API server, on the cluster lab (Layer 2, two nodes).

1. A CRD update ends every watch on its objects (the test API server replaces the storage as
   apiextensions-apiserver does, e2e/kubeapi/test_crd_storage.py). Patching the metallb.io
   CRDs again and again makes the controller and the agents watch again each time; once they
   have settled they must write nothing (the server counts requests by user and verb).
2. Chaos, all at once while Services churn: agent Pods deleted (Terminating → the old Pod's
   objects collected → a new Pod), webhook certificate rotation (the controller regenerates
   its deleted Secret and patches the CRDs' caBundle) every ROTATE_SECONDS, 429 storms with
   Retry-After, 504s after committed creates, Events expiring after a few seconds, and
   aggressive compaction and bookmarks. Afterwards every Service has the address it asked for
   and the announcer `ingotctl plan` names, with exactly one ServiceL2Status each, none
   orphaned and none owned by a Pod that is gone, no address ever moved, and the retry
   counters show the faults were met."""

from __future__ import annotations

import os
import time

import pytest

# scenario first: it puts e2e/ on sys.path for netlab
from scenario import NS, objects, record_figure, show_logs_on_failure, start_cluster  # noqa: F401
from l2scenario import (L2_POOL, METRICS_PORT, expected, l2_spec, prepare, samples,
                        status_node, vip4, wait_owner, with_endpoints)
from netlab import manifests as m
from netlab.kubeclient import ApiError
from netlab.proc import wait_until

ADMIN = "/ingot-test/faults"
WRITES = ("create", "update", "patch", "delete", "deletecollection")
DAEMONS = "system:serviceaccount:"
CRDS = ("bgppeers", "ipaddresspools", "l2advertisements", "bgpadvertisements",
        "servicel2statuses", "communities", "bfdprofiles")
# Seconds between certificate rotations in the chaos test (MetalLB's rotator renews on its own
# schedule; 30 s is the pace, shorter here to fit several into the run).
ROTATE_SECONDS = float(os.environ.get("INGOT_CHAOS_ROTATE_SECONDS", "10"))
CHAOS_SECONDS = float(os.environ.get("INGOT_CHAOS_SECONDS", "40"))
SECRET = f"/api/v1/namespaces/{m.METALLB_NS}/secrets/metallb-webhook-cert"


@pytest.fixture(scope="module")
def cluster():
    spec = l2_spec(2)
    spec.controller_args = ("--plain-metrics-bind-address", f":{METRICS_PORT}")
    for c in start_cluster(spec):
        prepare(c)
        yield c


def admin(cluster, changes=None) -> dict:
    """The server's fault plan, counters and request counts (changed first when given)."""
    if changes is None:
        return cluster.client.request("GET", ADMIN)
    return cluster.client.request("PUT", ADMIN, changes)


def daemon_writes(cluster) -> dict:
    """(user, verb, resource) → count of the daemons' writes since the counts were reset."""
    return {(r["user"], r["verb"], r["resource"]): r["count"]
            for r in admin(cluster)["requests"]
            if r["user"].startswith(DAEMONS) and r["verb"] in WRITES}


def watches_of(cluster, resource: str) -> dict:
    """user → watch requests the daemon made on resource."""
    return {r["user"]: r["count"] for r in admin(cluster)["requests"]
            if r["user"].startswith(DAEMONS) and r["verb"] == "watch"
            and r["resource"] == resource}


def settled(cluster, quiet: float = 3.0, timeout: float = 45.0) -> None:
    """Waits until the daemons made no write for quiet seconds."""
    last = [daemon_writes(cluster), time.monotonic()]

    def still() -> bool:
        now = daemon_writes(cluster)
        if now != last[0]:
            last[:] = [now, time.monotonic()]
        return time.monotonic() - last[1] >= quiet
    wait_until("the daemons to stop writing", still, timeout, interval=0.5)


def test_crd_updates_end_watches_and_the_daemons_write_nothing_after(cluster, objects,
                                                                     show_logs_on_failure):
    nodes = cluster.node_names
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *[o for i in range(3) for o in with_endpoints(cluster, f"steady-{i}",
                                                               vip4(cluster, 40 + i), nodes)])
    for i in range(3):
        node = expected(cluster, f"steady-{i}")
        wait_until(f"steady-{i}'s ServiceL2Status",
                   lambda i=i, node=node: status_node(cluster, f"steady-{i}") == [node], 60)
    settled(cluster)
    admin(cluster, {"requests": [], "storageReinit": 0.5, "faultUsers": [DAEMONS]})
    try:
        for round_ in range(4):
            before = watches_of(cluster, "bgppeers.metallb.io")
            for plural in CRDS:
                cluster.client.merge_patch(
                    "CustomResourceDefinition", f"{plural}.metallb.io", "",
                    {"spec": {"names": {"shortNames": [f"{plural[:4]}{round_}"]}}})
            # The controller and each agent (the agents share the speaker ServiceAccount).
            wait_until("every daemon to watch BGPPeers again", lambda before=before: (
                lambda now: len(now) >= 2 and all(now[u] > before.get(u, 0) for u in now)
                and sum(now.values()) - sum(before.values()) >= 1 + len(cluster.node_names))(
                    watches_of(cluster, "bgppeers.metallb.io")), 30, interval=0.3)
        settled(cluster)
    finally:
        admin(cluster, {"storageReinit": 0, "faultUsers": []})
    writes = daemon_writes(cluster)
    assert writes == {}, f"writes after CRD updates in a steady state: {writes}"
    assert admin(cluster)["counters"]["reinitializing"] > 0


def _service_state(cluster) -> dict:
    """uid → (name, ingress IPs) of every Service of the scenario namespace."""
    out = {}
    for svc in cluster.client.list("Service", NS):
        ingress = (svc.get("status", {}).get("loadBalancer", {}).get("ingress") or [])
        out[svc["metadata"]["uid"]] = (svc["metadata"]["name"],
                                       tuple(i.get("ip") for i in ingress))
    return out


def _recreate_speaker_pod(cluster, node: str) -> None:
    """The kubelet's and the DaemonSet's part of a speaker Pod deletion: the Pod is deleted
    with a grace period (Terminating), the agent is stopped, the Pod goes and the garbage
    collector removes what it owned, a new Pod of the same name comes and its agent starts."""
    pods = f"/api/v1/namespaces/{m.METALLB_NS}/pods"
    old_uid = cluster.client.get("Pod", f"speaker-{node}", m.METALLB_NS)["metadata"]["uid"]
    cluster.client.request("DELETE", f"{pods}/speaker-{node}", {"gracePeriodSeconds": 1})
    cluster.stop_agent(node)
    wait_until(f"speaker-{node} to go", lambda: (cluster.client.get(
        "Pod", f"speaker-{node}", m.METALLB_NS) or {}).get("metadata", {}).get("uid")
        != old_uid, 30, interval=0.2)
    wait_until("the old Pod's statuses to be collected", lambda: not any(
        ref.get("uid") == old_uid for s in cluster.client.list("ServiceL2Status", m.METALLB_NS)
        for ref in s["metadata"].get("ownerReferences") or []), 30, interval=0.2)
    pod = cluster.speaker_pod(node)
    cluster.client.create({k: v for k, v in pod.items() if k != "status"})
    cluster.client.merge_patch("Pod", f"speaker-{node}", m.METALLB_NS, {"status": pod["status"]},
                               "status")
    cluster.start_agent(node)


def _retries(cluster, role: str) -> float:
    return sum(v for labels, v in samples(cluster, role, "ingot_agent_api_retries_total")
               + samples(cluster, role, "ingot_controller_api_retries_total"))


def test_chaos(cluster, objects, show_logs_on_failure, record_figure):
    nodes = cluster.node_names
    objects.apply(m.l2_advertisement("all", [L2_POOL]),
                  *[o for i in range(4) for o in with_endpoints(cluster, f"stable-{i}",
                                                               vip4(cluster, 60 + i), nodes)])
    wait_until("the stable Services' statuses", lambda: all(
        status_node(cluster, f"stable-{i}") for i in range(4)), 60)
    retries_before = {role: _retries(cluster, role) for role in (*nodes, "api")}
    admin(cluster, {"throttleFraction": 0.1, "retryAfter": 1, "timeoutFraction": 0.3,
                    "timeoutVerbs": ["create"], "eventTtl": 3, "faultUsers": [DAEMONS],
                    "compactionWindow": 3, "bookmarkInterval": 2, "storageReinit": 0.3})
    first_ip: dict = {}  # Service uid -> the first address it was given
    moves: list = []

    def watch_addresses() -> None:
        for uid, (name, ips) in _service_state(cluster).items():
            if not ips:
                continue
            if first_ip.setdefault(uid, ips) != ips:
                moves.append((name, first_ip[uid], ips))

    churned: list = []
    start = time.monotonic()
    next_rotation = start
    recreated = False
    rotations = 0
    index = 0
    try:
        while time.monotonic() - start < CHAOS_SECONDS:
            now = time.monotonic()
            if now >= next_rotation and _rotate(cluster):
                rotations += 1
                next_rotation = now + ROTATE_SECONDS
            name = f"churn-{index}"
            objects.apply(*with_endpoints(cluster, name, vip4(cluster, 80 + index % 40),
                                          nodes))
            churned.append(name)
            if len(churned) > 3:
                objects.delete("Service", churned.pop(0))
            index += 1
            if not recreated and now - start >= CHAOS_SECONDS / 3:
                _recreate_speaker_pod(cluster, nodes[0])
                recreated = True
            watch_addresses()
            time.sleep(1.0)
    finally:
        counters = admin(cluster, {"throttleFraction": 0, "timeoutFraction": 0,
                                   "eventTtl": None, "storageReinit": 0,
                                   "compactionWindow": 300, "bookmarkInterval": 60})["counters"]

    # The controller's rotator passes every 10 s and its creates meet the faults too: the last
    # deleted Secret comes back once the faults stop.
    wait_until("the controller to regenerate the webhook Secret", lambda: _secret(cluster), 60)
    services = [f"stable-{i}" for i in range(4)] + churned
    wanted = {name: expected(cluster, name) for name in services}

    def converged() -> bool:
        watch_addresses()
        return all(status_node(cluster, name) == [node] for name, node in wanted.items())
    wait_until("every Service's ServiceL2Status to name its announcer", converged, 60)
    for name, node in wanted.items():
        wait_owner(cluster, vip4(cluster, _index(name)), node)
    state = {name: ips for name, ips in _service_state(cluster).values()}
    for name in services:
        assert state[name] == (vip4(cluster, _index(name)),), (name, state[name])
    statuses = cluster.client.list("ServiceL2Status", m.METALLB_NS)
    per_service: dict = {}
    for obj in statuses:
        status = obj.get("status", {})
        per_service.setdefault(status.get("serviceName"), []).append(obj["metadata"]["name"])
    assert {k: v for k, v in per_service.items() if len(v) > 1} == {}, "duplicate statuses"
    assert set(per_service) == set(services), f"orphaned or missing: {sorted(per_service)}"
    pods = {p["metadata"]["uid"] for p in cluster.client.list("Pod", m.METALLB_NS)}
    owners = {ref["uid"] for obj in statuses for ref in obj["metadata"].get("ownerReferences")
              or [] if ref.get("kind") == "Pod"}
    assert owners <= pods, f"statuses owned by Pods that are gone: {owners - pods}"
    assert cluster.client.list("ServiceBGPStatus", m.METALLB_NS) == []  # Layer 2 only
    assert moves == [], f"addresses moved: {moves}"
    assert counters["throttled"] > 0 and counters["timedOut"] > 0, counters
    assert counters["eventsExpired"] > 0 and recreated, counters
    # Only the rotations updated CRDs during the run: their watches ended and restarted.
    assert counters["reinitializing"] > 0, counters
    retried = {role: _retries(cluster, role) - retries_before[role] for role in retries_before}
    for name in ("throttled", "timedOut", "eventsExpired", "reinitializing"):
        record_figure(f"server {name}", counters[name], "requests or objects")
    record_figure("client retries (agents and controller)", sum(retried.values()), "retries")
    record_figure("Services churned", index, "Services")
    record_figure("certificate rotations", rotations, "Secrets deleted and regenerated")
    assert rotations >= 2, f"the controller regenerated the webhook Secret {rotations - 1} times"
    assert sum(retried.values()) > 0, f"no client retries counted: {retried}"


def _secret(cluster) -> bool:
    """Whether the webhook Secret exists."""
    try:
        cluster.client.request("GET", SECRET)
    except ApiError as e:
        if e.status == 404:
            return False
        raise
    return True


def _rotate(cluster) -> bool:
    """Deletes the webhook Secret so that the controller makes a new CA; False while the previous
    deletion has not been answered with a new Secret yet (the next rotation waits for it)."""
    if not _secret(cluster):
        return False
    try:
        cluster.client.request("DELETE", SECRET)
    except ApiError as e:
        if e.status != 404:
            raise
    return True


def _index(name: str) -> int:
    kind, _, number = name.partition("-")
    return (60 if kind == "stable" else 80) + int(number) % (4 if kind == "stable" else 40)
