# SPDX-License-Identifier: Apache-2.0
"""The resource table: built-in kinds, the preinstalled metallb.io / frrk8s.metallb.io CRDs and
the kinds registered from CustomResourceDefinitions at run time."""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

from .meta import version_sort_key


@dataclass(frozen=True)
class Resource:
    """One served resource: a group/version/plural with its kind and behaviour flags."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    short_names: tuple = ()
    # "" = no status subresource; "core" = a /status write keeps the body's metadata and status
    # (built-in kinds, e.g. services/status persists annotations); "custom" = a /status write
    # changes only .status (custom resources).
    status: str = ""
    categories: tuple = ()
    field_selectors: tuple = ()
    # Printer columns (name, type, jsonPath, priority) for Table output of custom resources.
    columns: tuple = ()
    custom: bool = False
    returns_deleted: bool = False  # DELETE answers with the object instead of a Status
    keep_status_on_create: bool = False  # nodes accept status on create
    name_rule: str = "subdomain"  # "subdomain", "label1035", "label1123" or "path"
    deprecation: str = ""
    singular: str = ""
    # Create-only, never stored: the object comes back with its status (reviews.py).
    review: bool = False
    # Converts stored objects of a CRD kind between versions (conversion.Converter), or None.
    converter: Any = field(default=None, compare=False, hash=False, repr=False)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> tuple:
        """Returns the storage key: all versions of a group/plural share one storage."""
        return (self.group, self.plural)

    @property
    def qualified(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()


def with_version(res: Resource, obj: dict) -> dict:
    """Returns the object as served at res's version: relabelled (storage is shared by all
    versions), or converted by the CRD's conversion webhook (conversion.py)."""
    if res.converter is not None:
        return res.converter.convert(obj, res.group_version, res.kind)
    return dict(obj, apiVersion=res.group_version, kind=res.kind)



def _builtin(group_version: str, plural: str, kind: str, namespaced: bool = True, **flags):
    group, _, version = group_version.rpartition("/")
    return Resource(group, version, plural, kind, namespaced, **flags)


# One line per built-in kind. Custom kinds come from CRD objects (see BUILTIN_CRDS).
BUILTIN_RESOURCES = (
    _builtin("v1", "namespaces", "Namespace", False, short_names=("ns",), status="core",
             field_selectors=("status.phase",), returns_deleted=True, name_rule="label1123"),
    _builtin("v1", "services", "Service", short_names=("svc",), status="core", categories=("all",),
             field_selectors=("spec.clusterIP", "spec.type"), returns_deleted=True,
             name_rule="label1035"),
    _builtin("v1", "endpoints", "Endpoints", short_names=("ep",)),
    _builtin("v1", "nodes", "Node", False, short_names=("no",), status="core",
             field_selectors=("spec.unschedulable",), keep_status_on_create=True),
    _builtin("v1", "pods", "Pod", short_names=("po",), status="core", categories=("all",),
             field_selectors=("spec.nodeName", "spec.serviceAccountName", "status.phase",
                              "status.podIP"), returns_deleted=True),
    _builtin("v1", "secrets", "Secret", field_selectors=("type",)),
    _builtin("v1", "configmaps", "ConfigMap", short_names=("cm",)),
    _builtin("v1", "events", "Event", short_names=("ev",),
             field_selectors=("involvedObject.kind", "involvedObject.namespace",
                              "involvedObject.name", "involvedObject.uid", "reason", "type")),
    _builtin("v1", "serviceaccounts", "ServiceAccount", short_names=("sa",)),
    _builtin("discovery.k8s.io/v1", "endpointslices", "EndpointSlice"),
    _builtin("apps/v1", "deployments", "Deployment", short_names=("deploy",), status="core",
             categories=("all",)),
    _builtin("events.k8s.io/v1", "events", "Event", short_names=("ev",)),
    _builtin("coordination.k8s.io/v1", "leases", "Lease"),
    # Stored as given (no defaulting or validation), so that the chart's objects apply.
    _builtin("apps/v1", "deployments", "Deployment", short_names=("deploy",), status="core"),
    _builtin("apps/v1", "daemonsets", "DaemonSet", short_names=("ds",), status="core"),
    _builtin("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", False,
             name_rule="path"),
    _builtin("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", False,
             name_rule="path"),
    _builtin("rbac.authorization.k8s.io/v1", "roles", "Role", name_rule="path"),
    _builtin("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", name_rule="path"),
    _builtin("authentication.k8s.io/v1", "tokenreviews", "TokenReview", False, review=True),
    _builtin("authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", False,
             review=True),
    _builtin("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations",
             "ValidatingWebhookConfiguration", False, categories=("api-extensions",)),
    _builtin("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition",
             False, short_names=("crd", "crds"), status="core", categories=("api-extensions",)),
)

# Status a create starts from, for kinds whose status the server initialises.
INITIAL_STATUS = {
    ("", "services"): {"loadBalancer": {}},
    ("", "pods"): {"phase": "Pending"},
    ("", "namespaces"): {"phase": "Active"},
}


def _open_object(properties: Optional[dict] = None) -> dict:
    """A schema node that keeps unknown fields, with the given property schemas."""
    node = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    if properties:
        node["properties"] = properties
    return node


def crd_manifest(group: str, plural: str, kind: str, versions=("v1beta1",), namespaced=True,
                 columns=(), deprecated=None, schema=None) -> dict:
    """Returns a CustomResourceDefinition: the first version is the storage version, every
    version has a status subresource. schema, when given, is the openAPIV3Schema of every
    version (the server applies its `default`s); otherwise a schema that keeps any field."""
    deprecated = deprecated or {}
    entries = []
    for index, version in enumerate(versions):
        entry = {
            "name": version,
            "served": True,
            "storage": index == 0,
            "schema": {"openAPIV3Schema": copy.deepcopy(schema) if schema else _open_object()},
            "subresources": {"status": {}},
        }
        if columns:
            entry["additionalPrinterColumns"] = [
                {"name": c[0], "type": c[1], "jsonPath": c[2],
                 "priority": c[3] if len(c) > 3 else 0} for c in columns]
        if version in deprecated:
            entry["deprecated"] = True
            entry["deprecationWarning"] = deprecated[version]
        entries.append(entry)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind,
                      "listKind": f"{kind}List"},
            "scope": "Namespaced" if namespaced else "Cluster",
            "versions": entries,
        },
    }


# The CRDs preinstalled at start: Ingot's own metallb.io CRDs (crds/ at the repository root, what
# a cluster installs) and the frrk8s.metallb.io ones frr-k8s would install (crds/ next to this
# package), both written by crds/generate.py.
CRD_DIRS = (Path(__file__).resolve().parents[3] / "crds",
            Path(__file__).resolve().parents[1] / "crds")


def load_crds(directories=CRD_DIRS) -> tuple:
    """Returns the CustomResourceDefinitions of every *.yaml file in the directories."""
    manifests = []
    for directory in directories:
        for path in sorted(Path(directory).glob("*.yaml")):
            docs = yaml.safe_load_all(path.read_text())
            manifests += [doc for doc in docs if isinstance(doc, dict)
                          and doc.get("kind") == "CustomResourceDefinition"]
    return tuple(manifests)


BUILTIN_CRDS = load_crds()


def resources_from_crd(crd: dict) -> list:
    """Returns the Resources a CustomResourceDefinition serves (one per served version)."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    out = []
    for version in spec.get("versions") or []:
        if not version.get("served", True):
            continue
        warning = version.get("deprecationWarning") or ""
        if version.get("deprecated") and not warning:
            warning = f"{spec['group']}/{version['name']} {names['kind']} is deprecated"
        columns = tuple((c["name"], c.get("type", "string"), c["jsonPath"], c.get("priority", 0))
                        for c in version.get("additionalPrinterColumns") or [])
        out.append(Resource(
            spec["group"], version["name"], names["plural"], names["kind"],
            namespaced=spec.get("scope") == "Namespaced",
            short_names=tuple(names.get("shortNames") or ()),
            status="custom" if "status" in (version.get("subresources") or {}) else "",
            categories=tuple(names.get("categories") or ()),
            columns=columns, custom=True, name_rule="subdomain", deprecation=warning,
            singular=names.get("singular", "")))
    return out


class Registry:
    """The set of served resources, looked up by (group, version, plural).

    Readers never lock: writers replace the table as a whole (copy on write)."""

    def __init__(self, resources=()):
        self._lock = threading.Lock()
        self._table = {(r.group, r.version, r.plural): r for r in resources}
        self._owners: dict = {}  # CRD name -> table keys it registered
        self._groups: Optional[tuple] = None  # (table, groups() of that table)

    def lookup(self, group: str, version: str, plural: str) -> Optional[Resource]:
        return self._table.get((group, version, plural))

    def all(self) -> list:
        return list(self._table.values())

    def namespaced_storage_keys(self) -> set:
        return {r.key for r in self._table.values() if r.namespaced}

    def groups(self) -> dict:
        """Returns group -> versions, versions in Kubernetes priority order. Computed once per
        table (discovery asks on every request); callers must not change the result."""
        table, cached = self._table, self._groups
        if cached is not None and cached[0] is table:
            return cached[1]
        groups: dict = {}
        for group, version, _ in table:
            versions = groups.setdefault(group, [])
            if version not in versions:
                versions.append(version)
        result = {g: sorted(v, key=version_sort_key) for g, v in groups.items()}
        self._groups = (table, result)
        return result

    def resources(self, group: str, version: str) -> list:
        found = [r for (g, v, _), r in self._table.items() if g == group and v == version]
        return sorted(found, key=lambda r: r.plural)

    def register_crd(self, crd_name: str, resources: list) -> None:
        """Serves the resources of a CRD, replacing what the same CRD served before."""
        with self._lock:
            table = dict(self._table)
            for key in self._owners.pop(crd_name, ()):
                table.pop(key, None)
            keys = []
            for res in resources:
                key = (res.group, res.version, res.plural)
                if key in table and not table[key].custom:
                    continue  # a CRD never shadows a built-in kind
                table[key] = res
                keys.append(key)
            self._owners[crd_name] = tuple(keys)
            self._table = table

    def unregister_crd(self, crd_name: str) -> None:
        self.register_crd(crd_name, [])
        with self._lock:
            self._owners.pop(crd_name, None)
