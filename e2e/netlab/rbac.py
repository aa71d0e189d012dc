# SPDX-License-Identifier: Apache-2.0
"""The chart's RBAC in the cluster lab: the ServiceAccounts, (Cluster)Roles and
(Cluster)RoleBindings of the plain manifests rendered from charts/ingot (what users install), and
one ServiceAccount token per daemon.

The lab applies these objects with the admin token (as `helm install` would), creates a Secret of
type kubernetes.io/service-account-token per ServiceAccount (the test API server fills in the
token, as a real cluster's token controller does) and writes one kubeconfig per daemon with that
token. The controller and every agent then run as their ServiceAccount, so a call the chart does
not allow is refused with 403. The API server records every decision to the run's authz log
(`api/authz.jsonl`, or the spec's `authz_log`), which `e2e/scenarios/test_zz_rbac_record.py`
checks against the chart."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Callable, Optional

import yaml

from .proc import LabError, wait_until

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "charts" / "manifests"
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
# The lab's daemon → the chart workload whose serviceAccountName it runs as.
WORKLOADS = {"controller": "Deployment", "agent": "DaemonSet"}


def manifest_path(mode: str) -> Path:
    """The plain manifest of a BGP mode (charts/render.py writes them); Layer 2 only ("none")
    is MetalLB's native flavour."""
    return MANIFESTS / ("ingot-native.yaml" if mode == "none" else f"ingot-{mode}.yaml")


def _docs(mode: str) -> list:
    return [d for d in yaml.safe_load_all(manifest_path(mode).read_text()) if isinstance(d, dict)]


def chart_rbac(mode: str) -> tuple:
    """(RBAC objects in apply order, {daemon: (namespace, ServiceAccount name)}) of the mode's
    plain manifest."""
    path = manifest_path(mode)
    docs = _docs(mode)
    objects = sorted((d for d in docs if d.get("kind") in RBAC_KINDS),
                     key=lambda d: RBAC_KINDS.index(d["kind"]))
    accounts = {}
    for daemon, kind in WORKLOADS.items():
        workload = next((d for d in docs if d.get("kind") == kind), None)
        if workload is None:
            raise LabError(f"{path}: no {kind} (the {daemon}'s ServiceAccount)")
        name = workload["spec"]["template"]["spec"].get("serviceAccountName")
        if not name:
            raise LabError(f"{path}: {kind} {workload['metadata']['name']}: "
                           "spec.template.spec.serviceAccountName is empty")
        accounts[daemon] = (workload["metadata"]["namespace"], name)
    return objects, accounts


def controller_workload(mode: str) -> tuple:
    """([the chart's controller Deployment, a Pod of it], the environment its container gets:
    the plain values (e.g. the memberlist Secret's name and owning Deployment) and
    METALLB_POD_NAME). The lab applies the objects and runs the controller with that
    environment, so it reads its Pod and Deployment and creates the memberlist Secret as in a
    cluster."""
    deployment = next(d for d in _docs(mode) if d.get("kind") == "Deployment")
    meta, template = deployment["metadata"], deployment["spec"]["template"]
    container = template["spec"]["containers"][0]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"{meta['name']}-lab", "namespace": meta["namespace"],
                        "labels": template["metadata"].get("labels", {})},
           "spec": {"containers": [{"name": container["name"], "image": container["image"]}]}}
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    env["METALLB_POD_NAME"] = pod["metadata"]["name"]
    return [deployment, pod], env


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


def daemon_kubeconfig(admin_kubeconfig: str, admin_token: str, token: str) -> str:
    """The admin kubeconfig (server, CA) with the ServiceAccount's token instead."""
    line = f"token: {json.dumps(admin_token)}"
    if admin_kubeconfig.count(line) != 1:
        raise LabError("the API server's kubeconfig has no single admin token line")
    return admin_kubeconfig.replace(line, f"token: {json.dumps(token)}")


def read_record(path: Path) -> list:
    """The decisions of an authz log (one JSON object a line; [] when absent)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]
