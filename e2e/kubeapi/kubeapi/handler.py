# SPDX-License-Identifier: Apache-2.0
"""The request handler: routes each HTTP request to discovery, OpenAPI or a resource verb and
answers with objects, lists or `Status` errors (connections and framing are in transport)."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
import traceback
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, TYPE_CHECKING

from .admission import Attributes, begin_request, take_warnings
from .cluster import Cluster, check_identity, check_type
from .discovery import (
    KUBE_VERSION, api_group, discovery_resources, openapi_document, openapi_path_key)
from .errors import (
    ApiError, error_details, bad_request, internal_error, method_not_allowed,
    resource_not_found, unauthorized)
from .faults import ADMIN_PATH, THROTTLE_BODY, storage_reinitializing, timeout_after_commit
from .meta import canonical, meta_of, parse_bool, parse_int
from .patch import PATCH_TYPES
from . import openapi_v2, protobuf, reviews
from .registry import Resource, with_version
from .selectors import ObjectFilter, parse_field_selector, parse_label_selector
from .tables import partial_metadata, requested_shape, table
from .transport import RequestHandler
from .watch import WatchStream

if TYPE_CHECKING:
    from .apiserver import KubeApiServer


@dataclass
class Target:
    """The resource a request addresses."""

    res: Resource
    namespace: str
    name: str
    sub: str
    watch_path: bool = False


class Handler(RequestHandler):
    """Routes one HTTP request to discovery, OpenAPI or a resource verb."""

    # -- plumbing -----------------------------------------------------------------------------

    @property
    def api(self) -> "KubeApiServer":
        return self.server.api

    @property
    def cluster(self) -> Cluster:
        return self.server.api.cluster

    def log_message(self, format, *args):  # noqa: A002 (BaseHTTPRequestHandler's signature)
        if self.api.verbose:
            sys.stderr.write(f"kubeapi: {self.address_string()} {format % args}\n")

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_DELETE(self):
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        self._responded = False
        self._discard = False
        self._warnings: list = []
        begin_request()
        try:
            body = self._read_body()
            url = urllib.parse.urlsplit(self.path)
            self.query = {k: v[-1] for k, v in
                          urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
            begin_request(self.query)
            self.api.apply_latency()
            self._authenticate(url.path)
            if url.path == ADMIN_PATH:
                return self._faults_admin(method, body)
            self._dispatch(method, url.path, body)
        except ApiError as err:
            self._send_error(err)
        except OSError:  # the client left, TLS failed, or stop() closed the connection
            self.close_connection = True
        except Exception as err:  # a server bug: answer 500 and keep serving
            traceback.print_exc()
            self._send_error(internal_error(f"{type(err).__name__}: {err}"))

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _authenticate(self, path: str) -> None:
        """Sets self._user: None for the all-powerful tokens (and without authentication),
        the ServiceAccount user of a ServiceAccount token (authn.py); else raises 401."""
        self._user = None
        header = self.headers.get("Authorization")
        if not self.api.tokens:
            return
        if header is None and path in ("/healthz", "/livez", "/readyz", "/version"):
            return  # what the default RBAC grants anonymous users
        scheme, _, token = (header or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer":
            raise unauthorized()
        if token in self.api.tokens:
            return
        self._user = self.api.token_issuer.authenticate(self.cluster.store, token)
        if self._user is None:
            raise unauthorized()

    def _send_error(self, err: ApiError) -> None:
        if self._responded:
            self.close_connection = True  # a stream already started; it cannot carry a Status
            return
        # As responsewriters.ErrorNegotiated: a Status asking for a retry after some seconds
        # carries them in a Retry-After header too (what clients read).
        retry_after = (err.details or {}).get("retryAfterSeconds", 0)
        extra = [f"Retry-After: {retry_after}"] if retry_after > 0 else []
        self._send_bytes(err.code, (json.dumps(err.status(), separators=(",", ":")) + "\n")
                         .encode(), "application/json", extra)

    def _send_json(self, code: int, obj: Any) -> None:
        self._send_bytes(code, (json.dumps(obj, separators=(",", ":")) + "\n").encode(),
                         "application/json")

    def _send_bytes(self, code: int, data, content_type: str, extra=()) -> None:
        """Sends a response whose body is data (bytes, or a list of bytes to concatenate)."""
        if self._discard:
            return  # the write committed, but the client is answered 504 (faults.py)
        self._responded = True
        # warn-text is an HTTP quoted-string: backslashes and quotes are escaped, as client-go
        # expects when it parses the header.
        warnings = [w.replace("\\", "\\\\").replace('"', '\\"')
                    for w in self._warnings + take_warnings()]
        self.write_response(code, data, content_type,
                            [f'Warning: 299 - "{w}"' for w in warnings] + list(extra))

    def _param(self, name: str, default: str = "") -> str:
        return self.query.get(name, default)

    def _dry_run(self) -> bool:
        value = self._param("dryRun")
        if value not in ("", "All"):
            raise bad_request(f'unsupported dryRun value "{value}", supported values: "All"')
        return value == "All"

    def _json_body(self, body: bytes) -> Any:
        try:
            return json.loads(body or b"null")
        except ValueError as err:
            raise bad_request(f"the request body is not valid JSON: {err}") from None

    def _object_body(self, res: Resource, body: bytes) -> dict:
        media = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        obj = protobuf.decode(body) if media == protobuf.MEDIA_TYPE else self._json_body(body)
        if not isinstance(obj, dict):
            raise bad_request(f"the object provided is unrecognized (must be of type {res.kind})")
        check_type(res, obj)
        return obj

    # -- routing ------------------------------------------------------------------------------

    def _dispatch(self, method: str, path: str, body: bytes) -> None:
        parts = [urllib.parse.unquote(p) for p in path.split("/") if p]
        static = self._static_document(parts)
        if static is not None:
            self.api.authorizer.authorize_path(self._user, method.lower(), path)
            if method != "GET":
                raise method_not_allowed()
            if isinstance(static, tuple):  # (body, content type)
                self._send_bytes(200, static[0], static[1])
            elif isinstance(static, bytes):
                self._send_bytes(200, static, "text/plain; charset=utf-8")
            else:
                self._send_json(200, static)
            return
        target = self._target(parts)
        if target.res.deprecation:
            self._warnings.append(target.res.deprecation)
        self._resource_verb(method, target, body)

    def _static_document(self, parts: list) -> Any:
        """Returns the document of a non-resource path, or None for a resource path."""
        registry = self.cluster.registry
        if not parts:
            return {"paths": ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v2",
                              "/openapi/v3", "/readyz", "/version"]}
        if parts[0] in ("healthz", "livez", "readyz") and len(parts) == 1:
            return b"ok"
        if parts == ["version"]:
            return KUBE_VERSION
        if parts[0] == "openapi":
            return self._openapi(parts[1:])
        groups = registry.groups()
        if parts == ["api"]:
            return {"kind": "APIVersions", "versions": groups.get("", []),
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                    "serverAddress": self.api.host_port}]}
        if parts == ["apis"]:
            return {"kind": "APIGroupList", "apiVersion": "v1",
                    "groups": [api_group(g, v) for g, v in groups.items() if g]}
        if parts[0] == "api" and len(parts) == 2:
            return self._resource_list("", parts[1], groups)
        if parts[0] == "apis" and len(parts) == 2:
            if parts[1] not in groups or not parts[1]:
                raise resource_not_found()
            return api_group(parts[1], groups[parts[1]])
        if parts[0] == "apis" and len(parts) == 3:
            return self._resource_list(parts[1], parts[2], groups)
        if parts[0] in ("api", "apis"):
            return None
        raise resource_not_found()

    def _resource_list(self, group: str, version: str, groups: dict) -> dict:
        if version not in groups.get(group, []):
            raise resource_not_found()
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": f"{group}/{version}" if group else version,
                "resources": discovery_resources(self.cluster.registry, group, version)}

    def _openapi(self, parts: list) -> Any:
        registry = self.cluster.registry
        if parts == ["v2"]:
            return openapi_v2.render(self.headers.get("Accept", ""))
        if parts == ["v3"]:
            paths = {}
            for group, versions in registry.groups().items():
                for version in versions:
                    key = openapi_path_key(group, version)
                    digest = hashlib.sha256(canonical(openapi_document(registry, group, version))
                                            .encode()).hexdigest()[:32].upper()
                    paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
            return {"paths": paths}
        if parts[:1] == ["v3"]:
            if parts[1:2] == ["api"] and len(parts) == 3:
                group, version = "", parts[2]
            elif parts[1:2] == ["apis"] and len(parts) == 4:
                group, version = parts[2], parts[3]
            else:
                raise resource_not_found()
            if version not in registry.groups().get(group, []):
                raise resource_not_found()
            return openapi_document(registry, group, version)
        raise resource_not_found()

    def _target(self, parts: list) -> Target:
        if parts[0] == "api" and len(parts) >= 3:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 4:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise resource_not_found()
        watch_path = rest[0] == "watch"
        rest = rest[1:] if watch_path else rest
        namespace = ""
        if len(rest) >= 3 and rest[0] == "namespaces" and not (
                group == "" and len(rest) == 3 and rest[2] in ("status", "finalize")):
            namespace, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            raise resource_not_found()
        res = self.cluster.registry.lookup(group, version, rest[0])
        name = rest[1] if len(rest) > 1 else ""
        sub = rest[2] if len(rest) > 2 else ""
        if res is None or (namespace and not res.namespaced) or (sub and sub != "status") \
                or (sub and not res.status) or (name and res.namespaced and not namespace):
            raise resource_not_found()
        return Target(res, namespace, name, sub, watch_path)

    def _resource_verb(self, method: str, t: Target, body: bytes) -> None:
        verb = self._verb(method, t)
        user = self._user.name if self._user else "admin"
        self.api.faults.count_request(user, verb, t.res.qualified + (f"/{t.sub}" if t.sub else ""))
        # API Priority and Fairness runs after authentication and before authorisation.
        retry_after = self.api.faults.throttle(verb, user)
        if retry_after is not None:
            return self._send_bytes(429, THROTTLE_BODY, "text/plain; charset=utf-8",
                                    [f"Retry-After: {retry_after}"])
        token = (self.headers.get("Authorization") or "").partition(" ")[2].strip()
        self.api.authorizer.authorize(Attributes(token, verb, t.res, t.namespace, t.name, t.sub,
                                                 self._user))
        if t.res.review:
            return self._review(verb, t, body)
        if self.api.faults.reinitializing(
                verb, self.cluster.store.storage_replaced_at.get(t.res.key), user):
            raise storage_reinitializing()
        reads = {"get": self._get, "list": self._list, "watch": self._watch}
        if verb in reads:
            return reads[verb](t)
        writes = {"create": self._create, "update": self._update, "patch": self._patch,
                  "delete": self._delete, "deletecollection": self._delete_collection}
        return self._write(verb, writes[verb], t, body)

    def _verb(self, method: str, t: Target) -> str:
        """The Kubernetes verb of a request (what authorisation and admission see)."""
        watching = t.watch_path or parse_bool(self._param("watch"), "watch")
        if method == "GET":
            return "watch" if watching else "get" if t.name else "list"
        if t.watch_path or (t.sub and method not in ("PUT", "PATCH")):
            raise method_not_allowed()
        verb = {("POST", False): "create", ("PUT", True): "update", ("PATCH", True): "patch",
                ("DELETE", True): "delete", ("DELETE", False): "deletecollection"}.get(
                    (method, bool(t.name)))
        if verb is None:
            raise method_not_allowed()
        return verb

    def _write(self, name: str, verb: Callable, t: Target, body: bytes) -> None:
        if self.api.should_fail_write():
            raise internal_error("injected fault: write failed (--fail-writes)")
        if not self.api.faults.time_out(name, self._user.name if self._user else "admin"):
            return verb(t, body)
        self._discard = True
        try:
            verb(t, body)  # commits (or fails as it would have: that answer is sent instead)
        finally:
            self._discard = False
        raise timeout_after_commit()

    def _faults_admin(self, method: str, body: bytes) -> None:
        """GET shows the fault plan and counters, PUT changes the fields it names. Only the
        all-powerful tokens may (faults.py)."""
        if self.api.tokens and self._user is not None:
            raise ApiError(403, "Forbidden", f'forbidden: User "{self._user.name}" cannot '
                           f'{method.lower()} path "{ADMIN_PATH}"', {})
        if method == "PUT":
            self.api.configure(self._json_body(body))
        elif method != "GET":
            raise method_not_allowed()
        self._send_json(200, self.api.describe())

    # -- verbs --------------------------------------------------------------------------------

    def _filter(self, t: Target) -> ObjectFilter:
        fields = parse_field_selector(self._param("fieldSelector"), t.res)
        if t.name:
            fields += (("metadata.name", True, t.name),)
        return ObjectFilter(t.namespace, parse_label_selector(self._param("labelSelector")), fields)

    def _send_object(self, code: int, t: Target, obj: dict) -> None:
        shape = requested_shape(self.headers.get("Accept", ""))
        if shape == "Table":
            meta = {"resourceVersion": meta_of(obj).get("resourceVersion", "")}
            return self._send_json(code, table(t.res, [obj], self._param("includeObject"), meta))
        if shape == "Partial":
            return self._send_json(code, partial_metadata(obj))
        self._send_json(code, with_version(t.res, obj))

    def _get(self, t: Target) -> None:
        self._send_object(200, t, self.cluster.get(t.res, t.namespace, t.name))

    def _list(self, t: Target) -> None:
        limit = parse_int(self._param("limit", "0") or "0", "limit")
        page = self.cluster.list(t.res, self._filter(t), limit, self._param("continue"),
                                 self._param("resourceVersion"),
                                 self._param("resourceVersionMatch"))
        meta: dict = {"resourceVersion": str(page.rv)}
        if page.continue_token:
            meta["continue"] = page.continue_token
        if page.remaining is not None:
            meta["remainingItemCount"] = page.remaining
        self._send_list(t, page.items, meta)

    def _send_list(self, t: Target, items: list, meta: dict) -> None:
        shape = requested_shape(self.headers.get("Accept", ""))
        if shape == "Table":
            return self._send_json(200, table(t.res, items, self._param("includeObject"), meta))
        if shape == "Partial":
            return self._send_json(200, {"kind": "PartialObjectMetadataList",
                                         "apiVersion": "meta.k8s.io/v1", "metadata": meta,
                                         "items": [partial_metadata(o) for o in items]})
        # The same bytes as json.dumps of the whole list, with each item's encoding cached in
        # the store while that version of the object is stored (a relist re-encodes nothing).
        head = json.dumps({"kind": f"{t.res.kind}List", "apiVersion": t.res.group_version,
                           "metadata": meta}, separators=(",", ":"))
        variant = t.res.group_version if t.res.custom else ""
        encode = functools.partial(self._encode_item, t.res)
        store = self.cluster.store
        items_json = b",".join([store.encoded(t.res.key, o, variant, encode) for o in items])
        self._send_bytes(200, [head[:-1].encode(), b',"items":[', items_json, b"]}\n"],
                         "application/json")

    @staticmethod
    def _encode_item(res: Resource, obj: dict) -> bytes:
        if res.custom:
            rendered = with_version(res, obj)
        else:  # typed lists of built-in kinds carry no apiVersion/kind per item
            rendered = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
        return json.dumps(rendered, separators=(",", ":")).encode()

    def _review(self, verb: str, t: Target, body: bytes) -> None:
        """TokenReview and SubjectAccessReview: created, answered, never stored."""
        if verb != "create":
            raise method_not_allowed()
        obj = self._object_body(t.res, body)
        if t.res.kind == "TokenReview":
            answer = reviews.token_review(obj, self._token_user)
        else:
            answer = reviews.subject_access_review(t.res, obj, self.api.authorizer.policy())
        self._send_json(201, dict(answer, apiVersion=t.res.group_version, kind=t.res.kind))

    def _token_user(self, token: str):
        if token in self.api.tokens:
            return reviews.ADMIN
        return self.api.token_issuer.authenticate(self.cluster.store, token)

    def _create(self, t: Target, body: bytes) -> None:
        if t.res.namespaced and not t.namespace:
            raise method_not_allowed()
        obj = self._object_body(t.res, body)
        if t.res.namespaced and meta_of(obj).get("namespace") not in (None, "", t.namespace):
            raise bad_request("the namespace of the provided object does not match the namespace "
                              "sent on the request")
        created = self.cluster.create(t.res, t.namespace, obj, self._dry_run())
        self._send_object(201, t, created)

    def _update(self, t: Target, body: bytes) -> None:
        obj = self._object_body(t.res, body)
        check_identity(t.res, t.namespace, t.name, obj)
        updated = self.cluster.update(t.res, t.namespace, t.name, obj, t.sub, self._dry_run())
        self._send_object(200, t, updated)

    def _patch(self, t: Target, body: bytes) -> None:
        media = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        patch_type = PATCH_TYPES.get(media)
        if patch_type is None or (patch_type == "strategic" and t.res.custom):
            accepted = [m for m, p in PATCH_TYPES.items()
                        if not (p == "strategic" and t.res.custom)]
            raise ApiError(415, "UnsupportedMediaType",
                           f"the body of the request was in an unknown format - accepted media "
                           f"types include: {', '.join(accepted)}")
        document = self._json_body(body)
        if patch_type == "apply":
            document = self._apply_document(t, document)
        obj, created = self.cluster.patch(t.res, t.namespace, t.name, t.sub, patch_type,
                                          document, self._dry_run())
        self._send_object(201 if created else 200, t, obj)

    def _apply_document(self, t: Target, document: Any) -> dict:
        if not self._param("fieldManager"):
            raise ApiError(422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: '
                           "Required value: is required for apply patch",
                           {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
                               {"reason": "FieldValueRequired", "field": "fieldManager",
                                "message": "Required value: is required for apply patch"}]})
        if not isinstance(document, dict) or not document.get("apiVersion") \
                or not document.get("kind"):
            raise bad_request("apply patches must be JSON objects with apiVersion and kind "
                              "(this test server does not parse YAML)")
        check_type(t.res, document)
        check_identity(t.res, t.namespace, t.name, document)
        meta = dict(meta_of(document), name=t.name)
        return dict(document, metadata=meta)

    def _delete_options(self, body: bytes) -> dict:
        options = self._json_body(body) if body.strip() else {}
        if not isinstance(options, dict):
            raise bad_request("DeleteOptions must be a JSON object")
        return options

    def _delete(self, t: Target, body: bytes) -> None:
        obj, removed = self.cluster.delete(t.res, t.namespace, t.name, self._delete_options(body),
                                           self._dry_run())
        if not removed or t.res.returns_deleted:
            return self._send_object(200, t, obj)
        details = error_details(t.res, t.name)
        details["uid"] = meta_of(obj).get("uid")
        self._send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                              "status": "Success", "details": details})

    def _delete_collection(self, t: Target, body: bytes) -> None:
        deleted = self.cluster.delete_collection(t.res, self._filter(t), self._delete_options(body),
                                                 self._dry_run())
        self._send_list(t, deleted, {"resourceVersion": str(self.cluster.store.rv)})

    # -- watch --------------------------------------------------------------------------------

    def _watch(self, t: Target) -> None:
        filt = self._filter(t)
        bookmarks = parse_bool(self._param("allowWatchBookmarks"), "allowWatchBookmarks")
        initial = parse_bool(self._param("sendInitialEvents"), "sendInitialEvents")
        if initial and (self._param("resourceVersionMatch") != "NotOlderThan" or not bookmarks):
            raise ApiError(422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: "
                           "sendInitialEvents: Forbidden: sendInitialEvents requires "
                           "allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan")
        timeout = parse_int(self._param("timeoutSeconds", "0") or "0", "timeoutSeconds")
        objects, cursor = self.cluster.watch_start(t.res, filt, self._param("resourceVersion"),
                                                   initial)
        stream = WatchStream(self, t.res, filt, requested_shape(self.headers.get("Accept", "")))
        stream.begin()
        for first in range(0, len(objects), 256):  # fewer, larger writes; one chunk per event
            self.wfile.write(b"".join(stream.encode_object("ADDED", o)
                                      for o in objects[first:first + 256]))
        if initial:
            stream.send_bookmark(cursor, initial_events_end=True)
        stream.follow(cursor, bookmarks, timeout)
