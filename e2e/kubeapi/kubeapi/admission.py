# SPDX-License-Identifier: Apache-2.0
"""The seams for the checks a real API server runs around its storage, so that authorisation
(RBAC), CRD schema validation and admission webhooks plug in without changing any verb:

* an `Authorizer` sees every resource request (token, verb, resource, namespace, name,
  subresource) after authentication and before anything is read or written, and refuses it by
  raising `forbidden(...)` (403). The default allows everything; `authz.RbacAuthorizer` decides
  by the stored RBAC objects.
* `AdmissionPlugin`s run in order on every create, update, patch (status included) and delete,
  after the per-kind hooks (defaults, allocation) and before the store is written, dry runs
  included. A mutating plugin (defaulting, a mutating webhook) changes `request.obj`; a
  validating one (a CRD's OpenAPI schema, a validating webhook) raises ApiError, or FieldError
  for a 422 Invalid naming the field.

`KubeApiServer.authorizer` and `Cluster.admission` hold them."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .errors import ApiError, error_details
from .rbac import User

if TYPE_CHECKING:
    from .registry import Resource


@dataclass(frozen=True)
class Attributes:
    """What an authorisation decision sees, like Kubernetes' authorizer.Attributes."""

    token: str  # the bearer token ("" without authentication)
    verb: str  # get, list, watch, create, update, patch, delete, deletecollection
    res: Resource
    namespace: str
    name: str
    sub: str
    # The ServiceAccount user of the token (authn.py); None for the all-powerful tokens.
    user: Optional[User] = None


class Authorizer:
    """Allows every request (no RBAC). Subclasses raise forbidden() to refuse one; authz.py
    has the RBAC one."""

    def authorize(self, attributes: Attributes) -> None:
        pass

    def authorize_path(self, user: Optional[User], verb: str, path: str) -> None:
        """A non-resource request (discovery, OpenAPI, version, health)."""


def forbidden(attributes: Attributes, reason: str) -> ApiError:
    """The 403 a real server answers, e.g. `services "x" is forbidden: User "u" cannot get
    resource "services" in API group "" in the namespace "default"`."""
    res, name = attributes.res, attributes.name
    subject = f'{res.qualified} "{name}"' if name else res.qualified
    details = error_details(res, name)
    if not name:
        del details["name"]  # omitted when empty, as in the real server's JSON
    return ApiError(403, "Forbidden", f"{subject} is forbidden: {reason}", details)


@dataclass
class AdmissionRequest:
    """One write as admission sees it. obj is what will be stored (None on delete); old is the
    stored object (None on create)."""

    operation: str  # CREATE, UPDATE or DELETE
    res: Resource
    namespace: str
    name: str
    sub: str
    obj: Optional[dict]
    old: Optional[dict]
    dry_run: bool


class AdmissionPlugin:
    """One step of the admission chain; the base admits everything unchanged."""

    def admit(self, request: AdmissionRequest) -> None:
        pass


# Warnings admission adds to the response of the request being handled (one request at a time
# per handler thread), e.g. the `warnings` of an AdmissionReview response.
_request_warnings = threading.local()


def begin_request(params: Optional[dict] = None) -> None:
    """Starts a request on this thread: no warnings yet; params are its query parameters."""
    _request_warnings.items = []
    _request_warnings.params = params or {}


def request_param(name: str) -> str:
    """A query parameter of the request being handled on this thread ("" if none)."""
    return (getattr(_request_warnings, "params", None) or {}).get(name, "")


def warn(text: str) -> None:
    items = getattr(_request_warnings, "items", None)
    if items is not None:
        items.append(text)


def take_warnings() -> list:
    items = getattr(_request_warnings, "items", None) or []
    _request_warnings.items = []
    return items
