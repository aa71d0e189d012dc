# SPDX-License-Identifier: Apache-2.0
"""TokenReview and SubjectAccessReview: what a server that delegates authentication and
authorization (kube-rbac-proxy, MetalLB's and Ingot's /metrics) gets from the test API server,
as tables over the REST API, and who may create them."""

from __future__ import annotations

import pytest

from conftest import TOKEN, ApiClient
from test_authz import NS, USER, grant, sa_token

TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SARS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
SA_GROUPS = ["system:serviceaccounts", f"system:serviceaccounts:{NS}", "system:authenticated"]


def token_review(token: str) -> dict:
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {"token": token}}


def sar(spec: dict) -> dict:
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": spec}


def metrics_reader(client, name="prometheus", urls=("/metrics",)):
    """Binds ClusterRole `name` with get on urls to the ServiceAccount `name`."""
    client.post(f"{RBAC}/clusterroles", {"metadata": {"name": name}, "rules": [
        {"nonResourceURLs": list(urls), "verbs": ["get"]}]})
    client.post(f"{RBAC}/clusterrolebindings", {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": NS}]})


@pytest.mark.parametrize("desc, token_of, want", [
    ("a ServiceAccount token names its user and groups", "sa",
     {"authenticated": True, "user": {"username": USER, "groups": SA_GROUPS}}),
    ("a forged token is not authenticated", "forged",
     {"user": {}, "error": "invalid bearer token"}),
    ("a revoked token (Secret deleted) is not authenticated", "revoked",
     {"user": {}, "error": "invalid bearer token"}),
    ("an admin token is in system:masters", "admin",
     {"authenticated": True, "user": {"username": "kubeapi:admin",
                                      "groups": ["system:masters", "system:authenticated"]}}),
])
def test_token_review(client, desc, token_of, want):
    token = sa_token(client)
    if token_of == "forged":
        token = token[:-2] + "xx"
    elif token_of == "revoked":
        assert client.delete(f"/api/v1/namespaces/{NS}/secrets/agent-token").status == 200
    elif token_of == "admin":
        token = TOKEN
    r = client.post(TOKEN_REVIEWS, token_review(token))
    assert r.status == 201, (desc, r.body)
    assert r.body["kind"] == "TokenReview" and r.body["status"] == want, desc


def test_token_review_needs_a_token_and_is_create_only(client):
    r = client.post(TOKEN_REVIEWS, token_review(""))
    assert (r.status, r.message) == (400, "token is required for TokenReview in authentication")
    assert client.get(TOKEN_REVIEWS).status == 405
    assert client.get(f"{TOKEN_REVIEWS}/x").status == 405
    discovery = client.get("/apis/authentication.k8s.io/v1").body["resources"]
    assert [(d["name"], d["verbs"]) for d in discovery] == [("tokenreviews", ["create"])]


@pytest.mark.parametrize("desc, spec, allowed", [
    ("get /metrics granted by a ClusterRoleBinding",
     {"user": "system:serviceaccount:metallb-system:prometheus", "groups": SA_GROUPS,
      "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}, True),
    ("another path is not granted",
     {"user": "system:serviceaccount:metallb-system:prometheus", "groups": SA_GROUPS,
      "nonResourceAttributes": {"path": "/debug", "verb": "get"}}, False),
    ("another verb is not granted",
     {"user": "system:serviceaccount:metallb-system:prometheus", "groups": SA_GROUPS,
      "nonResourceAttributes": {"path": "/metrics", "verb": "post"}}, False),
    ("another ServiceAccount is not granted",
     {"user": USER, "groups": SA_GROUPS,
      "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}, False),
    ("discovery is every authenticated user's",
     {"user": USER, "groups": SA_GROUPS,
      "nonResourceAttributes": {"path": "/version", "verb": "get"}}, True),
    ("system:masters may do anything",
     {"user": "root", "groups": ["system:masters"],
      "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}, True),
    ("resource attributes follow the same policy",
     {"user": "system:serviceaccount:metallb-system:prometheus", "groups": SA_GROUPS,
      "resourceAttributes": {"verb": "list", "resource": "services"}}, False),
])
def test_subject_access_review(client, desc, spec, allowed):
    metrics_reader(client)
    r = client.post(SARS, sar(spec))
    assert r.status == 201, (desc, r.body)
    assert r.body["status"]["allowed"] is allowed, desc
    if allowed and "system:masters" not in spec["groups"]:
        assert r.body["status"]["reason"].startswith("RBAC: allowed by ClusterRoleBinding"), desc


@pytest.mark.parametrize("desc, spec, field", [
    ("neither attribute kind", {"user": "u"}, "spec.resourceAttributes"),
    ("both attribute kinds", {"user": "u", "resourceAttributes": {"verb": "get"},
                              "nonResourceAttributes": {"verb": "get", "path": "/x"}},
     "spec.nonResourceAttributes"),
    ("no user and no group", {"nonResourceAttributes": {"verb": "get", "path": "/x"}},
     "spec.user"),
])
def test_subject_access_review_is_validated(client, desc, spec, field):
    r = client.post(SARS, sar(spec))
    assert r.status == 422, desc
    assert [c["field"] for c in r.body["details"]["causes"]] == [field], desc


def test_creating_reviews_needs_rbac(server, client):
    """A ServiceAccount may create reviews only when its role grants it, as MetalLB's speaker
    and controller ClusterRoles do."""
    agent = ApiClient(server, token=sa_token(client))
    body = token_review(TOKEN)
    assert agent.post(TOKEN_REVIEWS, body).status == 403
    grant(client, [{"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
                    "verbs": ["create"]},
                   {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
                    "verbs": ["create"]}])
    assert agent.post(TOKEN_REVIEWS, body).status == 201
    assert agent.post(SARS, sar({"user": "u", "nonResourceAttributes": {
        "verb": "get", "path": "/metrics"}})).body["status"] == {"allowed": False}
