# SPDX-License-Identifier: Apache-2.0
"""Differential test of the test API server's server-side apply (`application/apply-patch+yaml`)
against sigs.k8s.io/structured-merge-diff (Debian's golang-k8s-sigs-structured-merge-diff-dev),
the library kube-apiserver applies with, driven by oracle/smd.

Each scenario is a sequence of applies (by field manager, with or without force) and updates
(PUT by a manager) of one custom resource. Both sides run it; after each step their `spec`s
(with the CRD's defaults filled in on the library's side, as the server fills them in on every
write) and whether the step was refused with a conflict must match.

The test server approximates apply with a JSON merge patch and keeps no managedFields (see
e2e/kubeapi/README.md, "Differences"); KNOWN lists each step where that shows, with the reason.
The test fails when a step disagrees that KNOWN does not list, and also when a listed step
starts to agree (so the list is kept exact)."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest

import go_oracles
import kubeapi
from conftest import ApiClient
from kubeapi.defaulting import apply_schema_defaults, version_schema

NS = "metallb-system"
DROPPED = ("a manager's apply that leaves out a field it owned alone removes the field "
           "(structured-merge-diff prunes it); the test server merges the applied configuration "
           "into the object and keeps the field")
NO_OWNERSHIP = ("the test server keeps no managedFields, so it cannot see that another manager "
                "owns the field: it overwrites where kube-apiserver answers 409 Conflict")

POOL = ("metallb.io", "v1beta1", "ipaddresspools", "IPAddressPool")
L2 = ("metallb.io", "v1beta1", "l2advertisements", "L2Advertisement")
PEER = ("metallb.io", "v1beta2", "bgppeers", "BGPPeer")


def apply(manager: str, spec: dict, force: bool = False) -> dict:
    return {"manager": manager, "op": "apply", "force": force, "spec": spec}


def update(manager: str, spec: dict) -> dict:
    return {"manager": manager, "op": "update", "spec": spec}


ADDRESSES = {"addresses": ["10.0.0.0/24"]}
SCENARIOS = {
    "create by apply, then change an owned field": (POOL, [
        apply("a", dict(ADDRESSES, autoAssign=False)),
        apply("a", dict(ADDRESSES, autoAssign=True)),
    ]),
    "apply adds fields and replaces an atomic list": (POOL, [
        apply("a", ADDRESSES),
        apply("a", {"addresses": ["10.0.1.0/24", "10.0.2.0/24"], "avoidBuggyIPs": True}),
    ]),
    "two managers merge a nested struct field by field": (POOL, [
        apply("a", dict(ADDRESSES, serviceAllocation={"priority": 5})),
        apply("b", dict(ADDRESSES, serviceAllocation={"namespaces": ["ns1"]})),
    ]),
    "a second manager applying the same value shares the field": (POOL, [
        apply("a", dict(ADDRESSES, avoidBuggyIPs=True)),
        apply("b", {"avoidBuggyIPs": True}),
        apply("b", {}),
    ]),
    "an applier drops a field it owned alone": (POOL, [
        apply("a", dict(ADDRESSES, avoidBuggyIPs=True)),
        apply("a", ADDRESSES),
    ]),
    "an applier drops a field another applier also owns": (POOL, [
        apply("a", dict(ADDRESSES, avoidBuggyIPs=True)),
        apply("b", {"avoidBuggyIPs": True}),
        apply("a", ADDRESSES),
    ]),
    "a second manager applies another value without force": (POOL, [
        apply("a", dict(ADDRESSES, autoAssign=False)),
        apply("b", {"autoAssign": True}),
    ]),
    "a second manager applies another value with force": (POOL, [
        apply("a", dict(ADDRESSES, autoAssign=False)),
        apply("b", {"autoAssign": True}, force=True),
        apply("a", dict(ADDRESSES, autoAssign=False), force=True),
    ]),
    "an applier meets a value an update changed": (POOL, [
        apply("a", dict(ADDRESSES, autoAssign=False)),
        update("editor", dict(ADDRESSES, autoAssign=True)),
        apply("a", dict(ADDRESSES, autoAssign=False)),
    ]),
    "atomic maps inside a list are replaced whole": (L2, [
        apply("a", {"ipAddressPoolSelectors": [{"matchLabels": {"x": "1"}}]}),
        apply("a", {"ipAddressPoolSelectors": [{"matchLabels": {"y": "2"}}]}),
    ]),
    "an applier leaves out a nested list it owned": (POOL, [
        apply("a", dict(ADDRESSES, serviceAllocation={
            "namespaceSelectors": [{"matchLabels": {"team": "a"}}]})),
        apply("a", dict(ADDRESSES, serviceAllocation={"priority": 1})),
    ]),
    "a BGPPeer built by two managers": (PEER, [
        apply("a", {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}),
        apply("b", {"holdTime": "90s"}),
        apply("a", {"myASN": 64500, "peerASN": 64502, "peerAddress": "10.0.0.1"}),
    ]),
}

KNOWN = {
    ("an applier drops a field it owned alone", 1): DROPPED,
    ("an applier leaves out a nested list it owned", 1): DROPPED,
    ("a second manager applies another value without force", 1): NO_OWNERSHIP,
    ("an applier meets a value an update changed", 2): NO_OWNERSHIP,
}


def crd_of(group: str, plural: str) -> dict:
    return next(c for c in kubeapi.BUILTIN_CRDS
                if c["spec"]["group"] == group and c["spec"]["names"]["plural"] == plural)


def manifest(kind_info: tuple, name: str, spec: dict) -> dict:
    group, version, _, kind = kind_info
    return {"apiVersion": f"{group}/{version}", "kind": kind,
            "metadata": {"name": name, "namespace": NS}, "spec": copy.deepcopy(spec)}


def run_on_server(client: ApiClient, kind_info: tuple, name: str, steps: list) -> list:
    """("conflict", None) or ("ok", spec) of each step on the test server."""
    group, version, plural, _ = kind_info
    path = f"/apis/{group}/{version}/namespaces/{NS}/{plural}/{name}"
    out = []
    for step in steps:
        body = manifest(kind_info, name, step["spec"])
        query = f"?fieldManager={step['manager']}"
        if step["op"] == "apply":
            answer = client.patch(path + query + ("&force=true" if step["force"] else ""),
                                  body, kind="apply")
        else:
            body["metadata"]["resourceVersion"] = \
                client.get(path).body["metadata"]["resourceVersion"]
            answer = client.put(path + query, body)
        if answer.status == 409:
            out.append(("conflict", None))
            continue
        assert answer.status in (200, 201), answer.body
        out.append(("ok", answer.body.get("spec", {})))
    return out


def run_on_library(oracle, kind_info: tuple, name: str, steps: list) -> list:
    group, version, plural, _ = kind_info
    schema = version_schema(crd_of(group, plural), version)
    request = {"schema": schema, "steps": [
        {"manager": s["manager"], "op": s["op"], "force": s.get("force", False),
         "object": manifest(kind_info, name, s["spec"])} for s in steps]}
    done = subprocess.run([str(oracle)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=60, check=True)
    out = []
    for verdict in json.loads(done.stdout):
        if "conflict" in verdict:
            out.append(("conflict", None))
            continue
        obj = verdict["object"]
        obj.setdefault("spec", {})
        apply_schema_defaults(schema, obj)
        out.append(("ok", obj["spec"]))
    return out


@pytest.fixture(scope="module")
def oracle():
    return go_oracles.build_or_skip("smd")


def test_server_side_apply_against_structured_merge_diff(oracle, client):
    disagreements, agreeing_known = [], []
    for index, (title, (kind_info, steps)) in enumerate(SCENARIOS.items()):
        name = f"apply-{index}"
        server = run_on_server(client, kind_info, name, steps)
        library = run_on_library(oracle, kind_info, name, steps)
        diverged = False
        for number, (ours, theirs) in enumerate(zip(server, library)):
            known = (title, number) in KNOWN
            if ours != theirs and not diverged:
                diverged = True  # later steps start from different objects
                if not known:
                    disagreements.append(f"{title}, step {number}: test server {ours}, "
                                         f"structured-merge-diff {theirs}")
            elif ours == theirs and known:
                agreeing_known.append(f"{title}, step {number}")
    assert not disagreements, "\n".join(disagreements)
    assert not agreeing_known, f"listed in KNOWN but now agreeing: {agreeing_known}"
