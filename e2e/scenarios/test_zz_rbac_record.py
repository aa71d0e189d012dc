# SPDX-License-Identifier: Apache-2.0
"""The chart's RBAC against what the daemons did in this pytest session's cluster labs.

Every scenario lab runs the controller and the agents with their ServiceAccount tokens under the
RBAC of the plain manifests rendered from charts/ingot, and its API server records each
distinct authorisation decision (scenario.AUTHZ_RECORD_DIR). This module is named to run after
every other scenario module (pytest runs a folder's files in name order) and checks both
directions:

* no request of a daemon was refused, in any lab;
* when every scenario module ran a lab, every grant of the chart (ServiceAccount, scope, API
  group, resource[/subresource], verb, resourceName), per BGP mode, was used by a lab of that
  mode, or is explained in
  charts/ingot/rbac-reasons.yaml; and every entry there names a grant that exists and is unused
  in a mode it lists.

Run alone (no lab ran in the process), it skips."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

E2E = Path(__file__).resolve().parents[1]
for path in (E2E, E2E / "kubeapi"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from scenario import AUTHZ_RECORD_DIR  # noqa: E402
from netlab import rbac as lab_rbac  # noqa: E402
from kubeapi.rbac import SA_PREFIX, Policy, User  # noqa: E402

REASONS = E2E.parent / "charts" / "ingot" / "rbac-reasons.yaml"
MODES = ("frr", "frr-k8s", "none")
# The modes an entry of the reasons file covers when it names none: the two BGP modes.
DEFAULT_MODES = ("frr", "frr-k8s")


def records() -> dict:
    """file name -> decisions, for every lab this process ran."""
    files = sorted(AUTHZ_RECORD_DIR.glob("*.jsonl")) if AUTHZ_RECORD_DIR.is_dir() else []
    if not files:
        pytest.skip("no cluster lab ran in this pytest process (run with e2e/scenarios)")
    return {f.name: lab_rbac.read_record(f) for f in files}


def mode_of(record_name: str) -> str:
    return next(m for m in sorted(MODES, key=len, reverse=True)
                if record_name.split("-", 1)[1].startswith(m + "-"))


def grants(mode: str) -> set:
    """(account, scope, group, resource, verb, resourceName) of the mode's manifest; scope is
    "cluster" (ClusterRoleBinding) or "namespace" (RoleBinding in the release namespace)."""
    objects, accounts = lab_rbac.chart_rbac(mode)
    by_kind = {k: [o for o in objects if o["kind"] == k] for k in lab_rbac.RBAC_KINDS}
    policy = Policy.build(by_kind["Role"], by_kind["ClusterRole"], by_kind["RoleBinding"],
                          by_kind["ClusterRoleBinding"], bootstrap=False)
    out = set()
    for namespace, account in accounts.values():
        for scope_ns, rule in policy.rules_of(User.service_account(namespace, account)):
            assert not rule.get("nonResourceURLs"), f"{account}: {rule}"
            for key in ("verbs", "apiGroups", "resources", "resourceNames"):
                assert "*" not in (rule.get(key) or []), f"{account}: wildcard in {rule}"
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        for name in rule.get("resourceNames") or [""]:
                            out.add((account, "namespace" if scope_ns else "cluster", group,
                                     resource, verb, name))
    return out


def used(grant: tuple, decisions: list) -> bool:
    account, scope, group, resource, verb, name = grant
    for d in decisions:
        if not d["allowed"] or d["user"].rsplit(":", 1)[-1] != account:
            continue
        combined = d["resource"] + (f"/{d['subresource']}" if d["subresource"] else "")
        if (d["verb"], d["group"], combined) != (verb, group, resource):
            continue
        # The chart's Roles are in the release namespace, the ServiceAccounts' own.
        if scope == "namespace" and d["namespace"] != d["user"].split(":")[2]:
            continue
        if not name or d["name"] == name:
            return True
    return False


def reasons() -> list:
    entries = yaml.safe_load(REASONS.read_text()) or []
    for e in entries:
        missing = {"account", "scope", "apiGroup", "resource", "verbs", "reason"} - set(e)
        assert not missing, f"{REASONS.name}: entry {e} lacks {sorted(missing)}"
        assert str(e["reason"]).strip(), f"{REASONS.name}: entry {e} has an empty reason"
    return entries


def explained(entry: dict) -> set:
    """The grants a reasons entry covers, per mode: (mode, grant)."""
    return {(mode, (entry["account"], entry["scope"], entry["apiGroup"], entry["resource"], verb,
                    entry.get("resourceName", "")))
            for mode in entry.get("modes", DEFAULT_MODES) for verb in entry["verbs"]}


def test_no_daemon_request_was_refused():
    refused = {name: [d for d in decisions if not d["allowed"]]
               for name, decisions in records().items()}
    refused = {k: v for k, v in refused.items() if v}
    assert not refused, f"the chart's RBAC refused daemon requests: {refused}"


def test_every_lab_recorded_its_daemons():
    for name, decisions in records().items():
        users = {d["user"] for d in decisions}
        assert f"{SA_PREFIX}metallb-system:controller" in users, \
            f"{name}: no request of the controller recorded: {sorted(users)}"


def test_every_grant_is_used_or_explained():
    recorded = records()
    modules = {p.stem for p in Path(__file__).parent.glob("test_*.py")} - {Path(__file__).stem}
    missing = modules - {"test_" + n.split("-test_", 1)[1].removesuffix(".jsonl")
                         for n in recorded}
    if missing:
        pytest.skip(f"not every scenario module ran a lab in this process (missing: "
                    f"{', '.join(sorted(missing))}): grants may be unused for that reason")
    ran = {mode_of(n) for n in recorded}
    entries = reasons()
    covered = set().union(*(explained(e) for e in entries)) if entries else set()
    unexplained, stale = [], []
    for mode in sorted(ran):
        decisions = [d for n, ds in recorded.items() if mode_of(n) == mode for d in ds]
        granted = grants(mode)
        unused = {g for g in granted if not used(g, decisions)}
        unexplained += [(mode, g) for g in sorted(unused) if (mode, g) not in covered]
        stale += [(mode, g) for m, g in sorted(covered) if m == mode and g not in granted]
    assert not unexplained, (f"granted but unused in the lab and not explained in "
                             f"{REASONS.name}: {unexplained}")
    assert not stale, f"{REASONS.name} explains grants the chart does not make: {stale}"
