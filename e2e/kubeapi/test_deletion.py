# SPDX-License-Identifier: Apache-2.0
"""Deletion as kube-apiserver and its controllers do it: graceful Pod deletion, finalizers,
garbage collection through ownerReferences and namespace termination (deletion.py, gc.py).
Each test names the Kubernetes source function whose behaviour it follows."""

from __future__ import annotations

import time

import pytest

from conftest import ApiClient, configmap
from kubeapi.deletion import finalizers_for_policy, plan_delete, pod_grace_period
from kubeapi.registry import BUILTIN_RESOURCES

CM = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"
SECRETS = "/api/v1/namespaces/default/secrets"
RES = {r.plural: r for r in BUILTIN_RESOURCES if r.version == "v1" and r.group == ""}


def pod(name: str, node: str = "node-a", grace=None, finalizers=None, phase=None) -> dict:
    obj = {"metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    if node:
        obj["spec"]["nodeName"] = node
    if grace is not None:
        obj["spec"]["terminationGracePeriodSeconds"] = grace
    if finalizers:
        obj["metadata"]["finalizers"] = finalizers
    if phase:
        obj["status"] = {"phase": phase}
    return obj


def owned(obj: dict, owner: dict, block: bool = False) -> dict:
    ref = {"apiVersion": "v1", "kind": owner.get("kind", "ConfigMap"),
           "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"]}
    if block:
        ref["blockOwnerDeletion"] = True
    obj["metadata"].setdefault("ownerReferences", []).append(ref)
    return obj


def wait_until(what: str, predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def gone(client: ApiClient, path: str):
    return lambda: client.get(path).status == 404


@pytest.fixture
def slow(start_server) -> ApiClient:
    """A server whose grace periods last 1000 times longer (they never end in a test)."""
    return ApiClient(start_server(grace_scale=1000.0))


@pytest.fixture
def fast(start_server) -> ApiClient:
    """A server whose grace periods last 1/100 of their seconds."""
    return ApiClient(start_server(grace_scale=0.01))


# -- pure decisions ---------------------------------------------------------------------------

@pytest.mark.parametrize("obj,options,expected", [
    (pod("p"), {}, 30),                                    # defaulted terminationGracePeriod
    (pod("p", grace=5), {}, 5),                            # the Pod's own period
    (pod("p", grace=5), {"gracePeriodSeconds": 2}, 2),     # the request wins
    (pod("p", grace=5), {"gracePeriodSeconds": 0}, 0),     # immediate
    (pod("p", node=""), {}, 0),                            # never scheduled: no kubelet
    (pod("p", phase="Succeeded"), {}, 0),                  # finished
    (pod("p", phase="Failed"), {"gracePeriodSeconds": 9}, 0),
    (pod("p"), {"gracePeriodSeconds": -3}, 0),
])
def test_pod_grace_period_follows_pod_strategy_CheckGracefulDelete(obj, options, expected):
    # pkg/registry/core/pod/strategy.go CheckGracefulDelete
    assert pod_grace_period(obj, options) == expected


@pytest.mark.parametrize("finalizers,policy,expected", [
    ([], None, []),
    (["a"], None, ["a"]),
    (["a"], "Orphan", ["a", "orphan"]),
    (["a", "orphan"], "Foreground", ["a", "foregroundDeletion"]),
    (["orphan", "foregroundDeletion"], "Background", []),
    (["foregroundDeletion"], "Foreground", ["foregroundDeletion"]),
])
def test_policy_finalizers_follow_store_deletionFinalizersForGarbageCollection(
        finalizers, policy, expected):
    # apiserver/pkg/registry/generic/registry/store.go deletionFinalizersForGarbageCollection
    assert finalizers_for_policy(finalizers, policy) == expected


def _stored(obj: dict, **meta) -> dict:
    obj = dict(obj, metadata=dict(obj["metadata"], uid="u1", generation=1, **meta))
    return obj


@pytest.mark.parametrize("plural,obj,options,expected", [
    # (removed now) or (deletionGracePeriodSeconds, finalizers, status.phase) of the marked object
    ("configmaps", _stored(configmap("c")), {}, None),
    ("configmaps", _stored(configmap("c")), {"gracePeriodSeconds": 30}, None),  # not graceful
    ("configmaps", _stored(configmap("c"), finalizers=["x/y"]), {}, (0, ["x/y"], None)),
    ("configmaps", _stored(configmap("c")), {"propagationPolicy": "Foreground"},
     (0, ["foregroundDeletion"], None)),
    ("configmaps", _stored(configmap("c")), {"propagationPolicy": "Orphan"},
     (0, ["orphan"], None)),
    ("pods", _stored(pod("p")), {}, (30, None, None)),
    ("pods", _stored(pod("p")), {"gracePeriodSeconds": 0}, None),
    # a second DELETE shortens a pending period, never lengthens it; 0 removes at once
    ("pods", _stored(pod("p"), deletionTimestamp="t", deletionGracePeriodSeconds=10),
     {"gracePeriodSeconds": 60}, (10, None, None)),
    ("pods", _stored(pod("p"), deletionTimestamp="t", deletionGracePeriodSeconds=10),
     {"gracePeriodSeconds": 3}, (3, None, None)),
    ("pods", _stored(pod("p"), deletionTimestamp="t", deletionGracePeriodSeconds=10),
     {"gracePeriodSeconds": 0}, None),
    ("pods", _stored(pod("p", finalizers=["x/y"]), deletionTimestamp="t",
                     deletionGracePeriodSeconds=10), {"gracePeriodSeconds": 0}, (0, ["x/y"], None)),
    ("namespaces", _stored({"metadata": {"name": "n"}, "spec": {"finalizers": ["kubernetes"]}}),
     {}, (0, None, "Terminating")),
    ("namespaces", _stored({"metadata": {"name": "n"}, "spec": {"finalizers": []}}), {}, None),
])
def test_plan_delete_follows_store_updateForGracefulDeletionAndFinalizers(
        plural, obj, options, expected):
    # apiserver/pkg/registry/generic/registry/store.go Delete,
    # updateForGracefulDeletionAndFinalizers
    marked = plan_delete(RES[plural], obj, options)
    if expected is None:
        assert marked is None
        return
    meta = marked["metadata"]
    assert meta["deletionTimestamp"]
    got = (meta["deletionGracePeriodSeconds"], meta.get("finalizers"),
           (marked.get("status") or {}).get("phase"))
    assert got == expected
    assert meta["generation"] == (2 if "deletionTimestamp" not in obj["metadata"] else 1)


def test_unknown_propagation_policy_is_refused(client):
    client.post(CM, configmap("c"))
    answer = client.delete(f"{CM}/c", {"propagationPolicy": "Sideways"})
    assert answer.status == 422 and "propagationPolicy" in answer.message
    assert client.get(f"{CM}/c").status == 200


# -- graceful deletion ------------------------------------------------------------------------

def test_pod_delete_is_graceful_until_a_delete_with_grace_zero(slow):
    # store.go Delete: a graceful delete is an update (MODIFIED), not a removal
    slow.post(PODS, pod("p", grace=45))
    rv = slow.get(PODS).body["metadata"]["resourceVersion"]
    with slow.watch(f"{PODS}?watch=1&resourceVersion={rv}") as stream:
        answer = slow.delete(f"{PODS}/p")
        assert answer.status == 200
        assert answer.body["metadata"]["deletionGracePeriodSeconds"] == 45
        event = stream.next()
        assert event["type"] == "MODIFIED" and event["object"]["metadata"]["deletionTimestamp"]
        stored = slow.get(f"{PODS}/p").body  # Terminating: still there
        assert stored["metadata"]["deletionGracePeriodSeconds"] == 45
        assert slow.delete(f"{PODS}/p", {"gracePeriodSeconds": 0}).status == 200
        assert stream.next()["type"] == "DELETED"
    assert slow.get(f"{PODS}/p").status == 404


def test_unscheduled_pod_is_removed_at_once(slow):
    # pod strategy CheckGracefulDelete: no nodeName, grace 0
    slow.post(PODS, pod("p", node=""))
    slow.delete(f"{PODS}/p")
    assert slow.get(f"{PODS}/p").status == 404


def test_pod_is_removed_when_its_grace_period_ends(fast):
    # what the kubelet's final DELETE (grace 0) does once the containers stopped
    fast.post(PODS, pod("p", grace=20))  # 0.2 s at grace_scale 0.01
    assert fast.delete(f"{PODS}/p").body["metadata"]["deletionTimestamp"]
    wait_until("the pod to go", gone(fast, f"{PODS}/p"))


def test_finalizers_hold_a_pod_after_its_grace_period(fast):
    # store.go updateForGracefulDeletionAndFinalizers: grace 0 with finalizers only marks it
    fast.post(PODS, pod("p", grace=5, finalizers=["example.com/hold"]))
    fast.delete(f"{PODS}/p")
    held = wait_until("the grace period to end", lambda: (
        lambda o: o if o["metadata"]["deletionGracePeriodSeconds"] == 0 else None)(
            fast.get(f"{PODS}/p").body))
    held["metadata"]["finalizers"] = []
    assert fast.put(f"{PODS}/p", held).status == 200
    assert fast.get(f"{PODS}/p").status == 404


# -- garbage collection -----------------------------------------------------------------------

def test_dependents_are_collected_with_their_owner(client):
    # garbagecollector.go attemptToDeleteItem (background propagation, the default)
    owner = client.post(CM, configmap("owner")).body
    client.post(SECRETS, owned({"metadata": {"name": "dep"}}, owner))
    client.post(SECRETS, {"metadata": {"name": "free"}})
    assert client.delete(f"{CM}/owner").status == 200
    wait_until("the dependent to be collected", gone(client, f"{SECRETS}/dep"))
    assert client.get(f"{SECRETS}/free").status == 200


def test_dependent_of_an_absent_owner_is_collected(client):
    # attemptToDeleteItem: all owners absent (dangling) -> delete; some solid -> drop the others
    owner = client.post(CM, configmap("owner")).body
    ghost = {"kind": "ConfigMap", "metadata": {"name": "ghost", "uid": "no-such-uid"}}
    client.post(SECRETS, owned({"metadata": {"name": "orphaned"}}, ghost))
    client.post(SECRETS, owned(owned({"metadata": {"name": "mixed"}}, ghost), owner))
    wait_until("the dangling dependent to be collected", gone(client, f"{SECRETS}/orphaned"))
    refs = wait_until("the dangling reference to be removed", lambda: (
        lambda r: r if len(r) == 1 else None)(
            client.get(f"{SECRETS}/mixed").body["metadata"]["ownerReferences"]))
    assert refs[0]["uid"] == owner["metadata"]["uid"]


def test_recreated_owner_with_the_same_name_does_not_adopt_old_dependents(client):
    # owners are matched by uid: a new object of the same name is another owner
    old = client.post(CM, configmap("owner")).body
    client.post(SECRETS, owned({"metadata": {"name": "dep"}}, old))
    client.delete(f"{CM}/owner")
    new = client.post(CM, configmap("owner")).body
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    wait_until("the old owner's dependent to be collected", gone(client, f"{SECRETS}/dep"))


def test_orphan_policy_keeps_dependents_without_the_reference(client):
    # garbagecollector.go orphanDependents, then the `orphan` finalizer is removed
    owner = client.post(CM, configmap("owner")).body
    client.post(SECRETS, owned({"metadata": {"name": "dep"}}, owner))
    answer = client.delete(f"{CM}/owner", {"propagationPolicy": "Orphan"})
    assert answer.status == 200 and answer.body["metadata"]["finalizers"] == ["orphan"]
    wait_until("the owner to go", gone(client, f"{CM}/owner"))
    dep = client.get(f"{SECRETS}/dep")
    assert dep.status == 200 and "ownerReferences" not in dep.body["metadata"]


def test_foreground_owner_waits_for_blocking_dependents(client):
    # garbagecollector.go processDeletingDependentsItem
    owner = client.post(CM, configmap("owner")).body
    held = owned({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}}, owner,
                 block=True)
    client.post(SECRETS, held)
    client.post(SECRETS, owned({"metadata": {"name": "loose"}}, owner))
    answer = client.delete(f"{CM}/owner", {"propagationPolicy": "Foreground"})
    assert answer.body["metadata"]["finalizers"] == ["foregroundDeletion"]
    wait_until("the non-blocking dependent to go", gone(client, f"{SECRETS}/loose"))
    dep = wait_until("the blocking dependent to be marked", lambda: (
        lambda o: o if o["metadata"].get("deletionTimestamp") else None)(
            client.get(f"{SECRETS}/held").body))
    assert client.get(f"{CM}/owner").status == 200  # still waiting for "held"
    dep["metadata"]["finalizers"] = []
    assert client.put(f"{SECRETS}/held", dep).status == 200
    wait_until("the owner to go", gone(client, f"{CM}/owner"))


# -- namespaces -------------------------------------------------------------------------------

def test_namespace_terminates_then_goes(slow):
    # pkg/controller/namespace/deletion and plugin/pkg/admission/namespace/lifecycle
    slow.post("/api/v1/namespaces", {"metadata": {"name": "doomed"}})
    slow.post("/api/v1/namespaces/doomed/configmaps", configmap("cm", "doomed"))
    slow.post("/api/v1/namespaces/doomed/pods", pod("p"))
    answer = slow.delete("/api/v1/namespaces/doomed")
    assert answer.status == 200 and answer.body["status"]["phase"] == "Terminating"
    wait_until("the configmap to go", gone(slow, "/api/v1/namespaces/doomed/configmaps/cm"))
    wait_until("the pod to be terminating", lambda: slow.get(
        "/api/v1/namespaces/doomed/pods/p").body["metadata"].get("deletionTimestamp"))
    refused = slow.post("/api/v1/namespaces/doomed/configmaps", configmap("late", "doomed"))
    assert refused.status == 403 and refused.reason == "Forbidden"
    assert "because it is being terminated" in refused.message
    assert refused.body["details"]["causes"][0]["reason"] == "NamespaceTerminating"
    ns = slow.get("/api/v1/namespaces/doomed").body  # the pod's grace period holds it
    assert ns["status"]["phase"] == "Terminating"
    slow.delete("/api/v1/namespaces/doomed/pods/p", {"gracePeriodSeconds": 0})
    wait_until("the namespace to go", gone(slow, "/api/v1/namespaces/doomed"))
    assert slow.post("/api/v1/namespaces", {"metadata": {"name": "doomed"}}).status == 201
