# SPDX-License-Identifier: Apache-2.0
"""TokenReview (authentication.k8s.io/v1) and SubjectAccessReview (authorization.k8s.io/v1):
the two create-only kinds through which a server delegates authentication and authorization to
the API server, as kube-rbac-proxy and MetalLB's metrics endpoints do. Nothing is stored; the
created object comes back with its status filled.

* TokenReview: `spec.token` is checked with the server's own token rules (the ServiceAccount
  tokens of authn.py; the all-powerful `--token`s authenticate as `ADMIN`, a member of
  `system:masters`). An empty token is a 400 (`token is required for TokenReview in
  authentication`), as in kube-apiserver's tokenreview REST storage.
* SubjectAccessReview: exactly one of `resourceAttributes` and `nonResourceAttributes`, and a
  user or a group (422 otherwise, worded as ValidateSubjectAccessReviewSpec words it); the
  decision is the RBAC policy's (rbac.py) for the spec's user and groups, with `system:masters`
  allowed everything as the bootstrap policy grants. `status.reason` names the binding that
  allowed it, as the RBAC authorizer's reason does.

The functions here are pure: the caller passes the authenticator and the policy."""

from __future__ import annotations

from typing import Callable, Optional

from .errors import bad_request, invalid
from .rbac import Policy, Request, User

ADMIN = User("kubeapi:admin", ("system:masters", "system:authenticated"))
MASTERS = "system:masters"


def _user_info(user: User) -> dict:
    return {"username": user.name, "groups": list(user.groups)}


def token_review(obj: dict, authenticate: Callable[[str], Optional[User]]) -> dict:
    """Returns the TokenReview with its status, or raises 400 for a missing token."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    token = spec.get("token") or ""
    if not isinstance(token, str) or not token:
        raise bad_request("token is required for TokenReview in authentication")
    user = authenticate(token)
    if user is None:
        status = {"user": {}, "error": "invalid bearer token"}
    else:
        status = {"authenticated": True, "user": _user_info(user)}
        if spec.get("audiences"):
            status["audiences"] = list(spec["audiences"])
    return dict(obj, metadata={"creationTimestamp": None}, status=status)


def _check_subject_access(res, spec: dict) -> None:
    causes = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        causes.append(("spec.nonResourceAttributes", "FieldValueInvalid",
                       "Invalid value: \"object\": cannot be specified in combination with "
                       "resourceAttributes"))
    if resource is None and non_resource is None:
        causes.append(("spec.resourceAttributes", "FieldValueInvalid",
                       "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                       "resourceAttributes must be specified"))
    if not spec.get("user") and not spec.get("groups"):
        causes.append(("spec.user", "FieldValueInvalid",
                       "Invalid value: \"\": at least one of user or group must be specified"))
    if causes:
        raise invalid(res, "", causes)


def _request(spec: dict) -> Request:
    non_resource = spec.get("nonResourceAttributes")
    if non_resource is not None:
        return Request(non_resource.get("verb", ""), path=non_resource.get("path", ""))
    attrs = spec.get("resourceAttributes") or {}
    return Request(attrs.get("verb", ""), attrs.get("group", ""), attrs.get("resource", ""),
                   attrs.get("subresource", ""), attrs.get("namespace", ""),
                   attrs.get("name", ""))


def subject_access_review(res, obj: dict, policy: Policy) -> dict:
    """Returns the SubjectAccessReview with its status, or raises 422 for an invalid spec."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    _check_subject_access(res, spec)
    groups = tuple(spec.get("groups") or ())
    user = User(spec.get("user") or "", groups)
    if MASTERS in groups:
        status = {"allowed": True, "reason": f"the user is in the group {MASTERS}"}
    else:
        decision = policy.decide(user, _request(spec))
        status = {"allowed": decision.allowed}
        if decision.allowed:
            status["reason"] = f"RBAC: allowed by {decision.by}"
    return dict(obj, metadata={"creationTimestamp": None}, status=status)
