# SPDX-License-Identifier: Apache-2.0
"""What MetalLB users wrote against MetalLB's objects applies unchanged to Ingot's: typical
kustomize patches (strategic merge keyed on the container `speaker`, a patch on the Deployment
`controller`, a JSON 6902 patch, namespace and label transforms), run by kubectl's built-in
kustomize over the plain manifests (charts/manifests/), and the label selectors of a NetworkPolicy,
a PodMonitor and a monitoring Service written for MetalLB's manifests and for MetalLB's chart,
matched against the Pods the manifests and the chart render. A name or label that differs from
MetalLB's makes a patch add a second (broken) container, miss its target, or a selector select
nothing, and these tests fail."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import KUBECTL
from test_chart import harness, objects, render  # noqa: F401 (harness is a fixture)

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = sorted(render.VARIANTS)

# A user's overlay for MetalLB's metallb-native.yaml: every patch names MetalLB's objects.
SPEAKER_PATCH = {
    "apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "speaker", "namespace": "metallb-system"},
    "spec": {"template": {"spec": {
        "nodeSelector": {"lb.example/speaker": "true"},
        "containers": [{"name": "speaker",
                        "env": [{"name": "HTTPS_PROXY", "value": "http://proxy.example:3128"}],
                        "resources": {"limits": {"memory": "200Mi"},
                                      "requests": {"cpu": "50m"}}}]}}}}
CONTROLLER_PATCH = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "controller", "namespace": "metallb-system"},
    "spec": {"template": {"spec": {
        "tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [{"name": "controller",
                        "resources": {"limits": {"cpu": "100m", "memory": "100Mi"}}}]}}}}
# JSON 6902: an extra flag on the first container, as MetalLB's docs patch the speaker's args.
SPEAKER_ARGS_PATCH = [{"op": "add", "path": "/spec/template/spec/containers/0/args/-",
                       "value": "--log-level=debug"}]
KUSTOMIZATION = {
    "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
    "namespace": "lb-system",
    "labels": [{"pairs": {"team": "network"}, "includeSelectors": False,
                "includeTemplates": True}],
    "resources": ["metallb.yaml"],
    "patches": [{"path": "speaker-patch.yaml"}, {"path": "controller-patch.yaml"},
                {"target": {"group": "apps", "version": "v1", "kind": "DaemonSet",
                            "name": "speaker"},
                 "path": "speaker-args.yaml"}],
}

pytestmark = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")


def kustomize(tmp_path: Path, manifest: str) -> dict:
    """The user's overlay over charts/manifests/<manifest>, built by `kubectl kustomize`, as
    {(kind, name): object}."""
    (tmp_path / "metallb.yaml").write_text((REPO / "charts/manifests" / manifest).read_text())
    (tmp_path / "speaker-patch.yaml").write_text(yaml.safe_dump(SPEAKER_PATCH))
    (tmp_path / "controller-patch.yaml").write_text(yaml.safe_dump(CONTROLLER_PATCH))
    (tmp_path / "speaker-args.yaml").write_text(yaml.safe_dump(SPEAKER_ARGS_PATCH))
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(KUSTOMIZATION))
    done = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return {(o["kind"], o["metadata"]["name"]): o for o in objects(done.stdout)}


def containers(obj: dict) -> dict:
    return {c["name"]: c for c in obj["spec"]["template"]["spec"]["containers"]}


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_metallb_kustomize_patches_land_on_the_plain_manifests(tmp_path, manifest):
    rendered = {(o["kind"], o["metadata"]["name"]): o
                for o in objects((REPO / "charts/manifests" / manifest).read_text())}
    out = kustomize(tmp_path, manifest)
    speaker, controller = out[("DaemonSet", "speaker")], out[("Deployment", "controller")]
    # No container was added: a strategic-merge patch on a container name the DaemonSet lacks
    # would have appended one with only the patch's fields (no image).
    for kind, name in (("DaemonSet", "speaker"), ("Deployment", "controller")):
        assert list(containers(out[(kind, name)])) == list(containers(rendered[(kind, name)]))
        assert all(c.get("image") for c in containers(out[(kind, name)]).values())
    agent = containers(speaker)["speaker"]
    assert list(containers(speaker))[0] == "speaker"  # the JSON patch's containers/0
    assert {"name": "HTTPS_PROXY", "value": "http://proxy.example:3128"} in agent["env"]
    assert any(e["name"] == "METALLB_NODE_NAME" for e in agent["env"])  # merged, not replaced
    assert agent["resources"] == {"limits": {"memory": "200Mi"}, "requests": {"cpu": "50m"}}
    assert agent["args"][-1] == "--log-level=debug"
    assert agent["args"][:-1] == containers(rendered[("DaemonSet", "speaker")])["speaker"]["args"]
    assert speaker["spec"]["template"]["spec"]["nodeSelector"]["lb.example/speaker"] == "true"
    assert containers(controller)["controller"]["resources"]["limits"] == {
        "cpu": "100m", "memory": "100Mi"}
    assert {"key": "infra", "operator": "Exists", "effect": "NoSchedule"} in \
        controller["spec"]["template"]["spec"]["tolerations"]
    # The namespace transform moved the namespaced objects and the bindings' subjects.
    assert speaker["metadata"]["namespace"] == controller["metadata"]["namespace"] == "lb-system"
    for binding in ("metallb-system:controller", "metallb-system:speaker"):
        subjects = out[("ClusterRoleBinding", binding)]["subjects"]
        assert {s["namespace"] for s in subjects} == {"lb-system"}, binding
    # The label transform reached the Pods and left the selectors alone.
    for obj in (speaker, controller):
        assert obj["spec"]["template"]["metadata"]["labels"]["team"] == "network"
        assert "team" not in obj["spec"]["selector"]["matchLabels"]


def selects(selector: dict, labels: dict) -> bool:
    """Kubernetes' label selector semantics (matchLabels, matchExpressions)."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        ok = {"In": key in labels and labels[key] in values,
              "NotIn": labels.get(key) not in values,
              "Exists": key in labels, "DoesNotExist": key not in labels}[op]
        if not ok:
            return False
    return True


def pod_labels(objs: list) -> dict:
    """{component: the Pod template labels} of the rendered controller and speaker."""
    out = {}
    for o in objs:
        if o["kind"] in ("Deployment", "DaemonSet"):
            labels = o["spec"]["template"]["metadata"]["labels"]
            out[o["metadata"]["name"]] = labels
            assert selects(o["spec"]["selector"], labels)
    return out


# Selectors as MetalLB's manifests write them (config/prometheus' monitor Services select
# component=…; a NetworkPolicy for the webhook) and as its chart writes them (podmonitor.yaml,
# networkpolicy.yaml), with the webhook port named as both name it.
MANIFEST_SELECTORS = {
    "controller": [{"matchLabels": {"component": "controller"}},
                   {"matchLabels": {"app": "metallb", "component": "controller"}}],
    "speaker": [{"matchLabels": {"component": "speaker"}},
                {"matchExpressions": [{"key": "app", "operator": "In", "values": ["metallb"]},
                                      {"key": "component", "operator": "In",
                                       "values": ["speaker"]}]}],
}
CHART_SELECTORS = {
    component: [{"matchLabels": {"app.kubernetes.io/name": "metallb",
                                 "app.kubernetes.io/instance": "metallb",
                                 "app.kubernetes.io/component": component}}]
    for component in ("controller", "speaker")}


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_metallb_manifest_selectors_select_the_plain_manifests_pods(manifest):
    objs = objects((REPO / "charts/manifests" / manifest).read_text())
    labels = pod_labels(objs)
    assert set(labels) == {"controller", "speaker"}
    for component, selectors in MANIFEST_SELECTORS.items():
        for selector in selectors:
            assert selects(selector, labels[component]), (component, selector)
            other = "speaker" if component == "controller" else "controller"
            assert not selects(selector, labels[other]), (component, selector)
    # The NetworkPolicy MetalLB's chart renders for the controller opens its webhook port by
    # name; the metallb-webhook-service (MetalLB's name) targets the same port and Pods.
    controller = next(o for o in objs if o["kind"] == "Deployment")
    ports = {p["name"] for p in controller["spec"]["template"]["spec"]["containers"][0]["ports"]}
    assert "webhook-server" in ports
    service = next(o for o in objs if o["kind"] == "Service"
                   and o["metadata"]["name"] == "metallb-webhook-service")
    assert selects({"matchLabels": service["spec"]["selector"]}, labels["controller"])
    assert service["spec"]["ports"][0]["targetPort"] == "webhook-server"


def test_metallb_chart_selectors_select_the_charts_pods(harness):
    # Release "metallb", as MetalLB's install guide names it.
    objs = objects(render.render(harness, ["--release", "metallb"]))
    labels = pod_labels(objs)
    assert set(labels) == {"metallb-controller", "metallb-speaker"}
    for component, selectors in CHART_SELECTORS.items():
        for selector in selectors:
            assert selects(selector, labels[f"metallb-{component}"]), selector
    # `kubectl logs -c speaker`, `-c controller` as for MetalLB.
    names = {o["metadata"]["name"]: containers(o) for o in objs
             if o["kind"] in ("Deployment", "DaemonSet")}
    assert list(names["metallb-speaker"])[0] == "speaker"
    assert list(names["metallb-controller"])[0] == "controller"
