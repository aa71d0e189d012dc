# SPDX-License-Identifier: Apache-2.0
"""A CRD update that changes what its storage serves ends every watch on its objects, as
apiextensions-apiserver's crdHandler.updateCustomResourceDefinition does: it compares the new
spec and accepted names with those the storage was built from and, when they differ,
removeStorage_locked → tearDown destroys the old storage and its watch cache, whose watchers
see their result channel close (the HTTP stream ends with no ERROR event). The client watches
again and reaches the new storage, which may answer 429 while its cache starts
(storage.NewTooManyRequestsError, Retry-After 1; FaultPlan.storage_reinit here)."""

from __future__ import annotations

import pytest

from kubeapi.faults import FaultPlan
from conftest import ApiClient

NS = "metallb-system"
CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bgppeers.metallb.io"
PEERS = f"/apis/metallb.io/v1beta2/namespaces/{NS}/bgppeers"
POOLS_CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ipaddresspools.metallb.io"


def peer(name: str) -> dict:
    return {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}}


CA_BUNDLE = {"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle": "Zm9v"}}}}}

# (case, the CRD patched, its merge patch, whether the BGPPeer storage is replaced):
# crdHandler.updateCustomResourceDefinition compares newCRD.Spec and
# newCRD.Status.AcceptedNames with those the storage was built from.
CHANGES = [
    ("the cert rotator's caBundle patch replaces the storage", CRD, CA_BUNDLE, True),
    ("a spec change to the names replaces it", CRD,
     {"spec": {"names": {"shortNames": ["peer"]}}}, True),
    ("a label (metadata only) keeps it", CRD, {"metadata": {"labels": {"rotated": "yes"}}},
     False),
    ("an annotation keeps it", CRD, {"metadata": {"annotations": {"note": "x"}}}, False),
    ("another CRD's update keeps it", POOLS_CRD,
     {"spec": {"names": {"shortNames": ["pool"]}}}, False),
]


@pytest.mark.parametrize("case,crd,patch,replaced", CHANGES, ids=[c[0] for c in CHANGES])
def test_update_custom_resource_definition_ends_the_watches_of_a_replaced_storage(
        client, case, crd, patch, replaced):
    assert client.post(PEERS, peer("before")).status == 201
    with client.watch(PEERS + "?allowWatchBookmarks=false") as stream:
        assert stream.next()["type"] == "ADDED"
        assert client.patch(crd, patch).status == 200, case
        assert client.post(PEERS, peer("after")).status == 201
        if replaced:
            assert stream.next(timeout=10) is None, case  # ended, with no ERROR event
        else:
            event = stream.next(timeout=10)
            assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == "after", \
                case
    with client.watch(PEERS) as again:  # a new watch reaches the new storage
        names = sorted(e["object"]["metadata"]["name"] for e in again.take(2))
        assert names == ["after", "before"], case


def test_other_resources_watches_survive_a_crd_update(client):
    pools = "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools"
    with client.watch(pools) as stream:
        assert client.patch(CRD, CA_BUNDLE).status == 200
        created = {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
                   "metadata": {"name": "p", "namespace": NS},
                   "spec": {"addresses": ["10.9.0.0/24"]}}
        assert client.post(pools, created).status == 201
        assert stream.next(timeout=10)["object"]["metadata"]["name"] == "p"


def test_a_deleted_crd_ends_its_watches(client):
    with client.watch(PEERS) as stream:
        assert client.delete(CRD).status == 200
        assert stream.next(timeout=10) is None


def test_a_replaced_storage_answers_429_while_its_cache_starts(start_server):
    server = start_server(faults=FaultPlan(storage_reinit=3600))
    client = ApiClient(server)
    assert client.get(PEERS).status == 200
    assert client.patch(CRD, CA_BUNDLE).status == 200
    listed = client.get(PEERS)
    assert listed.status == 429 and listed.headers["Retry-After"] == "1"
    assert listed.body["reason"] == "TooManyRequests"
    assert listed.body["message"] == "Too many requests: storage is (re)initializing"
    watched = client.watch(PEERS)
    assert watched.status == 429
    watched.close()
    assert client.get(PEERS + "/x").status == 404  # a get reads etcd, not the cache
    assert client.post(PEERS, peer("w")).status == 201  # writes go to etcd
    pools = "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools"
    assert client.get(pools).status == 200  # other storages are not affected
    assert server.faults.counters.reinitializing == 2
    server.faults.configure({"storageReinit": 0})
    assert client.get(PEERS).status == 200


def test_requests_are_counted_by_user_verb_and_resource(client):
    assert client.post(PEERS, peer("counted")).status == 201
    assert client.get(PEERS).status == 200
    shown = client.get("/ingot-test/faults").body["requests"]
    counts = {(r["verb"], r["resource"]): r["count"] for r in shown}
    assert counts[("create", "bgppeers.metallb.io")] == 1
    assert counts[("list", "bgppeers.metallb.io")] == 1
    assert client.put("/ingot-test/faults", {"requests": []}).status == 200
    assert client.get("/ingot-test/faults").body["requests"] == []
