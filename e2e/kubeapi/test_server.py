# SPDX-License-Identifier: Apache-2.0
"""Tests of the test API server: each test starts its own server on a free port."""

from __future__ import annotations

import json
import re
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from conftest import (CM, POOLS, SERVER_SCRIPT, SVC, TOKEN, ApiClient, configmap, kubeapi,
                      lb_service, pool)

UID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def rv_of(obj: dict) -> int:
    return int(obj["metadata"]["resourceVersion"])


def names(response) -> list:
    return [item["metadata"]["name"] for item in response.body["items"]]


# ---------------------------------------------------------------------------------------------
# CRUD, errors and server-managed metadata


def test_create_fills_server_metadata_and_get_returns_it(client):
    before = rv_of(client.get(CM).body)
    created = client.post(CM, configmap("cm1", data={"k": "v"}))
    assert created.status == 201
    meta = created.body["metadata"]
    assert (created.body["apiVersion"], created.body["kind"]) == ("v1", "ConfigMap")
    assert UID_RE.match(meta["uid"]) and TIME_RE.match(meta["creationTimestamp"])
    assert meta["generation"] == 1 and int(meta["resourceVersion"]) == before + 1
    fetched = client.get(f"{CM}/cm1")
    assert fetched.status == 200 and fetched.body == created.body


def test_list_items_of_builtin_kinds_are_untyped_and_custom_ones_typed(client):
    client.post(CM, configmap("cm1"))
    client.post(POOLS, pool("pool1"))
    listed = client.get(CM).body
    assert (listed["kind"], listed["apiVersion"]) == ("ConfigMapList", "v1")
    assert "kind" not in listed["items"][0]
    pools = client.get(POOLS).body
    assert pools["kind"] == "IPAddressPoolList"
    assert pools["items"][0]["kind"] == "IPAddressPool"


def test_duplicate_create_is_already_exists(client):
    assert client.post(CM, configmap("cm1")).status == 201
    again = client.post(CM, configmap("cm1"))
    assert again.status == 409 and again.reason == "AlreadyExists"
    assert again.message == 'configmaps "cm1" already exists'
    assert again.body["kind"] == "Status" and again.body["status"] == "Failure"


def test_missing_objects_and_namespaces_are_not_found(client):
    missing = client.get(f"{POOLS}/pool1")
    assert missing.status == 404 and missing.reason == "NotFound"
    assert missing.message == 'ipaddresspools.metallb.io "pool1" not found'
    assert missing.body["details"] == {"name": "pool1", "group": "metallb.io",
                                       "kind": "ipaddresspools"}
    no_namespace = client.post("/api/v1/namespaces/nope/configmaps", configmap("cm", "nope"))
    assert no_namespace.status == 404 and no_namespace.message == 'namespaces "nope" not found'
    assert client.put(f"{CM}/ghost", configmap("ghost")).status == 404
    assert client.delete(f"{CM}/ghost").status == 404
    assert client.get("/apis/metallb.io/v1beta1/nothings").status == 404


def test_update_with_stale_resource_version_is_conflict(client):
    first = client.post(CM, configmap("cm1")).body
    first["data"] = {"a": "1"}
    second = client.put(f"{CM}/cm1", first)
    assert second.status == 200 and rv_of(second.body) > rv_of(first)
    first["data"] = {"a": "2"}
    stale = client.put(f"{CM}/cm1", first)
    assert stale.status == 409 and stale.reason == "Conflict"
    assert stale.message == ('Operation cannot be fulfilled on configmaps "cm1": the object has '
                             "been modified; please apply your changes to the latest version "
                             "and try again")
    del first["metadata"]["resourceVersion"]
    assert client.put(f"{CM}/cm1", first).body["data"] == {"a": "2"}  # unconditional update


def test_update_rejects_a_body_for_another_object(client):
    client.post(CM, configmap("cm1"))
    renamed = client.put(f"{CM}/cm1", configmap("cm2"))
    assert renamed.status == 400 and renamed.reason == "BadRequest"
    wrong_kind = client.put(f"{CM}/cm1", dict(configmap("cm1"), kind="Secret"))
    assert wrong_kind.status == 400


def test_delete_returns_status_and_removes_the_object(client):
    uid = client.post(CM, configmap("cm1")).body["metadata"]["uid"]
    deleted = client.delete(f"{CM}/cm1")
    assert deleted.status == 200
    assert deleted.body["status"] == "Success"
    assert deleted.body["details"] == {"name": "cm1", "kind": "configmaps", "uid": uid}
    assert client.get(f"{CM}/cm1").status == 404
    client.post(SVC, lb_service("web"))
    assert client.delete(f"{SVC}/web").body["kind"] == "Service"  # services return the object


def test_delete_preconditions_are_checked(client):
    client.post(CM, configmap("cm1"))
    refused = client.delete(f"{CM}/cm1", {"preconditions": {"uid": "not-the-uid"}})
    assert refused.status == 409 and "Precondition failed" in refused.message
    assert client.get(f"{CM}/cm1").status == 200


def test_finalizers_delay_deletion_until_they_are_removed(client):
    cm = configmap("cm1")
    cm["metadata"]["finalizers"] = ["example.com/hold"]
    client.post(CM, cm)
    pending = client.delete(f"{CM}/cm1")
    assert pending.status == 200 and pending.body["metadata"]["deletionTimestamp"]
    stored = client.get(f"{CM}/cm1").body
    assert stored["metadata"]["deletionTimestamp"] and stored["metadata"]["generation"] == 2
    stored["metadata"]["finalizers"] = []
    assert client.put(f"{CM}/cm1", stored).status == 200
    assert client.get(f"{CM}/cm1").status == 404


def test_create_with_resource_version_fails_like_the_real_server(client):
    cm = configmap("cm1")
    cm["metadata"]["resourceVersion"] = "5"
    answer = client.post(CM, cm)
    assert answer.status == 500 and "resourceVersion should not be set" in answer.message


def test_dry_run_persists_nothing(client):
    answer = client.post(f"{CM}?dryRun=All", configmap("cm1"))
    assert answer.status == 201 and answer.body["metadata"]["uid"]
    assert client.get(f"{CM}/cm1").status == 404


def test_generate_name_appends_five_random_characters(client):
    body = {"metadata": {"generateName": "l2-"}, "data": {}}
    first = client.post(CM, body).body["metadata"]["name"]
    second = client.post(CM, body).body["metadata"]["name"]
    pattern = re.compile(r"^l2-[bcdfghjklmnpqrstvwxz2456789]{5}$")
    assert pattern.match(first) and pattern.match(second) and first != second
    unnamed = client.post(CM, {"metadata": {}})
    assert unnamed.status == 422 and unnamed.reason == "Invalid"
    assert unnamed.message == ('ConfigMap "" is invalid: metadata.name: Required value: name or '
                               "generateName is required")


def test_names_are_validated_per_kind(client):
    bad = client.post(SVC, lb_service("1web"))  # services need a DNS-1035 label
    assert bad.status == 422 and bad.body["details"]["causes"][0]["field"] == "metadata.name"
    assert client.post(CM, configmap("1cm.example")).status == 201  # subdomain is fine


# ---------------------------------------------------------------------------------------------
# generation and no-op writes


def pool_status(**counters) -> dict:
    """An IPAddressPool status (its schema requires all four counters)."""
    return dict({"assignedIPv4": 0, "assignedIPv6": 0, "availableIPv4": 0, "availableIPv6": 0},
                **counters)


def test_generation_bumps_only_when_spec_changes(client):
    created = client.post(POOLS, pool("pool1")).body
    created["metadata"]["labels"] = {"a": "b"}
    relabeled = client.put(f"{POOLS}/pool1", created).body
    assert relabeled["metadata"]["generation"] == 1 and rv_of(relabeled) > rv_of(created)
    relabeled["spec"]["addresses"] = ["10.0.0.0/24"]
    respecced = client.put(f"{POOLS}/pool1", relabeled).body
    assert respecced["metadata"]["generation"] == 2
    status = client.patch(f"{POOLS}/pool1/status", {"status": pool_status(assignedIPv4=1)}).body
    assert status["metadata"]["generation"] == 2


def test_generation_of_kinds_without_spec_tracks_their_content(client):
    client.post(CM, configmap("cm1", data={"a": "1"}))
    relabeled = client.patch(f"{CM}/cm1", {"metadata": {"labels": {"x": "y"}}}).body
    assert relabeled["metadata"]["generation"] == 1
    changed = client.patch(f"{CM}/cm1", {"data": {"a": "2"}}).body
    assert changed["metadata"]["generation"] == 2


def test_noop_update_keeps_resource_version_and_emits_no_event(client):
    created = client.post(CM, configmap("cm1", data={"a": "1"})).body
    same = client.put(f"{CM}/cm1", created).body
    assert same["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    with client.watch(f"{CM}?resourceVersion={rv_of(created)}") as stream:
        client.patch(f"{CM}/cm1", {"data": {"a": "1"}})  # no change
        client.patch(f"{CM}/cm1", {"data": {"a": "2"}})
        event = stream.next()
    assert event["type"] == "MODIFIED" and event["object"]["data"] == {"a": "2"}


# ---------------------------------------------------------------------------------------------
# selectors and paging


@pytest.mark.parametrize("selector, expected", [
    ("app=web", ["a", "b"]),
    ("app==web", ["a", "b"]),
    ("app!=web", ["c", "d"]),
    ("tier in (front, back)", ["a", "c"]),
    ("tier notin (front)", ["b", "c", "d"]),
    ("app", ["a", "b", "c"]),
    ("!app", ["d"]),
    ("app=web,tier=front", ["a"]),
    ("n>2", ["b"]),
])
def test_label_selectors(client, selector, expected):
    labels = {"a": {"app": "web", "tier": "front", "n": "1"}, "b": {"app": "web", "n": "3"},
              "c": {"app": "db", "tier": "back"}, "d": {}}
    for name, value in labels.items():
        client.post(CM, configmap(name, labels=value))
    answer = client.get(f"{CM}?labelSelector={selector.replace(' ', '%20')}")
    assert answer.status == 200 and names(answer) == expected


def test_invalid_label_selector_is_bad_request(client):
    answer = client.get(f"{CM}?labelSelector=a%20in%20()")
    assert answer.status == 400 and answer.reason == "BadRequest"


def test_field_selectors_across_namespaces(client):
    client.post(CM, configmap("one"))
    client.post("/api/v1/namespaces/kube-system/configmaps", configmap("one", "kube-system"))
    client.post(CM, configmap("two"))
    in_default = client.get("/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault")
    assert names(in_default) == ["one", "two"]
    not_one = client.get("/api/v1/configmaps?fieldSelector=metadata.name!%3Done")
    assert names(not_one) == ["two"]
    both = client.get("/api/v1/configmaps?fieldSelector=metadata.name%3D%3Done")
    assert [i["metadata"]["namespace"] for i in both.body["items"]] == ["default", "kube-system"]
    unsupported = client.get(f"{CM}?fieldSelector=spec.foo%3Dbar")
    assert unsupported.status == 400
    assert unsupported.message == "field label not supported: spec.foo"
    custom = client.get(f"{POOLS}?fieldSelector=spec.foo%3Dbar")
    assert custom.status == 400 and "is not a known field selector" in custom.message


def test_type_specific_field_selectors(client):
    for name, kind in (("a", "ClusterIP"), ("b", "LoadBalancer")):
        client.post(SVC, lb_service(name, type=kind))
    assert names(client.get(f"{SVC}?fieldSelector=spec.type%3DLoadBalancer")) == ["b"]


def test_paging_is_consistent_across_pages(client):
    for index in range(5):
        client.post(CM, configmap(f"cm-{index}"))
    first = client.get(f"{CM}?limit=2").body
    snapshot = first["metadata"]["resourceVersion"]
    assert [i["metadata"]["name"] for i in first["items"]] == ["cm-0", "cm-1"]
    assert first["metadata"]["remainingItemCount"] == 3
    client.delete(f"{CM}/cm-2")  # changes after the first page must not show up
    client.post(CM, configmap("cm-25"))
    second = client.get(f"{CM}?limit=2&continue={first['metadata']['continue']}").body
    assert [i["metadata"]["name"] for i in second["items"]] == ["cm-2", "cm-3"]
    third = client.get(f"{CM}?limit=2&continue={second['metadata']['continue']}").body
    assert [i["metadata"]["name"] for i in third["items"]] == ["cm-4"]
    assert "continue" not in third["metadata"]
    assert {p["metadata"]["resourceVersion"] for p in (first, second, third)} == {snapshot}
    assert names(client.get(CM)) == ["cm-0", "cm-1", "cm-25", "cm-3", "cm-4"]


def test_continue_token_older_than_history_is_gone(start_server):
    client = ApiClient(start_server(history=3))
    for index in range(3):
        client.post(CM, configmap(f"cm-{index}"))
    token = client.get(f"{CM}?limit=1").body["metadata"]["continue"]
    for index in range(4):  # the snapshot needs the last 3 events: one more drops it
        client.patch(f"{CM}/cm-{index % 3}", {"data": {"x": str(index)}})
    answer = client.get(f"{CM}?limit=1&continue={token}")
    assert answer.status == 410 and answer.reason == "Expired"
    assert answer.message.startswith("The provided continue parameter is too old")
    assert answer.body["metadata"]["continue"]
    assert client.get(f"{CM}?limit=1&continue=garbage").status == 400


def test_list_at_exact_resource_version(client):
    created = client.post(CM, configmap("cm1", data={"v": "1"})).body
    client.patch(f"{CM}/cm1", {"data": {"v": "2"}})
    client.post(CM, configmap("cm2"))
    old = client.get(f"{CM}?resourceVersion={rv_of(created)}&resourceVersionMatch=Exact").body
    assert [i["data"] for i in old["items"]] == [{"v": "1"}]
    assert client.get(f"{CM}?resourceVersion=999999").status == 504


def test_delete_collection_honours_selectors(client):
    for name, labels in (("a", {"gone": "yes"}), ("b", {"gone": "yes"}), ("c", {})):
        client.post(CM, configmap(name, labels=labels))
    deleted = client.delete(f"{CM}?labelSelector=gone%3Dyes")
    assert deleted.status == 200 and names(deleted) == ["a", "b"]
    assert names(client.get(CM)) == ["c"]


# ---------------------------------------------------------------------------------------------
# watch


def test_watch_from_resource_version_replays_history_in_order(client):
    start = rv_of(client.post(CM, configmap("cm1")).body)
    client.patch(f"{CM}/cm1", {"data": {"a": "1"}})
    client.post(CM, configmap("cm2"))
    with client.watch(f"{CM}?resourceVersion={start}") as stream:
        assert stream.headers["Content-Type"] == "application/json"
        assert stream.headers["Transfer-Encoding"] == "chunked"
        client.delete(f"{CM}/cm1")
        events = stream.take(3)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("MODIFIED", "cm1"), ("ADDED", "cm2"), ("DELETED", "cm1")]
    versions = [rv_of(e["object"]) for e in events]
    assert versions == sorted(versions) and versions[0] == start + 1
    assert all(e["object"]["kind"] == "ConfigMap" for e in events)


def test_watch_without_resource_version_starts_with_current_state(client):
    client.post(CM, configmap("cm1"))
    client.post(CM, configmap("cm2"))
    with client.watch(CM) as stream:
        initial = stream.take(2)
        client.post(CM, configmap("cm3"))
        followed = stream.next()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in initial] == [
        ("ADDED", "cm1"), ("ADDED", "cm2")]
    assert (followed["type"], followed["object"]["metadata"]["name"]) == ("ADDED", "cm3")


def test_watch_sends_bookmarks_only_when_allowed(client):
    current = client.post(CM, configmap("cm1")).body
    with client.watch(f"{CM}?resourceVersion={rv_of(current)}&allowWatchBookmarks=true") as stream:
        bookmark = stream.next(timeout=2)
    assert bookmark == {"type": "BOOKMARK", "object": {
        "kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"resourceVersion": str(rv_of(current)), "creationTimestamp": None}}}
    with client.watch(f"{CM}?resourceVersion={rv_of(current)}") as stream:
        with pytest.raises(TimeoutError):
            stream.next(timeout=0.6)


def test_watch_from_expired_resource_version_gets_410_error_event(start_server):
    client = ApiClient(start_server(history=2))
    for index in range(4):
        client.post(CM, configmap(f"cm-{index}"))
    with client.watch(f"{CM}?resourceVersion=3") as stream:
        assert stream.status == 200
        event = stream.next()
        assert stream.next() is None  # the server ends the stream after the error
    assert event["type"] == "ERROR"
    status = event["object"]
    assert (status["kind"], status["code"], status["reason"]) == ("Status", 410, "Expired")
    assert status["message"].startswith("too old resource version: 3 (")


def test_watch_with_selector_turns_leaving_and_entering_into_delete_and_add(client):
    with client.watch(f"{CM}?labelSelector=app%3Dweb") as stream:
        client.post(CM, configmap("cm1"))  # not selected: invisible
        client.patch(f"{CM}/cm1", {"metadata": {"labels": {"app": "web"}}})
        client.patch(f"{CM}/cm1", {"data": {"a": "1"}})
        client.patch(f"{CM}/cm1", {"metadata": {"labels": {"app": None}}})
        events = stream.take(3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[2]["object"]["metadata"]["labels"] == {"app": "web"}  # last selected state
    assert rv_of(events[2]["object"]) == rv_of(events[1]["object"]) + 1


def test_watch_of_one_namespace_ignores_others(client):
    with client.watch(CM) as stream:
        client.post("/api/v1/namespaces/kube-system/configmaps", configmap("x", "kube-system"))
        client.post(CM, configmap("mine"))
        event = stream.next()
    assert event["object"]["metadata"]["name"] == "mine"


def test_watch_timeout_seconds_ends_the_stream(client):
    began = time.monotonic()
    with client.watch(f"{CM}?timeoutSeconds=1") as stream:
        assert stream.next(timeout=30) is None  # the server ended it (a read timeout raises)
    assert time.monotonic() - began >= 0.9  # not before timeoutSeconds


def test_watch_with_initial_events_ends_them_with_a_bookmark(client):
    client.post(CM, configmap("cm1"))
    path = f"{CM}?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=1"
    with client.watch(path) as stream:
        added, bookmark = stream.take(2)
    assert added["type"] == "ADDED"
    assert bookmark["type"] == "BOOKMARK"
    assert bookmark["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


def test_watch_framing_is_one_json_object_per_line(server, client):
    client.post(CM, configmap("cm1"))
    connection = client.connect()
    connection.request("GET", f"{CM}?watch=true",
                       headers={"Authorization": f"Bearer {TOKEN}"})
    response = connection.getresponse()
    connection.sock.settimeout(5)
    line = response.readline()
    connection.close()
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    assert json.loads(line)["type"] == "ADDED"


# ---------------------------------------------------------------------------------------------
# status subresource


def test_custom_resource_status_is_only_written_through_status(client):
    body = pool("pool1")
    body["status"] = pool_status(assignedIPv4=9)
    created = client.post(POOLS, body).body
    assert "status" not in created  # create ignores status when there is a subresource
    created["status"] = pool_status(assignedIPv4=5)
    created["spec"]["addresses"] = ["10.0.0.0/24"]
    main = client.put(f"{POOLS}/pool1", created).body
    assert "status" not in main and main["spec"]["addresses"] == ["10.0.0.0/24"]
    main["status"] = pool_status(assignedIPv4=5)
    main["spec"]["addresses"] = ["10.9.9.0/24"]
    main["metadata"]["labels"] = {"sneaky": "yes"}
    status = client.put(f"{POOLS}/pool1/status", main).body
    assert status["status"] == pool_status(assignedIPv4=5)
    assert status["spec"]["addresses"] == ["10.0.0.0/24"]
    assert "labels" not in status["metadata"]
    patched = client.patch(f"{POOLS}/pool1/status", {"status": {"availableIPv4": 250},
                                                      "spec": {"addresses": []}}).body
    assert patched["status"] == pool_status(assignedIPv4=5, availableIPv4=250)
    assert patched["spec"]["addresses"] == ["10.0.0.0/24"]


def test_service_status_write_keeps_metadata_but_not_spec(client):
    """Like services/status in the real server (MetalLB stores its pool annotation so)."""
    svc = client.post(SVC, lb_service("web")).body
    assert svc["status"] == {"loadBalancer": {}}
    svc["metadata"].setdefault("annotations", {})["metallb.io/ip-allocated-from-pool"] = "pool1"
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": "192.168.10.1"}]}}
    svc["spec"]["ports"][0]["port"] = 9999
    written = client.put(f"{SVC}/web/status", svc).body
    assert written["metadata"]["annotations"] == {"metallb.io/ip-allocated-from-pool": "pool1"}
    # ipMode is defaulted to VIP for an ingress with an ip (LoadBalancerIPMode, on since 1.30)
    assert written["status"]["loadBalancer"]["ingress"] == [{"ip": "192.168.10.1",
                                                             "ipMode": "VIP"}]
    assert written["spec"]["ports"][0]["port"] == 80
    written["status"] = {"loadBalancer": {}}
    main = client.put(f"{SVC}/web", written).body
    assert main["status"]["loadBalancer"]["ingress"] == [{"ip": "192.168.10.1", "ipMode": "VIP"}]


def test_status_paths_exist_only_for_kinds_with_a_status_subresource(client):
    client.post(CM, configmap("cm1"))
    assert client.get(f"{CM}/cm1/status").status == 404
    assert client.get("/api/v1/namespaces/default/status").status == 200


# ---------------------------------------------------------------------------------------------
# Services: defaults and allocation


def test_services_get_cluster_ips_and_node_ports(client):
    first = client.post(SVC, lb_service("a")).body["spec"]
    second = client.post(SVC, lb_service("b")).body["spec"]
    assert first["clusterIP"] != second["clusterIP"]
    assert first["clusterIPs"] == [first["clusterIP"]] and first["ipFamilies"] == ["IPv4"]
    assert first["ipFamilyPolicy"] == "SingleStack"
    assert 30000 <= first["ports"][0]["nodePort"] <= 32767
    assert first["ports"][0]["nodePort"] != second["ports"][0]["nodePort"]
    assert (first["ports"][0]["protocol"], first["ports"][0]["targetPort"]) == ("TCP", 80)
    taken = client.post(SVC, lb_service("c", clusterIP=first["clusterIP"]))
    assert taken.status == 422 and "already allocated" in taken.message


def test_dual_stack_services_get_both_families(start_server):
    client = ApiClient(start_server(service_cidrs=("10.96.0.0/16", "fd00:96::/112")))
    spec = client.post(SVC, lb_service("web", ipFamilyPolicy="PreferDualStack")).body["spec"]
    assert spec["ipFamilies"] == ["IPv4", "IPv6"] and ":" in spec["clusterIPs"][1]
    six = client.post(SVC, lb_service("six", ipFamilies=["IPv6"])).body["spec"]
    assert six["ipFamilies"] == ["IPv6"] and ":" in six["clusterIP"]


def test_service_type_change_drops_node_ports_and_load_balancer_status(client):
    svc = client.post(SVC, lb_service("web")).body
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": "192.168.10.1"}]}}
    svc = client.put(f"{SVC}/web/status", svc).body
    svc["spec"]["type"] = "ClusterIP"
    changed = client.put(f"{SVC}/web", svc).body
    assert "nodePort" not in changed["spec"]["ports"][0]
    assert changed["status"]["loadBalancer"] == {}
    assert changed["spec"]["clusterIP"] == svc["spec"]["clusterIP"]


# ---------------------------------------------------------------------------------------------
# patches


def test_merge_patch_adds_and_removes_and_checks_resource_version(client):
    created = client.post(CM, configmap("cm1", labels={"a": "1", "b": "2"})).body
    patched = client.patch(f"{CM}/cm1", {"metadata": {"labels": {"a": None, "c": "3"}}})
    assert patched.status == 200 and patched.body["metadata"]["labels"] == {"b": "2", "c": "3"}
    stale = client.patch(f"{CM}/cm1", {"metadata": {"resourceVersion": created["metadata"]
                                                    ["resourceVersion"]}, "data": {"x": "y"}})
    assert stale.status == 409 and stale.reason == "Conflict"


def test_json_patch_operations(client):
    client.post(CM, configmap("cm1", data={"a": "1", "b": "2"}, labels={"l": "x"}))
    ops = [{"op": "add", "path": "/data/c", "value": "3"},
           {"op": "replace", "path": "/data/a", "value": "10"},
           {"op": "remove", "path": "/data/b"},
           {"op": "copy", "from": "/data/c", "path": "/data/d"},
           {"op": "move", "from": "/metadata/labels/l", "path": "/metadata/labels/m~1n"},
           {"op": "test", "path": "/data/a", "value": "10"}]
    patched = client.patch(f"{CM}/cm1", ops, kind="json").body
    assert patched["data"] == {"a": "10", "c": "3", "d": "3"}
    assert patched["metadata"]["labels"] == {"m/n": "x"}
    failed = client.patch(f"{CM}/cm1", [{"op": "replace", "path": "/data/a", "value": "0"},
                                        {"op": "test", "path": "/data/c", "value": "nope"}],
                          kind="json")
    assert failed.status == 422
    assert client.get(f"{CM}/cm1").body["data"]["a"] == "10"  # all or nothing
    assert client.patch(f"{CM}/cm1", {"op": "add"}, kind="json").status == 400


def test_strategic_merge_patch_merges_service_ports_by_key(client):
    client.post(SVC, lb_service("web", ports=[{"name": "http", "port": 80},
                                              {"name": "dns", "port": 53, "protocol": "UDP"}]))
    patch = {"spec": {"$setElementOrder/ports": [{"port": 53}, {"port": 80}],
                      "ports": [{"port": 80, "targetPort": 8080}]}}
    ports = client.patch(f"{SVC}/web", patch, kind="strategic").body["spec"]["ports"]
    assert [(p["port"], p["targetPort"]) for p in ports] == [(53, 53), (80, 8080)]
    assert ports[1]["name"] == "http" and ports[1]["nodePort"]
    delete = {"spec": {"ports": [{"port": 53, "$patch": "delete"}]}}
    ports = client.patch(f"{SVC}/web", delete, kind="strategic").body["spec"]["ports"]
    assert [p["port"] for p in ports] == [80]


def test_strategic_merge_patch_is_unsupported_for_custom_resources(client):
    client.post(POOLS, pool("pool1"))
    answer = client.patch(f"{POOLS}/pool1", {"spec": {}}, kind="strategic")
    assert answer.status == 415 and answer.reason == "UnsupportedMediaType"


def test_apply_patch_creates_then_updates(client):
    body = pool("pool1")
    created = client.patch(f"{POOLS}/pool1?fieldManager=ingot", body, kind="apply")
    assert created.status == 201
    body["spec"]["autoAssign"] = False
    updated = client.patch(f"{POOLS}/pool1?fieldManager=ingot", body, kind="apply")
    assert updated.status == 200 and updated.body["spec"]["autoAssign"] is False
    anonymous = client.patch(f"{POOLS}/pool1", body, kind="apply")
    assert anonymous.status == 422


# ---------------------------------------------------------------------------------------------
# versions, discovery and CRDs


def test_custom_resources_are_served_at_every_version_with_deprecation_warnings(client):
    """BGPPeer converts through a webhook (conversion.py, test_webhooks.py), which nothing
    serves here: a read that needs a conversion fails as on a real cluster, one that does not
    succeeds at either version."""
    path = "/apis/metallb.io/{}/namespaces/metallb-system/bgppeers"
    empty = client.get(path.format("v1beta1"))
    assert empty.status == 200 and empty.body["apiVersion"] == "metallb.io/v1beta1"
    assert empty.headers["Warning"] == '299 - "v1beta1 is deprecated, please use v1beta2"'
    peer = {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": "tor", "namespace": "metallb-system"},
            "spec": {"myASN": 64512, "peerASN": 64513, "peerAddress": "10.0.0.1"}}
    assert client.post(path.format("v1beta2"), peer).status == 201
    assert client.get(path.format("v1beta2") + "/tor").body["spec"]["peerASN"] == 64513
    old = client.get(path.format("v1beta1") + "/tor")
    assert old.status == 500, old.body
    assert old.body["message"].startswith("Internal error occurred: conversion webhook for "
                                          "metallb.io/v1beta2, Kind=BGPPeer failed")


def test_discovery_documents(client):
    assert client.get("/api").body["versions"] == ["v1"]
    core = {r["name"]: r for r in client.get("/api/v1").body["resources"]}
    assert core["services"]["shortNames"] == ["svc"] and core["namespaces"]["shortNames"] == ["ns"]
    assert core["nodes"]["namespaced"] is False and core["nodes"]["shortNames"] == ["no"]
    assert core["services/status"]["verbs"] == ["get", "patch", "update"]
    assert "configmaps/status" not in core
    groups = {g["name"]: g for g in client.get("/apis").body["groups"]}
    assert groups["metallb.io"]["preferredVersion"]["version"] == "v1beta2"
    assert [v["version"] for v in groups["metallb.io"]["versions"]] == ["v1beta2", "v1beta1"]
    frr = {r["name"]: r for r in client.get("/apis/frrk8s.metallb.io/v1beta1").body["resources"]}
    assert frr["frrnodestates"]["namespaced"] is False and frr["frrconfigurations"]["namespaced"]
    assert client.get("/version").body["minor"] == "32"


def test_aggregated_discovery_request_falls_back_to_legacy_documents(client):
    accept = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
              "application/json")
    answer = client.get("/apis", accept=accept)
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.body["kind"] == "APIGroupList"


def test_table_output_for_kubectl_get(client):
    client.post(SVC, lb_service("web"))
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    answer = client.get(SVC, accept=accept).body
    assert answer["kind"] == "Table"
    assert [c["name"] for c in answer["columnDefinitions"]] == [
        "Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age"]
    assert answer["rows"][0]["cells"][:5][0::3] == ["web", "<pending>"]


def test_crd_created_through_the_api_serves_its_kind_until_deleted(client):
    crd = kubeapi.crd_manifest("example.com", "widgets", "Widget", versions=("v1",),
                               namespaced=False)
    created = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).body
    assert {c["type"] for c in created["status"]["conditions"]} == {"Established",
                                                                     "NamesAccepted"}
    widgets = "/apis/example.com/v1/widgets"
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}}
    assert client.post(widgets, widget).status == 201
    assert client.get("/apis/example.com/v1").body["resources"][0]["name"] == "widgets"
    with client.watch(widgets) as stream:
        stream.next()  # the synthetic ADDED
        client.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
        assert stream.next()["type"] == "DELETED"
    assert client.get(widgets).status == 404


def test_crd_name_must_match_its_group_and_plural(client):
    crd = kubeapi.crd_manifest("example.com", "widgets", "Widget")
    crd["metadata"]["name"] = "gadgets.example.com"
    answer = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert answer.status == 422


def test_namespace_deletion_deletes_its_objects(client):
    client.post("/api/v1/namespaces", {"metadata": {"name": "doomed"}})
    created = client.get("/api/v1/namespaces/doomed").body
    assert created["metadata"]["labels"] == {"kubernetes.io/metadata.name": "doomed"}
    client.post("/api/v1/namespaces/doomed/configmaps", configmap("cm1", "doomed"))
    with client.watch("/api/v1/configmaps?labelSelector=") as stream:
        stream.next()
        assert client.delete("/api/v1/namespaces/doomed").status == 200
        event = stream.next()
    assert (event["type"], event["object"]["metadata"]["namespace"]) == ("DELETED", "doomed")
    assert client.get("/api/v1/namespaces/doomed/configmaps/cm1").status == 404


# ---------------------------------------------------------------------------------------------
# authentication and TLS


def test_requests_without_a_valid_token_are_unauthorized(server):
    for token in (None, "wrong-token"):
        answer = ApiClient(server, token=token).get(CM)
        assert answer.status == 401 and answer.body == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
    assert ApiClient(server).get(CM).status == 200
    assert ApiClient(server, token=None).get("/healthz").body == "ok"  # anonymous health check


def test_tls_is_verified_against_the_generated_ca(server):
    assert server.url.startswith("https://127.0.0.1:")
    context = ssl.create_default_context(cafile=str(server.ca_file))
    request = urllib.request.Request(f"{server.url}/version",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, context=context, timeout=5) as answer:
        assert json.load(answer)["major"] == "1"
    localhost = urllib.request.Request(f"https://localhost:{server.port}/healthz")
    with urllib.request.urlopen(localhost, context=context, timeout=5) as answer:
        assert answer.read() == b"ok"
    with pytest.raises(urllib.error.URLError) as failure:
        urllib.request.urlopen(request, context=ssl.create_default_context(), timeout=5)
    assert isinstance(failure.value.reason, ssl.SSLCertVerificationError)


def test_plain_http_mode(start_server):
    server = start_server(tls=False)
    assert server.url.startswith("http://") and server.ca_file is None
    assert ApiClient(server).get(CM).status == 200


def test_ipv6_loopback(start_server):
    server = start_server(address="::1")
    assert server.url == f"https://[::1]:{server.port}"
    assert ApiClient(server).get("/api").status == 200


def test_any_ip_literal_is_served_with_its_address_in_the_certificate(start_server, tmp_path):
    # 127.0.0.2 is not in the default subjectAltNames; a client checking the host name against
    # the certificate must accept it only because --address put it there.
    server = start_server(address="127.0.0.2", cert_dir=tmp_path / "certs")
    assert server.url == f"https://127.0.0.2:{server.port}"
    context = ssl.create_default_context(cafile=str(server.ca_file))
    request = urllib.request.Request(f"{server.url}/version",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, context=context, timeout=5) as answer:
        assert json.load(answer)["major"] == "1"
    text = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in",
                           str(server.certs.cert)], capture_output=True, text=True).stdout
    assert "IP Address:127.0.0.2" in text and "IP Address:127.0.0.1" in text


def test_address_must_be_an_ip_literal(start_server):
    with pytest.raises(ValueError, match="not an IP address literal"):
        start_server(address="localhost")
    with pytest.raises(SystemExit):
        kubeapi.parse_args(["--address", "example.org"])
    assert kubeapi.parse_args(["--address", "10.99.0.5"]).address == "10.99.0.5"


# ---------------------------------------------------------------------------------------------
# fault injection


def test_close_watches_after_ends_every_watch(start_server):
    client = ApiClient(start_server(close_watches_after=0.5))
    began = time.monotonic()
    with client.watch(f"{CM}?allowWatchBookmarks=true") as stream:
        events = []  # bookmarks keep the stream busy until the server ends it
        while len(events) < 1000 and (event := stream.next(timeout=30)) is not None:
            events.append(event)
    assert event is None  # the server ended the stream (a read timeout raises)
    assert time.monotonic() - began >= 0.4  # not before close_watches_after
    assert events and {e["type"] for e in events} == {"BOOKMARK"}


def test_fail_writes_fails_a_seeded_fraction_of_writes(start_server):
    def outcomes(server):
        client = ApiClient(server)
        results = [client.post(CM, configmap(f"cm-{i}")).status for i in range(40)]
        assert client.get(CM).status == 200  # reads never fail
        return results, len(client.get(CM).body["items"])

    first, stored = outcomes(start_server(fail_writes=0.5, seed=7))
    again, _ = outcomes(start_server(fail_writes=0.5, seed=7))
    assert first == again  # the same seed fails the same writes
    assert set(first) == {201, 500} and 8 <= first.count(500) <= 32
    assert stored == first.count(201)  # failed writes change nothing


def test_failed_write_is_an_internal_error_status(start_server):
    server = start_server(fail_writes=1.0)
    answer = ApiClient(server).post(CM, configmap("cm1"))
    assert answer.status == 500 and answer.reason == "InternalError"
    server.fail_writes = 0.0  # runtime knob
    assert ApiClient(server).post(CM, configmap("cm1")).status == 201


def test_latency_is_added_to_every_request_and_adjustable(start_server, monkeypatch):
    server = start_server(latency_ms=300)
    client = ApiClient(server)
    began = time.monotonic()
    client.get("/version")
    assert time.monotonic() - began >= 0.3
    delays = []  # what the server sleeps from now on (it sleeps only to add latency)
    sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda seconds: (delays.append(seconds), sleep(seconds)))
    client.get("/version")
    server.latency_ms = 0
    client.get("/version")
    assert delays == [0.3]  # the first request was delayed, the second was not


def test_stop_ends_open_watches(start_server):
    server = start_server()
    stream = ApiClient(server).watch(CM)
    result = {}
    reader = threading.Thread(target=lambda: result.update(end=stream.next(timeout=30)))
    reader.start()  # the watch is open: its response headers have arrived
    server.stop()
    reader.join(timeout=30)
    stream.close()
    assert not reader.is_alive() and result == {"end": None}  # ended, not timed out


# ---------------------------------------------------------------------------------------------
# kubectl and the command line


SERVICE_YAML = """apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: LoadBalancer
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: %d}
"""


def test_kubectl_create_apply_get_patch_delete(kubectl, client):
    assert "service/web created" in kubectl("create", "-f", "-", stdin=SERVICE_YAML % 8080).stdout
    shown = json.loads(kubectl("get", "service", "web", "-o", "json").stdout)
    assert shown["spec"]["ports"][0]["targetPort"] == 8080 and shown["spec"]["clusterIP"]
    applied = kubectl("apply", "-f", "-", stdin=SERVICE_YAML % 9090)
    assert "service/web configured" in applied.stdout
    assert client.get(f"{SVC}/web").body["spec"]["ports"][0]["targetPort"] == 9090
    assert "service/other created" in kubectl(
        "apply", "-f", "-", stdin=(SERVICE_YAML % 80).replace("name: web", "name: other")).stdout
    kubectl("patch", "svc", "web", "--type", "merge", "-p", '{"metadata":{"labels":{"x":"y"}}}')
    assert client.get(f"{SVC}/web").body["metadata"]["labels"] == {"x": "y"}
    table = kubectl("get", "svc").stdout
    assert re.search(r"^web\s+LoadBalancer\s+10\.\S+\s+<pending>\s+80:3\d{4}/TCP", table, re.M)
    assert 'service "web" deleted' in kubectl("delete", "svc", "web").stdout
    assert client.get(f"{SVC}/web").status == 404
    missing = kubectl("get", "svc", "web", check=False)
    assert missing.returncode != 0 and 'services "web" not found' in missing.stderr


def test_kubectl_reads_metallb_custom_resources(kubectl, client):
    client.post(POOLS, pool("pool1", addresses=("192.168.10.0/24",)))
    output = kubectl("get", "ipaddresspools", "-n", "metallb-system").stdout.splitlines()
    assert output[0].split() == ["NAME", "AUTO", "ASSIGN", "AVOID", "BUGGY", "IPS", "ADDRESSES"]
    assert output[1].split() == ["pool1", "true", "false", '["192.168.10.0/24"]']
    pool_yaml = ("apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: pool2\n"
                 "  namespace: metallb-system\nspec:\n  addresses: [10.0.0.0/24]\n")
    kubectl("apply", "-f", "-", stdin=pool_yaml)
    kubectl("apply", "-f", "-", stdin=pool_yaml.replace("10.0.0.0/24", "10.1.0.0/24"))
    assert client.get(f"{POOLS}/pool2").body["spec"]["addresses"] == ["10.1.0.0/24"]
    kubectl("apply", "--server-side", "-f", "-", stdin=pool_yaml.replace("pool2", "pool3"))
    assert client.get(f"{POOLS}/pool3").body["spec"]["addresses"] == ["10.0.0.0/24"]
    assert 'ipaddresspool.metallb.io "pool3" deleted' in kubectl(
        "delete", "-n", "metallb-system", "ipaddresspool", "pool3").stdout


def test_kubectl_with_a_wrong_token_fails(kubectl):
    result = kubectl("get", "svc", token="wrong-token", check=False)
    assert result.returncode != 0 and "You must be logged in to the server" in result.stderr


def test_command_line_serves_until_sigterm(tmp_path, cert_dir):
    script = SERVER_SCRIPT
    port_file, kubeconfig = tmp_path / "port", tmp_path / "kubeconfig"
    process = subprocess.Popen([sys.executable, str(script), "--token", "cli-token",
                                "--port-file", str(port_file), "--kubeconfig-out", str(kubeconfig),
                                "--cert-dir", str(cert_dir), "--namespace", "extra"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        port = int(port_file.read_text())
        assert f"server: \"https://127.0.0.1:{port}\"" in kubeconfig.read_text()
        assert 'token: "cli-token"' in kubeconfig.read_text()
        context = ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))
        request = urllib.request.Request(f"https://127.0.0.1:{port}/api/v1/namespaces/extra",
                                         headers={"Authorization": "Bearer cli-token"})
        with urllib.request.urlopen(request, context=context, timeout=5) as answer:
            assert json.load(answer)["metadata"]["name"] == "extra"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert f"listening on https://127.0.0.1:{port}" in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


# ---------------------------------------------------------------------------------------------
# Schema defaults (frr-k8s' FRRConfiguration CRD defaults, as a real API server applies them)

FRRCONFIGS = "/apis/frrk8s.metallb.io/v1beta1/namespaces/metallb-system/frrconfigurations"


def _frr_configuration(name: str, neighbor: dict) -> dict:
    return {"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration",
            "metadata": {"name": name},
            "spec": {"bgp": {"routers": [{"asn": 64512, "neighbors": [neighbor]}]}}}


def test_crd_defaults_are_filled_in_on_create_and_update(client):
    created = client.post(FRRCONFIGS, _frr_configuration(
        "c", {"address": "10.0.0.1", "asn": 64513, "toAdvertise": {"allowed": {}},
              "toReceive": {"allowed": {"mode": "all"}}}))
    assert created.status == 201, created.body
    n = created.body["spec"]["bgp"]["routers"][0]["neighbors"][0]
    assert n["disableMP"] is False and n["dualStackAddressFamily"] is False
    assert n["toAdvertise"]["allowed"] == {"mode": "filtered"}
    assert n["toReceive"]["allowed"] == {"mode": "all"}  # a given value is kept
    # Writing back what was read changes nothing: same resourceVersion.
    again = client.put(f"{FRRCONFIGS}/c", created.body)
    assert again.status == 200 and rv_of(again.body) == rv_of(created.body)
    # An update without the defaulted fields gets them again, so it is a no-op write too.
    bare = _frr_configuration("c", {"address": "10.0.0.1", "asn": 64513,
                                    "toAdvertise": {"allowed": {}},
                                    "toReceive": {"allowed": {"mode": "all"}}})
    bare["metadata"]["resourceVersion"] = created.body["metadata"]["resourceVersion"]
    same = client.put(f"{FRRCONFIGS}/c", bare)
    assert same.status == 200 and rv_of(same.body) == rv_of(created.body), same.body
    # No parent object, no default: a neighbor without toAdvertise gets none.
    other = client.post(FRRCONFIGS, _frr_configuration("d", {"address": "10.0.0.2", "asn": 1}))
    assert "toAdvertise" not in other.body["spec"]["bgp"]["routers"][0]["neighbors"][0]
