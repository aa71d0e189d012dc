# SPDX-License-Identifier: Apache-2.0
"""The indexes behind the test API server's speed, checked against their plain definitions:
the store's sorted buckets and per-kind history (kubeapi.store), and the Service allocation
index (kubeapi.services)."""

from __future__ import annotations

import json
import random

import pytest

from kubeapi.cluster import Cluster
from kubeapi.errors import ApiError
from kubeapi.meta import object_key
from kubeapi.registry import BUILTIN_RESOURCES, Registry
from kubeapi.services import ServiceAllocator
from kubeapi.store import EventLog, Store, StoredEvent

CM, SECRET = ("", "configmaps"), ("", "secrets")


def obj(namespace: str, name: str, value: int = 0) -> dict:
    return {"metadata": {"namespace": namespace, "name": name}, "data": {"v": str(value)}}


def okey(o: dict) -> str:
    return object_key(o["metadata"].get("namespace", ""), o["metadata"]["name"])


def locked(history: int) -> Store:
    """A store whose lock this (single) test thread holds, as Cluster holds it for writes."""
    store = Store(history)
    store.cond.acquire()
    return store


def test_list_is_in_key_order_within_a_namespace_and_from_a_start_key():
    store = locked(history=100)
    for namespace, name in [("b", "x"), ("a", "z"), ("ab", "y"), ("a", "m"), ("a-", "q")]:
        store.write(CM, obj(namespace, name), None)
    assert [okey(o) for o in store.list(CM)] == ["a-/q", "a/m", "a/z", "ab/y", "b/x"]
    assert [okey(o) for o in store.list(CM, "a")] == ["a/m", "a/z"]  # not "ab/…" nor "a-/…"
    assert [okey(o) for o in store.list(CM, "a", "a/m\x00")] == ["a/z"]
    assert [okey(o) for o in store.list(CM, "", "ab")] == ["ab/y", "b/x"]
    assert store.list(SECRET) == [] and store.list(CM, "none") == []


def test_events_after_is_per_kind_and_410_once_compacted():
    store = locked(history=3)
    store.write(CM, obj("a", "1"), None)  # rv 1
    store.write(SECRET, obj("a", "s"), None)  # rv 2
    store.write(CM, obj("a", "2"), None)  # rv 3
    assert [e.rv for e in store.events_after(0)] == [1, 2, 3]
    assert [e.rv for e in store.events_after(0, CM)] == [1, 3]
    assert [e.rv for e in store.events_after(1, SECRET)] == [2]
    assert store.events_after(3, CM) == [] and store.events_after(0, ("x", "y")) == []
    store.write(CM, obj("a", "3"), None)  # rv 4 drops rv 1
    assert store.compacted == 1 and store.oldest_available() == 2
    assert store.events_after(0) is None and store.events_after(0, SECRET) is None
    assert [e.rv for e in store.events_after(1, CM)] == [3, 4]


# Time-based compaction, as kube-apiserver's compactor (k8s.io/apiserver pkg/storage/etcd3
# compact.go, every --etcd-compaction-interval, 5 min) makes older revisions unreadable: a
# watch or list from one gets 410 (etcd3 store: interpretWatchError / the cacher's
# tooOldResourceVersion). Rows: (case, window, times of the writes rv 1.., time of the read,
# resourceVersion read from, the rvs returned or None for 410).
COMPACTION = [
    ("inside the window every event is kept", 300, [0, 10, 20], 100, 0, [1, 2, 3]),
    ("an idle server compacts too: older events are gone", 300, [0, 10, 400], 305, 0, None),
    ("an up-to-date resourceVersion never gets 410", 300, [0, 10, 20], 1000, 3, []),
    ("a resourceVersion at the compaction point is still served", 300, [0, 10, 400], 620, 2,
     [3]),
    ("older than the compaction point: 410", 300, [0, 10, 400], 620, 1, None),
    ("an aggressive window (chaos tests)", 2, [0, 1, 2], 3.5, 0, None),
    ("no window: only the count bounds history", None, [0, 10, 20], 10 ** 6, 0, [1, 2, 3]),
]


@pytest.mark.parametrize("case,window,writes,read_at,rv,expected", COMPACTION,
                         ids=[c[0] for c in COMPACTION])
def test_compaction_by_time(case, window, writes, read_at, rv, expected):
    now = [0.0]
    store = Store(100, compaction_window=window, clock=lambda: now[0])
    store.cond.acquire()
    for index, at in enumerate(writes):
        now[0] = at
        store.write(CM, obj("a", str(index)), None)
    now[0] = read_at
    events = store.events_after(rv, CM)
    assert (None if events is None else [e.rv for e in events]) == expected, case
    listed = store.list_at(CM, "", rv)
    assert (listed is None) == (expected is None), case


def test_event_log_keeps_order_across_batched_trimming():
    log = EventLog()
    for rv in range(1, 5001):
        log.append(StoredEvent(rv, "ADDED", CM, "", str(rv), {}, None))
        if len(log) > 700:
            assert log.drop_oldest().rv == rv - 700
    assert len(log) == 700
    assert [e.rv for e in log.after(4997)] == [4998, 4999, 5000]
    assert [e.rv for e in log.after(0)] == list(range(4301, 5001))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_list_at_equals_the_state_at_each_resource_version(seed):
    """Random creates, updates and deletes in two namespaces and two kinds; list_at(rv) must
    equal the snapshot taken right after rv was written, for every rv still in the history,
    every namespace and every start key."""
    rng, store, snapshots = random.Random(seed), locked(history=150), {}
    for _ in range(200):
        key, namespace, name = rng.choice([CM, SECRET]), rng.choice("ab"), rng.choice("pqrst")
        current = store.get(key, namespace, name)
        if current is not None and rng.random() < 0.3:
            store.delete(key, current)
        else:
            store.write(key, obj(namespace, name, rng.randrange(1000)), current)
        snapshots[store.rv] = {(k, ns): [json.dumps(o, sort_keys=True)
                                         for o in store.list(k, ns)]
                               for k in (CM, SECRET) for ns in ("", "a", "b")}
    for rv in range(store.oldest_available(), store.rv + 1):
        for (key, namespace), expected in snapshots[rv].items():
            listed = store.list_at(key, namespace, rv)
            assert [json.dumps(o, sort_keys=True) for o in listed] == expected, (rv, key)
            start = "b/r" if not namespace else f"{namespace}/r"
            tail = [json.dumps(o, sort_keys=True) for o in store.list_at(key, namespace, rv,
                                                                        start)]
            assert tail == [e for e in expected if okey(json.loads(e)) >= start]
    assert store.list_at(CM, "", store.oldest_available() - 2) is None


def test_encoded_is_cached_only_while_the_object_is_stored():
    store, calls = locked(history=10), []

    def encode(o):
        calls.append(o)
        return json.dumps(o).encode()

    first = store.write(CM, obj("a", "x", 1), None)
    assert store.encoded(CM, first, "", encode) == store.encoded(CM, first, "", encode)
    assert len(calls) == 1
    second = store.write(CM, obj("a", "x", 2), first)
    assert json.loads(store.encoded(CM, second, "", encode))["data"] == {"v": "2"}
    assert json.loads(store.encoded(CM, first, "", encode))["data"] == {"v": "1"}  # not stored
    assert len(calls) == 3


def service(name: str, **spec) -> dict:
    return {"metadata": {"name": name}, "spec": dict({"ports": [{"port": 80}]}, **spec)}


@pytest.fixture
def cluster():
    cluster = Cluster(Registry(BUILTIN_RESOURCES), Store(1000),
                      ServiceAllocator(["10.96.0.0/29", "fd00::/125"]))
    namespaces = cluster.registry.lookup("", "v1", "namespaces")
    cluster.create(namespaces, "", {"metadata": {"name": "default"}})
    return cluster


def test_allocation_is_sequential_and_reuses_the_lowest_freed_address(cluster):
    svc = cluster.registry.lookup("", "v1", "services")

    def ip(name, **spec):
        return cluster.create(svc, "default", service(name, **spec))["spec"]["clusterIP"]

    assert [ip("a"), ip("b"), ip("c")] == ["10.96.0.1", "10.96.0.2", "10.96.0.3"]
    cluster.create(svc, "default", service("dry"), dry_run=True)  # takes nothing
    assert ip("d") == "10.96.0.4"
    cluster.delete(svc, "default", "b", {})
    assert ip("e") == "10.96.0.2"  # the freed address, not the next one
    assert ip("f", clusterIP="10.96.0.6") == "10.96.0.6"
    assert ip("g") == "10.96.0.5"
    with pytest.raises(ApiError, match="range 10.96.0.0/29 is full"):
        ip("h")
    with pytest.raises(ApiError, match="provided IP is already allocated"):
        ip("i", clusterIP="10.96.0.1")
    cluster.update(svc, "default", "a", dict(service("a"), spec={"type": "ExternalName",
                                                                 "externalName": "x.example"}),
                   "")
    assert ip("j") == "10.96.0.1"  # a Service that stops holding an address frees it
    assert ip("k", ipFamilies=["IPv6"]) == "fd00::1"


def test_node_ports_follow_stored_services(cluster):
    svc = cluster.registry.lookup("", "v1", "services")
    first = cluster.create(svc, "default", service("a", type="NodePort"))
    port = first["spec"]["ports"][0]["nodePort"]
    with pytest.raises(ApiError, match="provided port is already allocated"):
        cluster.create(svc, "default", service("b", type="NodePort",
                                               ports=[{"port": 80, "nodePort": port}]))
    updated = cluster.update(svc, "default", "a", first, "")  # keeps its own port
    assert updated["spec"]["ports"][0]["nodePort"] == port
    cluster.delete(svc, "default", "a", {})
    again = cluster.create(svc, "default", service("b", type="NodePort",
                                                   ports=[{"port": 80, "nodePort": port}]))
    assert again["spec"]["ports"][0]["nodePort"] == port
