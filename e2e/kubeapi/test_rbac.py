# SPDX-License-Identifier: Apache-2.0
"""RBAC decisions (kubeapi.rbac), table-driven: rule matching, bindings and their scope,
subjects, and the refusal's wording."""

from __future__ import annotations

import pytest

from kubeapi.rbac import Policy, Request, User, forbidden_message, rule_allows

SA = User.service_account("metallb-system", "speaker")
OTHER_SA = User.service_account("default", "speaker")
ALICE = User("alice", ("devs", "system:authenticated"))


def rule(verbs, groups=("",), resources=(), names=(), urls=()):
    out = {"verbs": list(verbs)}
    if urls:
        out["nonResourceURLs"] = list(urls)
    else:
        out.update(apiGroups=list(groups), resources=list(resources))
    if names:
        out["resourceNames"] = list(names)
    return out


RULE_CASES = [
    # (rule, request, allowed)
    (rule(["list"], resources=["services"]), Request("list", "", "services"), True),
    (rule(["list"], resources=["services"]), Request("watch", "", "services"), False),
    (rule(["*"], resources=["services"]), Request("deletecollection", "", "services"), True),
    (rule(["get"], resources=["services"]), Request("get", "apps", "services", name="x"), False),
    (rule(["get"], groups=["*"], resources=["services"]),
     Request("get", "apps", "services", name="x"), True),
    (rule(["get"], groups=["metallb.io"], resources=["ipaddresspools"]),
     Request("get", "metallb.io", "ipaddresspools", name="p"), True),
    # a resource does not cover its subresources, and the reverse
    (rule(["patch"], resources=["services"]), Request("patch", "", "services", "status"), False),
    (rule(["patch"], resources=["services/status"]), Request("patch", "", "services"), False),
    (rule(["patch"], resources=["services/status"]),
     Request("patch", "", "services", "status"), True),
    (rule(["patch"], resources=["*/status"]), Request("patch", "", "pods", "status"), True),
    (rule(["patch"], resources=["*/status"]), Request("patch", "", "pods"), False),
    (rule(["patch"], resources=["*"]), Request("patch", "", "pods", "status"), True),
    # resourceNames restrict to named objects; a request without a name never matches
    (rule(["get"], resources=["secrets"], names=["memberlist"]),
     Request("get", "", "secrets", name="memberlist"), True),
    (rule(["get"], resources=["secrets"], names=["memberlist"]),
     Request("get", "", "secrets", name="other"), False),
    (rule(["list", "create"], resources=["secrets"], names=["memberlist"]),
     Request("list", "", "secrets"), False),
    (rule(["list", "create"], resources=["secrets"], names=["memberlist"]),
     Request("create", "", "secrets"), False),
    # non-resource URLs: exact or a trailing-* prefix; they never grant resources
    (rule(["get"], urls=["/version"]), Request("get", path="/version"), True),
    (rule(["get"], urls=["/apis/*"]), Request("get", path="/apis/metallb.io/v1beta1"), True),
    (rule(["get"], urls=["/apis/*"]), Request("get", path="/apis"), False),
    (rule(["get"], urls=["/api"]), Request("post", path="/api"), False),
    (rule(["get"], urls=["*"]), Request("get", "", "services"), False),
    (rule(["get"], resources=["*"]), Request("get", path="/api"), False),
]


@pytest.mark.parametrize("policy_rule,request_,allowed", RULE_CASES)
def test_rule_matching(policy_rule, request_, allowed):
    assert rule_allows(policy_rule, request_) is allowed


def binding(kind, name, role_kind, role, subjects, namespace=None):
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"kind": kind, "metadata": meta, "subjects": subjects,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind,
                        "name": role}}


def sa_subject(name="speaker", namespace="metallb-system"):
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


POLICY = Policy.build(
    cluster_roles=[
        {"metadata": {"name": "metallb-system:speaker"},
         "rules": [rule(["list", "watch"], resources=["services", "nodes"])]},
        {"metadata": {"name": "secret-reader"}, "rules": [rule(["get"], resources=["secrets"])]},
        {"metadata": {"name": "urls"}, "rules": [rule(["get"], urls=["/metrics"])]},
        {"metadata": {"name": "devs"}, "rules": [rule(["create"], resources=["configmaps"])]},
    ],
    roles=[
        {"metadata": {"name": "agent", "namespace": "metallb-system"},
         "rules": [rule(["create", "delete"], groups=["metallb.io"],
                        resources=["servicel2statuses"])]},
        {"metadata": {"name": "elsewhere", "namespace": "default"},
         "rules": [rule(["*"], groups=["*"], resources=["*"])]},
    ],
    cluster_role_bindings=[
        binding("ClusterRoleBinding", "metallb-system:speaker", "ClusterRole", "metallb-system:speaker",
                [sa_subject()]),
        binding("ClusterRoleBinding", "urls", "ClusterRole", "urls", [sa_subject()]),
        # a ClusterRoleBinding cannot reference a Role: grants nothing
        binding("ClusterRoleBinding", "bad", "Role", "elsewhere", [sa_subject()]),
        binding("ClusterRoleBinding", "devs", "ClusterRole", "devs",
                [{"kind": "Group", "name": "devs"}]),
        binding("ClusterRoleBinding", "missing", "ClusterRole", "no-such-role",
                [sa_subject()]),
    ],
    role_bindings=[
        binding("RoleBinding", "agent", "Role", "agent", [sa_subject()], "metallb-system"),
        # a RoleBinding of a ClusterRole grants it in its own namespace only
        binding("RoleBinding", "read", "ClusterRole", "secret-reader", [sa_subject()],
                "metallb-system"),
        # a ServiceAccount subject without a namespace means the binding's namespace
        binding("RoleBinding", "local", "ClusterRole", "secret-reader",
                [{"kind": "ServiceAccount", "name": "speaker"}], "default"),
        binding("RoleBinding", "alice", "ClusterRole", "secret-reader",
                [{"kind": "User", "name": "alice"}], "kube-system"),
    ],
)

DECISIONS = [
    # (user, request, allowed)
    (SA, Request("list", "", "services"), True),  # cluster scope via ClusterRoleBinding
    (SA, Request("list", "", "services", namespace="default"), True),  # and every namespace
    (SA, Request("create", "", "services", namespace="default"), False),
    (OTHER_SA, Request("list", "", "services"), False),  # same name, other namespace
    (SA, Request("create", "metallb.io", "servicel2statuses", namespace="metallb-system"), True),
    (SA, Request("create", "metallb.io", "servicel2statuses", namespace="default"), False),
    (SA, Request("create", "metallb.io", "servicel2statuses"), False),  # not at cluster scope
    (SA, Request("get", "", "secrets", namespace="metallb-system", name="s"), True),
    (SA, Request("get", "", "secrets", namespace="kube-system", name="s"), False),
    (SA, Request("get", "", "secrets", name="s"), False),
    (OTHER_SA, Request("get", "", "secrets", namespace="default", name="s"), True),
    (SA, Request("get", "", "secrets", namespace="default", name="s"), False),
    (SA, Request("get", "", "configmaps", namespace="default", name="c"), False),  # bad binding
    (ALICE, Request("create", "", "configmaps", namespace="x"), True),  # by group
    (ALICE, Request("get", "", "secrets", namespace="kube-system", name="s"), True),  # by user
    (ALICE, Request("get", "", "secrets", namespace="default", name="s"), False),
    (SA, Request("get", path="/metrics"), True),
    # the bootstrap discovery role, for every authenticated user
    (SA, Request("get", path="/apis/metallb.io/v1beta1"), True),
    (SA, Request("get", path="/version"), True),
    (SA, Request("get", path="/"), False),
    (User("anonymous"), Request("get", path="/apis"), False),
]


@pytest.mark.parametrize("user,request_,allowed", DECISIONS)
def test_decisions(user, request_, allowed):
    decision = POLICY.decide(user, request_)
    assert decision.allowed is allowed
    assert bool(decision.by) is allowed


def test_decision_names_the_binding_and_role():
    decision = POLICY.decide(SA, Request("create", "metallb.io", "servicel2statuses",
                                         namespace="metallb-system"))
    assert decision.by == "RoleBinding metallb-system/agent of Role metallb-system/agent"


def test_rules_of_lists_every_grant_with_its_scope():
    granted = POLICY.rules_of(SA)
    assert ("", rule(["list", "watch"], resources=["services", "nodes"])) in granted
    assert ("metallb-system", rule(["get"], resources=["secrets"])) in granted
    assert all(ns != "default" for ns, _ in granted)


MESSAGES = [
    (Request("list", "", "services"),
     'User "system:serviceaccount:metallb-system:speaker" cannot list resource "services" '
     'in API group "" at the cluster scope'),
    (Request("patch", "", "services", "status", "default", "x"),
     'User "system:serviceaccount:metallb-system:speaker" cannot patch resource '
     '"services/status" in API group "" in the namespace "default"'),
    (Request("get", path="/"),
     'User "system:serviceaccount:metallb-system:speaker" cannot get path "/"'),
]


@pytest.mark.parametrize("request_,message", MESSAGES)
def test_forbidden_message(request_, message):
    assert forbidden_message(SA, request_) == message
