# SPDX-License-Identifier: Apache-2.0
"""Storage: objects, one global resourceVersion and the event history.

Everything a request or a watcher needs is indexed, so no operation scans what it does not
return: objects are kept per storage key with their keys in sorted order (a namespace or a
continue position is a bisection), and the history is kept both globally and per storage key
in resourceVersion order (the events after a resourceVersion are a bisection and a slice)."""

from __future__ import annotations

import bisect
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from .meta import meta_of, object_key


@dataclass(frozen=True)
class StoredEvent:
    """One write, as recorded for watches: the object after the write and before it.

    `encoded` caches the wire form of the event per serving version, so N watchers of one
    kind serialise each event once instead of N times."""

    rv: int
    type: str  # ADDED, MODIFIED or DELETED
    key: tuple
    namespace: str
    name: str
    obj: dict
    prev: Optional[dict]
    encoded: dict = field(default_factory=dict, compare=False, repr=False)
    at: float = field(default=0.0, compare=False)  # the store clock when it was written


class EventLog:
    """Events in resourceVersion order: append, drop the oldest, and "every event after rv"
    by bisection. Dropped events are released in batches (amortised O(1) per event)."""

    def __init__(self):
        self._events: list = []
        self._head = 0  # events before _head have been dropped

    def __len__(self) -> int:
        return len(self._events) - self._head

    def append(self, event: StoredEvent) -> None:
        self._events.append(event)

    def oldest(self) -> Optional[StoredEvent]:
        return self._events[self._head] if self._head < len(self._events) else None

    def drop_oldest(self) -> StoredEvent:
        event = self._events[self._head]
        self._head += 1
        if self._head >= 1024 and self._head * 2 >= len(self._events):
            del self._events[:self._head]
            self._head = 0
        return event

    def after(self, rv: int) -> list:
        start = bisect.bisect_right(self._events, rv, lo=self._head, key=lambda e: e.rv)
        return self._events[start:]


class _Bucket:
    """The objects of one storage key, with their object keys kept sorted."""

    def __init__(self):
        self.objects: dict = {}
        self.keys: list = []
        self.encoded: dict = {}  # object key -> (stored object, variant, bytes)

    def put(self, okey: str, obj: dict) -> None:
        if okey not in self.objects:
            bisect.insort(self.keys, okey)
        self.objects[okey] = obj
        self.encoded.pop(okey, None)

    def remove(self, okey: str) -> None:
        if self.objects.pop(okey, None) is not None:
            del self.keys[bisect.bisect_left(self.keys, okey)]
        self.encoded.pop(okey, None)

    def key_range(self, namespace: str, start: str) -> list:
        """Sorted object keys in namespace ("" = all) that are >= start."""
        lo, hi = 0, len(self.keys)
        if namespace:
            lo = bisect.bisect_left(self.keys, namespace + "/")
            hi = bisect.bisect_left(self.keys, namespace + "0")  # "0" follows "/"
        if start:
            lo = max(lo, bisect.bisect_left(self.keys, start, lo, hi))
        return self.keys[lo:hi]


def _in_range(okey: str, namespace: str, start: str) -> bool:
    return okey >= start and (not namespace or okey.startswith(namespace + "/"))


class Store:
    """In-memory objects keyed by storage key and object key.

    Stored dicts are never changed in place: every write stores a new dict, so readers may keep
    and serialise references after releasing the lock. `cond` guards everything and is notified
    on each write (watchers wait on it). `observers` are called under the lock after every
    write and deletion as observer(key, prev, obj), obj None on deletion; indexes that other
    modules keep (e.g. the Service allocations) follow the store that way."""

    def __init__(self, history: int, compaction_window: float = 300.0,
                 clock: Callable[[], float] = time.monotonic):
        self.cond = threading.Condition(threading.RLock())
        # Events older than this many seconds are dropped (as etcd's periodic compaction,
        # kube-apiserver --etcd-compaction-interval 5m, makes older revisions unreadable);
        # `history` also bounds their number. None: no time limit.
        self.compaction_window: Optional[float] = compaction_window
        self._clock = clock
        self.rv = 0
        self.compacted = 0  # events with rv <= compacted may have been dropped
        self.observers: list[Callable] = []
        self._buckets: dict = {}
        self._history = EventLog()
        self._history_by_key: dict = {}
        self._history_size = max(1, history)
        # Storage key -> how often its storage was replaced (a CRD update): a watch ends when
        # the count it started with changes (see reset_watches).
        self.storage_generation: dict = {}
        self.storage_replaced_at: dict = {}  # storage key -> time.monotonic() of the last reset

    def get(self, key: tuple, namespace: str, name: str) -> Optional[dict]:
        bucket = self._buckets.get(key)
        return bucket.objects.get(object_key(namespace, name)) if bucket else None

    def count(self, key: tuple) -> int:
        bucket = self._buckets.get(key)
        return len(bucket.objects) if bucket else 0

    def list(self, key: tuple, namespace: str = "", start: str = "") -> list:
        """Objects of a storage key in object key order, within namespace ("" = all) and from
        object key start on."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return []
        objects = bucket.objects
        return [objects[k] for k in bucket.key_range(namespace, start)]

    def encoded(self, key: tuple, obj: dict, variant: str, encode: Callable) -> bytes:
        """Returns encode(obj), cached while obj is the stored version of its object (one
        variant per object: the serving version a list asked for). Safe without the lock: a
        cached entry is used only when it belongs to this very object."""
        bucket = self._buckets.get(key)
        meta = meta_of(obj)
        okey = object_key(meta.get("namespace", ""), meta["name"])
        cached = bucket.encoded.get(okey) if bucket is not None else None
        if cached is not None and cached[0] is obj and cached[1] == variant:
            return cached[2]
        data = encode(obj)
        if bucket is not None and bucket.objects.get(okey) is obj:
            bucket.encoded[okey] = (obj, variant, data)
        return data

    def write(self, key: tuple, obj: dict, prev: Optional[dict]) -> dict:
        """Stores obj (creating or replacing); returns it with its new resourceVersion."""
        self.rv += 1
        meta = meta_of(obj)
        stored = dict(obj, metadata=dict(meta, resourceVersion=str(self.rv)))
        okey = object_key(meta.get("namespace", ""), meta["name"])
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket()
        bucket.put(okey, stored)
        self._record("MODIFIED" if prev else "ADDED", key, stored, prev)
        return stored

    def delete(self, key: tuple, obj: dict) -> dict:
        """Removes obj; returns it with the resourceVersion of the deletion."""
        self.rv += 1
        meta = meta_of(obj)
        final = dict(obj, metadata=dict(meta, resourceVersion=str(self.rv)))
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.remove(object_key(meta.get("namespace", ""), meta["name"]))
        self._record("DELETED", key, final, obj)
        return final

    def _record(self, kind: str, key: tuple, obj: dict, prev: Optional[dict]) -> None:
        meta = meta_of(obj)
        event = StoredEvent(self.rv, kind, key, meta.get("namespace", ""), meta["name"], obj,
                            prev, at=self._clock())
        self._history.append(event)
        log = self._history_by_key.get(key)
        if log is None:
            log = self._history_by_key[key] = EventLog()
        log.append(event)
        while len(self._history) > self._history_size:
            self._drop_oldest()
        self.compact()
        for observer in self.observers:
            observer(key, prev, None if kind == "DELETED" else obj)
        self.cond.notify_all()

    def reset_watches(self, key: tuple) -> None:
        """Ends every watch on key, as apiextensions-apiserver does when it replaces a custom
        resource's storage (crdHandler.updateCustomResourceDefinition → removeStorage_locked →
        tearDown destroys the old cacher, closing its watchers)."""
        self.storage_generation[key] = self.storage_generation.get(key, 0) + 1
        self.storage_replaced_at[key] = time.monotonic()
        self.cond.notify_all()

    def _drop_oldest(self) -> None:
        dropped = self._history.drop_oldest()
        self._history_by_key[dropped.key].drop_oldest()
        self.compacted = dropped.rv

    def compact(self) -> None:
        """Drops the events older than the compaction window. Called on every write and
        before history is read, so an idle server compacts too."""
        if self.compaction_window is None:
            return
        horizon = self._clock() - self.compaction_window
        oldest = self._history.oldest()
        while oldest is not None and oldest.at < horizon:
            self._drop_oldest()
            oldest = self._history.oldest()

    def oldest_available(self) -> int:
        return self.compacted + 1

    def events_after(self, rv: int, key: Optional[tuple] = None) -> Optional[list]:
        """Returns every event newer than rv (of one storage key, or of all); None when some
        events newer than rv were already dropped."""
        self.compact()
        if rv < self.compacted:
            return None
        log = self._history if key is None else self._history_by_key.get(key)
        return log.after(rv) if log is not None else []

    def list_at(self, key: tuple, namespace: str, rv: int, start: str = "") -> Optional[list]:
        """Returns the objects of a storage key as they were at rv (None if too old), in the
        order and range of list(): the current objects with the writes after rv undone."""
        self.compact()
        if rv < self.compacted:
            return None
        log = self._history_by_key.get(key)
        before: dict = {}  # object key -> its object at rv (None: it did not exist)
        for event in log.after(rv) if log is not None else []:
            okey = object_key(event.namespace, event.name)
            if okey not in before and _in_range(okey, namespace, start):
                before[okey] = None if event.type == "ADDED" else event.prev
        bucket = self._buckets.get(key) or _Bucket()
        keys = bucket.key_range(namespace, start)
        if before:
            keys = sorted(set(keys).union(before))
        state = [before[k] if k in before else bucket.objects[k] for k in keys]
        return [o for o in state if o is not None]
