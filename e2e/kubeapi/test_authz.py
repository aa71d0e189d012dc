# SPDX-License-Identifier: Apache-2.0
"""ServiceAccount tokens and RBAC through the REST API and kubectl: token Secrets, 401 when a
token is revoked, 403 Status bodies as a real server sends them, the policy following RBAC
writes, and the decision record."""

from __future__ import annotations

import base64
import json
import os
import subprocess

from conftest import KUBECTL, SVC, ApiClient

NS = "metallb-system"
SAS = f"/api/v1/namespaces/{NS}/serviceaccounts"
SECRETS = f"/api/v1/namespaces/{NS}/secrets"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
USER = "system:serviceaccount:metallb-system:agent"


def sa_token(client, name="agent") -> str:
    assert client.post(SAS, {"metadata": {"name": name}}).status == 201
    secret = {"metadata": {"name": f"{name}-token",
                           "annotations": {"kubernetes.io/service-account.name": name}},
              "type": "kubernetes.io/service-account-token"}
    created = client.post(SECRETS, secret)
    assert created.status == 201, created.body
    return base64.b64decode(created.body["data"]["token"]).decode()


def grant(client, rules, namespace=None):
    kind, path = ("Role", f"{RBAC}/namespaces/{namespace}/roles") if namespace else \
        ("ClusterRole", f"{RBAC}/clusterroles")
    meta = {"name": "agent", **({"namespace": namespace} if namespace else {})}
    assert client.post(path, {"metadata": meta, "rules": rules}).status == 201
    bpath = path.replace("roles", "rolebindings")
    binding = {"metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                             "kind": kind, "name": "agent"},
               "subjects": [{"kind": "ServiceAccount", "name": "agent", "namespace": NS}]}
    assert client.post(bpath, binding).status == 201


def test_token_secret_is_filled_and_authenticates(server, client):
    token = sa_token(client)
    secret = client.get(f"{SECRETS}/agent-token").body
    sa = client.get(f"{SAS}/agent").body
    assert secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"] == \
        sa["metadata"]["uid"]
    assert base64.b64decode(secret["data"]["namespace"]) == NS.encode()
    assert base64.b64decode(secret["data"]["ca.crt"]) == server.ca_file.read_bytes()
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["sub"] == USER
    agent = ApiClient(server, token=token)
    assert agent.get("/api/v1").status == 200  # discovery: every authenticated user
    refused = agent.get("/api/v1/services")
    assert refused.status == 403
    assert refused.body == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'services is forbidden: User "{USER}" cannot list resource "services" in '
                   'API group "" at the cluster scope',
        "reason": "Forbidden", "details": {"kind": "services"}, "code": 403}
    # a forged or revoked token is 401
    assert ApiClient(server, token=token[:-2] + "xx").get("/api/v1").status == 401
    assert client.delete(f"{SECRETS}/agent-token").status == 200
    assert agent.get("/api/v1").status == 401


def test_token_needs_the_annotation(client):
    created = client.post(SECRETS, {"metadata": {"name": "t"},
                                    "type": "kubernetes.io/service-account-token"})
    assert created.status == 422
    assert "kubernetes.io/service-account.name" in created.message


def test_roles_bindings_and_subresources(server, client):
    agent = ApiClient(server, token=sa_token(client))
    assert agent.get("/api/v1/services").status == 403
    grant(client, [{"apiGroups": [""], "resources": ["services"], "verbs": ["list", "watch"]}])
    assert agent.get("/api/v1/services").status == 200  # the policy follows RBAC writes
    with agent.watch(SVC) as stream:
        assert stream.status == 200
    svc = client.post(SVC, {"metadata": {"name": "s"}, "spec": {"type": "LoadBalancer",
                                                                 "ports": [{"port": 80}]}})
    status = agent.patch(f"{SVC}/s/status", {"status": {}})
    assert status.status == 403 and status.message == (
        f'services "s" is forbidden: User "{USER}" cannot patch resource "services/status" in '
        'API group "" in the namespace "default"')
    assert svc.status == 201
    grant(client, [{"apiGroups": [""], "resources": ["services/status"], "verbs": ["patch"]},
                   {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"],
                    "resourceNames": ["memberlist"]}], namespace="default")
    assert agent.patch(f"{SVC}/s/status", {"status": {}}).status == 200
    assert agent.patch(f"{SVC}/s", {"metadata": {"labels": {"a": "b"}}}).status == 403
    client.post("/api/v1/namespaces/default/secrets", {"metadata": {"name": "memberlist"}})
    assert agent.get("/api/v1/namespaces/default/secrets/memberlist").status == 200
    assert agent.get("/api/v1/namespaces/default/secrets/other").status == 403
    assert agent.get("/api/v1/namespaces/default/secrets").status == 403
    assert agent.get(f"/api/v1/namespaces/{NS}/secrets/memberlist").status == 403
    assert client.delete(f"{RBAC}/namespaces/default/rolebindings/agent").status == 200
    assert agent.patch(f"{SVC}/s/status", {"status": {}}).status == 403


def test_decision_record_and_rbac_off(start_server, tmp_path):
    record = tmp_path / "authz.jsonl"
    server = start_server(authz_log=str(record))
    client = ApiClient(server)
    agent = ApiClient(server, token=sa_token(client))
    for _ in range(3):
        assert agent.get("/api/v1/namespaces/default/services").status == 403
    assert agent.get("/apis").status == 200
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines == [
        {"user": USER, "verb": "list", "group": "", "resource": "services", "subresource": "",
         "namespace": "default", "name": "", "path": "", "allowed": False},
        {"user": USER, "verb": "get", "group": "", "resource": "", "subresource": "",
         "namespace": "", "name": "", "path": "/apis", "allowed": True}]
    client.get("/api/v1/services")  # the all-powerful token is not recorded
    assert len(record.read_text().splitlines()) == 2
    server.authorizer.enabled = False
    assert agent.get("/api/v1/namespaces/default/services").status == 200


def test_kubectl_with_a_service_account_token(server, client, tmp_path):
    token = sa_token(client)
    grant(client, [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}])
    server.write_kubeconfig(tmp_path / "kc", token=token)
    env = dict(os.environ, HOME=str(tmp_path), KUBECACHEDIR=str(tmp_path / "cache"))

    def kubectl(*args):
        return subprocess.run([KUBECTL, "--kubeconfig", str(tmp_path / "kc"), *args],
                              capture_output=True, text=True, env=env, timeout=30)
    assert kubectl("get", "configmaps", "-A").returncode == 0
    denied = kubectl("get", "services", "-n", "default")
    assert denied.returncode != 0
    assert (f'services is forbidden: User "{USER}" cannot list resource "services" in API '
            'group "" in the namespace "default"') in denied.stderr
