# SPDX-License-Identifier: Apache-2.0
"""Watch responses: chunked JSON event lines, bookmarks, selector transitions, 410 Expired."""

from __future__ import annotations

import json
import select
import time
from typing import Optional, TYPE_CHECKING

from .errors import too_old_resource_version
from .meta import meta_of
from .registry import with_version
from .tables import partial_metadata, table

if TYPE_CHECKING:
    from .handler import Handler
    from .registry import Resource
    from .selectors import ObjectFilter
    from .store import StoredEvent


INITIAL_EVENTS_END = "k8s.io/initial-events-end"


class WatchStream:
    """Writes one watch response: chunked JSON lines {"type": ..., "object": ...}."""

    def __init__(self, handler: Handler, res: Resource, filt: ObjectFilter, shape: str):
        self.handler = handler
        self.res = res
        self.filt = filt
        self.shape = shape
        self.sent_table_header = False
        # The storage this watch reads; it ends when a CRD update replaces it (Store.reset_watches).
        store = handler.api.cluster.store
        with store.cond:
            self.generation = store.storage_generation.get(res.key, 0)

    def begin(self) -> None:
        handler = self.handler
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Cache-Control", "no-cache, private")
        handler.send_header("Transfer-Encoding", "chunked")
        for warning in handler._warnings:
            handler.send_header("Warning", f'299 - "{warning}"')
        handler.end_headers()
        handler._responded = True

    @staticmethod
    def encode(kind: str, obj: dict) -> bytes:
        """Returns one event as one chunk of the chunked response."""
        data = (json.dumps({"type": kind, "object": obj}, separators=(",", ":")) + "\n").encode()
        return b"%X\r\n%s\r\n" % (len(data), data)

    def send(self, kind: str, obj: dict) -> None:
        self.handler.wfile.write(self.encode(kind, obj))

    def encode_object(self, kind: str, obj: dict) -> bytes:
        if self.shape == "Table":
            rendered = table(self.res, [obj], self.handler._param("includeObject"),
                             {"resourceVersion": meta_of(obj)["resourceVersion"]},
                             headers=not self.sent_table_header)
            self.sent_table_header = True
        elif self.shape == "Partial":
            rendered = partial_metadata(obj)
        else:
            rendered = with_version(self.res, obj)
        return self.encode(kind, rendered)

    def send_object(self, kind: str, obj: dict) -> None:
        self.handler.wfile.write(self.encode_object(kind, obj))

    def encode_event(self, event: StoredEvent) -> Optional[bytes]:
        """Returns the chunk this watcher sends for a stored event, if any. Plain JSON of the
        stored object is encoded once per event and serving version, for all watchers."""
        converted = self.convert(event)
        if converted is None:
            return None
        kind, obj = converted
        if self.shape or obj is not event.obj:
            return self.encode_object(kind, obj)
        cache_key = (kind, self.res.group_version, self.res.kind)
        data = event.encoded.get(cache_key)
        if data is None:
            data = event.encoded[cache_key] = self.encode_object(kind, obj)
        return data

    def send_bookmark(self, rv: int, initial_events_end: bool = False) -> None:
        meta: dict = {"resourceVersion": str(rv)}
        if not self.res.custom:
            meta["creationTimestamp"] = None  # what a typed Go object serialises
        if initial_events_end:
            meta["annotations"] = {INITIAL_EVENTS_END: "true"}
        self.send("BOOKMARK", {"kind": self.res.kind, "apiVersion": self.res.group_version,
                               "metadata": meta})

    def end(self) -> None:
        self.handler.wfile.write(b"0\r\n\r\n")

    def convert(self, event: StoredEvent) -> Optional[tuple]:
        """Returns the (type, object) a watcher with this filter sees for an event, if any.
        An object leaving the selection is a DELETED, one entering it an ADDED."""
        if event.key != self.res.key:
            return None
        if event.type == "DELETED":
            return ("DELETED", event.obj) if self.filt.matches(event.obj) else None
        now = self.filt.matches(event.obj)
        before = event.prev is not None and self.filt.matches(event.prev)
        if now:
            return ("MODIFIED" if before else "ADDED", event.obj)
        if before:
            prev = event.prev
            return ("DELETED", dict(prev, metadata=dict(meta_of(prev),
                                                        resourceVersion=str(event.rv))))
        return None

    def follow(self, cursor: int, bookmarks: bool, timeout: int) -> None:
        """Streams events after cursor until the timeout, a fault deadline, server stop, the
        storage being replaced (a CRD update: the stream ends without an error, the client
        watches again and gets the new storage) or the client leaving; sends a BOOKMARK every
        bookmark interval when asked to."""
        api = self.handler.api
        store = api.cluster.store
        limits = [t for t in (timeout, api.close_watches_after) if t]
        deadline = time.monotonic() + min(limits) if limits else None
        next_bookmark = time.monotonic() + api.bookmark_interval
        while True:
            wake = min(t for t in (deadline, next_bookmark if bookmarks else None,
                                   time.monotonic() + 0.25) if t is not None)
            with store.cond:
                if store.rv == cursor and not api.stopping.is_set():
                    store.cond.wait(max(0.0, wake - time.monotonic()))
                if api.stopping.is_set():
                    break
                replaced = store.storage_generation.get(self.res.key, 0) != self.generation
                seen, cursor = cursor, store.rv
                events = store.events_after(seen, self.res.key)
            if events is None:
                self.send("ERROR", too_old_resource_version(seen, store.oldest_available())
                          .status())
                break
            chunks = [c for c in map(self.encode_event, events) if c is not None]
            if chunks:
                self.handler.wfile.write(b"".join(chunks))  # still one chunk per event
            if replaced:
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            if bookmarks and now >= next_bookmark:
                self.send_bookmark(cursor)
                next_bookmark = now + api.bookmark_interval
            if self._client_gone():
                self.handler.close_connection = True
                return
        self.end()

    def _client_gone(self) -> bool:
        """True when the client closed the connection (a watcher sends nothing)."""
        try:
            readable, _, _ = select.select([self.handler.connection], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)
