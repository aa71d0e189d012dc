# SPDX-License-Identifier: Apache-2.0
"""ValidatingWebhookConfigurations and CRD conversion webhooks honoured by the test API server,
against a small HTTPS webhook written here (on 127.0.0.1, reached through a Service and its
EndpointSlice as a real server reaches MetalLB's webhook Service)."""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import kubeapi
from kubeapi.registry import Resource
from kubeapi.webhooks import invocation
from conftest import POOLS, ApiClient, pool

NS = "metallb-system"
CONFIGS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
SVC_NAME = "metallb-webhook-service"  # the Service the BGPPeer CRD's conversion names


class Webhook:
    """An HTTPS AdmissionReview v1 endpoint; `decide(request) -> response fields` per test.
    Every review received is kept in `reviews`."""

    def __init__(self, cert_dir):
        certs = kubeapi.generate_certs(cert_dir, dns_names=(f"{SVC_NAME}.{NS}.svc",))
        self.ca_bundle = base64.b64encode(certs.ca.read_bytes()).decode()
        self.reviews: list = []
        self.decide = lambda request: {"allowed": True}
        self.conversions: list = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                sent = json.loads(self.rfile.read(length))
                if sent["kind"] == "ConversionReview":
                    hook.conversions.append(sent)
                    data = json.dumps(convert(sent)).encode()
                else:
                    hook.reviews.append(sent)
                    response = dict(hook.decide(sent["request"]), uid=sent["request"]["uid"])
                    data = json.dumps({"apiVersion": "admission.k8s.io/v1",
                                       "kind": "AdmissionReview", "response": response}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certs.cert, certs.key)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def convert(review: dict) -> dict:
    """BGPPeer v1beta1 <-> v1beta2: the fields both have are copied; v1beta1 has no
    enableGracefulRestart, which a v1beta2 object keeps in an annotation on the way down."""
    request, converted = review["request"], []
    for obj in review["request"]["objects"]:
        out = json.loads(json.dumps(obj))
        out["apiVersion"] = request["desiredAPIVersion"]
        annotations = out["metadata"].setdefault("annotations", {})
        if out["apiVersion"].endswith("v1beta1"):
            if "enableGracefulRestart" in out["spec"]:
                annotations["test/graceful"] = str(out["spec"].pop("enableGracefulRestart"))
        elif "test/graceful" in annotations:
            out["spec"]["enableGracefulRestart"] = annotations.pop("test/graceful") == "True"
        converted.append(out)
    return {"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": {
        "uid": request["uid"], "convertedObjects": converted, "result": {"status": "Success"}}}


@pytest.fixture
def webhook(tmp_path):
    hook = Webhook(tmp_path / "webhook-certs")
    yield hook
    hook.stop()


def expose(client: ApiClient, port: int) -> None:
    """The Service and EndpointSlice through which the API server reaches the webhook."""
    client.post(f"/api/v1/namespaces/{NS}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": SVC_NAME, "namespace": NS},
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}]}})
    client.post(f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices", {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
        "metadata": {"name": f"{SVC_NAME}-1", "namespace": NS,
                     "labels": {"kubernetes.io/service-name": SVC_NAME}},
        "ports": [{"name": "https", "port": port}],
        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]})


def configuration(ca_bundle: str, **hook) -> dict:
    base = {"name": "ipaddresspoolvalidationwebhook.metallb.io", "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "failurePolicy": "Fail", "timeoutSeconds": 5,
            "clientConfig": {"caBundle": ca_bundle, "service": {
                "name": SVC_NAME, "namespace": NS,
                "path": "/validate-metallb-io-v1beta1-ipaddresspool"}},
            "rules": [{"apiGroups": ["metallb.io"], "apiVersions": ["v1beta1"],
                       "operations": ["CREATE", "UPDATE"], "resources": ["ipaddresspools"]}]}
    base.update(hook)
    return {"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "metallb-webhook-configuration"}, "webhooks": [base]}


def deny_overlaps(request: dict) -> dict:
    if "10.0.0.0/8" in request["object"]["spec"]["addresses"]:
        return {"allowed": False, "status": {
            "code": 403, "reason": "Forbidden",
            "message": 'CIDR "10.0.0.0/8" in pool "big" overlaps with already defined CIDR'}}
    return {"allowed": True, "warnings": ["checked by the test webhook"]}


def test_a_denial_reaches_the_client_with_the_real_servers_wording(client, webhook):
    expose(client, webhook.port)
    assert client.post(CONFIGS, configuration(webhook.ca_bundle)).status == 201
    webhook.decide = deny_overlaps
    denied = client.post(POOLS, pool("big", addresses=("10.0.0.0/8",)))
    assert denied.status == 403
    assert denied.body["reason"] == "Forbidden"
    assert denied.body["message"] == (
        'admission webhook "ipaddresspoolvalidationwebhook.metallb.io" denied the request: '
        'CIDR "10.0.0.0/8" in pool "big" overlaps with already defined CIDR')
    assert client.get(f"{POOLS}/big").status == 404
    allowed = client.post(POOLS, pool("small"))
    assert allowed.status == 201
    assert "checked by the test webhook" in allowed.headers.get("Warning", "")
    sent = webhook.reviews[-1]
    assert sent["apiVersion"] == "admission.k8s.io/v1" and sent["kind"] == "AdmissionReview"
    request = sent["request"]
    assert request["operation"] == "CREATE" and request["namespace"] == NS
    assert request["resource"] == {"group": "metallb.io", "version": "v1beta1",
                                   "resource": "ipaddresspools"}
    assert request["object"]["spec"]["autoAssign"] is True  # defaulted before the call
    assert request["oldObject"] is None and request["dryRun"] is False


def test_rules_and_selectors_choose_what_is_sent(client, webhook):
    expose(client, webhook.port)
    config = configuration(webhook.ca_bundle, objectSelector={"matchExpressions": [
        {"key": "skip-webhook", "operator": "DoesNotExist"}]}, namespaceSelector={
        "matchLabels": {"kubernetes.io/metadata.name": NS}})
    client.post(CONFIGS, config)
    assert client.post(POOLS, pool("p1", labels={"skip-webhook": "yes"})).status == 201
    assert webhook.reviews == []
    assert client.post(POOLS, pool("p2")).status == 201
    assert len(webhook.reviews) == 1
    status = {"assignedIPv4": 1, "assignedIPv6": 0, "availableIPv4": 2, "availableIPv6": 0}
    assert client.patch(f"{POOLS}/p2/status", {"status": status}).status == 200
    assert len(webhook.reviews) == 1  # "ipaddresspools" does not cover ipaddresspools/status
    peer = {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": "p", "namespace": NS}, "spec": {"myASN": 1}}
    assert client.post(f"/apis/metallb.io/v1beta2/namespaces/{NS}/bgppeers", peer).status == 201
    assert client.delete(f"{POOLS}/p2").status == 200
    assert len(webhook.reviews) == 1  # another resource, an operation not listed
    assert client.post(POOLS + "?dryRun=All", pool("p3")).status == 201
    assert webhook.reviews[-1]["request"]["dryRun"] is True


def test_failure_policy_decides_when_the_webhook_cannot_be_called(client, webhook):
    expose(client, webhook.port)
    config = configuration(webhook.ca_bundle, timeoutSeconds=1)
    config["webhooks"][0]["clientConfig"]["service"]["name"] = "nobody"
    client.post(CONFIGS, config)
    failed = client.post(POOLS, pool("p1"))
    assert failed.status == 500
    assert failed.body["message"] == (
        'Internal error occurred: failed calling webhook "ipaddresspoolvalidationwebhook.'
        'metallb.io": failed to call webhook: service "nobody" not found')
    config["webhooks"][0]["failurePolicy"] = "Ignore"
    client.put(f"{CONFIGS}/metallb-webhook-configuration",
               dict(config, metadata=client.get(f"{CONFIGS}/metallb-webhook-configuration")
                    .body["metadata"]))
    assert client.post(POOLS, pool("p1")).status == 201


def test_a_slow_webhook_times_out_and_a_wrong_ca_is_refused(client, webhook, tmp_path):
    expose(client, webhook.port)
    release = threading.Event()
    webhook.decide = lambda request: (release.wait(10), {"allowed": True})[1]
    client.post(CONFIGS, configuration(webhook.ca_bundle, timeoutSeconds=1))
    started = time.monotonic()
    slow = client.post(POOLS, pool("p1"))
    release.set()
    assert slow.status == 500 and "timed out" in slow.body["message"]
    assert time.monotonic() - started < 9  # bounded by timeoutSeconds, not by the webhook
    other_ca = kubeapi.generate_certs(tmp_path / "other-ca")
    wrong = configuration(base64.b64encode(other_ca.ca.read_bytes()).decode())
    wrong["metadata"]["name"] = "wrong-ca"
    wrong["webhooks"][0]["name"] = "wrong.example.com"
    client.delete(f"{CONFIGS}/metallb-webhook-configuration")
    client.post(CONFIGS, wrong)
    refused = client.post(POOLS, pool("p2"))
    assert refused.status == 500 and "CERTIFICATE_VERIFY_FAILED" in refused.body["message"]


def test_a_webhook_can_read_from_the_server_while_it_is_called(client, webhook, server):
    expose(client, webhook.port)
    reader = ApiClient(server)

    def list_then_decide(request: dict) -> dict:
        existing = reader.get(POOLS).body["items"]
        return {"allowed": len(existing) < 1, "status": {"message": "one pool is enough"}}

    webhook.decide = list_then_decide
    client.post(CONFIGS, configuration(webhook.ca_bundle))
    assert client.post(POOLS, pool("p1")).status == 201
    second = client.post(POOLS, pool("p2"))
    assert second.status == 400  # no code in the denial: at least 400
    assert second.body["message"].endswith("denied the request: one pool is enough")


def test_invalid_configurations_are_refused(client):
    config = configuration("", sideEffects="Some")
    response = client.post(CONFIGS, config)
    assert response.status == 422
    assert response.body["details"]["causes"][0]["field"] == "webhooks[0].sideEffects"


PEERS = f"/apis/metallb.io/{{}}/namespaces/{NS}/bgppeers"
CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bgppeers.metallb.io"


def test_bgppeers_are_stored_as_v1beta2_through_the_conversion_webhook(start_server, webhook):
    server = start_server()
    client = ApiClient(server)
    expose(client, webhook.port)
    bundle = {"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle":
                                                                   webhook.ca_bundle}}}}}
    assert client.patch(CRD, bundle).status == 200  # what the controller's cert rotator does
    old_style = {"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
                 "metadata": {"name": "tor", "namespace": NS},
                 "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}}
    created = client.post(PEERS.format("v1beta1"), old_style)
    assert created.status == 201 and created.body["apiVersion"] == "metallb.io/v1beta1"
    review = webhook.conversions[0]
    assert review["apiVersion"] == "apiextensions.k8s.io/v1beta1"  # first of the CRD's list
    assert review["request"]["desiredAPIVersion"] == "metallb.io/v1beta2"
    stored = server.cluster.store.get(("metallb.io", "bgppeers"), NS, "tor")
    assert stored["apiVersion"] == "metallb.io/v1beta2"
    read = client.get(PEERS.format("v1beta2") + "/tor").body
    assert read["apiVersion"] == "metallb.io/v1beta2" and read["spec"]["peerAddress"] == "10.0.0.1"
    modern = client.post(PEERS.format("v1beta2"), dict(old_style, apiVersion="metallb.io/v1beta2",
                                                       metadata={"name": "gr", "namespace": NS},
                                                       spec={"myASN": 1,
                                                             "enableGracefulRestart": True}))
    assert modern.status == 201
    listed = client.get(PEERS.format("v1beta1")).body["items"]
    down = {item["metadata"]["name"]: item for item in listed}
    assert down["gr"]["apiVersion"] == "metallb.io/v1beta1"
    assert down["gr"]["metadata"]["annotations"] == {"test/graceful": "True"}
    webhook.stop()
    broken = client.get(PEERS.format("v1beta1") + "/gr")
    assert broken.status == 500
    assert broken.body["message"].startswith(
        "Internal error occurred: conversion webhook for metallb.io/v1beta2, Kind=BGPPeer failed")


# matchPolicy (k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go,
# Webhook.ShouldCallHook): each row is (case, rules, matchPolicy, request version, subresource,
# the version the webhook is called for or None).
V1BETA1 = Resource("metallb.io", "v1beta1", "bgppeers", "BGPPeer", custom=True)
V1BETA2 = Resource("metallb.io", "v1beta2", "bgppeers", "BGPPeer", custom=True)
V1ALPHA1 = Resource("metallb.io", "v1alpha1", "bgppeers", "BGPPeer", custom=True)


def _rule(*versions, resources=("bgppeers",)):
    return {"apiGroups": ["metallb.io"], "apiVersions": list(versions),
            "operations": ["CREATE"], "resources": list(resources)}


SHOULD_CALL_HOOK = [
    ("an exact match is called for the request's version",
     [_rule("v1beta2")], None, V1BETA2, "", "v1beta2"),
    ("Equivalent is the default: another served version is converted to the rule's",
     [_rule("v1beta2")], None, V1BETA1, "", "v1beta2"),
    ("Exact calls no webhook for another version",
     [_rule("v1beta2")], "Exact", V1BETA1, "", None),
    ("an exact match wins over an earlier equivalent rule",
     [_rule("v1alpha1"), _rule("v1beta1")], "Equivalent", V1BETA1, "", "v1beta1"),
    ("the first rule in order names the version among equivalents",
     [_rule("v1alpha1"), _rule("v1beta2")], "Equivalent", V1BETA1, "", "v1alpha1"),
    ("a rule for the main resource does not cover its status subresource",
     [_rule("v1beta2")], "Equivalent", V1BETA1, "status", None),
    ("a status rule covers an equivalent status write",
     [_rule("v1beta2", resources=("bgppeers/status",))], "Equivalent", V1BETA1, "status",
     "v1beta2"),
    ("another group is never equivalent",
     [dict(_rule("v1beta2"), apiGroups=["other.io"])], "Equivalent", V1BETA1, "", None),
]


@pytest.mark.parametrize("case,rules,policy,res,sub,called", SHOULD_CALL_HOOK,
                         ids=[row[0] for row in SHOULD_CALL_HOOK])
def test_should_call_hook_match_policy(case, rules, policy, res, sub, called):
    hook = {"rules": rules} if policy is None else {"rules": rules, "matchPolicy": policy}
    request = kubeapi.AdmissionRequest("CREATE", res, NS, "p", sub, {}, None, False)
    target = invocation(hook, request, [V1ALPHA1, V1BETA1, V1BETA2])
    assert (target.version if target else None) == called, case


def peer_configuration(ca_bundle: str, **hook) -> dict:
    config = configuration(ca_bundle, name="bgppeervalidationwebhook.metallb.io",
                           rules=[_rule("v1beta2")], **hook)
    config["webhooks"][0]["clientConfig"]["service"]["path"] = \
        "/validate-metallb-io-v1beta2-bgppeer"
    return config


def test_a_v1beta1_write_is_converted_and_sent_to_the_v1beta2_webhook(client, webhook):
    """A real server's default matchPolicy Equivalent: the v1beta1 BGPPeer reaches the webhook
    as v1beta2, through the conversion webhook, and its denial reaches the client."""
    expose(client, webhook.port)
    bundle = {"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle":
                                                                   webhook.ca_bundle}}}}}
    assert client.patch(CRD, bundle).status == 200
    assert client.post(CONFIGS, peer_configuration(webhook.ca_bundle)).status == 201
    stored = client.get(f"{CONFIGS}/metallb-webhook-configuration").body["webhooks"][0]
    assert stored["matchPolicy"] == "Equivalent"  # SetDefaults_ValidatingWebhook
    assert stored["rules"][0]["scope"] == "*"
    webhook.decide = lambda request: (
        {"allowed": False, "status": {"code": 403, "message": "peerASN equals myASN"}}
        if request["object"]["spec"]["peerASN"] == 64500 else {"allowed": True})
    old_style = {"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
                 "metadata": {"name": "tor", "namespace": NS},
                 "spec": {"myASN": 64500, "peerASN": 64500, "peerAddress": "10.0.0.1"}}
    denied = client.post(PEERS.format("v1beta1"), old_style)
    assert denied.status == 403
    assert denied.body["message"] == ('admission webhook "bgppeervalidationwebhook.metallb.io" '
                                      "denied the request: peerASN equals myASN")
    sent = webhook.reviews[-1]["request"]
    assert sent["kind"] == {"group": "metallb.io", "version": "v1beta2", "kind": "BGPPeer"}
    assert sent["resource"]["version"] == "v1beta2"
    assert sent["requestKind"]["version"] == "v1beta1"
    assert sent["requestResource"]["version"] == "v1beta1"
    assert sent["object"]["apiVersion"] == "metallb.io/v1beta2"
    assert webhook.conversions[-1]["request"]["desiredAPIVersion"] == "metallb.io/v1beta2"
    old_style["spec"]["peerASN"] = 64501
    assert client.post(PEERS.format("v1beta1"), old_style).status == 201
    update = client.patch(PEERS.format("v1beta1") + "/tor", {"spec": {"holdTime": "90s"}})
    assert update.status == 200  # UPDATE is not in the rule's operations
    assert client.get(PEERS.format("v1beta2") + "/tor").body["spec"]["peerASN"] == 64501


def test_exact_match_policy_lets_another_version_through(client, webhook):
    expose(client, webhook.port)
    config = peer_configuration(webhook.ca_bundle, matchPolicy="Exact")
    assert client.post(CONFIGS, config).status == 201
    webhook.decide = lambda request: {"allowed": False}
    peer = {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": "tor", "namespace": NS},
            "spec": {"myASN": 1, "peerASN": 2, "peerAddress": "10.0.0.1"}}
    assert client.post(PEERS.format("v1beta2"), peer).status == 400  # denied, no code
    bundle = {"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle":
                                                                   webhook.ca_bundle}}}}}
    assert client.patch(CRD, bundle).status == 200
    old_style = dict(peer, apiVersion="metallb.io/v1beta1")
    assert client.post(PEERS.format("v1beta1"), old_style).status == 201
    assert len(webhook.reviews) == 1


def test_an_unknown_match_policy_is_refused(client):
    response = client.post(CONFIGS, configuration("", matchPolicy="Loose"))
    assert response.status == 422
    assert response.body["details"]["causes"][0]["field"] == "webhooks[0].matchPolicy"
