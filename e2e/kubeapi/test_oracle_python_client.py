# SPDX-License-Identifier: Apache-2.0
"""The test API server's list and watch against a second, independent client: Debian's
python3-kubernetes (the official Python client). A reflector-like loop (list, then watch from
the list's resourceVersion with `kubernetes.watch.Watch`, bookmarks on, re-watch from the last
resourceVersion seen when a watch ends, relist on 410 Gone), as client-go's Reflector does
(tools/cache/reflector.go ListAndWatch / watchHandler), follows ConfigMaps (typed models) and
IPAddressPools (custom objects, plain dicts) while a writer creates, updates and deletes them.

The server keeps a short event history (`history`), so a watcher that falls behind gets 410:
the test pauses the reflector over a burst of writes to force one. It also writes only Secrets
for a while: a watcher of ConfigMaps that resumed from its last event would then be compacted
away, one that follows the bookmarks is not.

Checked: the client parses every list, event and bookmark; within one list-and-watch run the
reflector sees every write after the list, once and in order; after each relist and at the end
its cache is exactly the server's list. Besides, the client's typed models parse the server's
create answers, lists and watch events of every built-in kind Ingot's daemons use."""

from __future__ import annotations

import random
import threading
import time

import pytest

from conftest import TOKEN

kubernetes = pytest.importorskip(
    "kubernetes", reason="python3-kubernetes is not installed (scripts/setup installs it)")
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "oracle"
HISTORY = 25  # events the server keeps: a watcher more than this behind gets 410


class Target:
    """How to list, watch and write one kind through the Python client."""

    def __init__(self, api_client, kind: str):
        self.kind = kind
        self.core = kubernetes.client.CoreV1Api(api_client)
        self.custom = kubernetes.client.CustomObjectsApi(api_client)

    def list_call(self):
        if self.kind == "configmaps":
            return self.core.list_namespaced_config_map, (NS,)
        return self.custom.list_namespaced_custom_object, ("metallb.io", "v1beta1", NS,
                                                           "ipaddresspools")

    def list(self) -> tuple:
        """(resourceVersion of the list, {name: (resourceVersion, content)})."""
        func, args = self.list_call()
        answer = func(*args)
        if self.kind == "configmaps":
            return answer.metadata.resource_version, {
                o.metadata.name: (o.metadata.resource_version, dict(o.data or {}))
                for o in answer.items}
        return answer["metadata"]["resourceVersion"], {
            o["metadata"]["name"]: (o["metadata"]["resourceVersion"], o["spec"]["addresses"])
            for o in answer["items"]}

    @staticmethod
    def content_of(kind: str, obj) -> tuple:
        if kind == "configmaps":
            return obj.metadata.name, obj.metadata.resource_version, dict(obj.data or {})
        meta = obj["metadata"]
        return meta["name"], meta["resourceVersion"], obj["spec"]["addresses"]

    def write(self, name: str, op: str, step: int) -> str:
        """Creates, updates or deletes name; returns the resourceVersion of the change."""
        if self.kind == "configmaps":
            body = {"metadata": {"name": name}, "data": {"step": str(step)}}
            if op == "create":
                return self.core.create_namespaced_config_map(NS, body).metadata.resource_version
            if op == "update":
                return self.core.patch_namespaced_config_map(name, NS, body) \
                    .metadata.resource_version
            return self._deleted_rv(self.core.delete_namespaced_config_map(name, NS))
        group = ("metallb.io", "v1beta1", NS, "ipaddresspools")
        body = {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
                "metadata": {"name": name}, "spec": {"addresses": [f"10.{step % 250}.0.0/24"]}}
        if op == "create":
            return self.custom.create_namespaced_custom_object(*group, body)[
                "metadata"]["resourceVersion"]
        if op == "update":
            return self.custom.patch_namespaced_custom_object(
                *group[:3], group[3], name, {"spec": body["spec"]})["metadata"]["resourceVersion"]
        return self._deleted_rv(self.custom.delete_namespaced_custom_object(*group, name))

    @staticmethod
    def _deleted_rv(answer) -> str:
        # A DELETE answers with the deleted object (its last resourceVersion) or a Status; the
        # deletion's own resourceVersion is only in the watch event.
        return ""


class Reflector(threading.Thread):
    """List-and-watch into a cache, recording what it saw."""

    def __init__(self, target: Target):
        super().__init__(daemon=True)
        self.target = target
        self.cache: dict = {}
        self.rv = "0"
        self.runs: list = []  # one per list: {"list_rv", "events": [(type, name, rv)]}
        self.bookmarks: list = []
        self.relists = 0
        self.errors: list = []
        self.running = threading.Event()  # cleared: park before the next watch
        self.running.set()
        self.parked = threading.Event()
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self._list()
                self._watch_until_gone()
        except Exception as err:  # reported by the test
            self.errors.append(repr(err))

    def _list(self) -> None:
        rv, items = self.target.list()
        with self.lock:
            self.cache = {name: (item_rv, content) for name, (item_rv, content) in items.items()}
            self.rv = rv
            self.runs.append({"list_rv": int(rv), "listed": dict(self.cache), "events": []})

    def _watch_until_gone(self) -> None:
        func, args = self.target.list_call()
        while not self.stopping.is_set():
            if not self.running.is_set():
                self.parked.set()
                self.running.wait()
                self.parked.clear()
            watch = kubernetes.watch.Watch()
            try:
                for event in watch.stream(func, *args, resource_version=self.rv,
                                          allow_watch_bookmarks=True, timeout_seconds=1):
                    self._handle(event)
                    if self.stopping.is_set() or not self.running.is_set():
                        watch.stop()
            except ApiException as err:
                if err.status != 410:
                    raise
                with self.lock:
                    self.relists += 1
                return

    def _handle(self, event: dict) -> None:
        kind = event["type"]
        with self.lock:
            if kind == "BOOKMARK":
                self.rv = event["raw_object"]["metadata"]["resourceVersion"]
                self.bookmarks.append(int(self.rv))
                return
            name, rv, content = Target.content_of(self.target.kind, event["object"])
            self.runs[-1]["events"].append((kind, name, int(rv)))
            if kind == "DELETED":
                self.cache.pop(name, None)
            else:
                self.cache[name] = (rv, content)
            self.rv = rv


def api_client_for(server):
    config = kubernetes.client.Configuration()
    config.host = server.url
    config.ssl_ca_cert = str(server.ca_file)
    config.api_key = {"authorization": f"Bearer {TOKEN}"}
    return kubernetes.client.ApiClient(config)


def wait_for(predicate, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def writes(target: Target, rng: random.Random, count: int, live: set, step: list) -> list:
    """count random creates, updates and deletes; returns their resourceVersions."""
    out = []
    for _ in range(count):
        step[0] += 1
        name = f"o{rng.randrange(8)}"
        op = ("update" if rng.random() < 0.6 else "delete") if name in live else "create"
        rv = target.write(name, op, step[0])
        (live.discard if op == "delete" else live.add)(name)
        if rv:
            out.append(int(rv))
    return out


def settled(reflector: Reflector, target: Target) -> None:
    """Waits until the reflector's cache is the server's current list."""
    def same() -> bool:
        with reflector.lock:
            cache = dict(reflector.cache)
        return cache == target.list()[1]

    wait_for(same, "the reflector to reach the server's state")


@pytest.mark.parametrize("kind", ["configmaps", "ipaddresspools"])
def test_python_client_reflector_sees_exactly_the_servers_state(start_server, kind):
    server = start_server(history=HISTORY, namespaces=(NS,))
    api_client = api_client_for(server)
    target = Target(api_client, kind)
    secrets = kubernetes.client.CoreV1Api(api_client)
    rng, live, step = random.Random(30), set(), [0]
    reflector = Reflector(target)
    reflector.start()
    try:
        wait_for(lambda: reflector.runs, "the first list")
        written = writes(target, rng, 30, live, step)
        settled(reflector, target)

        # Fall behind: paused over more writes than the history keeps, the next watch gets 410.
        reflector.running.clear()
        wait_for(reflector.parked.is_set, "the reflector to park")
        written += writes(target, rng, 2 * HISTORY, live, step)
        reflector.running.set()
        wait_for(lambda: reflector.relists >= 1, "a relist after 410 Gone")
        settled(reflector, target)

        # Only Secrets change, in batches smaller than the history, each followed by a
        # bookmark: a watcher resuming from its last event would now be compacted away, the
        # bookmarks carry this one past.
        relists = reflector.relists
        for index in range(2 * HISTORY):
            secrets.create_namespaced_secret(NS, {"metadata": {"name": f"s{index}"}})
            if index % 10 == 9:
                latest = int(target.list()[0])
                wait_for(lambda: reflector.bookmarks and reflector.bookmarks[-1] >= latest,
                         "a bookmark past the Secrets")
        written += writes(target, rng, 10, live, step)
        settled(reflector, target)
        assert reflector.relists == relists, "bookmarks should have spared a relist"
    finally:
        reflector.stopping.set()
        reflector.running.set()
        reflector.join(timeout=10)
    assert not reflector.errors, reflector.errors
    print(f"{kind}: {len(written)} writes, {len(reflector.runs)} lists, {reflector.relists} "
          f"after 410, {sum(len(r['events']) for r in reflector.runs)} events, "
          f"{len(reflector.bookmarks)} bookmarks")
    assert reflector.bookmarks, "no bookmark parsed"

    # Within each run: every event once and in order, and every write after its list seen.
    seen = set()
    for index, run in enumerate(reflector.runs):
        rvs = [rv for _, _, rv in run["events"]]
        assert rvs == sorted(set(rvs)), f"run {index}: duplicated or reordered events"
        assert all(rv > run["list_rv"] for rv in rvs), f"run {index}: an event before its list"
        end = rvs[-1] if rvs else run["list_rv"]
        missed = [rv for rv in written if run["list_rv"] < rv <= end and rv not in rvs]
        assert not missed, f"run {index}: writes {missed} not seen"
        seen.update(rvs)
    assert reflector.relists == len(reflector.runs) - 1
    # Every write was seen as an event or folded into a later list.
    lists = [run["list_rv"] for run in reflector.runs]
    assert all(rv in seen or any(rv <= listed for listed in lists) for rv in written)


# Kinds Ingot's daemons read or write, each with a minimal object: the typed models of the
# Python client must parse the server's list, its watch events and its answer to the create.
TYPED_KINDS = {
    "namespaces": ("CoreV1Api", "namespace", False, {"metadata": {"name": "typed"}}),
    "nodes": ("CoreV1Api", "node", False, {"metadata": {"name": "typed", "labels": {
        "kubernetes.io/hostname": "typed"}}}),
    "services": ("CoreV1Api", "service", True, {
        "metadata": {"name": "typed"},
        "spec": {"type": "LoadBalancer", "ports": [{"name": "http", "port": 80}]}}),
    "pods": ("CoreV1Api", "pod", True, {
        "metadata": {"name": "typed"},
        "spec": {"containers": [{"name": "c", "image": "example/agent:1"}]}}),
    "secrets": ("CoreV1Api", "secret", True, {"metadata": {"name": "typed"},
                                              "data": {"key": "dmFsdWU="}}),
    "events": ("CoreV1Api", "event", True, {
        "metadata": {"name": "typed"}, "reason": "Test", "message": "m", "type": "Normal",
        "involvedObject": {"kind": "Service", "namespace": NS, "name": "typed"}}),
    "endpointslices": ("DiscoveryV1Api", "endpoint_slice", True, {
        "metadata": {"name": "typed", "labels": {"kubernetes.io/service-name": "typed"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.1.0.5"], "conditions": {"ready": True},
                       "nodeName": "typed"}],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}),
}


@pytest.mark.parametrize("kind", sorted(TYPED_KINDS))
def test_python_client_models_parse_the_servers_objects(start_server, kind):
    server = start_server(namespaces=(NS,))
    api_name, noun, namespaced, body = TYPED_KINDS[kind]
    api = getattr(kubernetes.client, api_name)(api_client_for(server))
    scope = ("namespaced_" if namespaced else "")
    args = (NS,) if namespaced else ()
    list_func = getattr(api, f"list_{scope}{noun}")
    before = list_func(*args).metadata.resource_version
    created = getattr(api, f"create_{scope}{noun}")(*args, body)
    assert created.metadata.name == "typed" and created.metadata.resource_version

    listed = list_func(*args)
    assert "typed" in [item.metadata.name for item in listed.items]
    watch = kubernetes.watch.Watch()
    events = []
    for event in watch.stream(list_func, *args, resource_version=before,
                              allow_watch_bookmarks=True, timeout_seconds=5):
        if event["type"] != "BOOKMARK":
            events.append(event)
            watch.stop()
    assert [(e["type"], e["object"].metadata.name) for e in events] == [("ADDED", "typed")]
    assert type(events[0]["object"]) is type(created)
