# SPDX-License-Identifier: Apache-2.0
"""The authorisation and admission seams (kubeapi.admission) through the REST API: what a later
RBAC, CRD schema validation or webhook plugs into."""

from __future__ import annotations

from conftest import CM, POOLS, SVC, TOKEN, configmap, lb_service, pool

import kubeapi
from kubeapi.errors import FieldError


class Recorder(kubeapi.AdmissionPlugin):
    """Remembers every request and refuses ConfigMaps labelled deny=yes."""

    def __init__(self):
        self.seen = []

    def admit(self, request: kubeapi.AdmissionRequest) -> None:
        self.seen.append((request.operation, request.res.plural, request.name, request.sub,
                          request.dry_run))
        labels = ((request.obj or {}).get("metadata") or {}).get("labels") or {}
        if labels.get("deny") == "yes":
            raise FieldError("metadata.labels.deny", "FieldValueForbidden",
                             'Forbidden: "yes" is refused by admission')


class Defaulter(kubeapi.AdmissionPlugin):
    """A mutating step: defaults IPAddressPool spec.autoAssign, as the CRD schema would."""

    def admit(self, request: kubeapi.AdmissionRequest) -> None:
        if request.res.kind == "IPAddressPool" and request.obj is not None:
            request.obj["spec"].setdefault("autoAssign", True)


class NoSecrets(kubeapi.Authorizer):
    def __init__(self):
        self.seen = []

    def authorize(self, attributes: kubeapi.Attributes) -> None:
        self.seen.append((attributes.token, attributes.verb, attributes.res.plural,
                          attributes.namespace, attributes.name, attributes.sub))
        if attributes.res.plural == "secrets":
            raise kubeapi.forbidden(attributes, f'User "{attributes.token}" cannot '
                                    f'{attributes.verb} resource "secrets" in API group "" '
                                    f'in the namespace "{attributes.namespace}"')


def test_admission_sees_every_write_and_can_refuse_one(server, client):
    recorder = Recorder()
    server.cluster.admission.append(recorder)
    assert client.post(CM, configmap("a")).status == 201
    assert client.patch(f"{CM}/a", {"data": {"k": "v"}}).status == 200
    assert client.post(f"{CM}?dryRun=All", configmap("b")).status == 201
    assert client.delete(f"{CM}/a").status == 200
    refused = client.post(CM, configmap("c", labels={"deny": "yes"}))
    assert refused.status == 422 and refused.reason == "Invalid"
    assert refused.body["details"]["causes"][0]["field"] == "metadata.labels.deny"
    assert client.get(f"{CM}/c").status == 404
    svc = client.post(SVC, lb_service("s")).body
    assert client.put(f"{SVC}/s/status", dict(svc, status={"loadBalancer": {}})).status == 200
    assert [s for s in recorder.seen if s[1] == "configmaps"] == [
        ("CREATE", "configmaps", "a", "", False), ("UPDATE", "configmaps", "a", "", False),
        ("CREATE", "configmaps", "b", "", True), ("DELETE", "configmaps", "a", "", False),
        ("CREATE", "configmaps", "c", "", False)]
    assert ("UPDATE", "services", "s", "status", False) in recorder.seen


def test_a_mutating_plugin_changes_what_is_stored(server, client):
    server.cluster.admission.append(Defaulter())
    created = client.post(POOLS, pool("p1"))
    assert created.status == 201 and created.body["spec"]["autoAssign"] is True
    assert client.get(f"{POOLS}/p1").body["spec"]["autoAssign"] is True


def test_the_authorizer_sees_each_request_and_can_forbid_it(server, client):
    server.authorizer = NoSecrets()
    secrets = "/api/v1/namespaces/default/secrets"
    denied = client.get(f"{secrets}/x")
    assert denied.status == 403 and denied.reason == "Forbidden"
    assert denied.message == ('secrets "x" is forbidden: User "test-token" cannot get resource '
                              '"secrets" in API group "" in the namespace "default"')
    assert client.get(secrets).message.startswith("secrets is forbidden: ")
    assert client.get(CM).status == 200
    assert client.get("/version").status == 200  # non-resource paths are not resource verbs
    assert server.authorizer.seen == [(TOKEN, "get", "secrets", "default", "x", ""),
                                      (TOKEN, "list", "secrets", "default", "", ""),
                                      (TOKEN, "list", "configmaps", "default", "", "")]


class SizeSeen(kubeapi.AdmissionPlugin):
    """Remembers the spec.size each write of a Gadget carries when it reaches this plugin."""

    def __init__(self):
        self.sizes = []

    def admit(self, request: kubeapi.AdmissionRequest) -> None:
        if request.res.kind == "Gadget" and request.obj is not None:
            self.sizes.append(request.obj["spec"].get("size"))


def test_schema_defaults_of_the_version_written_come_before_other_plugins(server, client):
    crd = kubeapi.crd_manifest("example.com", "gadgets", "Gadget", versions=("v2", "v1"))
    for version, size in zip(crd["spec"]["versions"], ("large", "small")):
        version["schema"]["openAPIV3Schema"]["properties"] = {"spec": {
            "type": "object", "properties": {"size": {"type": "string", "default": size}}}}
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    assert client.post(crds, crd).status == 201
    seen = SizeSeen()
    server.cluster.admission.append(seen)
    for version in ("v2", "v1"):
        url = f"/apis/example.com/{version}/namespaces/default/gadgets"
        body = {"apiVersion": f"example.com/{version}", "kind": "Gadget",
                "metadata": {"name": f"g-{version}"}, "spec": {}}
        assert client.post(url, body).body["spec"] == {"size": seen.sizes[-1]}
    assert seen.sizes == ["large", "small"]
    # A merge patch that removes a defaulted field gets the default of the patched version back.
    patched = client.patch("/apis/example.com/v2/namespaces/default/gadgets/g-v1",
                           {"spec": {"size": None}})
    assert patched.status == 200 and patched.body["spec"] == {"size": "large"}
    assert seen.sizes[-1] == "large"
