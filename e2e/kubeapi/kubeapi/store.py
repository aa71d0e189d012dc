# SPDX-License-Identifier: Apache-2.0
"""Storage: objects, one global resourceVersion and the event history."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Optional

from .meta import meta_of, object_key


@dataclass(frozen=True)
class StoredEvent:
    """One write, as recorded for watches: the object after the write and before it."""

    rv: int
    type: str  # ADDED, MODIFIED or DELETED
    key: tuple
    namespace: str
    name: str
    obj: dict
    prev: Optional[dict]


class Store:
    """In-memory objects keyed by storage key and object key.

    Stored dicts are never changed in place: every write stores a new dict, so readers may keep
    and serialise references after releasing the lock. `cond` guards everything and is notified
    on each write (watchers wait on it)."""

    def __init__(self, history: int):
        self.cond = threading.Condition(threading.RLock())
        self.rv = 0
        self.compacted = 0  # events with rv <= compacted may have been dropped
        self._objects: dict = {}
        self._history: deque = deque()
        self._history_size = max(1, history)

    def get(self, key: tuple, namespace: str, name: str) -> Optional[dict]:
        return self._objects.get(key, {}).get(object_key(namespace, name))

    def list(self, key: tuple, namespace: str = "") -> list:
        bucket = self._objects.get(key, {})
        return [bucket[k] for k in sorted(bucket)
                if not namespace or meta_of(bucket[k]).get("namespace") == namespace]

    def write(self, key: tuple, obj: dict, prev: Optional[dict]) -> dict:
        """Stores obj (creating or replacing); returns it with its new resourceVersion."""
        self.rv += 1
        meta = meta_of(obj)
        stored = dict(obj, metadata=dict(meta, resourceVersion=str(self.rv)))
        okey = object_key(meta.get("namespace", ""), meta["name"])
        self._objects.setdefault(key, {})[okey] = stored
        self._record("MODIFIED" if prev else "ADDED", key, stored, prev)
        return stored

    def delete(self, key: tuple, obj: dict) -> dict:
        """Removes obj; returns it with the resourceVersion of the deletion."""
        self.rv += 1
        meta = meta_of(obj)
        final = dict(obj, metadata=dict(meta, resourceVersion=str(self.rv)))
        self._objects.get(key, {}).pop(object_key(meta.get("namespace", ""), meta["name"]), None)
        self._record("DELETED", key, final, obj)
        return final

    def _record(self, kind: str, key: tuple, obj: dict, prev: Optional[dict]) -> None:
        meta = meta_of(obj)
        self._history.append(StoredEvent(self.rv, kind, key, meta.get("namespace", ""),
                                         meta["name"], obj, prev))
        while len(self._history) > self._history_size:
            self.compacted = self._history.popleft().rv
        self.cond.notify_all()

    def oldest_available(self) -> int:
        return self.compacted + 1

    def events_after(self, rv: int) -> list:
        """Returns every event newer than rv; None when some of them were already dropped."""
        if rv < self.compacted:
            return None
        return [e for e in self._history if e.rv > rv]

    def list_at(self, key: tuple, namespace: str, rv: int) -> Optional[list]:
        """Returns the objects of a storage key as they were at rv (None if too old)."""
        if rv < self.compacted:
            return None
        state = {object_key(meta_of(o).get("namespace", ""), meta_of(o)["name"]): o
                 for o in self.list(key, namespace)}
        for event in reversed(self._history):
            if event.rv <= rv:
                break
            if event.key != key or (namespace and event.namespace != namespace):
                continue
            okey = object_key(event.namespace, event.name)
            if event.type == "ADDED":
                state.pop(okey, None)
            else:
                state[okey] = event.prev
        return [state[k] for k in sorted(state)]
