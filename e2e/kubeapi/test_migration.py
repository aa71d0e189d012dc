# SPDX-License-Identifier: Apache-2.0
"""The steps of docs/migration.md that need no Helm, run as written (the doc's `# migration:`
blocks, through kubectl) against the test API server holding what a MetalLB v0.16 Helm install
leaves: CRDs owned by the `metallb` release, configuration objects, and the memberlist Secret owned
by MetalLB's controller Deployment. Afterwards the CRDs are marked to be kept and no longer claim
a release, the Secret has no owner and the same key, every configuration object is still there, and
Ingot's chart, installed as release "metallb" after MetalLB's Deployment is gone, applies on top
with MetalLB's chart's object names and reuses that Secret."""

from __future__ import annotations

import base64
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import KUBECTL, ApiClient
from test_chart import api_path, harness, objects, render  # noqa: F401 (harness is a fixture)

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs/migration.md"
NS = "metallb-system"
HELM_OWNER = {"labels": {"app.kubernetes.io/managed-by": "Helm"},
              "annotations": {"meta.helm.sh/release-name": "metallb",
                              "meta.helm.sh/release-namespace": NS}}

pytestmark = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")


def guide_block(name: str) -> str:
    blocks = re.findall(r"```sh\n# migration: ([a-z-]+)\n(.*?)```", GUIDE.read_text(), re.S)
    found = dict(blocks)
    assert name in found, f"docs/migration.md has no '# migration: {name}' block"
    return found[name]


def metallb_crds() -> list:
    """Ingot's CRDs as MetalLB's chart leaves them: Helm-owned by the metallb release."""
    out = []
    for path in sorted((REPO / "crds").glob("metallb.io_*.yaml")):
        crd = yaml.safe_load(path.read_text())
        crd["metadata"].setdefault("labels", {}).update(HELM_OWNER["labels"])
        crd["metadata"].setdefault("annotations", {}).update(HELM_OWNER["annotations"])
        out.append(crd)
    return out


def create(client: ApiClient, obj: dict) -> dict:
    answer = client.post(api_path(client, obj), obj)
    assert answer.status == 201, f"{obj['kind']} {obj['metadata']['name']}: {answer.body}"
    return answer.body


def memberlist_secret(client: ApiClient, name: str, owner: dict) -> bytes:
    """Creates the memberlist Secret as MetalLB's controller does (a random key, owned by the
    controller's Deployment owner); returns the key."""
    key = os.urandom(64)
    create(client, {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                    "metadata": {"name": name, "namespace": NS,
                                 "ownerReferences": [{
                                     "apiVersion": "apps/v1", "kind": "Deployment",
                                     "name": owner["metadata"]["name"],
                                     "uid": owner["metadata"]["uid"],
                                     "controller": True, "blockOwnerDeletion": True}]},
                    "data": {"secretkey": base64.b64encode(key).decode()}})
    return key


def production_pool(client: ApiClient) -> None:
    create(client, {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
                    "metadata": {"name": "production", "namespace": NS},
                    "spec": {"addresses": ["192.0.2.0/24"]}})


def metallb_install(client: ApiClient) -> bytes:
    """What MetalLB's chart and controller leave; returns the memberlist key."""
    for crd in metallb_crds():
        create(client, crd)
    deployment = create(client, {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "metallb-controller", "namespace": NS, **HELM_OWNER},
        "spec": {"selector": {"matchLabels": {"app": "metallb"}},
                 "template": {"metadata": {"labels": {"app": "metallb"}},
                              "spec": {"containers": [{"name": "controller",
                                                       "image": "quay.io/metallb/controller"}]}}}})
    key = memberlist_secret(client, "metallb-memberlist", deployment)
    production_pool(client)
    create(client, {"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
                    "metadata": {"name": "l2", "namespace": NS},
                    "spec": {"ipAddressPools": ["production"]}})
    return key


def run_block(server, tmp_path: Path, name: str) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    server.write_kubeconfig(kubeconfig)
    env = {**os.environ, "KUBECONFIG": str(kubeconfig),
           "PATH": f"{Path(KUBECTL).parent}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", guide_block(name)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"block {name}:\n{done.stdout}\n{done.stderr}"


def test_the_guides_steps_keep_the_crds_objects_and_memberlist_key(start_server, harness,
                                                                    tmp_path):
    server = start_server(builtin_crds=False)
    client = ApiClient(server)
    key = metallb_install(client)

    run_block(server, tmp_path, "keep-crds")
    crds = [c for c in client.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
            .body["items"] if c["spec"]["group"] == "metallb.io"]
    assert len(crds) == len(metallb_crds())
    for crd in crds:
        assert crd["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"

    run_block(server, tmp_path, "release-crds")
    run_block(server, tmp_path, "apply-ingot-crds")
    for crd in client.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").body["items"]:
        meta = crd["metadata"]
        if crd["spec"]["group"] != "metallb.io":
            continue
        assert "app.kubernetes.io/managed-by" not in meta.get("labels", {}), meta["name"]
        assert not {"meta.helm.sh/release-name", "meta.helm.sh/release-namespace"} & set(
            meta.get("annotations", {})), meta["name"]
        assert meta["annotations"]["helm.sh/resource-policy"] == "keep"

    run_block(server, tmp_path, "keep-memberlist-secret")
    secret = client.get(f"/api/v1/namespaces/{NS}/secrets/metallb-memberlist").body
    assert "ownerReferences" not in secret["metadata"]
    assert base64.b64decode(secret["data"]["secretkey"]) == key

    base = f"/apis/metallb.io/v1beta1/namespaces/{NS}"
    assert client.get(f"{base}/ipaddresspools/production").status == 200
    assert client.get(f"{base}/l2advertisements/l2").status == 200

    # `helm uninstall metallb` deletes MetalLB's Deployment (and every object of its release;
    # the CRDs and the Secret no longer belong to it). Ingot's chart, installed as release
    # "metallb" as the guide does, gives its objects the same names as MetalLB's chart.
    gone = client.delete(f"/apis/apps/v1/namespaces/{NS}/deployments/metallb-controller")
    assert gone.status == 200, gone.body

    # Ingot's chart as the guide installs it: every object applies, the agents mount the kept
    # Secret (by MetalLB's chart's name, the default for release "metallb") and the controller is
    # told its name; the chart renders no memberlist Secret.
    docs = objects(render.render(harness, [
        "--release", "metallb", "--set", "speaker.memberlist.generateSecret=false"]))
    # (the only Secret it renders is the webhook's certificate, which the controller fills in)
    assert [d["metadata"]["name"] for d in docs if d["kind"] == "Secret"] == [
        "metallb-webhook-cert"]
    for obj in docs:
        if obj["kind"] == "Namespace":
            continue
        create(client, obj)
    agent = next(d for d in docs if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]
    assert {"name": "memberlist", "secret": {"secretName": "metallb-memberlist",
                                             "defaultMode": 420}} in agent["volumes"]
    controller = next(d for d in docs if d["kind"] == "Deployment")
    env = {e["name"]: e.get("value") for e in
           controller["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["METALLB_ML_SECRET_NAME"] == "metallb-memberlist"
    secret = client.get(f"/api/v1/namespaces/{NS}/secrets/metallb-memberlist").body
    assert base64.b64decode(secret["data"]["secretkey"]) == key


def metallb_manifest_install(client: ApiClient) -> bytes:
    """What `kubectl apply -f metallb-native.yaml` and MetalLB's controller leave, reduced to what
    the guide's manifest steps touch: plain CRDs, the daemons under MetalLB's manifest names, the
    pod-lister Role, the webhook configuration, the memberlist Secret owned by Deployment
    `controller`, and configuration objects. Returns the memberlist key."""
    for path in sorted((REPO / "crds").glob("metallb.io_*.yaml")):
        create(client, yaml.safe_load(path.read_text()))
    workloads = {}
    for kind, name in (("Deployment", "controller"), ("DaemonSet", "speaker")):
        labels = {"app": "metallb", "component": name}
        workloads[name] = create(client, {
            "apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": NS, "labels": labels},
            "spec": {"selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{
                                      "name": name, "image": f"quay.io/metallb/{name}"}]}}}})
    create(client, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                    "metadata": {"name": "pod-lister", "namespace": NS},
                    "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]})
    create(client, {"apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "ValidatingWebhookConfiguration",
                    "metadata": {"name": "metallb-webhook-configuration"}, "webhooks": []})
    key = memberlist_secret(client, "memberlist", workloads["controller"])
    production_pool(client)
    return key


def test_the_manifest_guides_steps_keep_the_crds_pools_and_memberlist_key(start_server,
                                                                            tmp_path):
    # For plain-manifest users: no `kubectl delete -f metallb-native.yaml` (it would delete the
    # CRDs and every pool); only MetalLB's daemons and webhook configuration go, and Ingot's
    # manifest, with MetalLB's object names, is applied over the rest.
    server = start_server(builtin_crds=False)
    client = ApiClient(server)
    key = metallb_manifest_install(client)
    run_block(server, tmp_path, "manifests-keep-memberlist-secret")
    run_block(server, tmp_path, "manifests-swap")
    assert client.get(f"/apis/metallb.io/v1beta1/namespaces/{NS}/ipaddresspools/production"
                      ).status == 200
    secret = client.get(f"/api/v1/namespaces/{NS}/secrets/memberlist").body
    assert "ownerReferences" not in secret["metadata"]
    assert base64.b64decode(secret["data"]["secretkey"]) == key
    assert client.get(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}/roles/pod-lister"
                      ).status == 404
    for kind, name, container in (("deployments", "controller", "controller"),
                                  ("daemonsets", "speaker", "speaker")):
        spec = client.get(f"/apis/apps/v1/namespaces/{NS}/{kind}/{name}").body["spec"]
        (only,) = spec["template"]["spec"]["containers"]
        assert only["name"] == container and "metallb" not in only["image"], only["image"]
    hooks = client.get("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"
                       "metallb-webhook-configuration").body["webhooks"]
    assert len(hooks) == 6  # Ingot's, applied after MetalLB's was deleted
