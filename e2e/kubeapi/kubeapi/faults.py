# SPDX-License-Identifier: Apache-2.0
"""Fault injection for the failures a loaded kube-apiserver produces, so that clients can be
tested against them on purpose:

* **throttling** (429 with `Retry-After`): what API Priority and Fairness answers when a
  priority level's queues are full, and what `--max-requests-inflight` answers without APF
  (k8s.io/apiserver pkg/server/filters: `WithPriorityAndFairness` and `WithMaxInFlightLimit`
  both reject through `tooManyRequests`, which sets `Retry-After` and writes the plain-text
  body "Too many requests, please try again later."). The request is rejected before it
  runs: nothing is written.
* **timeouts after commit** (504 `Timeout`): a write whose handler outlives the request's
  deadline is answered by the finisher (k8s.io/apiserver pkg/endpoints/handlers/finisher
  `FinishRequest`) with `NewTimeoutError("request did not complete within requested timeout
  - context deadline exceeded", 0)`, while the storage write goes on and may commit. The
  client cannot tell whether it did; here it always does.
* **a custom resource's storage starting again** (429 `storage is (re)initializing`,
  Retry-After 1): after a CRD update replaces the storage (Store.reset_watches), the new
  watch cache lists from etcd before it serves; until then list and watch requests are
  refused (k8s.io/apiserver pkg/storage/cacher: `ready.check` under
  ResilientWatchCacheInitialization answers `NewTooManyRequestsError`). `storage_reinit`
  is how long that lasts here (default 0: ready at once).
* **Event expiry**: kube-apiserver stores Events with an etcd lease of `--event-ttl` (default
  1 h, `registry/core/event/storage` `TTLFunc`), renewed on every write; when the lease ends
  etcd deletes the key and watchers see DELETED. `EventReaper` does that with a configurable
  TTL.

Faults are chosen per request either by count (`throttle_next`, `timeout_next`: the next N
matching requests, deterministic for tests) or by probability (`throttle_fraction`,
`timeout_fraction`, drawn from the server's seeded RNG). They are set by flags, by the Python
attributes, or at run time through the admin endpoint `/ingot-test/faults` (GET shows them
and their counters, PUT replaces the fields it names); see the README."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, fields
from typing import Callable, Optional

from .errors import ApiError, bad_request

ADMIN_PATH = "/ingot-test/faults"
ALL_VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
THROTTLE_BODY = b"Too many requests, please try again later.\n"
TIMEOUT_MESSAGE = ("Timeout: request did not complete within requested timeout - context "
                   "deadline exceeded")


def storage_reinitializing() -> ApiError:
    """The cacher's 429 while it is not ready (storage.NewTooManyRequestsError, retry after
    1 s)."""
    return ApiError(429, "TooManyRequests", "Too many requests: storage is (re)initializing",
                    {"retryAfterSeconds": 1})


def timeout_after_commit() -> ApiError:
    """The 504 the finisher sends when a request outlives its deadline (no Retry-After: the
    finisher passes retryAfterSeconds 0)."""
    return ApiError(504, "Timeout", TIMEOUT_MESSAGE, {})


@dataclass
class FaultPlan:
    """What to inject; every field may be changed while the server runs."""

    throttle_next: int = 0  # the next N requests of throttle_verbs get 429
    throttle_fraction: float = 0.0  # each request of throttle_verbs gets 429 with this chance
    retry_after: int = 1  # seconds, sent in the Retry-After header of a 429
    throttle_verbs: tuple = ALL_VERBS
    timeout_next: int = 0  # the next N writes of timeout_verbs commit, then answer 504
    timeout_fraction: float = 0.0
    timeout_verbs: tuple = ("create",)
    event_ttl: Optional[float] = None  # seconds an Event lives after its last write
    storage_reinit: float = 0.0  # seconds a replaced CRD storage answers list/watch 429
    # The 429 and 504 faults hit only users whose name starts with one of these (e.g.
    # "system:serviceaccount:" for the daemons, sparing a test's own admin client); empty: all.
    fault_users: tuple = ()


@dataclass
class FaultCounters:
    throttled: int = 0
    timed_out: int = 0
    events_expired: int = 0
    reinitializing: int = 0


class Faults:
    """The fault plan of one server and the decisions drawn from it. Thread-safe."""

    def __init__(self, plan: FaultPlan, draw: Callable[[], float]):
        self.plan = plan
        self.counters = FaultCounters()
        # (user, verb, "resource.group[/sub]") -> requests received, faulted or not: what a
        # client asked for, so tests can check that a steady state writes nothing.
        self.requests: dict = {}
        self._draw = draw  # uniform [0, 1): the server's seeded RNG
        self._lock = threading.Lock()

    def throttle(self, verb: str, user: str = "") -> Optional[int]:
        """Returns the Retry-After seconds when this request is to be rejected with 429."""
        with self._lock:
            if not self._hits(user) or not self._take("throttle", verb):
                return None
            self.counters.throttled += 1
            return max(0, int(self.plan.retry_after))

    def time_out(self, verb: str, user: str = "") -> bool:
        """True when this write is to commit and then be answered 504."""
        with self._lock:
            if not self._hits(user) or not self._take("timeout", verb):
                return False
            self.counters.timed_out += 1
            return True

    def _hits(self, user: str) -> bool:
        prefixes = self.plan.fault_users
        return not prefixes or any(user.startswith(p) for p in prefixes)

    def _take(self, kind: str, verb: str) -> bool:
        plan = self.plan
        if verb not in getattr(plan, f"{kind}_verbs"):
            return False
        pending = getattr(plan, f"{kind}_next")
        if pending > 0:
            setattr(plan, f"{kind}_next", pending - 1)
            return True
        fraction = getattr(plan, f"{kind}_fraction")
        return fraction > 0 and self._draw() < fraction

    def reinitializing(self, verb: str, replaced_at: Optional[float], user: str = "",
                       now: Optional[float] = None) -> bool:
        """True when a list or watch of a storage replaced at replaced_at (monotonic) is to be
        answered 429 because its cache is still starting (fault_users applies)."""
        if verb not in ("list", "watch") or replaced_at is None or not self._hits(user):
            return False
        now = time.monotonic() if now is None else now
        with self._lock:
            if now - replaced_at >= self.plan.storage_reinit:
                return False
            self.counters.reinitializing += 1
            return True

    def count_request(self, user: str, verb: str, resource: str) -> None:
        with self._lock:
            key = (user, verb, resource)
            self.requests[key] = self.requests.get(key, 0) + 1

    def count_expired(self, n: int) -> None:
        with self._lock:
            self.counters.events_expired += n

    def describe(self) -> dict:
        """The plan and counters as the admin endpoint shows them (camelCase keys)."""
        with self._lock:
            out = {_camel(f.name): _jsonable(getattr(self.plan, f.name)) for f in fields(FaultPlan)}
            out["counters"] = {_camel(f.name): getattr(self.counters, f.name)
                               for f in fields(FaultCounters)}
            out["requests"] = [{"user": u, "verb": v, "resource": r, "count": n}
                               for (u, v, r), n in sorted(self.requests.items())]
            return out

    def configure(self, changes: object) -> None:
        """Applies {field: value} (camelCase or snake_case keys); raises 400 naming a bad
        field and changes nothing then."""
        if not isinstance(changes, dict):
            raise bad_request("the fault plan must be a JSON object")
        parsed = {}
        names = {f.name: f for f in fields(FaultPlan)}
        for key, value in changes.items():
            if key == "requests" and value == []:
                parsed[key] = value  # PUT {"requests": []} forgets the request counts
                continue
            name = _snake(key)
            if name not in names:
                raise bad_request(f"unknown fault field {key!r}; known: "
                                  f"{', '.join(_camel(n) for n in names)}")
            parsed[name] = _parse_field(key, name, value)
        with self._lock:
            for name, value in parsed.items():
                if name == "requests":
                    self.requests.clear()
                else:
                    setattr(self.plan, name, value)


def _parse_field(key: str, name: str, value: object):
    if name == "fault_users":
        if not isinstance(value, list) or any(not isinstance(v, str) for v in value):
            raise bad_request(f"fault field {key!r} must be a list of user name prefixes")
        return tuple(value)
    if name.endswith("_verbs"):
        if not isinstance(value, list) or any(v not in ALL_VERBS for v in value):
            raise bad_request(f"fault field {key!r} must be a list of verbs among "
                              f"{', '.join(ALL_VERBS)}")
        return tuple(value)
    if name == "event_ttl" and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise bad_request(f"fault field {key!r} must be a non-negative number")
    if name.endswith("_fraction") and value > 1:
        raise bad_request(f"fault field {key!r} must be a fraction between 0 and 1")
    if name.endswith("_next") or name == "retry_after":
        if int(value) != value:
            raise bad_request(f"fault field {key!r} must be an integer")
        return int(value)
    return float(value)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


class EventReaper:
    """Deletes Events whose TTL (faults.plan.event_ttl, read on every pass) has run out since
    their last write, as etcd does when an Event's lease expires: no admission, no finalizers,
    a DELETED watch event. Follows the store's writes through an observer."""

    def __init__(self, store, keys: tuple, faults: Faults, stopping: threading.Event,
                 clock: Callable[[], float] = time.monotonic):
        self._store = store
        self._keys = frozenset(keys)
        self._faults = faults
        self._stopping = stopping
        self._clock = clock
        self._written: dict = {}  # (storage key, namespace, name) -> time of the last write
        self._thread: Optional[threading.Thread] = None
        store.observers.append(self._observe)

    def _observe(self, key: tuple, prev: Optional[dict], obj: Optional[dict]) -> None:
        if key not in self._keys:
            return
        meta = (obj or prev or {}).get("metadata", {})
        ident = (key, meta.get("namespace", ""), meta.get("name", ""))
        if obj is None:
            self._written.pop(ident, None)
        else:
            self._written[ident] = self._clock()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kubeapi-event-ttl", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stopping.wait(self._period()):
            self.expire()

    def _period(self) -> float:
        ttl = self._faults.plan.event_ttl
        return 0.5 if ttl is None else min(0.5, max(0.05, ttl / 4))

    def expire(self, ttl: Optional[float] = None) -> int:
        """Deletes every Event not written for ttl seconds (default: the plan's event_ttl);
        returns how many."""
        ttl = self._faults.plan.event_ttl if ttl is None else ttl
        if ttl is None:
            return 0
        now = self._clock()
        expired = 0
        with self._store.cond:
            for ident, written in list(self._written.items()):
                if now - written < ttl:
                    continue
                key, namespace, name = ident
                obj = self._store.get(key, namespace, name)
                if obj is None:
                    self._written.pop(ident, None)
                    continue
                self._store.delete(key, obj)  # the observer forgets it
                expired += 1
        if expired:
            self._faults.count_expired(expired)
        return expired
