# SPDX-License-Identifier: Apache-2.0
"""Discovery documents (`/api`, `/apis`, resource lists), `/version` and the minimal OpenAPI v3
document kubectl reads."""

from __future__ import annotations

from .registry import Registry


KUBE_VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0+ingot-kubeapi",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}


VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
STATUS_VERBS = ["get", "patch", "update"]


def discovery_resources(registry: Registry, group: str, version: str) -> list:
    """Returns the APIResource entries of a group/version, with status subresources."""
    entries = []
    for res in registry.resources(group, version):
        entry = {"name": res.plural, "singularName": res.singular_name,
                 "namespaced": res.namespaced, "kind": res.kind,
                 "verbs": ["create"] if res.review else VERBS}
        if res.short_names:
            entry["shortNames"] = list(res.short_names)
        if res.categories:
            entry["categories"] = list(res.categories)
        entries.append(entry)
        if res.status:
            entries.append({"name": f"{res.plural}/status", "singularName": "",
                            "namespaced": res.namespaced, "kind": res.kind,
                            "verbs": STATUS_VERBS})
    return entries


def api_group(group: str, versions: list) -> dict:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": entries,
            "preferredVersion": entries[0]}


def openapi_path_key(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def openapi_document(registry: Registry, group: str, version: str) -> dict:
    """Returns a minimal OpenAPI v3 document for a group/version: one PATCH operation per kind
    that declares the fieldValidation parameter. That is all kubectl reads from it: it then
    leaves field validation to the server instead of validating against schemas."""
    paths = {}
    base = f"/{openapi_path_key(group, version)}"
    for res in registry.resources(group, version):
        scope = f"{base}/namespaces/{{namespace}}" if res.namespaced else base
        paths[f"{scope}/{res.plural}/{{name}}"] = {"patch": {
            "operationId": f"patch{res.kind}",
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": {"group": group, "version": version,
                                                "kind": res.kind},
            "parameters": [{"name": p, "in": "query", "schema": {"type": "string"}}
                           for p in ("dryRun", "fieldManager", "fieldValidation")],
            "responses": {"200": {"description": "OK"}},
        }}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes",
                                         "version": KUBE_VERSION["gitVersion"]},
            "paths": paths, "components": {"schemas": {}}}


# --------------------------------------------------------------------------------------------
