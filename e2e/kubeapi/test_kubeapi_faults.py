# SPDX-License-Identifier: Apache-2.0
"""The overload faults of the test API server (kubeapi/faults.py), each against the
kube-apiserver behaviour it follows:

* 429 with Retry-After: k8s.io/apiserver pkg/server/filters, `WithPriorityAndFairness` /
  `WithMaxInFlightLimit` rejecting through `tooManyRequests` (plain-text body, Retry-After
  header, nothing executed);
* 504 after a committed write: k8s.io/apiserver pkg/endpoints/handlers/finisher `FinishRequest`
  answering `NewTimeoutError(..., 0)` (reason Timeout, no Retry-After) while the write commits;
* Event expiry: kube-apiserver `--event-ttl` (registry/core/event/storage `TTLFunc`, an etcd
  lease renewed by every write; expiry deletes the key and watchers see DELETED)."""

from __future__ import annotations

import inspect
import time

import pytest

import kubeapi
from conftest import CM, TOKEN, ApiClient, configmap
from kubeapi.errors import ApiError
from kubeapi.faults import ALL_VERBS, FaultPlan, Faults, TIMEOUT_MESSAGE

EVENTS = "/api/v1/namespaces/default/events"
ADMIN = "/ingot-test/faults"


def event(name: str, count: int = 1) -> dict:
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "ConfigMap", "name": "cm", "namespace": "default"},
            "reason": "Synced", "message": "ok", "type": "Normal", "count": count}


def wait_until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# ---------------------------------------------------------------------------------------------
# The decisions (pure, table-driven)


@pytest.mark.parametrize("desc, plan, verbs, draws, throttled", [
    ("nothing planned: nothing throttled",
     FaultPlan(), ["get", "create"], [0.0, 0.0], [None, None]),
    ("the next 2 requests, whatever the verb, then none",
     FaultPlan(throttle_next=2, retry_after=3), ["get", "create", "list"], [],
     [3, 3, None]),
    ("only the verbs named are counted down",
     FaultPlan(throttle_next=1, throttle_verbs=("create",)), ["get", "create", "create"], [],
     [None, 1, None]),
    ("a fraction: a draw below it throttles, one above does not",
     FaultPlan(throttle_fraction=0.5, retry_after=2), ["get", "get", "get"], [0.1, 0.9, 0.49],
     [2, None, 2]),
])
def test_throttle_decisions(desc, plan, verbs, draws, throttled):
    source = iter(draws)
    faults = Faults(plan, lambda: next(source))
    assert [faults.throttle(v) for v in verbs] == throttled, desc
    assert faults.counters.throttled == sum(t is not None for t in throttled), desc


@pytest.mark.parametrize("desc, plan, verbs, timed_out", [
    ("creates by default", FaultPlan(timeout_next=1), ["update", "create", "create"],
     [False, True, False]),
    ("other write verbs when named", FaultPlan(timeout_next=2, timeout_verbs=("patch", "delete")),
     ["create", "patch", "delete", "patch"], [False, True, True, False]),
    ("every create at fraction 1", FaultPlan(timeout_fraction=1.0), ["create", "create"],
     [True, True]),
])
def test_timeout_decisions(desc, plan, verbs, timed_out):
    faults = Faults(plan, lambda: 0.5)
    assert [faults.time_out(v) for v in verbs] == timed_out, desc


@pytest.mark.parametrize("desc, change, error", [
    ("an unknown field", {"throttleSoon": 1}, "unknown fault field 'throttleSoon'"),
    ("a negative count", {"throttleNext": -1}, "'throttleNext' must be a non-negative number"),
    ("a fraction above 1", {"timeoutFraction": 1.5}, "between 0 and 1"),
    ("a fractional count", {"timeoutNext": 1.5}, "'timeoutNext' must be an integer"),
    ("an unknown verb", {"throttleVerbs": ["get", "explode"]}, "must be a list of verbs"),
    ("not an object", [1], "must be a JSON object"),
])
def test_bad_fault_plans_are_refused_and_change_nothing(desc, change, error):
    faults = Faults(FaultPlan(), lambda: 0.0)
    before = faults.describe()
    with pytest.raises(Exception) as raised:
        faults.configure(change if not isinstance(change, dict) else dict(change,
                                                                            retryAfter=9))
    assert error in str(raised.value), desc
    assert faults.describe() == before, desc


# ---------------------------------------------------------------------------------------------
# Through HTTP


def test_a_throttled_request_is_429_with_retry_after_and_does_not_run(start_server):
    server = start_server(faults=FaultPlan(throttle_next=1, retry_after=4,
                                           throttle_verbs=("create",)))
    client = ApiClient(server)
    rejected = client.post(CM, configmap("cm1"))
    assert rejected.status == 429
    assert rejected.headers["Retry-After"] == "4"
    assert rejected.body == "Too many requests, please try again later.\n"  # not a Status
    assert client.get(f"{CM}/cm1").status == 404  # rejected before it ran
    assert client.post(CM, configmap("cm1")).status == 201  # only the next one
    assert server.faults.counters.throttled == 1


def test_a_throttle_storm_rejects_a_seeded_fraction_of_requests(start_server):
    def outcomes(server) -> list:
        client = ApiClient(server)
        return [client.get(CM).status for _ in range(40)]

    first = outcomes(start_server(seed=3, faults=FaultPlan(throttle_fraction=0.5)))
    again = outcomes(start_server(seed=3, faults=FaultPlan(throttle_fraction=0.5)))
    assert first == again  # the same seed, the same storm
    assert set(first) == {200, 429}


def test_a_timed_out_create_commits_and_answers_504_without_retry_after(start_server):
    server = start_server(faults=FaultPlan(timeout_next=1))
    client = ApiClient(server)
    body = configmap("ignored")
    body["metadata"] = {"generateName": "gen-", "namespace": "default"}
    answer = client.post(CM, body)
    assert answer.status == 504 and answer.reason == "Timeout"
    assert answer.message == TIMEOUT_MESSAGE
    assert "Retry-After" not in answer.headers
    stored = client.get(CM).body["items"]
    assert [o["metadata"]["name"].startswith("gen-") for o in stored] == [True]  # committed
    assert client.post(CM, body).status == 201  # a blind retry duplicates: the hazard
    assert len(client.get(CM).body["items"]) == 2


def test_a_write_that_fails_is_answered_with_its_failure_not_504(start_server):
    server = start_server(faults=FaultPlan(timeout_next=1))
    client = ApiClient(server)
    assert client.post(CM, configmap("cm1")).status == 504
    assert client.post(CM, configmap("cm1")).status == 409  # the fault was spent on the first


def test_faults_are_set_and_shown_through_the_admin_endpoint(start_server):
    server = start_server()
    client = ApiClient(server)
    changed = client.put(ADMIN, {"throttleNext": 1, "retryAfter": 2, "throttleVerbs": ["list"]})
    assert changed.status == 200
    assert changed.body["throttleNext"] == 1 and changed.body["throttleVerbs"] == ["list"]
    assert client.get(f"{CM}/none").status == 404  # a get: not a listed verb
    assert client.get(CM).status == 429
    shown = client.get(ADMIN).body
    assert shown["throttleNext"] == 0 and shown["counters"]["throttled"] == 1
    refused = client.put(ADMIN, {"throttleNext": "many"})
    assert refused.status == 400 and "throttleNext" in refused.message
    assert set(ALL_VERBS) == set(client.put(ADMIN, {"throttleVerbs": list(ALL_VERBS)})
                                 .body["throttleVerbs"])


def test_watch_cache_defaults_are_a_real_servers_and_the_admin_endpoint_changes_them(
        start_server):
    """Bookmarks about once a minute (the cacher's defaultBookmarkFrequency, time.Minute) and
    5 minutes of history (--etcd-compaction-interval) by default; chaos tests make them
    aggressive at run time."""
    assert kubeapi.parse_args([]).bookmark_interval == 60.0
    assert kubeapi.parse_args([]).compaction_window == 300.0
    defaults = inspect.signature(kubeapi.KubeApiServer).parameters
    assert defaults["bookmark_interval"].default == 60.0
    assert defaults["compaction_window"].default == 300.0
    server = start_server(bookmark_interval=60.0)
    client = ApiClient(server)
    shown = client.get(ADMIN).body
    assert shown["bookmarkInterval"] == 60.0 and shown["compactionWindow"] == 300.0
    first = client.post(CM, configmap("first")).body["metadata"]["resourceVersion"]
    changed = client.put(ADMIN, {"bookmarkInterval": 0.1, "compactionWindow": 0.2})
    assert changed.status == 200 and changed.body["bookmarkInterval"] == 0.1
    with client.watch(f"{CM}?allowWatchBookmarks=true&resourceVersion={first}") as stream:
        assert stream.next(timeout=10)["type"] == "BOOKMARK"
    time.sleep(0.5)  # the window passes
    assert client.post(CM, configmap("second")).status == 201
    with client.watch(f"{CM}?resourceVersion={int(first) - 1}") as stream:
        gone = stream.next(timeout=10)  # the write of "first" was compacted away
    assert gone["type"] == "ERROR" and gone["object"]["code"] == 410
    for bad in ({"bookmarkInterval": 0}, {"compactionWindow": "long"},
                {"bookmarkInterval": None}):
        refused = client.put(ADMIN, bad)
        assert refused.status == 400, bad
    assert client.put(ADMIN, {"compactionWindow": None}).body["compactionWindow"] is None
    assert server.bookmark_interval == 0.1


def test_faults_hit_only_the_users_named():
    """fault_users lets a chaos test throttle the daemons (ServiceAccounts) and not its own
    admin client, as APF's exempt level spares system:masters."""
    plan = FaultPlan(throttle_fraction=1.0, timeout_fraction=1.0,
                     fault_users=("system:serviceaccount:",))
    faults = Faults(plan, lambda: 0.0)
    speaker = "system:serviceaccount:metallb-system:speaker"
    assert faults.throttle("list", "admin") is None and not faults.time_out("create", "admin")
    assert faults.throttle("list", speaker) == 1 and faults.time_out("create", speaker)
    faults.configure({"faultUsers": []})
    assert faults.throttle("list", "admin") == 1
    with pytest.raises(ApiError):
        faults.configure({"faultUsers": "everyone"})


def test_the_admin_endpoint_needs_an_all_powerful_token(start_server):
    server = start_server()
    assert ApiClient(server, token="nope").get(ADMIN).status == 401
    assert ApiClient(server, token=TOKEN).get(ADMIN).status == 200


def test_events_expire_after_the_ttl_since_their_last_write(start_server):
    server = start_server()  # no TTL of its own: the test expires Events explicitly
    client = ApiClient(server)
    now = [1000.0]
    server.event_reaper._clock = lambda: now[0]  # the TTL measured on a controlled clock
    assert client.post(EVENTS, event("e1")).status == 201
    assert client.post(CM, configmap("cm1")).status == 201
    now[0] += 1800
    assert client.patch(f"{EVENTS}/e1", {"count": 2}).status == 200  # renews the lease
    assert client.post(EVENTS, event("e2")).status == 201
    now[0] += 1800
    assert server.event_reaper.expire(3600) == 0  # e1 written 1800 s ago, not 3600
    now[0] += 1800
    rv = client.get(EVENTS).body["metadata"]["resourceVersion"]
    with client.watch(f"{EVENTS}?resourceVersion={rv}") as watch:
        assert server.event_reaper.expire(3600) == 2
        deleted = watch.take(2)
    assert sorted((e["type"], e["object"]["metadata"]["name"]) for e in deleted) == [
        ("DELETED", "e1"), ("DELETED", "e2")]
    assert client.get(f"{EVENTS}/e1").status == 404
    assert client.get(f"{CM}/cm1").status == 200  # only Events expire
    assert client.patch(f"{EVENTS}/e1", {"count": 3}).status == 404  # what a recorder meets
    assert server.faults.counters.events_expired == 2


def test_events_expire_on_their_own_with_a_short_ttl(start_server):
    server = start_server(faults=FaultPlan(event_ttl=0.2))
    client = ApiClient(server)
    assert client.post(EVENTS, event("short")).status == 201
    assert wait_until(lambda: client.get(f"{EVENTS}/short").status == 404)


def test_without_a_ttl_events_stay(start_server):
    server = start_server()
    client = ApiClient(server)
    assert client.post(EVENTS, event("kept")).status == 201
    assert server.event_reaper.expire() == 0
    assert client.get(f"{EVENTS}/kept").status == 200


def test_a_status_asking_for_a_retry_carries_a_retry_after_header(client):
    # responsewriters.ErrorNegotiated copies details.retryAfterSeconds into Retry-After; the
    # "Too large resource version" 504 of a list ahead of the store asks for 1 s.
    ahead = client.get(f"{CM}?resourceVersion=999999")
    assert ahead.status == 504 and ahead.body["details"]["retryAfterSeconds"] == 1
    assert ahead.headers["Retry-After"] == "1"
    assert "Retry-After" not in client.get(f"{CM}/missing").headers
