# SPDX-License-Identifier: Apache-2.0
"""RBAC decisions, as Kubernetes' RBAC authorizer makes them, without any I/O.

`Policy.build()` takes the Role, ClusterRole, RoleBinding and ClusterRoleBinding objects (as
stored dicts); `Policy.decide(user, request)` answers whether one request is allowed, and
`forbidden_message()` words a refusal as the real server does, e.g.
`User "system:serviceaccount:ns:sa" cannot list resource "services" in API group "" at the
cluster scope`.

The rules follow rbac.authorization.k8s.io/v1:

* a rule matches when its verbs, apiGroups and resources all match (`*` matches anything);
  `resources` names `plural` or `plural/subresource`; `*` covers subresources too, and `*/sub`
  any resource's `sub`. A plain resource never covers its subresources;
* `resourceNames` restricts a rule to the named objects: a request without a name (list, watch,
  create, deletecollection) never matches such a rule;
* `nonResourceURLs` match a path exactly, or by prefix when they end in `*`; they are granted
  only through ClusterRoleBindings;
* a ClusterRoleBinding grants its ClusterRole in every namespace and at the cluster scope; a
  RoleBinding grants its Role (same namespace) or ClusterRole only inside its own namespace;
* subjects are a ServiceAccount (`system:serviceaccount:<ns>:<name>`), a User or a Group. A
  ServiceAccount's user is in the groups `system:serviceaccounts`,
  `system:serviceaccounts:<ns>` and `system:authenticated`.

ClusterRole `aggregationRule`s are not expanded (no controller runs here): only a ClusterRole's
own `rules` count."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

RBAC_GROUP = "rbac.authorization.k8s.io"
SA_PREFIX = "system:serviceaccount:"

# What a cluster's bootstrap policy grants every authenticated user (ClusterRoles
# system:discovery and system:public-info-viewer, bound to system:authenticated): discovery,
# OpenAPI, version and health. Kept here rather than stored, so listing ClusterRoles shows only
# what was created through the API.
BOOTSTRAP_CLUSTER_ROLES = (
    {"metadata": {"name": "system:discovery"},
     "rules": [{"verbs": ["get"], "nonResourceURLs": [
         "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
         "/readyz", "/version", "/version/"]}]},
)
BOOTSTRAP_CLUSTER_ROLE_BINDINGS = (
    {"metadata": {"name": "system:discovery"},
     "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "system:discovery"},
     "subjects": [{"apiGroup": RBAC_GROUP, "kind": "Group", "name": "system:authenticated"}]},
)


@dataclass(frozen=True)
class User:
    """An authenticated identity."""

    name: str
    groups: tuple = ()

    @staticmethod
    def service_account(namespace: str, name: str) -> "User":
        return User(f"{SA_PREFIX}{namespace}:{name}",
                    ("system:serviceaccounts", f"system:serviceaccounts:{namespace}",
                     "system:authenticated"))


@dataclass(frozen=True)
class Request:
    """One request as authorization sees it. A resource request has a resource; a non-resource
    request has only a verb (get, post, …) and a path."""

    verb: str
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @property
    def is_resource(self) -> bool:
        return bool(self.resource)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    # Which binding and role allowed it ("" when refused), e.g. `RoleBinding metallb-system/x
    # of Role metallb-system/x`.
    by: str = ""


def _has(values: Iterable[str], wanted: str) -> bool:
    values = list(values or ())
    return "*" in values or wanted in values


def _resource_matches(resources: Iterable[str], resource: str, sub: str) -> bool:
    combined = f"{resource}/{sub}" if sub else resource
    for rule in resources or ():
        if rule == "*" or rule == combined or (sub and rule == f"*/{sub}"):
            return True
    return False


def _url_matches(urls: Iterable[str], path: str) -> bool:
    for rule in urls or ():
        if rule == "*" or rule == path or (rule.endswith("*") and path.startswith(rule[:-1])):
            return True
    return False


def rule_allows(rule: dict, request: Request) -> bool:
    """Whether one PolicyRule allows the request."""
    if not _has(rule.get("verbs"), request.verb):
        return False
    if not request.is_resource:
        return _url_matches(rule.get("nonResourceURLs"), request.path)
    if not _has(rule.get("apiGroups"), request.group):
        return False
    if not _resource_matches(rule.get("resources"), request.resource, request.subresource):
        return False
    names = rule.get("resourceNames") or []
    return not names or request.name in names


def subject_matches(subject: dict, user: User, binding_namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "ServiceAccount":
        namespace = subject.get("namespace") or binding_namespace
        return user.name == f"{SA_PREFIX}{namespace}:{name}"
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    return False


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


@dataclass
class Policy:
    """The RBAC objects of a cluster, indexed for decisions."""

    cluster_roles: dict = field(default_factory=dict)  # name -> rules
    roles: dict = field(default_factory=dict)  # (namespace, name) -> rules
    # (namespace or "" for a ClusterRoleBinding, binding description, roleRef, subjects)
    bindings: list = field(default_factory=list)

    @staticmethod
    def build(roles=(), cluster_roles=(), role_bindings=(), cluster_role_bindings=(),
              bootstrap: bool = True) -> "Policy":
        policy = Policy()
        for obj in list(cluster_roles) + list(BOOTSTRAP_CLUSTER_ROLES if bootstrap else ()):
            policy.cluster_roles[_meta(obj).get("name")] = obj.get("rules") or []
        for obj in roles:
            meta = _meta(obj)
            policy.roles[(meta.get("namespace", ""), meta.get("name"))] = obj.get("rules") or []
        for obj in list(cluster_role_bindings) + list(
                BOOTSTRAP_CLUSTER_ROLE_BINDINGS if bootstrap else ()):
            policy._bind(obj, "")
        for obj in role_bindings:
            policy._bind(obj, _meta(obj).get("namespace", ""))
        return policy

    def _bind(self, obj: dict, namespace: str) -> None:
        kind = "RoleBinding" if namespace else "ClusterRoleBinding"
        name = f"{namespace}/{_meta(obj).get('name')}" if namespace else _meta(obj).get("name")
        self.bindings.append((namespace, f"{kind} {name}", obj.get("roleRef") or {},
                              obj.get("subjects") or []))

    def _rules(self, namespace: str, role_ref: dict) -> tuple:
        """(description, rules) of a binding's roleRef; rules [] when the role is missing."""
        kind, name = role_ref.get("kind"), role_ref.get("name")
        if role_ref.get("apiGroup", RBAC_GROUP) != RBAC_GROUP:
            return "", []
        if kind == "ClusterRole":
            return f"ClusterRole {name}", self.cluster_roles.get(name, [])
        if kind == "Role" and namespace:  # a ClusterRoleBinding cannot reference a Role
            return f"Role {namespace}/{name}", self.roles.get((namespace, name), [])
        return "", []

    def decide(self, user: User, request: Request) -> Decision:
        for namespace, binding, role_ref, subjects in self.bindings:
            if namespace and (not request.is_resource or request.namespace != namespace):
                continue  # a RoleBinding grants only inside its namespace
            if not any(subject_matches(s, user, namespace) for s in subjects):
                continue
            role, rules = self._rules(namespace, role_ref)
            if any(rule_allows(rule, request) for rule in rules):
                return Decision(True, f"{binding} of {role}")
        return Decision(False)

    def rules_of(self, user: User) -> list:
        """Every (namespace or "" for all, rule) granted to user: what a coverage check walks."""
        out = []
        for namespace, _, role_ref, subjects in self.bindings:
            if any(subject_matches(s, user, namespace) for s in subjects):
                out += [(namespace, rule) for rule in self._rules(namespace, role_ref)[1]]
        return out


def forbidden_message(user: Optional[User], request: Request) -> str:
    """The real server's wording of a refusal (without the `<resource> "name" is forbidden: `
    prefix the caller adds)."""
    name = user.name if user else ""
    if not request.is_resource:
        return f'User "{name}" cannot {request.verb} path "{request.path}"'
    resource = request.resource + (f"/{request.subresource}" if request.subresource else "")
    where = (f'in the namespace "{request.namespace}"' if request.namespace
             else "at the cluster scope")
    return (f'User "{name}" cannot {request.verb} resource "{resource}" in API group '
            f'"{request.group}" {where}')
