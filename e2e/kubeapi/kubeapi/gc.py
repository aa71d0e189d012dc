# SPDX-License-Identifier: Apache-2.0
"""The controllers that complete deletions in the background, as a cluster's would:

* the end of a Pod's grace period (what the kubelet's final DELETE with grace 0 does: nobody
  runs a kubelet here, so the server does it after the period times `grace_scale`);
* the garbage collector (pkg/controller/garbagecollector): dependents of a removed owner are
  deleted (background), dependents whose owners are all absent are deleted (attemptToDeleteItem's
  absent-owner check), an owner deleted with `orphan` has its dependents' references removed,
  one deleted with `foregroundDeletion` stays until its dependents with blockOwnerDeletion
  are gone (processDeletingDependentsItem);
* the namespace controller (pkg/controller/namespace/deletion): a Terminating namespace has
  its objects deleted, then its `kubernetes` finalizer removed, which removes it.

One thread does all of it under the store lock, fed by a store observer; it keeps its own
indexes (uid -> object, owner uid -> dependents), so no step scans objects it does not act on."""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
import time
import traceback
from collections import deque
from typing import TYPE_CHECKING, Optional

from .deletion import FOREGROUND, NAMESPACE_FINALIZER, ORPHAN
from .errors import ApiError
from .meta import meta_of

if TYPE_CHECKING:
    from .cluster import Cluster

NAMESPACES = ("", "namespaces")


def owner_refs(obj: Optional[dict]) -> list:
    refs = meta_of(obj or {}).get("ownerReferences")
    if not isinstance(refs, list):
        return []
    return [r for r in refs if isinstance(r, dict) and r.get("uid")]


def _location(key: tuple, obj: dict) -> tuple:
    meta = meta_of(obj)
    return key, meta.get("namespace", ""), meta["name"]


class Collector:
    """The background deletion controllers of one Cluster (see the module docstring)."""

    def __init__(self, cluster: "Cluster", grace_scale: float = 1.0):
        self.cluster = cluster
        self.store = cluster.store
        self.grace_scale = grace_scale
        self.uids: dict = {}  # uid -> (storage key, namespace, name)
        self.dependents: dict = {}  # owner uid -> {(storage key, namespace, name)}
        self.queue: deque = deque()
        self.timers: list = []  # heap of (deadline, seq, location, uid)
        self._seq = itertools.count()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when work is queued: other writes do not wake it
        self._thread: Optional[threading.Thread] = None
        self.store.observers.append(self.observe)

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="kubeapi-gc", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)
        self._thread = None

    # -- indexes (called by the store under its lock) -----------------------------------------

    def observe(self, key: tuple, prev: Optional[dict], obj: Optional[dict]) -> None:
        queued, timers = len(self.queue), len(self.timers)
        self._index(key, prev, obj)
        if len(self.queue) != queued or len(self.timers) != timers:
            self._wake.set()

    def _index(self, key: tuple, prev: Optional[dict], obj: Optional[dict]) -> None:
        if prev is not None:
            loc = _location(key, prev)
            for ref in owner_refs(prev):
                deps = self.dependents.get(ref["uid"])
                if deps is not None:
                    deps.discard(loc)
                    if not deps:
                        del self.dependents[ref["uid"]]
            if obj is None:
                meta = meta_of(prev)
                self.uids.pop(meta.get("uid"), None)
                self.queue.append(("owner-gone", meta.get("uid")))
                self.queue.extend(("owner-deleting", r["uid"]) for r in owner_refs(prev))
                if meta.get("namespace"):
                    self.queue.append(("namespace", meta["namespace"]))
        if obj is None:
            return
        loc = _location(key, obj)
        meta = meta_of(obj)
        self.uids[meta["uid"]] = loc
        refs = owner_refs(obj)
        for ref in refs:
            self.dependents.setdefault(ref["uid"], set()).add(loc)
        if refs and (prev is None or refs != owner_refs(prev)):
            self.queue.append(("dependent", loc))
        if not meta.get("deletionTimestamp"):
            return
        grace = meta.get("deletionGracePeriodSeconds") or 0
        if grace > 0 and grace != meta_of(prev or {}).get("deletionGracePeriodSeconds"):
            deadline = time.monotonic() + grace * self.grace_scale
            heapq.heappush(self.timers, (deadline, next(self._seq), loc, meta["uid"]))
        if {ORPHAN, FOREGROUND} & set(meta.get("finalizers") or ()):
            self.queue.append(("owner-deleting", meta["uid"]))
        if key == NAMESPACES:
            self.queue.append(("namespace", meta["name"]))

    # -- the worker ---------------------------------------------------------------------------

    def _run(self) -> None:
        wait = 0.0
        while not self._stop.is_set():
            self._wake.wait(wait)
            self._wake.clear()
            with self.store.cond:
                self._expire_grace_periods()
                for _ in range(10000):
                    if not self.queue:
                        break
                    self._process(self.queue.popleft())
                wait = 0.0 if self.queue else 0.5
                if self.timers:
                    wait = min(wait, max(0.0, self.timers[0][0] - time.monotonic()))

    def _process(self, item: tuple) -> None:
        kind, arg = item
        try:
            if kind == "owner-gone":
                for loc in sorted(self.dependents.get(arg, ())):
                    self._attempt_to_delete(loc)
            elif kind == "dependent":
                self._attempt_to_delete(arg)
            elif kind == "owner-deleting":
                self._process_deleting_owner(arg)
            elif kind == "namespace":
                self._terminate_namespace(arg)
        except ApiError as err:  # e.g. a webhook refused; the next event retries
            sys.stderr.write(f"kubeapi: gc {kind} {arg}: {err.status().get('message')}\n")
        except Exception:  # a server bug: report it and keep collecting
            traceback.print_exc()

    def _resource(self, key: tuple):
        for res in self.cluster.registry.all():
            if res.key == key:
                return res
        return None

    def _get(self, loc: tuple) -> Optional[dict]:
        return self.store.get(*loc)

    def _delete(self, loc: tuple, obj: dict, policy: str) -> None:
        res = self._resource(loc[0])
        if res is None:  # its kind is no longer served (CRD removed): drop it from storage
            self.store.delete(loc[0], obj)
            return
        options = {"propagationPolicy": policy,
                   "preconditions": {"uid": meta_of(obj)["uid"]}}
        self.cluster.delete(res, loc[1], loc[2], options)

    def _update(self, loc: tuple, old: dict, new: dict) -> None:
        res = self._resource(loc[0])
        if res is not None:
            self.cluster.system_update(res, old, new)

    def _expire_grace_periods(self) -> None:
        """A grace period ran out: what the kubelet's last DELETE (grace 0) does."""
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, _, loc, uid = heapq.heappop(self.timers)
            obj = self._get(loc)
            meta = meta_of(obj or {})
            if obj is None or meta.get("uid") != uid or not meta.get("deletionGracePeriodSeconds"):
                continue
            new = dict(obj, metadata=dict(meta, deletionGracePeriodSeconds=0))
            try:
                self._update(loc, obj, new)
            except ApiError as err:
                sys.stderr.write(f"kubeapi: grace period of {loc}: {err.status().get('message')}\n")

    def _attempt_to_delete(self, loc: tuple) -> None:
        """garbagecollector.go attemptToDeleteItem: classifies the owners of a dependent as
        solid, dangling (absent, or not where a namespaced dependent can see it) or waiting for
        dependents' deletion (foreground)."""
        obj = self._get(loc)
        if obj is None or meta_of(obj).get("deletionTimestamp"):
            return
        refs = owner_refs(obj)
        if not refs:
            return
        solid, dangling, waiting = [], [], []
        for ref in refs:
            owner_loc = self.uids.get(ref["uid"])
            owner = self._get(owner_loc) if owner_loc else None
            if owner is not None and owner_loc[1] and owner_loc[1] != loc[1]:
                owner = None  # a namespaced owner in another namespace does not exist for it
            if owner is None:
                dangling.append(ref)
            elif (meta_of(owner).get("deletionTimestamp")
                  and FOREGROUND in (meta_of(owner).get("finalizers") or ())):
                waiting.append(ref)
            else:
                solid.append(ref)
        if solid:
            if dangling or waiting:
                gone = {r["uid"] for r in dangling + waiting}
                self._remove_refs(loc, obj, gone)
            return
        self._delete(loc, obj, "Foreground" if waiting else "Background")

    def _remove_refs(self, loc: tuple, obj: dict, uids: set) -> None:
        meta = dict(meta_of(obj))
        meta["ownerReferences"] = [r for r in meta.get("ownerReferences") or []
                                   if not (isinstance(r, dict) and r.get("uid") in uids)]
        if not meta["ownerReferences"]:
            del meta["ownerReferences"]
        self._update(loc, obj, dict(obj, metadata=meta))

    def _process_deleting_owner(self, uid: str) -> None:
        """An owner deleted with the orphan or foregroundDeletion finalizer (garbagecollector.go
        orphanDependents and processDeletingDependentsItem)."""
        loc = self.uids.get(uid)
        owner = self._get(loc) if loc else None
        if owner is None or not meta_of(owner).get("deletionTimestamp"):
            return
        finalizers = list(meta_of(owner).get("finalizers") or [])
        dependents = sorted(self.dependents.get(uid, ()))
        if ORPHAN in finalizers:
            for dep_loc in dependents:
                dep = self._get(dep_loc)
                if dep is not None:
                    self._remove_refs(dep_loc, dep, {uid})
            finalizers.remove(ORPHAN)
        elif FOREGROUND in finalizers:
            blocking = False
            for dep_loc in dependents:
                dep = self._get(dep_loc)
                if dep is None:
                    continue
                if not meta_of(dep).get("deletionTimestamp"):
                    self._attempt_to_delete(dep_loc)
                dep = self._get(dep_loc)
                if dep is not None and any(r["uid"] == uid and r.get("blockOwnerDeletion")
                                           for r in owner_refs(dep)):
                    blocking = True
            if blocking:
                return  # the removal of a blocking dependent queues this owner again
            finalizers.remove(FOREGROUND)
        else:
            return
        owner = self._get(loc)
        meta = dict(meta_of(owner), finalizers=finalizers)
        if not finalizers:
            del meta["finalizers"]
        self._update(loc, owner, dict(owner, metadata=meta))

    def _terminate_namespace(self, name: str) -> None:
        """pkg/controller/namespace/deletion: deletes every object of a Terminating namespace,
        then removes the namespace's `kubernetes` finalizer once none is left."""
        namespace = self.store.get(NAMESPACES, "", name)
        if namespace is None or not meta_of(namespace).get("deletionTimestamp"):
            return
        remaining = False
        for key in sorted(self.cluster.registry.namespaced_storage_keys()):
            for item in self.store.list(key, name):
                if not meta_of(item).get("deletionTimestamp"):
                    self._delete((key, name, meta_of(item)["name"]), item, "Background")
            remaining = remaining or bool(self.store.list(key, name))
        if remaining:
            return  # each removal of one of its objects queues the namespace again
        spec = dict(namespace.get("spec") or {})
        spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != NAMESPACE_FINALIZER]
        self._update((NAMESPACES, "", name), namespace, dict(namespace, spec=spec))
