# SPDX-License-Identifier: Apache-2.0
"""The CRDs of crds/ as the test API server enforces them: every example and test manifest is
accepted, typed mistakes get the real server's 422 wording, each CEL rule is evaluated, unknown
fields are pruned and a CRD with a rule the server does not implement is refused."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import kubeapi
from conftest import KUBECTL, TOKEN

REPO = Path(__file__).resolve().parents[2]
NS = "metallb-system"


def _plurals() -> dict:
    return {(c["spec"]["group"], c["spec"]["names"]["kind"]): c["spec"]["names"]["plural"]
            for c in kubeapi.BUILTIN_CRDS}


PLURALS = _plurals()


def path_of(obj: dict, name: str = "") -> str:
    group, version = obj["apiVersion"].split("/")
    plural = PLURALS[(group, obj["kind"])]
    base = f"/apis/{group}/{version}/namespaces/{NS}/{plural}"
    return f"{base}/{name}" if name else base


def manifests(*globs: str) -> list:
    """The metallb.io and frrk8s.metallb.io objects of the YAML files matching globs."""
    found = []
    for pattern in globs:
        for path in sorted(REPO.glob(pattern)):
            for doc in yaml.safe_load_all(path.read_text()):
                if isinstance(doc, dict) and "metallb.io/" in doc.get("apiVersion", ""):
                    found.append(pytest.param(doc, id=f"{path.name}:{doc['metadata']['name']}"))
    return found


def obj(api_version: str, kind: str, name: str, spec=None, status=None) -> dict:
    out = {"apiVersion": api_version, "kind": kind,
           "metadata": {"name": name, "namespace": NS}}
    if spec is not None:
        out["spec"] = spec
    if status is not None:
        out["status"] = status
    return out


def peer(name: str = "p", **spec) -> dict:
    return obj("metallb.io/v1beta2", "BGPPeer", name,
               dict({"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}, **spec))


def advertisement(**spec) -> dict:
    return obj("metallb.io/v1beta1", "BGPAdvertisement", "adv", spec)


def pool(**spec) -> dict:
    return obj("metallb.io/v1beta1", "IPAddressPool", "pool",
               dict({"addresses": ["10.0.0.0/24"]}, **spec))


def test_crds_are_what_the_generator_writes():
    result = subprocess.run([sys.executable, str(REPO / "crds" / "generate.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("manifest", manifests("examples/**/*.yaml", "cli/tests/testdata/*.yaml",
                                               "e2e/scenarios/**/*.yaml"))
def test_examples_and_test_manifests_are_accepted(client, manifest):
    created = client.post(path_of(manifest) + "?fieldValidation=Strict", manifest)
    assert created.status == 201, created.body
    assert created.headers.get("Warning") is None


SELECTOR = [{"matchLabels": {"a": "b"}}]
MISTAKES = [
    ("missing required field", obj("metallb.io/v1beta1", "IPAddressPool", "pool", {}),
     'IPAddressPool.metallb.io "pool" is invalid: spec.addresses: Required value'),
    ("missing spec", obj("metallb.io/v1beta1", "IPAddressPool", "pool"),
     'IPAddressPool.metallb.io "pool" is invalid: spec: Required value'),
    ("wrong type", pool(autoAssign="yes"),
     'IPAddressPool.metallb.io "pool" is invalid: spec.autoAssign: Invalid value: "string": '
     'spec.autoAssign in body must be of type boolean: "string"'),
    ("wrong item type", pool(addresses=["10.0.0.0/24", 7]),
     'IPAddressPool.metallb.io "pool" is invalid: spec.addresses[1]: Invalid value: "integer": '
     'spec.addresses[1] in body must be of type string: "integer"'),
    ("below minimum", peer(peerPort=0),
     'BGPPeer.metallb.io "p" is invalid: spec.peerPort: Invalid value: 0: spec.peerPort in body '
     "should be greater than or equal to 1"),
    ("above maximum", peer(myASN=4294967296),
     'BGPPeer.metallb.io "p" is invalid: spec.myASN: Invalid value: 4294967296: spec.myASN in '
     "body should be less than or equal to 4294967295"),
    ("not in enum", peer(dynamicASN="both"),
     'BGPPeer.metallb.io "p" is invalid: spec.dynamicASN: Unsupported value: "both": supported '
     'values: "internal", "external"'),
    ("two mistakes at once",
     obj("metallb.io/v1beta1", "BFDProfile", "b", {"detectMultiplier": 1, "minimumTtl": 255}),
     'BFDProfile.metallb.io "b" is invalid: [spec.detectMultiplier: Invalid value: 1: '
     "spec.detectMultiplier in body should be greater than or equal to 2, spec.minimumTtl: "
     "Invalid value: 255: spec.minimumTtl in body should be less than or equal to 254]"),
    ("required inside a selector",
     peer(nodeSelectors=[{"matchExpressions": [{"key": "k"}]}]),
     'BGPPeer.metallb.io "p" is invalid: spec.nodeSelectors[0].matchExpressions[0].operator: '
     "Required value"),
    ("v1beta1 legacy selector needs values",
     obj("metallb.io/v1beta1", "BGPPeer", "p", {
         "myASN": 1, "peerASN": 2, "peerAddress": "10.0.0.1",
         "nodeSelectors": [{"matchExpressions": [{"key": "k", "operator": "In",
                                                  "values": []}]}]}),
     'BGPPeer.metallb.io "p" is invalid: spec.nodeSelectors[0].matchExpressions[0].values: '
     "Invalid value: []: spec.nodeSelectors[0].matchExpressions[0].values in body should have at "
     "least 1 items"),
    ("connect-time-range", peer(connectTime="0s"),
     'BGPPeer.metallb.io "p" is invalid: spec.connectTime: Invalid value: "string": connect time '
     "should be between 1 seconds to 65535"),
    ("connect-time-range upper bound", peer(connectTime="18h20m"),
     'BGPPeer.metallb.io "p" is invalid: spec.connectTime: Invalid value: "string": connect time '
     "should be between 1 seconds to 65535"),
    ("connect-time-whole-seconds", peer(connectTime="1500ms"),
     'BGPPeer.metallb.io "p" is invalid: spec.connectTime: Invalid value: "string": connect time '
     "should contain a whole number of seconds"),
    ("connect time that is no duration", peer(connectTime="soon"),
     'BGPPeer.metallb.io "p" is invalid: [spec.connectTime: Invalid value: "string": '),
    ("service-selectors-default-aggregation", advertisement(serviceSelectors=SELECTOR,
                                                            aggregationLength=24),
     'BGPAdvertisement.metallb.io "adv" is invalid: spec: Invalid value: "object": '
     "serviceSelectors and aggregationLength are mutually exclusive, can only be used together "
     "with default aggregationLength (32) and aggregationLengthV6 (128)"),
    ("aggregationLength minimum", advertisement(aggregationLength=0),
     'BGPAdvertisement.metallb.io "adv" is invalid: spec.aggregationLength: Invalid value: 0: '
     "spec.aggregationLength in body should be greater than or equal to 1"),
    ("frr-k8s enum", obj("frrk8s.metallb.io/v1beta1", "FRRConfiguration", "f", {"bgp": {
        "routers": [{"asn": 1, "neighbors": [{"address": "10.0.0.1", "asn": 2, "toReceive": {
            "allowed": {"mode": "some"}}}]}]}}),
     'FRRConfiguration.frrk8s.metallb.io "f" is invalid: spec.bgp.routers[0].neighbors[0]'
     '.toReceive.allowed.mode: Unsupported value: "some": supported values: "all", "filtered"'),
    ("frr-k8s cidr format", obj("frrk8s.metallb.io/v1beta1", "FRRConfiguration", "f", {"bgp": {
        "routers": [{"asn": 1, "neighbors": [{"address": "10.0.0.1", "asn": 2, "toReceive": {
            "allowed": {"prefixes": [{"prefix": "10.0.0.300/32"}]}}}]}]}}),
     'FRRConfiguration.frrk8s.metallb.io "f" is invalid: spec.bgp.routers[0].neighbors[0]'
     '.toReceive.allowed.prefixes[0].prefix: Invalid value: "10.0.0.300/32": spec.bgp.routers[0]'
     '.neighbors[0].toReceive.allowed.prefixes[0].prefix in body must be of type cidr: '
     '"10.0.0.300/32"'),
]


@pytest.mark.parametrize("manifest,message", [pytest.param(m, s, id=d) for d, m, s in MISTAKES])
def test_typed_mistakes_get_the_real_servers_422(client, manifest, message):
    response = client.post(path_of(manifest), manifest)
    assert response.status == 422, response.body
    body = response.body
    assert body["reason"] == "Invalid" and body["message"].startswith(message), body["message"]
    assert body["details"]["kind"] == manifest["kind"]
    assert body["details"]["group"] == manifest["apiVersion"].split("/")[0]
    for cause in body["details"]["causes"]:
        assert body["message"].count(f"{cause['field']}: {cause['message']}") == 1


def test_the_limits_themselves_are_accepted(client):
    for manifest in (peer("low", peerPort=1, connectTime="1s"),
                     peer("high", peerPort=16384, myASN=4294967295, connectTime="18h12m15s"),
                     advertisement(serviceSelectors=SELECTOR, aggregationLength=32)):
        assert client.post(path_of(manifest), manifest).status == 201


def test_status_is_validated_on_status_writes(client):
    client.post(path_of(pool()), pool())
    partial = client.patch(path_of(pool(), "pool") + "/status",
                           {"status": {"assignedIPv4": 1}})
    assert partial.status == 422
    assert "status.assignedIPv6: Required value" in partial.body["message"]
    state = obj("metallb.io/v1beta1", "ConfigurationState", "controller")
    client.post(path_of(state), state)
    condition = {"type": "poolReconcilerValid", "status": "Maybe", "reason": "bad reason",
                 "message": "", "lastTransitionTime": "not a time"}
    bad = client.patch(path_of(state, "controller") + "/status",
                       {"status": {"conditions": [condition], "result": "Valid"}})
    assert bad.status == 422
    fields = sorted(cause["field"] for cause in bad.body["details"]["causes"])
    assert fields == ["status.conditions[0].lastTransitionTime", "status.conditions[0].reason",
                      "status.conditions[0].status"]
    twice = dict(condition, status="True", reason="Reconciled",
                 lastTransitionTime="2026-01-01T00:00:00Z")
    duplicate = client.patch(path_of(state, "controller") + "/status",
                             {"status": {"conditions": [twice, twice]}})
    assert duplicate.status == 422
    assert duplicate.body["details"]["causes"][0] == {
        "field": "status.conditions[1]", "reason": "FieldValueDuplicate",
        "message": 'Duplicate value: map[string]interface {}{"type":"poolReconcilerValid"}'}


def test_immutable_rule_is_checked_on_updates_only(client):
    created = client.post(path_of(peer()), peer(enableGracefulRestart=True)).body
    same = copy.deepcopy(created)
    same["spec"]["holdTime"] = "90s"
    assert client.put(path_of(peer(), "p"), same).status == 200
    changed = client.patch(path_of(peer(), "p"), {"spec": {"enableGracefulRestart": False}})
    assert changed.status == 422
    assert changed.body["message"] == (
        'BGPPeer.metallb.io "p" is invalid: spec.enableGracefulRestart: Invalid value: '
        '"boolean": EnableGracefulRestart cannot be changed after creation')
    later = client.post(path_of(peer("q")), peer("q")).body
    assert later["spec"]["peerPort"] == 179  # defaulted before validation
    added = client.patch(path_of(peer(), "q"), {"spec": {"enableGracefulRestart": True}})
    assert added.status == 200  # no old value: a transition rule is not evaluated


def test_service_status_fields_are_immutable(client):
    status = obj("metallb.io/v1beta1", "ServiceL2Status", "l2-abc")
    client.post(path_of(status), status)
    url = path_of(status, "l2-abc") + "/status"
    first = {"node": "n1", "serviceName": "web", "serviceNamespace": "default"}
    assert client.patch(url, {"status": first}).status == 200
    moved = client.patch(url, {"status": {"node": "n2"}})
    assert moved.status == 422
    assert moved.body["details"]["causes"] == [{"field": "status.node",
                                                "reason": "FieldValueInvalid",
                                                "message": 'Invalid value: "string": Value is '
                                                           "immutable"}]


def test_unknown_fields_and_nulls_are_pruned(client):
    manifest = pool(autoassign=False, serviceAllocation={"priority": 1, "colour": "red"})
    manifest["spec"]["avoidBuggyIPs"] = None
    manifest["extra"] = {"x": 1}
    created = client.post(path_of(manifest), manifest)
    stored = created.body
    assert stored["spec"] == {"addresses": ["10.0.0.0/24"], "autoAssign": True,
                              "avoidBuggyIPs": False, "serviceAllocation": {"priority": 1}}
    assert "extra" not in stored
    warnings = created.headers.get_all("Warning")  # fieldValidation=Warn, the default
    assert warnings == [r'299 - "unknown field \"spec.autoassign\""',
                        r'299 - "unknown field \"spec.serviceAllocation.colour\""',
                        r'299 - "unknown field \"extra\""'], warnings
    l2 = obj("metallb.io/v1beta1", "L2Advertisement", "l2", {"interfaces": ["eth0"]})
    client.post(path_of(l2), l2)
    status = client.patch(path_of(l2, "l2") + "/status", {"status": {"anything": 1}}).body
    assert status.get("status") == {}


def test_a_crd_with_a_rule_not_implemented_is_refused(client):
    crd = kubeapi.crd_manifest("example.com", "gadgets", "Gadget")
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"] = {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "self.size() > 1", "message": "too small"}]}}
    response = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert response.status == 422
    cause = response.body["details"]["causes"][0]
    assert cause["field"] == ("spec.versions[0].schema.openAPIV3Schema.properties[spec]"
                              ".x-kubernetes-validations[0].rule")
    assert "self.size() > 1" in cause["message"] and "not implement" in cause["message"]


def test_validation_can_be_turned_off_for_measurements(server, client):
    server.cluster.validation.enabled = False
    bad = pool(autoAssign="yes")
    assert client.post(path_of(bad), bad).status == 201


def test_kubectl_shows_schema_defaults_and_errors(kubectl):
    good = ("apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: good\n"
            "  namespace: metallb-system\nspec:\n  addresses: [10.0.0.0/24]\n")
    kubectl("apply", "-f", "-", stdin=good)
    table = kubectl("get", "ipaddresspools", "-n", NS).stdout.splitlines()
    assert table[1].split() == ["good", "true", "false", '["10.0.0.0/24"]']
    bad = good.replace("good", "bad") + "  autoAssign: \"yes\"\n"
    refused = kubectl("apply", "-f", "-", stdin=bad, check=False)
    assert refused.returncode != 0
    assert ('The IPAddressPool "bad" is invalid: spec.autoAssign: Invalid value: "string": '
            'spec.autoAssign in body must be of type boolean: "string"') in refused.stderr, \
        refused.stderr


def test_kubectl_installs_crds_on_an_empty_server(start_server, tmp_path):
    server = start_server(builtin_crds=False)
    kubeconfig = tmp_path / "kubeconfig"
    server.write_kubeconfig(kubeconfig, token=TOKEN)

    def kubectl(*args: str, stdin=None):
        return subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args], input=stdin,
                              capture_output=True, text=True, timeout=60,
                              env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})

    installed = kubectl("apply", "-f", str(REPO / "crds"))
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.count("customresourcedefinition.apiextensions.k8s.io/") == 9
    peer_yaml = yaml.safe_dump(peer("tor"))
    assert kubectl("apply", "-f", "-", stdin=peer_yaml).returncode == 0
    shown = kubectl("get", "bgppeers.metallb.io", "-n", NS, "tor", "-o", "json")
    assert json.loads(shown.stdout)["spec"]["peerPort"] == 179


def test_strict_field_validation_refuses_unknown_fields(client, kubectl):
    manifest = pool(autoassign=False)
    strict = client.post(path_of(manifest) + "?fieldValidation=Strict", manifest)
    assert strict.status == 400 and strict.body["reason"] == "BadRequest"
    assert strict.body["message"] == ('IPAddressPool in version "v1beta1" cannot be handled as a '
                                      'IPAddressPool: strict decoding error: unknown field '
                                      '"spec.autoassign"')
    quiet = client.post(path_of(manifest) + "?fieldValidation=Ignore", manifest)
    assert quiet.status == 201 and quiet.headers.get("Warning") is None
    typo = yaml.safe_dump(obj("metallb.io/v1beta1", "IPAddressPool", "typo",
                              {"addresses": ["10.1.0.0/24"], "avoidbuggyips": True}))
    refused = kubectl("apply", "-f", "-", stdin=typo, check=False)  # kubectl sends Strict
    assert refused.returncode != 0
    assert 'strict decoding error: unknown field "spec.avoidbuggyips"' in refused.stderr
