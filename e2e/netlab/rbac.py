# SPDX-License-Identifier: Apache-2.0
"""The chart's RBAC in the cluster lab: the ServiceAccounts, (Cluster)Roles and
(Cluster)RoleBindings of the chart rendered for the lab's flavour (chart.py; what users install),
and one ServiceAccount token per daemon.

The lab applies these objects with the admin token (as `helm install` would) and creates a Secret
of type kubernetes.io/service-account-token per ServiceAccount (the test API server fills in the
token, as a real cluster's token controller does). Each daemon reads that token where a kubelet
mounts it (/var/run/secrets/kubernetes.io/serviceaccount/token, podrun.py), so the controller,
every agent and ingot-frr run as their ServiceAccount, so a call the chart does
not allow is refused with 403. The API server records every decision to the run's authz log
(`api/authz.jsonl`, or the spec's `authz_log`), which `e2e/scenarios/test_zz_rbac_record.py`
checks against the chart."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Callable, Optional

import yaml

from . import podrun, podspec
from .proc import LabError, wait_until

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "charts" / "manifests"
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
# The lab's daemon → (the workload kind, the program its container runs); found by what runs,
# not by object names. ingot-frr is only in renders with frrk8s.ingotFrr.enabled.
DAEMONS = {"controller": ("Deployment", "ingot-controller"),
           "agent": ("DaemonSet", "ingot-agent"),
           "ingot-frr": ("DaemonSet", "ingot-frr")}


def manifest_path(mode: str) -> Path:
    """The plain manifest of a BGP mode (charts/render.py writes them); Layer 2 only ("none")
    is MetalLB's native flavour."""
    return MANIFESTS / ("ingot-native.yaml" if mode == "none" else f"ingot-{mode}.yaml")


def manifest_docs(mode: str) -> list:
    return [d for d in yaml.safe_load_all(manifest_path(mode).read_text())
            if isinstance(d, dict)]


def daemons(docs: list) -> dict:
    """daemon → (workload, container name) of a render; ingot-frr only when rendered."""
    out = {}
    for daemon, (kind, binary) in DAEMONS.items():
        if daemon == "ingot-frr" and not any(
                podspec.container_binary(c, podrun.image_entrypoint) == binary
                for d in docs if d.get("kind") == kind
                for c in d["spec"]["template"]["spec"].get("containers", [])):
            continue
        out[daemon] = podspec.find_daemon(docs, kind, binary, podrun.image_entrypoint)
    return out


def chart_rbac(mode_or_docs) -> tuple:
    """(RBAC objects in apply order, {daemon: (namespace, ServiceAccount name)}) of a render
    (or of the mode's plain manifest)."""
    docs = manifest_docs(mode_or_docs) if isinstance(mode_or_docs, str) else mode_or_docs
    objects = sorted((d for d in docs if d.get("kind") in RBAC_KINDS),
                     key=lambda d: RBAC_KINDS.index(d["kind"]))
    accounts = {}
    for daemon, (workload, _) in daemons(docs).items():
        name = workload["spec"]["template"]["spec"].get("serviceAccountName")
        if not name:
            raise LabError(f"{workload['kind']} {workload['metadata']['name']}: "
                           "spec.template.spec.serviceAccountName is empty")
        accounts[daemon] = (workload["metadata"]["namespace"], name)
    return objects, accounts


def token_secret(namespace: str, account: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": f"{account}-token", "namespace": namespace,
                         "annotations": {"kubernetes.io/service-account.name": account}}}


def wait_token(get: Callable[[str, str, str], Optional[dict]], namespace: str,
               account: str) -> str:
    """Waits (bounded) until the token Secret of account is filled; returns the token."""
    found = {}

    def filled() -> bool:
        secret = get("Secret", f"{account}-token", namespace) or {}
        token = (secret.get("data") or {}).get("token")
        if token:
            found["token"] = base64.b64decode(token).decode()
        return bool(token)
    wait_until(f"the token of ServiceAccount {namespace}/{account}", filled, 30)
    return found["token"]


def read_record(path: Path) -> list:
    """The decisions of an authz log (one JSON object a line; [] when absent)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]
