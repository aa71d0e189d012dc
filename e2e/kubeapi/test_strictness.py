# SPDX-License-Identifier: Apache-2.0
"""The checks that make the test API server as strict as kube-apiserver: object metadata
(objectmeta.py), the Service strategy (service_strategy.py), conditional updates of custom
resources, the generation rule per kind, and protobuf request bodies (protobuf.py), the last
with the real kubectl."""

from __future__ import annotations

import base64
import json

import pytest

from conftest import CM, POOLS, SVC, configmap, kubeapi, lb_service, pool

# ---------------------------------------------------------------------------------------------
# metadata: apimachinery pkg/api/validation/objectmeta.go ValidateObjectMeta (ValidateLabels,
# ValidateAnnotations, ValidateOwnerReferences, ValidateFinalizers); the name itself is
# checked per kind (NameIsDNSSubdomain and friends, test_server.py).

OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
         "uid": "6f1e2d3c-0000-4000-8000-000000000001"}

# (case, metadata fields, expected cause field(s) or None when valid, text in the first
# cause's message)
METADATA_CASES = [
    ("plain labels", {"labels": {"app": "web", "example.com/tier": "front_end.1"}}, None, ""),
    ("empty label value", {"labels": {"app": ""}}, None, ""),
    ("value with a space", {"labels": {"app": "a b"}}, "metadata.labels",
     'Invalid value: "a b": a valid label must be an empty string'),
    ("value of 64 characters", {"labels": {"app": "a" * 64}}, "metadata.labels",
     "must be no more than 63 characters"),
    ("value of 63 characters", {"labels": {"app": "a" * 63}}, None, ""),
    ("value ending in a dash", {"labels": {"app": "web-"}}, "metadata.labels",
     "must start and end with an alphanumeric character"),
    ("key with two slashes", {"labels": {"a/b/c": "x"}}, "metadata.labels",
     "a qualified name must consist of"),
    ("key with an upper-case prefix", {"labels": {"Example.com/x": "y"}}, "metadata.labels",
     "prefix part a lowercase RFC 1123 subdomain"),
    ("key name of 64 characters", {"labels": {"k" * 64: "y"}}, "metadata.labels",
     "name part must be no more than 63 characters"),
    ("annotation key with a space", {"annotations": {"my note": "x"}}, "metadata.annotations",
     'Invalid value: "my note": name part must consist of'),
    ("annotation key upper case is fine", {"annotations": {"Example.com/Note": "x"}}, None, ""),
    ("annotations at 256 KiB", {"annotations": {"a": "x" * (256 * 1024 - 1)}}, None, ""),
    ("annotations above 256 KiB", {"annotations": {"a": "x" * (256 * 1024)}},
     "metadata.annotations", "Too long: may not be more than 262144 bytes"),
    ("qualified finalizer", {"finalizers": ["example.com/hold"]}, None, ""),
    ("finalizer with a space", {"finalizers": ["example.com/a hold"]}, "metadata.finalizers",
     "name part must consist of"),
    ("duplicate finalizer", {"finalizers": ["example.com/x", "example.com/x"]},
     "metadata.finalizers", 'Duplicate value: "example.com/x"'),
    ("owner reference", {"ownerReferences": [OWNER]}, None, ""),
    ("owner reference without uid", {"ownerReferences": [dict(OWNER, uid="")]},
     "metadata.ownerReferences.uid", "uid must not be empty"),
    ("owner reference without apiVersion",
     {"ownerReferences": [{k: v for k, v in OWNER.items() if k != "apiVersion"}]},
     "metadata.ownerReferences.apiVersion", "version must not be empty"),
    ("owner reference without kind", {"ownerReferences": [dict(OWNER, kind="")]},
     "metadata.ownerReferences.kind", "kind must not be empty"),
    ("owner reference without name", {"ownerReferences": [dict(OWNER, name="")]},
     "metadata.ownerReferences.name", "name must not be empty"),
    ("two controllers", {"ownerReferences": [dict(OWNER, controller=True),
                                             dict(OWNER, name="o2", uid="u2", controller=True)]},
     "metadata.ownerReferences", "Only one reference can have Controller set to true"),
    # the generated name is invalid too, and ValidateObjectMeta reports both
    ("generateName not a subdomain", {"name": None, "generateName": "Web-"},
     ("metadata.generateName", "metadata.name"), "a lowercase RFC 1123 subdomain"),
]


@pytest.mark.parametrize("case,fields,field,text", METADATA_CASES,
                         ids=[c[0] for c in METADATA_CASES])
def test_metadata_is_validated_on_create_like_validate_object_meta(client, case, fields,
                                                                   field, text):
    body = configmap("cm1")
    body["metadata"].update(fields)
    if body["metadata"].get("name") is None:
        body["metadata"].pop("name")
    answer = client.post(CM, body)
    if field is None:
        assert answer.status == 201, answer.body
        return
    assert answer.status == 422 and answer.reason == "Invalid", answer.body
    causes = answer.body["details"]["causes"]
    assert [c["field"] for c in causes] == (list(field) if isinstance(field, tuple)
                                            else [field]), causes
    assert text in causes[0]["message"] and answer.message.startswith('ConfigMap "')
    assert causes[0]["reason"] in ("FieldValueInvalid", "FieldValueTooLong",
                                   "FieldValueDuplicate")


def test_metadata_is_validated_on_update_and_patch_too(client):
    created = client.post(POOLS, pool("pool1")).body
    created["metadata"]["labels"] = {"app": "-bad"}
    put = client.put(f"{POOLS}/pool1", created)
    assert put.status == 422 and put.body["details"]["causes"][0]["field"] == "metadata.labels"
    assert put.message.startswith('IPAddressPool.metallb.io "pool1" is invalid: metadata.labels')
    patched = client.patch(f"{POOLS}/pool1", {"metadata": {"finalizers": ["a b"]}})
    assert patched.status == 422
    assert patched.body["details"]["causes"][0]["field"] == "metadata.finalizers"
    status = client.patch(f"{POOLS}/pool1/status", {"metadata": {"labels": {"x": "a b"}}})
    assert status.status == 200  # a custom resource's /status write ignores metadata
    assert client.get(f"{POOLS}/pool1").body["metadata"].get("labels") is None


def test_every_metadata_problem_is_reported_at_once(client):
    body = configmap("cm1", labels={"app": "a b"})
    body["metadata"]["finalizers"] = ["x y"]
    answer = client.post(CM, body)
    assert answer.status == 422
    assert [c["field"] for c in answer.body["details"]["causes"]] == [
        "metadata.labels", "metadata.finalizers"]
    assert answer.message.startswith('ConfigMap "cm1" is invalid: [metadata.labels: ')


def test_custom_resource_names_are_dns_subdomains(client):
    """apiextensions-apiserver customResourceValidator.ValidateObjectMeta uses
    NameIsDNSSubdomain for every custom resource."""
    for name in ("Pool1", "pool_1", "pool1-"):
        answer = client.post(POOLS, pool(name))
        assert answer.status == 422, (name, answer.body)
        assert answer.body["details"]["causes"][0]["field"] == "metadata.name"
        assert "a lowercase RFC 1123 subdomain" in answer.message
    assert client.post(POOLS, pool("pool-1.example")).status == 201


# ---------------------------------------------------------------------------------------------
# custom resources: customResourceStrategy.AllowUnconditionalUpdate is false, so
# apiserver pkg/registry/rest/update.go BeforeUpdate refuses a PUT without resourceVersion.


def test_custom_resource_put_without_resource_version_is_invalid(client):
    created = client.post(POOLS, pool("pool1")).body
    for path in (f"{POOLS}/pool1", f"{POOLS}/pool1/status"):
        body = json.loads(json.dumps(created))
        del body["metadata"]["resourceVersion"]
        answer = client.put(path, body)
        assert answer.status == 422 and answer.reason == "Invalid"
        assert answer.message == ('IPAddressPool.metallb.io "pool1" is invalid: '
                                  "metadata.resourceVersion: Invalid value: 0x0: must be "
                                  "specified for an update")
        assert answer.body["details"]["causes"][0]["field"] == "metadata.resourceVersion"
    assert client.put(f"{POOLS}/pool1", created).status == 200  # with it: fine
    # a patch needs none, and built-in kinds allow unconditional updates
    assert client.patch(f"{POOLS}/pool1", {"metadata": {"labels": {"a": "b"}}}).status == 200
    cm = client.post(CM, configmap("cm1")).body
    del cm["metadata"]["resourceVersion"]
    assert client.put(f"{CM}/cm1", cm).status == 200


# ---------------------------------------------------------------------------------------------
# generation: custom resources and Deployments get it; the Service strategy
# (pkg/registry/core/service/strategy.go PrepareForCreate/PrepareForUpdate) and the Pod one
# never set it.

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"},
       "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d1"},
              "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                  "metadata": {"labels": {"a": "b"}}, "spec": {"containers": []}}}}

GENERATION_CASES = [
    ("service", SVC, lb_service("web"), "spec", {"ports": [{"port": 81}]}, None),
    ("pod", "/api/v1/namespaces/default/pods", POD, "spec", {"nodeName": "n1"}, None),
    ("deployment", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT, "spec",
     {"replicas": 3}, 2),
    ("custom resource", POOLS, pool("pool1"), "spec", {"addresses": ["10.0.0.0/24"]}, 2),
]


@pytest.mark.parametrize("case,path,body,part,change,after", GENERATION_CASES,
                         ids=[c[0] for c in GENERATION_CASES])
def test_generation_only_for_kinds_whose_strategy_sets_it(client, case, path, body, part,
                                                          change, after):
    created = client.post(path, body)
    assert created.status == 201, created.body
    name = created.body["metadata"]["name"]
    assert created.body["metadata"].get("generation") == (1 if after else None)
    changed = client.patch(f"{path}/{name}", {part: change})
    assert changed.status == 200, changed.body
    assert changed.body["metadata"].get("generation") == after


# ---------------------------------------------------------------------------------------------
# Service strategy: pkg/apis/core/validation validateLoadBalancerClassField (from
# ValidateServiceUpdate), SetDefaults_Service (ipMode) and ValidateLoadBalancerStatus (from
# ValidateServiceStatusUpdate).

# (case, class at create, type and class written, expected failing field or None)
CLASS_CASES = [
    ("unchanged class", "example.com/lb", ("LoadBalancer", "example.com/lb"), None),
    ("changed class", "example.com/lb", ("LoadBalancer", "example.com/other"),
     "spec.loadBalancerClass"),
    ("cleared class", "example.com/lb", ("LoadBalancer", None), "spec.loadBalancerClass"),
    ("class set later", None, ("LoadBalancer", "example.com/lb"), "spec.loadBalancerClass"),
    ("type changed away drops the class", "example.com/lb", ("ClusterIP", "example.com/lb"),
     None),
    ("class on a ClusterIP Service", None, ("ClusterIP", "example.com/lb"),
     "spec.loadBalancerClass"),
]


@pytest.mark.parametrize("case,initial,written,field", CLASS_CASES,
                         ids=[c[0] for c in CLASS_CASES])
def test_load_balancer_class_is_immutable(client, case, initial, written, field):
    extra = {"loadBalancerClass": initial} if initial else {}
    created = client.post(SVC, lb_service("web", **extra)).body
    created["spec"]["type"], created["spec"]["loadBalancerClass"] = written
    if written[1] is None:
        del created["spec"]["loadBalancerClass"]
    answer = client.put(f"{SVC}/web", created)
    if field is None:
        assert answer.status == 200, answer.body
        if written[0] != "LoadBalancer":
            assert "loadBalancerClass" not in answer.body["spec"]
        return
    assert answer.status == 422, answer.body
    assert [c["field"] for c in answer.body["details"]["causes"]] == [field]


def test_load_balancer_class_on_create_needs_type_load_balancer(client):
    body = lb_service("web", type="ClusterIP", loadBalancerClass="example.com/lb")
    answer = client.post(SVC, body)
    assert answer.status == 422 and answer.message == (
        'Service "web" is invalid: spec.loadBalancerClass: Forbidden: may only be used when '
        "`type` is 'LoadBalancer'")


# (case, ingress written, expected stored ingress or the failing field)
INGRESS_CASES = [
    ("ipv4 gets ipMode VIP", [{"ip": "192.168.10.1"}], [{"ip": "192.168.10.1", "ipMode": "VIP"}]),
    ("ipv6 gets ipMode VIP", [{"ip": "fd00::1"}], [{"ip": "fd00::1", "ipMode": "VIP"}]),
    ("Proxy is kept", [{"ip": "192.168.10.1", "ipMode": "Proxy"}],
     [{"ip": "192.168.10.1", "ipMode": "Proxy"}]),
    ("hostname only", [{"hostname": "lb.example.com"}], [{"hostname": "lb.example.com"}]),
    ("not an IP", [{"ip": "192.168.10.300"}], "status.loadBalancer.ingress[0].ip"),
    ("second entry not an IP", [{"ip": "192.168.10.1"}, {"ip": "lb"}],
     "status.loadBalancer.ingress[1].ip"),
    ("unknown ipMode", [{"ip": "192.168.10.1", "ipMode": "Direct"}],
     "status.loadBalancer.ingress[0].ipMode"),
    ("ipMode without ip", [{"hostname": "lb.example.com", "ipMode": "VIP"}],
     "status.loadBalancer.ingress[0].ipMode"),
    ("hostname that is an IP", [{"hostname": "192.168.10.1"}],
     "status.loadBalancer.ingress[0].hostname"),
]


@pytest.mark.parametrize("case,ingress,expected", INGRESS_CASES,
                         ids=[c[0] for c in INGRESS_CASES])
def test_service_status_ingress_is_defaulted_and_validated(client, case, ingress, expected):
    client.post(SVC, lb_service("web"))
    answer = client.patch(f"{SVC}/web/status", {"status": {"loadBalancer": {"ingress": ingress}}})
    if isinstance(expected, list):
        assert answer.status == 200, answer.body
        assert answer.body["status"]["loadBalancer"]["ingress"] == expected
        return
    assert answer.status == 422, answer.body
    assert [c["field"] for c in answer.body["details"]["causes"]] == [expected]
    stored = client.get(f"{SVC}/web").body
    assert stored["status"] == {"loadBalancer": {}}  # nothing of the refused write is kept


# ---------------------------------------------------------------------------------------------
# protobuf request bodies: kubectl 1.32 sends Namespace, ConfigMap and Secret so.


def test_kubectl_create_namespace_configmap_secret_in_protobuf(kubectl, client):
    verbose = kubectl("create", "namespace", "demo", "-v=8")
    assert "Content-Type: application/vnd.kubernetes.protobuf" in verbose.stderr  # premise
    assert "namespace/demo created" in verbose.stdout
    assert "configmap/x created" in kubectl(
        "create", "configmap", "x", "-n", "demo", "--from-literal=a=b",
        "--from-literal=empty=").stdout
    assert "secret/y created" in kubectl(
        "create", "secret", "generic", "y", "-n", "demo", "--from-literal=k=v").stdout
    namespace = client.get("/api/v1/namespaces/demo").body
    assert namespace["metadata"]["labels"] == {"kubernetes.io/metadata.name": "demo"}
    assert "generateName" not in namespace["metadata"]
    configmap_ = client.get("/api/v1/namespaces/demo/configmaps/x").body
    assert configmap_["data"] == {"a": "b", "empty": ""}
    secret = client.get("/api/v1/namespaces/demo/secrets/y").body
    assert secret["type"] == "Opaque" and base64.b64decode(secret["data"]["k"]) == b"v"
    bad = kubectl("create", "configmap", "Bad_Name", "--from-literal=a=b", check=False)
    assert bad.returncode != 0 and "metadata.name: Invalid value" in bad.stderr


def test_protobuf_bodies_of_other_kinds_or_malformed_are_refused(client):
    def post(path, body):
        return client.request("POST", path, body,
                              content_type="application/vnd.kubernetes.protobuf")

    # runtime.Unknown{typeMeta{apiVersion "v1", kind "Service"}, raw ""}
    service = b"k8s\x00" + b"\x0a\x0d\x0a\x02v1\x12\x07Service"
    answer = post(SVC, service)
    assert answer.status == 415 and answer.reason == "UnsupportedMediaType"
    truncated = b"k8s\x00" + b"\x0a\x20\x0a\x02v1"
    assert post(CM, truncated).status == 400
    assert post(CM, b'{"metadata": {}}').status == 400  # no k8s\x00 prefix


# ---------------------------------------------------------------------------------------------
# /openapi/v2: a minimal Swagger 2.0 document, JSON or the gnostic protobuf client-go reads.


def test_openapi_v2_is_served_as_json_and_protobuf(client):
    plain = client.get("/openapi/v2")
    assert plain.status == 200 and plain.body["swagger"] == "2.0"
    assert plain.body["info"]["title"] == "Kubernetes" and plain.body["paths"] == {}
    pb = client.get("/openapi/v2",
                    accept="application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
    assert pb.status == 200
    assert pb.headers["Content-Type"] == \
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    raw = pb.body.encode() if isinstance(pb.body, str) else pb.body
    top = {number: value for number, _, value in kubeapi.protobuf.fields(raw)}
    assert top[1] == b"2.0" and set(top) == {1, 2, 8, 9}
    info = {number: value for number, _, value in kubeapi.protobuf.fields(top[2])}
    assert info[1] == b"Kubernetes" and info[2].startswith(b"v1.32")


def test_kubectl_reads_openapi_v2(kubectl):
    # kubectl parses the protobuf document and finds no schema in it; with the document
    # missing or unparsable it reports the HTTP or decoding error instead.
    result = kubectl("explain", "--output", "plaintext-openapiv2", "configmaps", check=False)
    assert result.returncode != 0
    assert result.stderr.strip() == 'error: couldn\'t find resource for "/v1, Kind=ConfigMap"'
