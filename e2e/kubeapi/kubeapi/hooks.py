# SPDX-License-Identifier: Apache-2.0
"""Per-kind behaviour around writes (Service allocation, Namespace labels and cascade, CRD
registration)."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

from . import cel
from .authn import TOKEN_TYPE
from .conversion import Converter
from .errors import FieldError
from .meta import canonical, meta_of, utc_now
from .registry import resources_from_crd
from .service_strategy import check_load_balancer_class, prepare_status_update
from .services import default_service_spec

if TYPE_CHECKING:
    from .cluster import Cluster


NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


class Hooks:
    """Per-kind behaviour around writes. The default does nothing."""

    def prepare_create(self, cluster: "Cluster", obj: dict) -> None:
        pass

    def prepare_update(self, cluster: "Cluster", old: dict, new: dict, sub: str) -> None:
        pass

    def before_delete(self, cluster: "Cluster", obj: dict) -> None:
        pass

    def after_write(self, cluster: "Cluster", obj: dict) -> None:
        pass

    def after_delete(self, cluster: "Cluster", obj: dict) -> None:
        pass


class ServiceHooks(Hooks):
    """Defaults a Service spec, allocates its cluster IPs and node ports, and (as the real
    server does) clears status.loadBalancer when the type stops being LoadBalancer."""

    def prepare_create(self, cluster, obj):
        self._allocate(cluster, obj, None)
        check_load_balancer_class(obj["spec"], None)

    def prepare_update(self, cluster, old, new, sub):
        if sub:
            prepare_status_update(new.get("status"))
            return
        self._allocate(cluster, new, old)
        check_load_balancer_class(new["spec"], old.get("spec") or {})
        if new["spec"].get("type") != "LoadBalancer" and isinstance(new.get("status"), dict):
            new["status"] = dict(new["status"], loadBalancer={})

    @staticmethod
    def _allocate(cluster, svc, old):
        spec = svc.get("spec")
        if not isinstance(spec, dict):
            spec = svc["spec"] = {}
        default_service_spec(spec)
        meta = meta_of(svc)
        used_ips, used_ports = cluster.service_allocations(meta.get("namespace", ""), meta["name"])
        cluster.allocator.assign(spec, (old or {}).get("spec"), used_ips, used_ports)


class NamespaceHooks(Hooks):
    """Adds the kubernetes.io/metadata.name label and deletes a namespace's content with it."""

    def prepare_create(self, cluster, obj):
        self._label(obj)
        spec = obj.setdefault("spec", {})
        if isinstance(spec, dict):
            spec.setdefault("finalizers", ["kubernetes"])

    def prepare_update(self, cluster, old, new, sub):
        self._label(new)

    @staticmethod
    def _label(obj):
        meta = meta_of(obj)
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        meta["labels"] = dict(labels, **{NAMESPACE_NAME_LABEL: meta["name"]})

    def before_delete(self, cluster, obj):
        namespace = meta_of(obj)["name"]
        for key in sorted(cluster.registry.namespaced_storage_keys()):
            for item in cluster.store.list(key, namespace):
                cluster.store.delete(key, item)


class CrdHooks(Hooks):
    """Validates CustomResourceDefinitions, marks them Established and serves their kinds."""

    def prepare_create(self, cluster, obj):
        self._validate(obj)
        obj["status"] = self._status(obj)

    def prepare_update(self, cluster, old, new, sub):
        if sub:
            return
        self._validate(new)
        new["status"] = self._status(new)

    def after_write(self, cluster, obj):
        name = meta_of(obj)["name"]
        converter = Converter(cluster.store, name)
        cluster.registry.register_crd(name, [dataclasses.replace(r, converter=converter)
                                             for r in resources_from_crd(obj)])
        # crdHandler.updateCustomResourceDefinition: a change of the spec or of the accepted
        # names (not of other status or metadata) replaces the storage, ending its watches.
        serving = canonical([obj.get("spec"), (obj.get("status") or {}).get("acceptedNames")])
        before = cluster.crd_storage.get(name)
        cluster.crd_storage[name] = serving
        if before is not None and before != serving:
            cluster.store.reset_watches(self._key(obj))

    def after_delete(self, cluster, obj):
        cluster.registry.unregister_crd(meta_of(obj)["name"])
        cluster.crd_storage.pop(meta_of(obj)["name"], None)
        key = self._key(obj)
        for item in cluster.store.list(key):
            cluster.store.delete(key, item)
        cluster.store.reset_watches(key)

    @staticmethod
    def _key(obj):
        spec = obj.get("spec") or {}
        return (spec.get("group"), (spec.get("names") or {}).get("plural"))

    @staticmethod
    def _validate(obj):
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
        for field, value in (("spec.group", spec.get("group")), ("spec.names.plural",
                             names.get("plural")), ("spec.names.kind", names.get("kind"))):
            if not value:
                raise FieldError(field, "FieldValueRequired", "Required value")
        if spec.get("scope") not in ("Namespaced", "Cluster"):
            raise FieldError("spec.scope", "FieldValueNotSupported",
                             f'Unsupported value: "{spec.get("scope")}": supported values: '
                             '"Cluster", "Namespaced"')
        versions = spec.get("versions") or []
        if sum(1 for v in versions if v.get("storage")) != 1:
            raise FieldError("spec.versions", "FieldValueInvalid",
                             "Invalid value: must have exactly one version marked as storage "
                             "version")
        name = meta_of(obj)["name"]
        if name != f"{names['plural']}.{spec['group']}":
            raise FieldError("metadata.name", "FieldValueInvalid",
                             f'Invalid value: "{name}": must be spec.names.plural+"."+spec.group')
        CrdHooks._refuse_unknown_rules(versions)

    @staticmethod
    def _refuse_unknown_rules(versions):
        """This server implements CEL rules one by one (cel.py): a CRD using any other rule is
        refused loudly rather than served with the rule skipped."""
        for index, version in enumerate(versions):
            schema = (version.get("schema") or {}).get("openAPIV3Schema")
            for path, rule in cel.unknown_rules(schema):
                raise FieldError(
                    f"spec.versions[{index}].schema.openAPIV3Schema{path}", "FieldValueInvalid",
                    f"Invalid value: {json.dumps(rule)}: this test API server does not implement "
                    f"this CEL rule (implemented: {', '.join(cel.rule_names())})")

    @staticmethod
    def _status(obj):
        names = dict(obj["spec"]["names"])
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", f"{names['kind']}List")
        now = utc_now()
        conditions = [
            {"type": t, "status": "True", "lastTransitionTime": now, "reason": r, "message": m}
            for t, r, m in (("NamesAccepted", "NoConflicts", "no conflicts found"),
                            ("Established", "InitialNamesAccepted",
                             "the initial names have been accepted"))]
        storage = [v["name"] for v in obj["spec"]["versions"] if v.get("storage")]
        return {"conditions": conditions, "acceptedNames": names, "storedVersions": storage}


class SecretHooks(Hooks):
    """Defaults a Secret's type to Opaque and fills a new Secret of type kubernetes.io/service-account-token with its token, as a
    real cluster's token controller does (authn.py)."""

    def prepare_create(self, cluster, obj):
        obj.setdefault("type", "Opaque")  # SetDefaults_Secret
        issuer = getattr(cluster, "token_issuer", None)
        if obj.get("type") == TOKEN_TYPE and issuer is not None:
            issuer.issue(cluster.store, obj)


KIND_HOOKS = {
    ("", "secrets"): SecretHooks(),
    ("", "services"): ServiceHooks(),
    ("", "namespaces"): NamespaceHooks(),
    ("apiextensions.k8s.io", "customresourcedefinitions"): CrdHooks(),
}
DEFAULT_HOOKS = Hooks()
