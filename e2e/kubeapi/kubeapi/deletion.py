# SPDX-License-Identifier: Apache-2.0
"""What a DELETE does to an object before (or instead of) removing it: graceful deletion of
Pods, the garbage collector's finalizers chosen by `propagationPolicy`, namespace termination,
and the admission check that refuses creates in a terminating namespace.

Pure decisions live here; the background work that completes them (grace periods running
out, dependents collected, namespaces emptied) is gc.py's."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Optional

from .admission import AdmissionPlugin, AdmissionRequest
from .errors import ApiError, bad_request
from .meta import meta_of

if TYPE_CHECKING:
    from .registry import Resource
    from .store import Store

DEFAULT_POD_GRACE_SECONDS = 30  # what defaulting gives spec.terminationGracePeriodSeconds
ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
NAMESPACE_FINALIZER = "kubernetes"
POLICIES = ("Orphan", "Background", "Foreground")


def timestamp(seconds_from_now: float = 0.0) -> str:
    at = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=seconds_from_now)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def pod_grace_period(pod: dict, options: dict) -> int:
    """The grace period of a Pod deletion, as pkg/registry/core/pod/strategy.go
    CheckGracefulDelete decides: the request's gracePeriodSeconds, else the Pod's
    spec.terminationGracePeriodSeconds (defaulted to 30); 0 for a Pod never scheduled on a
    node or already finished (no kubelet has anything to stop)."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    grace = options.get("gracePeriodSeconds")
    if grace is None:
        grace = spec.get("terminationGracePeriodSeconds", DEFAULT_POD_GRACE_SECONDS)
    if not isinstance(grace, int) or isinstance(grace, bool):
        raise bad_request(f"gracePeriodSeconds: {grace!r} is not an integer")
    if not spec.get("nodeName") or status.get("phase") in ("Failed", "Succeeded"):
        return 0
    return max(0, grace)


def propagation_policy(options: dict) -> Optional[str]:
    """The requested propagationPolicy (or the deprecated orphanDependents), None if none."""
    policy = options.get("propagationPolicy")
    orphan = options.get("orphanDependents")
    if policy is not None and orphan is not None:
        raise bad_request("Only one of orphanDependents and propagationPolicy may be set")
    if policy is None and orphan is not None:
        return "Orphan" if orphan else "Background"
    if policy is not None and policy not in POLICIES:
        raise ApiError(422, "Invalid", f'DeleteOptions.propagationPolicy: Unsupported value: '
                       f'"{policy}": supported values: "Foreground", "Background", "Orphan"')
    return policy


def finalizers_for_policy(finalizers: list, policy: Optional[str]) -> list:
    """The finalizers after a delete asking for policy, as apiserver's store.go
    deletionFinalizersForGarbageCollection sets them: Orphan adds `orphan`, Foreground adds
    `foregroundDeletion`, each removing the other; Background removes both; no policy keeps
    them."""
    wanted = {"Orphan": ORPHAN, "Foreground": FOREGROUND}.get(policy or "")
    if policy is None:
        return list(finalizers)
    out = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
    if wanted:
        out.append(wanted)
    return out


def plan_delete(res: "Resource", old: dict, options: dict) -> Optional[dict]:
    """What a DELETE does, following apiserver/pkg/registry/generic/registry/store.go Delete
    and updateForGracefulDeletionAndFinalizers: None to remove the object now, else the object
    to store instead (marked with deletionTimestamp and deletionGracePeriodSeconds; it stays
    until its grace period ends and its finalizers are empty). A repeated DELETE may only
    shorten a pending grace period."""
    meta = meta_of(old)
    finalizers = list(meta.get("finalizers") or [])
    policy = propagation_policy(options)
    new_finalizers = finalizers_for_policy(finalizers, policy)
    if res.key == ("", "namespaces"):
        spec_finalizers = (old.get("spec") or {}).get("finalizers") or []
        pending = bool(spec_finalizers)
    else:
        pending = False
    grace = pod_grace_period(old, options) if res.key == ("", "pods") else 0
    marked = meta.get("deletionTimestamp")
    if marked:
        current = meta.get("deletionGracePeriodSeconds") or 0
        grace = min(grace, current)
    if not new_finalizers and not pending and grace == 0:
        return None
    new_meta = dict(meta, finalizers=new_finalizers)
    if not new_finalizers:
        new_meta.pop("finalizers")
    if not marked or grace < (meta.get("deletionGracePeriodSeconds") or 0):
        new_meta.update(deletionTimestamp=timestamp(grace), deletionGracePeriodSeconds=grace)
    if not marked and meta.get("generation", 0) > 0:  # rest.BeforeDelete bumps only one it finds
        new_meta["generation"] = meta["generation"] + 1
    new = dict(old, metadata=new_meta)
    if pending:
        new["status"] = dict(old.get("status") or {}, phase="Terminating")
    return new


def removable(obj: dict) -> bool:
    """True when a marked object may go: no finalizers (for a Namespace, no spec.finalizers
    either) and no grace period left (an update emptying the finalizers of a Pod still in its
    grace period leaves it to the period)."""
    meta = meta_of(obj)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if obj.get("kind") == "Namespace" and spec.get("finalizers"):
        return False
    return (bool(meta.get("deletionTimestamp")) and not meta.get("finalizers")
            and not meta.get("deletionGracePeriodSeconds"))


class NamespaceLifecycle(AdmissionPlugin):
    """Refuses to create objects in a namespace being terminated, as
    plugin/pkg/admission/namespace/lifecycle does (403 Forbidden, cause NamespaceTerminating)."""

    def __init__(self, store: "Store"):
        self.store = store

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE" or not request.res.namespaced:
            return
        namespace = self.store.get(("", "namespaces"), "", request.namespace)
        if namespace is None or not meta_of(namespace).get("deletionTimestamp"):
            return
        res = request.res
        message = (f"unable to create new content in namespace {request.namespace} because it "
                   "is being terminated")
        details = {"name": request.name, "kind": res.plural,
                   "causes": [{"reason": "NamespaceTerminating",
                               "message": f"namespace {request.namespace} is being terminated",
                               "field": "metadata.namespace"}]}
        if res.group:
            details["group"] = res.group
        raise ApiError(403, "Forbidden",
                       f'{res.qualified} "{request.name}" is forbidden: {message}', details)
