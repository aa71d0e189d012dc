# SPDX-License-Identifier: Apache-2.0
"""RBAC authorisation of ServiceAccount requests against the RBAC objects in the store
(decisions in `rbac`), and the decision record.

Requests of the all-powerful tokens (`--token`) carry no user and are not checked, as a
cluster-admin's would pass. The policy is rebuilt from the store after any write to a Role,
ClusterRole, RoleBinding or ClusterRoleBinding.

The record (`--authz-log FILE`) gets one JSON line per distinct decision: user, verb, group,
resource, subresource, namespace, name (for requests on one object), path (non-resource) and
`allowed`; a refusal also goes to stderr."""

from __future__ import annotations

import json
import sys
import threading
from typing import Optional

from .admission import Attributes, Authorizer, forbidden
from .errors import ApiError
from .rbac import RBAC_GROUP, Policy, Request, User, forbidden_message

RBAC_KEYS = {(RBAC_GROUP, "roles"): "roles", (RBAC_GROUP, "clusterroles"): "cluster_roles",
             (RBAC_GROUP, "rolebindings"): "role_bindings",
             (RBAC_GROUP, "clusterrolebindings"): "cluster_role_bindings"}


class RbacAuthorizer(Authorizer):
    """Authorises ServiceAccount users' requests with the stored RBAC objects."""

    def __init__(self, store, record_path: Optional[str] = None):
        self.store = store
        self.enabled = True
        self.record_path = record_path
        self._policy: Optional[Policy] = None
        self._seen: set = set()
        self._lock = threading.Lock()
        store.observers.append(self._observe)

    def _observe(self, key, prev, obj) -> None:
        if key in RBAC_KEYS:
            self._policy = None

    def policy(self) -> Policy:
        policy = self._policy
        if policy is None:
            with self.store.cond:
                policy = Policy.build(**{arg: self.store.list(key)
                                         for key, arg in RBAC_KEYS.items()})
                self._policy = policy
        return policy

    def authorize(self, attributes: Attributes) -> None:
        user = attributes.user
        if user is None or not self.enabled:
            return
        res = attributes.res
        request = Request(attributes.verb, res.group, res.plural, attributes.sub,
                          attributes.namespace, attributes.name)
        if not self._decide(user, request):
            raise forbidden(attributes, forbidden_message(user, request))

    def authorize_path(self, user: Optional[User], verb: str, path: str) -> None:
        """Non-resource requests (discovery, OpenAPI, version, health)."""
        if user is None or not self.enabled:
            return
        request = Request(verb, path=path)
        if not self._decide(user, request):
            raise ApiError(403, "Forbidden", f"forbidden: {forbidden_message(user, request)}",
                           {})

    def _decide(self, user: User, request: Request) -> bool:
        allowed = self.policy().decide(user, request).allowed
        if self.record_path or not allowed:
            self._record(user, request, allowed)
        return allowed

    def _record(self, user: User, request: Request, allowed: bool) -> None:
        name = request.name if request.verb in ("get", "update", "patch", "delete") else ""
        entry = (user.name, request.verb, request.group, request.resource, request.subresource,
                 request.namespace, name, request.path, allowed)
        with self._lock:
            if entry in self._seen:
                return
            self._seen.add(entry)
            line = json.dumps(dict(zip(("user", "verb", "group", "resource", "subresource",
                                        "namespace", "name", "path", "allowed"), entry)))
            if not allowed:
                sys.stderr.write(f"kubeapi: RBAC denied {line}\n")
            if self.record_path:
                with open(self.record_path, "a", encoding="utf-8") as out:
                    out.write(line + "\n")
