# SPDX-License-Identifier: Apache-2.0
"""API semantics on top of the store: what create/update/patch/delete/list/watch do,
independent of HTTP."""

from __future__ import annotations

import base64
import itertools
import json
import random
import re
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .admission import AdmissionPlugin, AdmissionRequest
from .conversion import storage_form
from .defaulting import SchemaDefaulting
from .deletion import NamespaceLifecycle, plan_delete, removable
from .gc import Collector
from .validation import SchemaPruning, SchemaValidation
from .webhooks import ValidatingWebhooks
from .errors import (
    ApiError, CONTINUE_TOO_OLD, FieldError, already_exists, bad_request, conflict, expired,
    internal_error, invalid, namespace_not_found, not_found, too_large_resource_version,
    too_old_resource_version)
from .hooks import DEFAULT_HOOKS, Hooks, KIND_HOOKS
from .meta import canonical, clone, meta_of, object_key, parse_int, utc_now
from .objectmeta import keeps_generation, require_resource_version, validate_object_meta
from .patch import PatchError, apply_patch
from .registry import INITIAL_STATUS, Registry, Resource, with_version
from .selectors import DNS_SUBDOMAIN, ObjectFilter
from .services import ServiceAllocator
from .store import Store


GENERATED_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


_NAME_RULES = {
    "subdomain": (253, re.compile(rf"^{DNS_SUBDOMAIN}$"),
                  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                  "characters, '-' or '.', and must start and end with an alphanumeric character"),
    "label1123": (63, re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
                  "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                  "characters or '-', and must start and end with an alphanumeric character"),
    "label1035": (63, re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$"),
                  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                  "start with an alphabetic character, and end with an alphanumeric character"),
    "path": (253, re.compile(r"^(?!\.\.?$)[^/%]+$"), "may not contain '/' or '%'"),
}
# Metadata the server owns: a write never takes these from the request body.
SYSTEM_METADATA = ("name", "namespace", "uid", "creationTimestamp", "generation",
                   "deletionTimestamp", "deletionGracePeriodSeconds")


def validate_name(res: Resource, name: str) -> None:
    limit, pattern, message = _NAME_RULES[res.name_rule]
    if len(name) > limit:
        raise FieldError("metadata.name", "FieldValueInvalid",
                         f'Invalid value: "{name}": must be no more than {limit} characters')
    if not pattern.match(name):
        raise FieldError("metadata.name", "FieldValueInvalid",
                         f'Invalid value: "{name}": {message}')


def generation_input(obj: dict) -> Any:
    """Returns the part of an object whose change bumps metadata.generation: the spec, or for
    kinds without a spec everything except metadata and status."""
    if "spec" in obj:
        return obj["spec"]
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


def continue_token(rv: int, last_key: str) -> str:
    data = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": last_key + "\x00"})
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def parse_continue(token: str) -> tuple:
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if data.get("v") != "meta.k8s.io/v1":
            raise ValueError("unknown version")
        return int(data["rv"]), str(data["start"])
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise bad_request(f"continue key is not valid: {err}") from None


@dataclass
class ListPage:
    items: list
    rv: int
    continue_token: str = ""
    remaining: Optional[int] = None


class Cluster:
    """The API semantics, independent of HTTP. Every method takes the store lock for its whole
    read-modify-write, so concurrent requests see atomic operations."""

    def __init__(self, registry: Registry, store: Store, allocator: ServiceAllocator):
        self.registry = registry
        self.store = store
        self.allocator = allocator
        # Run in order before every write: a custom resource is pruned, defaulted and validated
        # against its CRD's schema first, as the real server does before admission webhooks.
        self.validation = SchemaValidation(store)  # .enabled = False skips it (benchmarks)
        self.webhooks = ValidatingWebhooks(store, registry)
        self.crd_storage: dict = {}  # CRD name -> what its storage serves (hooks.CrdHooks)
        self.admission: list[AdmissionPlugin] = [NamespaceLifecycle(store), SchemaPruning(store),
                                                 SchemaDefaulting(store), self.validation,
                                                 self.webhooks]
        store.observers.append(allocator.observe)
        # Completes deletions in the background (grace periods, garbage collection, namespace
        # termination): see gc.py. KubeApiServer starts and stops its thread.
        self.collector = Collector(self)
        self._names = random.Random()

    # -- reads --------------------------------------------------------------------------------

    def get(self, res: Resource, namespace: str, name: str) -> dict:
        with self.store.cond:
            obj = self.store.get(res.key, namespace, name)
        if obj is None:
            raise not_found(res, name)
        return obj

    def list(self, res: Resource, filt: ObjectFilter, limit: int, cont: str, rv: str,
             rv_match: str) -> ListPage:
        """Lists matching objects; with a continue token, as they were at the first page."""
        with self.store.cond:
            snapshot_rv, start = self._list_position(cont, rv, rv_match)
            if snapshot_rv == self.store.rv:
                objects = self.store.list(res.key, filt.namespace, start)
            else:
                objects = self.store.list_at(res.key, filt.namespace, snapshot_rv, start)
            if objects is None:
                if cont:
                    again = continue_token(self.store.rv, start[:-1]) if start else ""
                    raise expired(CONTINUE_TOO_OLD, {"continue": again} if again else None)
                raise too_old_resource_version(snapshot_rv, self.store.oldest_available())
        return self._page(objects, filt, limit, snapshot_rv)

    def _list_position(self, cont: str, rv: str, rv_match: str) -> tuple:
        if cont:
            if rv and rv != "0":
                raise bad_request("specifying resource version is not allowed when using continue")
            return parse_continue(cont)
        if rv_match and rv_match not in ("Exact", "NotOlderThan"):
            raise bad_request(f'unsupported resourceVersionMatch "{rv_match}"')
        if rv and rv != "0":
            wanted = parse_int(rv, "resourceVersion")
            if wanted > self.store.rv:
                raise too_large_resource_version(wanted, self.store.rv)
            if rv_match == "Exact":
                return wanted, ""
        return self.store.rv, ""

    @staticmethod
    def _page(objects: list, filt: ObjectFilter, limit: int, rv: int) -> ListPage:
        """The first `limit` matching objects (all for limit <= 0) of objects, which are in
        key order from the requested start on."""
        if not filt.has_selectors:
            matching = objects  # store.list and list_at already applied the namespace
        elif limit <= 0:
            matching = [o for o in objects if filt.matches(o)]
        else:  # stop after the first match beyond the page
            matching = list(itertools.islice((o for o in objects if filt.matches(o)), limit + 1))
        if limit <= 0 or len(matching) <= limit:
            return ListPage(matching, rv)
        page = matching[:limit]
        remaining = None if filt.has_selectors else len(matching) - limit
        last = meta_of(page[-1])
        return ListPage(page, rv, continue_token(rv, object_key(last.get("namespace", ""),
                                                               last["name"])), remaining)

    def watch_start(self, res: Resource, filt: ObjectFilter, rv: str, initial: bool) -> tuple:
        """Returns (objects to send as ADDED, rv to follow from). A too old rv is reported by
        the stream itself (WatchStream.follow), as the real server does."""
        with self.store.cond:
            if initial or rv in ("", "0"):
                objects = [o for o in self.store.list(res.key, filt.namespace) if filt.matches(o)]
                return objects, self.store.rv
        return [], parse_int(rv, "resourceVersion")

    # -- writes -------------------------------------------------------------------------------

    def create(self, res: Resource, namespace: str, body: dict, dry_run: bool = False) -> dict:
        with self.store.cond:
            obj = self._prepare_create(res, namespace, body)
            name = meta_of(obj)["name"]
            if res.namespaced and not self.store.get(("", "namespaces"), "", namespace):
                raise namespace_not_found(namespace)
            if self.store.get(res.key, namespace, name) is not None:
                raise already_exists(res, name)
            hooks = KIND_HOOKS.get(res.key, DEFAULT_HOOKS)
            self._run(res, name, hooks.prepare_create, self, obj)
            self._admit(AdmissionRequest("CREATE", res, namespace, name, "", obj, None, dry_run))
            obj = storage_form(res.converter, obj, res)
            if dry_run:
                return obj
            stored = self.store.write(res.key, obj, None)
            hooks.after_write(self, stored)
            return stored

    def _prepare_create(self, res: Resource, namespace: str, body: dict) -> dict:
        obj = clone(body)
        obj["apiVersion"], obj["kind"] = res.group_version, res.kind
        meta = obj["metadata"] = dict(meta_of(obj))
        for field in SYSTEM_METADATA[2:] + ("selfLink", "managedFields"):
            meta.pop(field, None)
        if res.namespaced:
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        if meta.get("resourceVersion"):
            raise internal_error("resourceVersion should not be set on objects to be created")
        meta.pop("resourceVersion", None)
        name = meta.get("name") or self._generate_name(res, namespace, meta.get("generateName"))
        meta.update(name=name, uid=str(uuid.uuid4()), creationTimestamp=utc_now())
        if keeps_generation(res):
            meta["generation"] = 1
        self._run(res, name, validate_object_meta, res, obj, validate_name)
        if res.status and not res.keep_status_on_create:
            obj.pop("status", None)
        if res.key in INITIAL_STATUS:
            obj["status"] = clone(INITIAL_STATUS[res.key])
        return obj

    def _generate_name(self, res: Resource, namespace: str, base: Optional[str]) -> str:
        if not base:
            raise invalid(res, "", [("metadata.name", "FieldValueRequired",
                                     "Required value: name or generateName is required")])
        base = base[:58]
        for _ in range(16):
            name = base + "".join(self._names.choice(GENERATED_NAME_ALPHABET) for _ in range(5))
            if self.store.get(res.key, namespace, name) is None:
                return name
        raise already_exists(res, name)

    def _admit(self, request: AdmissionRequest) -> None:
        """Runs the admission chain (see admission.py) on a write about to happen."""
        for plugin in self.admission:
            self._run(request.res, request.name, plugin.admit, request)

    @staticmethod
    def _run(res: Resource, name: str, func: Callable, *args) -> None:
        """Calls func, turning a FieldError into the 422 Invalid the client sees."""
        try:
            func(*args)
        except FieldError as err:
            raise invalid(res, name, err.causes) from None

    def update(self, res: Resource, namespace: str, name: str, body: dict, sub: str,
               dry_run: bool = False) -> dict:
        with self.store.cond:
            old = self.store.get(res.key, namespace, name)
            if old is None:
                raise not_found(res, name)
            self._run(res, name, require_resource_version, res, body)
            wanted_rv = meta_of(body).get("resourceVersion")
            if wanted_rv and wanted_rv != meta_of(old)["resourceVersion"]:
                raise conflict(res, name)
            new = self._merge_update(res, old, body, sub)
            return self._commit_update(res, old, new, sub, dry_run)

    def patch(self, res: Resource, namespace: str, name: str, sub: str, patch_type: str,
              document: Any, dry_run: bool = False) -> tuple:
        """Patches an object; returns (object, created). Apply patches create missing objects."""
        with self.store.cond:
            old = self.store.get(res.key, namespace, name)
            if old is None and patch_type == "apply" and not sub:
                return self.create(res, namespace, document, dry_run), True
            if old is None:
                raise not_found(res, name)
            try:
                patched = apply_patch(patch_type, with_version(res, old), document, res)
            except PatchError as err:
                raise ApiError(422, "Invalid", str(err)) from None
            if not isinstance(patched, dict):
                raise ApiError(422, "Invalid", "the patch did not produce a JSON object")
            check_identity(res, namespace, name, patched)
            wanted_rv = meta_of(patched).get("resourceVersion")
            if wanted_rv and wanted_rv != meta_of(old)["resourceVersion"]:
                raise conflict(res, name)
            new = self._merge_update(res, old, patched, sub)
            return self._commit_update(res, old, new, sub, dry_run), False

    @staticmethod
    def _merge_update(res: Resource, old: dict, body: dict, sub: str) -> dict:
        """Builds the object an update stores: system metadata from the stored object, then
        the status subresource rules (see Resource.status)."""
        new = clone(body)
        # Stored objects keep the version they were created with; reads set the served one.
        new["apiVersion"], new["kind"] = old.get("apiVersion", res.group_version), res.kind
        meta = dict(meta_of(new))
        old_meta = meta_of(old)
        for field in SYSTEM_METADATA:
            if field in old_meta:
                meta[field] = old_meta[field]
            else:
                meta.pop(field, None)
        meta.pop("selfLink", None)
        meta.pop("managedFields", None)
        meta["resourceVersion"] = old_meta["resourceVersion"]
        new["metadata"] = meta
        if sub == "status" and res.status == "custom":
            result = clone(old)
            result.pop("status", None)
            if "status" in new:
                result["status"] = new["status"]
            return result
        if sub == "status":
            result = {k: clone(v) for k, v in old.items()
                      if k not in ("metadata", "status")}
            result["metadata"] = meta
            if "status" in new:
                result["status"] = new["status"]
            return result
        if res.status:
            new.pop("status", None)
            if "status" in old:
                new["status"] = clone(old["status"])
        return new

    def _commit_update(self, res: Resource, old: dict, new: dict, sub: str, dry_run: bool):
        name = meta_of(new)["name"]
        hooks = KIND_HOOKS.get(res.key, DEFAULT_HOOKS)
        self._run(res, name, hooks.prepare_update, self, old, new, sub)
        self._run(res, name, validate_object_meta, res, new)
        self._admit(AdmissionRequest("UPDATE", res, meta_of(old).get("namespace", ""), name, sub,
                                     new, old, dry_run))
        new = storage_form(res.converter, new, res)
        if keeps_generation(res):
            old_generation = meta_of(old).get("generation", 1)
            changed = canonical(generation_input(old)) != canonical(generation_input(new))
            new["metadata"]["generation"] = old_generation + 1 if changed else old_generation
        if dry_run:
            return new
        if removable(new):
            return self._remove(res, new, hooks)
        if canonical(new) == canonical(old):
            return old  # a no-op write changes nothing: same resourceVersion, no event
        stored = self.store.write(res.key, new, old)
        hooks.after_write(self, stored)
        return stored

    def delete(self, res: Resource, namespace: str, name: str, options: dict,
               dry_run: bool = False) -> tuple:
        """Deletes an object; returns (object, removed). With finalizers, a grace period (Pods)
        or pending namespace finalizers the object only gets a deletionTimestamp and stays until
        they are done (deletion.py decides, gc.py completes)."""
        with self.store.cond:
            old = self.store.get(res.key, namespace, name)
            if old is None:
                raise not_found(res, name)
            self._check_preconditions(res, old, options.get("preconditions") or {})
            self._admit(AdmissionRequest("DELETE", res, namespace, name, "", None, old, dry_run))
            if dry_run:
                return old, True
            marked = plan_delete(res, old, options)
            if marked is None:
                return self._remove(res, old, KIND_HOOKS.get(res.key, DEFAULT_HOOKS)), True
            if canonical(marked) == canonical(old):
                return old, False
            return self.store.write(res.key, marked, old), False

    def system_update(self, res: Resource, old: dict, new: dict) -> dict:
        """An update by the server's own controllers (gc.py): new is old with some metadata,
        or a namespace's spec.finalizers, changed; removes it when that completes a deletion."""
        with self.store.cond:
            return self._commit_update(res, old, clone(new), "", False)

    def _remove(self, res: Resource, obj: dict, hooks: Hooks) -> dict:
        hooks.before_delete(self, obj)
        final = self.store.delete(res.key, obj)
        hooks.after_delete(self, final)
        return final

    @staticmethod
    def _check_preconditions(res: Resource, obj: dict, preconditions: dict) -> None:
        meta = meta_of(obj)
        for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            wanted = preconditions.get(field)
            if wanted and wanted != meta.get(field):
                raise conflict(res, meta["name"], f"Precondition failed: {label} in precondition: "
                               f"{wanted}, {label} in object meta: {meta.get(field)}")

    def delete_collection(self, res: Resource, filt: ObjectFilter, options: dict,
                          dry_run: bool) -> list:
        with self.store.cond:
            doomed = [o for o in self.store.list(res.key, filt.namespace) if filt.matches(o)]
            return [self.delete(res, meta_of(o).get("namespace", ""), meta_of(o)["name"],
                                options, dry_run)[0] for o in doomed]

    def service_allocations(self, namespace: str, name: str) -> tuple:
        """Returns (cluster IPs, node ports) used by every Service except namespace/name."""
        return self.allocator.taken(namespace, name)


def check_identity(res: Resource, namespace: str, name: str, obj: dict) -> None:
    """Rejects a body whose name or namespace disagrees with the URL."""
    meta = meta_of(obj)
    if meta.get("name") and meta["name"] != name:
        raise bad_request(f"the name of the object ({meta['name']}) does not match the name on "
                          f"the URL ({name})")
    if res.namespaced and meta.get("namespace") and meta["namespace"] != namespace:
        raise bad_request("the namespace of the provided object does not match the namespace "
                          "sent on the request")


def check_type(res: Resource, body: dict) -> None:
    """Rejects a body whose apiVersion or kind is not the resource's (absent is fine)."""
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if api_version and api_version != res.group_version:
        raise bad_request(f"the API version in the data ({api_version}) does not match the "
                          f"expected API version ({res.group_version})")
    if kind and kind != res.kind:
        raise bad_request(f"the kind in the data ({kind}) does not match the expected kind "
                          f"({res.kind})")
