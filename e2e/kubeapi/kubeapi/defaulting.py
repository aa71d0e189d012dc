# SPDX-License-Identifier: Apache-2.0
"""Structural schema defaulting of custom resources: the `default`s of a CRD's openAPIV3Schema
(of the version written) are filled in on every create and update, as a real API server does.

`SchemaDefaulting` is the first admission plugin of every `Cluster` (see admission.py), so
later plugins (validation, webhooks) see the defaulted object."""

from __future__ import annotations

import copy
from typing import Any

from .admission import AdmissionPlugin, AdmissionRequest
from .store import Store

_CRDS = ("apiextensions.k8s.io", "customresourcedefinitions")


def apply_schema_defaults(schema: dict, value: Any) -> None:
    """Fills in the `default` of every property that value lacks, recursively through
    properties and array items. A property absent from value and without a default gets
    nothing, so the defaults below it are not applied either."""
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
            if key in value:
                apply_schema_defaults(sub, value[key])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            apply_schema_defaults(schema["items"], item)


def version_schema(crd: dict, version: str) -> dict:
    """Returns the openAPIV3Schema a CRD gives for one of its versions ({} if none)."""
    for entry in (crd.get("spec") or {}).get("versions") or []:
        if entry.get("name") == version:
            return (entry.get("schema") or {}).get("openAPIV3Schema") or {}
    return {}


class SchemaDefaulting(AdmissionPlugin):
    """Applies the CRD schema defaults to created and updated custom resources (status writes
    included); built-in kinds get their defaults from the per-kind hooks instead."""

    def __init__(self, store: Store):
        self.store = store

    def admit(self, request: AdmissionRequest) -> None:
        res = request.res
        if not res.custom or request.operation not in ("CREATE", "UPDATE"):
            return
        crd = self.store.get(_CRDS, "", res.qualified)
        if crd is not None:
            apply_schema_defaults(version_schema(crd, res.version), request.obj)
