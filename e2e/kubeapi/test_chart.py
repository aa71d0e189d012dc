# SPDX-License-Identifier: Apache-2.0
"""The Helm chart (charts/ingot) rendered by charts/harness: the checked-in plain manifests are
up to date, every object they hold applies to the test API server, values reach the pods,
values.schema.json refuses bad values, and contradictory values fail the render."""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

import kubeapi
from conftest import ApiClient

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "charts/ingot/values.schema.json").read_text())


def _load_render():
    spec = importlib.util.spec_from_file_location("chart_render", REPO / "charts/render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render = _load_render()


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    return render.build_harness(tmp_path_factory.mktemp("chart-render"))


def objects(text: str) -> list:
    return [d for d in yaml.safe_load_all(text) if d]


def rendered(harness, *sets: str) -> dict:
    """The default chart rendered with --set overrides, as {(kind, name): object}."""
    args = [a for s in sets for a in ("--set", s)]
    return {(o["kind"], o["metadata"]["name"]): o for o in objects(render.render(harness, args))}


def test_drain_values_reach_the_agent_and_are_off_by_default(harness):
    def agent_args(*sets: str) -> list:
        return pod_spec(rendered(harness, *sets), "DaemonSet", "metallb-speaker")["containers"][0][
            "args"]
    assert not [a for a in agent_args() if a.startswith("--drain-")]
    assert pod_spec(rendered(harness), "DaemonSet", "metallb-speaker")[
        "terminationGracePeriodSeconds"] == 2
    sets = ("speaker.drain.triggers={cordon,sigterm}", "speaker.drain.taint=example.com/maint",
            "speaker.drain.delay=20s", "speaker.drain.terminationGracePeriodSeconds=30")
    args = agent_args(*sets)
    assert [a for a in args if a.startswith("--drain-")] == [
        "--drain-triggers=cordon,sigterm", "--drain-taint=example.com/maint", "--drain-delay=20s"]
    assert pod_spec(rendered(harness, *sets), "DaemonSet", "metallb-speaker")[
        "terminationGracePeriodSeconds"] == 30


@pytest.mark.parametrize("name", sorted(render.VARIANTS))
def test_checked_in_manifests_are_up_to_date(harness, name):
    expected = render.manifest(harness, render.VARIANTS[name])
    actual = (REPO / "charts/manifests" / name).read_text()
    assert actual == expected, f"charts/manifests/{name} is out of date: run charts/render.py"


def api_path(client, obj: dict) -> str:
    """The collection path of obj's kind, found through discovery as kubectl does."""
    group_version = obj["apiVersion"]
    base = f"/api/{group_version}" if "/" not in group_version else f"/apis/{group_version}"
    listing = client.get(base)
    assert listing.status == 200, f"{group_version} is not served"
    kinds = {r["kind"]: r for r in listing.body["resources"] if "/" not in r["name"]}
    assert obj["kind"] in kinds, f"{obj['kind']} is not served in {group_version}"
    res = kinds[obj["kind"]]
    if res["namespaced"]:
        return f"{base}/namespaces/{obj['metadata']['namespace']}/{res['name']}"
    return f"{base}/{res['name']}"


@pytest.mark.parametrize("name", sorted(render.VARIANTS))
def test_every_manifest_object_applies_to_the_api_server(start_server, name):
    client = ApiClient(start_server(builtin_crds=False))
    docs = objects((REPO / "charts/manifests" / name).read_text())
    assert {"CustomResourceDefinition", "Deployment", "DaemonSet", "ClusterRole"} <= {
        d["kind"] for d in docs}
    for obj in docs:
        path = api_path(client, obj)
        answer = client.post(path, obj)
        if obj["kind"] == "Namespace" and obj["metadata"]["name"] in kubeapi.DEFAULT_NAMESPACES:
            assert answer.status in (201, 409), answer.body
        else:
            assert answer.status == 201, f"{obj['kind']} {obj['metadata']['name']}: {answer.body}"
        back = client.get(f"{path}/{obj['metadata']['name']}")
        assert back.status == 200
        # The server stores these as sent (a CRD's and a Service's spec get defaults, so they
        # are left out).
        kept = ("rules", "data", "roleRef", "subjects") + (
            ("spec",) if obj["kind"] not in ("CustomResourceDefinition", "Service") else ())
        for key in kept:
            if key in obj:
                assert back.body[key] == obj[key], f"{obj['kind']} {obj['metadata']['name']}: {key}"
    pools = client.get("/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools")
    assert pools.status == 200, "the chart's CRDs did not make metallb.io served"


def pod_spec(objs: dict, kind: str, name: str) -> dict:
    return objs[(kind, name)]["spec"]["template"]["spec"]


def test_values_reach_the_pods(harness):
    objs = rendered(harness, "speaker.logLevel=debug", "controller.logLevel=warn",
                    "speaker.nodeSelector.rack=r1", "controller.priorityClassName=infra",
                    "speaker.priorityClassName=node-critical", "loadBalancerClass=ingot",
                    "speaker.bgpDebounceTimeout=500", "speaker.resources.limits.memory=64Mi",
                    "speaker.l2HoldDown=10s")
    agent = pod_spec(objs, "DaemonSet", "metallb-speaker")
    controller = pod_spec(objs, "Deployment", "metallb-controller")
    agent_args = agent["containers"][0]["args"]
    assert "--log-level=debug" in agent_args and "--lb-class=ingot" in agent_args
    assert "--bgp-mode=frr-k8s" in agent_args and "--l2-hold-down=10s" in agent_args
    assert "--log-level=warn" in controller["containers"][0]["args"]
    assert agent["nodeSelector"] == {"rack": "r1", "kubernetes.io/os": "linux"}
    assert (agent["priorityClassName"], controller["priorityClassName"]) == ("node-critical", "infra")
    assert agent["containers"][0]["resources"] == {"limits": {"memory": "64Mi"}}
    env = {e["name"]: e.get("value") for e in agent["containers"][0]["env"]}
    assert env["METALLB_BGP_DEBOUNCE_TIMEOUT"] == "500"
    assert env["METALLB_ML_SECRET_KEY_PATH"] == "/etc/ml_secret_key"
    assert agent["hostNetwork"] is True
    caps = agent["containers"][0]["securityContext"]["capabilities"]["add"]
    assert {"NET_RAW", "NET_ADMIN"} <= set(caps)


def test_native_flavour_runs_the_agents_layer2_only(harness):
    # MetalLB's native flavour (neither frr-k8s nor FRR): no FRR anywhere, no frr-k8s grant, and
    # both daemons told "none" (the agents answer Layer 2 and report BGPPeers as not served).
    objs = rendered(harness, "frrk8s.enabled=false")
    agent = pod_spec(objs, "DaemonSet", "metallb-speaker")
    assert [c["name"] for c in agent["containers"]] == ["speaker"]
    assert "initContainers" not in agent
    args = agent["containers"][0]["args"]
    assert "--bgp-mode=none" in args
    assert not [a for a in args if a.startswith(("--frrk8s-", "--frr-"))]
    volumes = {v["name"] for v in agent["volumes"]}
    assert not volumes & {"frr-sockets", "frr-conf", "frr-startup"}
    assert "NET_RAW" in agent["containers"][0]["securityContext"]["capabilities"]["add"]
    for kind, name in (("DaemonSet", "metallb-speaker"), ("Deployment", "metallb-controller")):
        env = {e["name"]: e.get("value") for e in pod_spec(objs, kind, name)["containers"][0]["env"]}
        assert env["METALLB_BGP_TYPE"] == "none", name
    groups = {g for r in objs[("ClusterRole", "metallb:speaker")]["rules"] for g in r["apiGroups"]}
    assert "frrk8s.metallb.io" not in groups
    assert not [k for k in objs if "frr" in k[1]]


def test_frr_mode_runs_frr_next_to_the_agent_and_drops_the_frrk8s_grant(harness):
    # One --set with two assignments, as Helm accepts.
    objs = rendered(harness, "frrk8s.enabled=false,speaker.frr.enabled=true")
    agent = pod_spec(objs, "DaemonSet", "metallb-speaker")
    assert [c["name"] for c in agent["containers"]] == ["speaker", "frr"]
    assert "--bgp-mode=frr" in agent["containers"][0]["args"]
    groups = {g for r in objs[("ClusterRole", "metallb:speaker")]["rules"] for g in r["apiGroups"]}
    assert "frrk8s.metallb.io" not in groups
    default = rendered(harness)
    groups = {g for r in default[("ClusterRole", "metallb:speaker")]["rules"]
              for g in r["apiGroups"]}
    assert "frrk8s.metallb.io" in groups


PROMETHEUS = ("prometheus.serviceAccount=prometheus-k8s", "prometheus.namespace=monitoring")


def test_monitoring_objects_are_off_by_default_and_render_when_enabled(harness):
    kinds = {k for k, _ in rendered(harness)}
    assert not kinds & {"PodMonitor", "ServiceMonitor", "PrometheusRule"}
    objs = rendered(harness, "prometheus.podMonitor.enabled=true",
                    "prometheus.prometheusRule.enabled=true", *PROMETHEUS)
    alerts = [r["alert"] for g in objs[("PrometheusRule", "metallb")]["spec"]["groups"] for r in g["rules"]]
    # MetalLBBGPSessionDown only in frr mode, where the agent knows the sessions
    # (e2e/kubeapi/test_metrics_https.py checks every flavour's alerts against the metrics).
    assert alerts == ["MetalLBStaleConfig", "MetalLBConfigNotLoaded", "MetalLBAddressPoolExhausted",
                      "MetalLBAddressPoolUsage75Percent", "MetalLBAddressPoolUsage85Percent",
                      "MetalLBAddressPoolUsage95Percent"]
    assert ("PodMonitor", "metallb-speaker") in objs
    # MetalLB's chart refuses both monitors at once (see test_contradictory_values_fail_the_render).
    assert ("ServiceMonitor", "metallb-controller-monitor") in rendered(
        harness, "prometheus.serviceMonitor.enabled=true", *PROMETHEUS)


def test_a_monitor_needs_prometheus_account_unless_rbac_prometheus_is_off(harness):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        rendered(harness, "prometheus.podMonitor.enabled=true")
    assert "prometheus.serviceAccount must be set" in failed.value.stderr
    objs = rendered(harness, "prometheus.podMonitor.enabled=true",
                    "prometheus.rbacPrometheus=false")
    assert ("ClusterRole", "metallb-prometheus") not in objs


def merged_values(harness, *sets: str) -> dict:
    args = ["--print-values", *[a for s in sets for a in ("--set", s)], str(render.CHART)]
    return json.loads(subprocess.run([str(harness), *args], capture_output=True, text=True,
                                     check=True).stdout)


def test_values_schema_accepts_the_defaults(harness):
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    jsonschema.validate(merged_values(harness), SCHEMA)


@pytest.mark.parametrize("bad, path", [
    ("speaker.logLevel=loud", ["speaker", "logLevel"]),
    ("prometheus.metricsPort=70000", ["prometheus", "metricsPort"]),
    ("speaker.memberlist.mlSecretKeyPath=etc/key", ["speaker", "memberlist", "mlSecretKeyPath"]),
    ("controller.tolerations=oops", ["controller", "tolerations"]),
    ("speaker.l2HoldDown=10", ["speaker", "l2HoldDown"]),
])
def test_values_schema_rejects_a_bad_value(harness, bad, path):
    with pytest.raises(jsonschema.ValidationError) as caught:
        jsonschema.validate(merged_values(harness, bad), SCHEMA)
    assert list(caught.value.absolute_path) == path


@pytest.mark.parametrize("sets, message", [
    (["speaker.frr.enabled=true"], "mutually exclusive"),
    (["frrk8s.external=true"], "mutually exclusive"),
    (["speaker.memberlist.enabled=false", "speaker.nodeSelector.a=b"], "needs speaker.memberlist"),
    # MetalLB's chart: servicemonitor.yaml fails on both monitors, speaker.yaml requires the
    # namespace of an external frr-k8s.
    (["prometheus.serviceMonitor.enabled=true", "prometheus.podMonitor.enabled=true"],
     "prometheus.serviceMonitor.enabled and prometheus.podMonitor.enabled cannot both be set"),
    (["frrk8s.enabled=false", "frrk8s.external=true"],
     "namespace is required when frrk8s is external"),
    # MetalLB values Ingot cannot honour are refused, never dropped (refused-values.yaml).
    (["tls.curvePreferences=29"], 'tls.curvePreferences="29": not supported'),
    (["speaker.memberlist.enabled=false", "speaker.wanConfig=true"],
     "speaker.wanConfig tunes memberlist: it needs speaker.memberlist.enabled"),
])
def test_contradictory_values_fail_the_render(harness, sets, message):
    with pytest.raises(subprocess.CalledProcessError) as caught:
        render.render(harness, [a for s in sets for a in ("--set", s)])
    assert message in caught.value.stderr


def test_an_external_frrk8s_gets_the_namespace_it_is_given(harness):
    objs = rendered(harness, "frrk8s.enabled=false", "frrk8s.external=true",
                    "frrk8s.namespace=frr-k8s-system")
    args = pod_spec(objs, "DaemonSet", "metallb-speaker")["containers"][0]["args"]
    assert "--frrk8s-namespace=frr-k8s-system" in args


def daemon_binary(env: str, relative: str) -> Path:
    """$env, else build/<relative>; skips when the daemon is not built (scripts/setup builds it)."""
    path = Path(os.environ.get(env) or REPO / "build" / relative)
    if not path.is_file():
        pytest.skip(f"{path} is not built")
    return path


@pytest.mark.parametrize("sets", [
    (),
    ("frrk8s.enabled=false", "speaker.frr.enabled=true"),
    ("frrk8s.enabled=false",),
    ("speaker.logLevel=debug", "controller.logLevel=none", "loadBalancerClass=ingot",
     "speaker.ignoreExcludeLB=true", "frrk8s.secretPassthrough=true", "frrk8s.namespace=frr-k8s",
     "speaker.bgpDebounceTimeout=0", "speaker.memberlist.enabled=false",
     "speaker.l2HoldDown=1m30s"),
    ("speaker.wanConfig=true", "tls.minVersion=VersionTLS12",
     "tls.cipherSuites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
])
@pytest.mark.parametrize("kind, name, env, relative", [
    ("DaemonSet", "metallb-speaker", "INGOT_AGENT", "agent/ingot-agent"),
    ("Deployment", "metallb-controller", "INGOT_CONTROLLER", "controller/ingot-controller"),
])
def test_the_daemons_accept_the_rendered_flags_and_environment(harness, sets, kind, name, env,
                                                               relative):
    binary = daemon_binary(env, relative)
    container = pod_spec(rendered(harness, *sets), kind, name)["containers"][0]
    environment = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    # With --help the daemon parses every flag and bound variable, then prints its usage.
    done = subprocess.run([str(binary), *container["args"], "--help"], capture_output=True,
                          text=True, env={"PATH": os.environ.get("PATH", ""), **environment},
                          timeout=30)
    assert done.returncode == 0, done.stderr


def test_large_numbers_from_a_values_file_render_as_integers(harness, tmp_path):
    # Helm reads values files through JSON: 3600000 arrives as a float and would print 3.6e+06.
    values = tmp_path / "values.yaml"
    values.write_text("speaker:\n  bgpDebounceTimeout: 3600000\n")
    objs = {(o["kind"], o["metadata"]["name"]): o
            for o in objects(render.render(harness, ["-f", str(values)]))}
    env = {e["name"]: e.get("value") for e in pod_spec(objs, "DaemonSet", "metallb-speaker")
           ["containers"][0]["env"]}
    assert env["METALLB_BGP_DEBOUNCE_TIMEOUT"] == "3600000"


@pytest.mark.parametrize("sets", [(), ("frrk8s.enabled=false", "speaker.frr.enabled=true"),
                                  ("frrk8s.enabled=false",),
                                  ("controller.readinessProbe.port=1234",
                                   "speaker.livenessProbe.port=7473")])
def test_probes_use_the_health_port_the_daemon_is_given(harness, sets):
    objs = rendered(harness, *sets)
    for kind, name in (("DaemonSet", "metallb-speaker"), ("Deployment", "metallb-controller")):
        container = pod_spec(objs, kind, name)["containers"][0]
        flag = next(a for a in container["args"] if a.startswith("--health-probe-port="))
        port = int(flag.split("=", 1)[1])
        named = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
        probes = [k for k in container if k.endswith("Probe")]
        assert probes, f"{name} has no probes"
        for probe in probes:
            target = container[probe]["httpGet"]["port"]
            assert named.get(target, target) == port, f"{name} {probe} probes {target}"


def test_the_memberlist_key_is_left_to_the_controller_so_renders_are_stable(harness):
    # helm template (Argo CD's diff) renders no key: two renders are the same, and the controller,
    # told the Secret's name and its Deployment, creates the Secret the agents mount.
    args = ["--set", "speaker.memberlist.generateSecret=true"]
    first, second = render.render(harness, args), render.render(harness, args)
    assert first == second, "two renders of the same values differ"
    objs = {(o["kind"], o["metadata"]["name"]): o for o in objects(first)}
    assert ("Secret", "metallb-memberlist") not in objs
    agent = pod_spec(objs, "DaemonSet", "metallb-speaker")
    volumes = {v["name"]: v for v in agent["volumes"]}
    assert volumes["memberlist"]["secret"]["secretName"] == "metallb-memberlist"
    controller_env = {e["name"]: e.get("value") for e in
                      pod_spec(objs, "Deployment", "metallb-controller")["containers"][0]["env"]}
    assert controller_env["METALLB_ML_SECRET_NAME"] == "metallb-memberlist"
    assert controller_env["METALLB_DEPLOYMENT"] == "metallb-controller"
    rules = [r for r in objs[("Role", "metallb-controller")]["rules"]
             if "secrets" in r["resources"] and "create" in r["verbs"]]
    assert rules, "the controller may not create the memberlist Secret"


def secret_file(tmp_path, name: str, annotations: dict) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "metallb-memberlist", "namespace": "metallb-system",
                     "annotations": annotations},
        "data": {"secretkey": base64.b64encode(b"k" * 128).decode()}}))
    return str(path)


def test_an_upgrade_keeps_the_memberlist_key_this_release_rendered_before(harness, tmp_path):
    # An earlier chart rendered the key into a Secret the release owns: an install that finds it
    # (lookup) renders it again with the same key, so the upgrade neither deletes nor rotates it.
    owned = secret_file(tmp_path, "owned", {"meta.helm.sh/release-name": "metallb",
                                            "meta.helm.sh/release-namespace": "metallb-system"})
    objs = {(o["kind"], o["metadata"]["name"]): o
            for o in objects(render.render(harness, ["--lookup", owned]))}
    secret = objs[("Secret", "metallb-memberlist")]
    assert base64.b64decode(secret["data"]["secretkey"]) == b"k" * 128
    assert secret["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    # The controller's own Secret (or another release's) is not taken over: Helm would refuse to
    # adopt it without its ownership metadata.
    for annotations in ({}, {"meta.helm.sh/release-name": "other"}):
        found = secret_file(tmp_path, "found", annotations)
        kinds = {(o["kind"], o["metadata"]["name"])
                 for o in objects(render.render(harness, ["--lookup", found]))}
        assert ("Secret", "metallb-memberlist") not in kinds, annotations
    assert ("Secret", "metallb-memberlist") not in rendered(
        harness, "speaker.memberlist.generateSecret=false")


def test_ingot_frr_replaces_frr_k8s_when_chosen(harness):
    objs = rendered(harness, "frrk8s.ingotFrr.enabled=true", "frrk8s.namespace=frr-k8s-system")
    ds = objs[("DaemonSet", "metallb-frr")]
    assert ds["metadata"]["namespace"] == "frr-k8s-system"
    spec = ds["spec"]["template"]["spec"]
    assert [c["name"] for c in spec["containers"]] == ["frr", "ingot-frr"]
    args = spec["containers"][1]["args"]
    assert "--namespace=frr-k8s-system" in args
    rules = objs[("ClusterRole", "metallb:ingot-frr")]["rules"]
    assert any("frrnodestates/status" in r["resources"] for r in rules)
    assert ("DaemonSet", "metallb-frr") not in rendered(harness)  # default: an external frr-k8s
    binary = daemon_binary("INGOT_FRR", "ingotfrr/ingot-frr")
    done = subprocess.run([str(binary), *args, "--help"], capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "")}, timeout=30)
    assert done.returncode == 0, done.stderr


# MetalLB's default list of interfaces Layer 2 never announces on (its chart's excludel2.yaml).
METALLB_EXCLUDEL2 = ["^docker.*", "^cbr.*", "^dummy.*", "^virbr.*", "^lxcbr.*", "^veth.*", "^lo$",
                     "^cali.*", "^tunl.*", "^flannel.*", "^kube-ipvs.*", "^cni.*",
                     "^nodelocaldns.*", "^lxc.*"]


def test_the_excludel2_configmap_has_metallbs_default_list_and_is_mounted(harness):
    objs = rendered(harness)
    data = yaml.safe_load(objs[("ConfigMap", "metallb-excludel2")]["data"]["excludel2.yaml"])
    assert data == {"announcedInterfacesToExclude": METALLB_EXCLUDEL2}
    agent = pod_spec(objs, "DaemonSet", "metallb-speaker")
    volumes = {v["name"]: v for v in agent["volumes"]}
    mounted = {m["name"]: m["mountPath"] for m in agent["containers"][0]["volumeMounts"]}
    config_volume = next(n for n, v in volumes.items()
                         if v.get("configMap", {}).get("name") == "metallb-excludel2")
    assert mounted[config_volume] == "/etc/metallb"  # the agent reads /etc/metallb/excludel2.yaml
    assert ("ConfigMap", "metallb-excludel2") not in rendered(
        harness, "speaker.excludeInterfaces.enabled=false")


def test_tolerations_node_selectors_and_runtime_class_reach_the_pods(harness, tmp_path):
    control_plane = [{"key": f"node-role.kubernetes.io/{role}", "effect": "NoSchedule",
                      "operator": "Exists"} for role in ("master", "control-plane")]
    default = rendered(harness)
    assert pod_spec(default, "DaemonSet", "metallb-speaker")["tolerations"] == control_plane
    assert "tolerations" not in pod_spec(default, "Deployment", "metallb-controller")
    # Lists come from a values file (the harness has no --set list indexes).
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump({
        "speaker": {"tolerateMaster": False,
                    "tolerations": [{"key": "dedicated", "operator": "Exists"}]},
        "controller": {"tolerations": [{"key": "infra", "operator": "Exists"}],
                       "nodeSelector": {"kubernetes.io/os": "linux"},
                       "runtimeClassName": "gvisor"}}))
    objs = {(o["kind"], o["metadata"]["name"]): o
            for o in objects(render.render(harness, ["-f", str(values)]))}
    assert pod_spec(objs, "DaemonSet", "metallb-speaker")["tolerations"] == [
        {"key": "dedicated", "operator": "Exists"}]
    controller = pod_spec(objs, "Deployment", "metallb-controller")
    assert controller["tolerations"] == [{"key": "infra", "operator": "Exists"}]
    assert controller["nodeSelector"] == {"kubernetes.io/os": "linux"}
    assert controller["runtimeClassName"] == "gvisor"


def test_monitors_select_the_pods_and_scrape_the_metrics_port(harness):
    objs = rendered(harness, "prometheus.podMonitor.enabled=true",
                    "prometheus.podMonitor.interval=15s", *PROMETHEUS)
    for component, kind, name in (("speaker", "DaemonSet", "metallb-speaker"),
                                  ("controller", "Deployment", "metallb-controller")):
        monitor = objs[("PodMonitor", f"metallb-{component}")]["spec"]
        template = objs[(kind, name)]["spec"]["template"]
        labels = template["metadata"]["labels"]
        assert monitor["selector"]["matchLabels"].items() <= labels.items()
        endpoint = monitor["podMetricsEndpoints"][0]
        assert endpoint["interval"] == "15s"
        ports = {p["name"]: p["containerPort"] for c in template["spec"]["containers"]
                 for p in c.get("ports", [])}
        assert endpoint["port"] == "metricshttps" and ports["metricshttps"] == 9120
        assert endpoint["scheme"] == "https"
        assert endpoint["tlsConfig"] == {"insecureSkipVerify": True}
        assert endpoint["authorization"]["credentials"] == {"name": "metallb-metrics-token",
                                                            "key": "token"}
        flag = next(a for a in template["spec"]["containers"][0]["args"]
                    if a.startswith("--port="))
        assert flag == "--port=9120"
    # The token is a metrics-reader ServiceAccount's, allowed to get /metrics.
    secret = objs[("Secret", "metallb-metrics-token")]
    assert secret["type"] == "kubernetes.io/service-account-token"
    reader = secret["metadata"]["annotations"]["kubernetes.io/service-account.name"]
    assert ("ServiceAccount", reader) in objs
    metrics_get = [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    assert objs[("ClusterRole", "metallb-metrics-reader")]["rules"] == metrics_get
    assert objs[("ClusterRoleBinding", "metallb-metrics-reader")]["subjects"][0]["name"] == reader
    # Prometheus' own account may get /metrics too (the ServiceMonitor's bearer token).
    assert objs[("ClusterRole", "metallb-prometheus")]["rules"] == metrics_get
    assert objs[("ClusterRoleBinding", "metallb-prometheus")]["subjects"] == [
        {"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}]


def test_service_monitors_scrape_https_with_prometheus_token(harness):
    objs = rendered(harness, "prometheus.serviceMonitor.enabled=true", *PROMETHEUS)
    for component in ("speaker", "controller"):
        (endpoint,) = objs[("ServiceMonitor", f"metallb-{component}-monitor")]["spec"]["endpoints"]
        assert endpoint["port"] == "metricshttps" and endpoint["scheme"] == "https"
        assert endpoint["bearerTokenFile"] == "/var/run/secrets/kubernetes.io/serviceaccount/token"
        assert endpoint["tlsConfig"] == {"insecureSkipVerify": True}
        service = objs[("Service", f"metallb-{component}-monitor-service")]["spec"]
        assert service["ports"] == [{"name": "metricshttps", "port": 9120,
                                     "targetPort": "metricshttps"}]


def test_metrics_certificates_and_review_grants(harness):
    objs = rendered(harness, "tls.speakerMetricsTLSSecret=agent-metrics",
                    "tls.controllerMetricsTLSSecret=controller-metrics",
                    "tls.minVersion=VersionTLS12")
    for kind, name, secret in (("DaemonSet", "metallb-speaker", "agent-metrics"),
                               ("Deployment", "metallb-controller", "controller-metrics")):
        spec = pod_spec(objs, kind, name)
        container = spec["containers"][0]
        assert "--metrics-cert-dir=/etc/metrics" in container["args"]
        assert "--tls-min-version=VersionTLS12" in container["args"]
        assert {"name": "metrics-certs", "mountPath": "/etc/metrics", "readOnly": True} in \
            container["volumeMounts"]
        assert {"name": "metrics-certs", "secret": {"secretName": secret}} in spec["volumes"]
    for role in ("metallb:speaker", "metallb:controller"):
        rules = objs[("ClusterRole", role)]["rules"]
        assert {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
                "verbs": ["create"]} in rules
        assert {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
                "verbs": ["create"]} in rules
    default = rendered(harness)
    assert not any(a.startswith("--metrics-cert-dir") for a in
                   pod_spec(default, "DaemonSet", "metallb-speaker")["containers"][0]["args"])


# Alert metrics no Ingot daemon exports, each with the reason (docs/compatibility.md). None: the
# agent exports metallb_bgp_session_up in frr mode (read from FRR's JSON), as MetalLB's
# frr-metrics sidecar does.
NOT_EXPORTED: set = set()


def test_the_alerts_use_metrics_the_daemons_export(harness):
    objs = rendered(harness, "prometheus.prometheusRule.enabled=true")
    exprs = " ".join(r["expr"] for g in objs[("PrometheusRule", "metallb")]["spec"]["groups"]
                     for r in g["rules"])
    used = set(re.findall(r"\b(metallb_[a-z_]+)\b", exprs))
    sources = "".join(p.read_text() for d in ("controller", "agent", "common")
                      for p in (REPO / d).rglob("*.cpp") if "tests" not in p.parts)
    # The session families are named from a style's prefix ("metallb" for the agent, as
    # kMetalLbSessions in frr/session_metrics.h says) and a family name.
    sessions = (REPO / "frr" / "session_metrics.cpp").read_text()
    assert 'kMetalLbSessions{"metallb"' in (REPO / "frr" / "session_metrics.h").read_text()
    missing = {m for m in used
               if f'"{m}' not in sources and f'{{"{m.removeprefix("metallb_")}"' not in sessions}
    assert used and missing == NOT_EXPORTED, f"alerts on metrics no daemon exports: {missing}"


def test_the_default_images_are_the_ones_scripts_build_images_tags(harness):
    version = re.search(r"project\(ingot VERSION (\S+)",
                        (REPO / "CMakeLists.txt").read_text())[1]
    objs = rendered(harness)
    images = {c["image"] for kind, name in (("DaemonSet", "metallb-speaker"),
                                            ("Deployment", "metallb-controller"))
              for c in pod_spec(objs, kind, name)["containers"]}
    assert images == {f"localhost/ingot/agent:{version}", f"localhost/ingot/controller:{version}"}
    build_images = (REPO / "scripts/build-images").read_text()
    assert 'REGISTRY = "localhost/ingot"' in build_images


@pytest.mark.parametrize("sets, message", [
    (["controller.image.repository=quay.io/metallb/controller"],
     'controller.image.repository="quay.io/metallb/controller" is MetalLB\'s image'),
    (["speaker.image.repository=quay.io/metallb/speaker"],
     'speaker.image.repository="quay.io/metallb/speaker" is MetalLB\'s image'),
    (["speaker.image.repository=ingot/agent"],
     'speaker.image.repository="ingot/agent" is not fully qualified'),
    (["controller.image.repository=controller"],
     'controller.image.repository="controller" is not fully qualified'),
    (["frrk8s.ingotFrr.enabled=true", "frrk8s.ingotFrr.image.repository=docker.io/ingot-frr"],
     None),
    (["frrk8s.ingotFrr.enabled=true", "frrk8s.ingotFrr.image.repository=ingot/ingot-frr"],
     'frrk8s.ingotFrr.image.repository="ingot/ingot-frr" is not fully qualified'),
    (["frrk8s.enabled=false", "speaker.frr.enabled=true",
      "speaker.frr.image.repository=quay.io/frrouting/frr", "speaker.frr.image.tag=10.5.3"],
     "speaker.frr.image=quay.io/frrouting/frr:10.5.3 is FRR 10.5.3, but the agent's vtysh and "
     "frr-reload.py are FRR 8.4"),
    (["frrk8s.enabled=false", "speaker.frr.enabled=true",
      "speaker.frr.image.repository=quay.io/frrouting/frr", "speaker.frr.image.tag=8.4.4"], None),
    (["frrk8s.ingotFrr.enabled=true", "frrk8s.ingotFrr.frrImage.repository=quay.io/frrouting/frr",
      "frrk8s.ingotFrr.frrImage.tag=9.1.0"],
     "frrk8s.ingotFrr.frrImage=quay.io/frrouting/frr:9.1.0 is FRR 9.1.0"),
    (["controller.image.repository=registry.example.com:5000/lb/controller"], None),
])
def test_image_references_are_fully_qualified_ingot_images(harness, sets, message):
    args = [a for s in sets for a in ("--set", s)]
    if message is None:
        render.render(harness, args)
        return
    with pytest.raises(subprocess.CalledProcessError) as caught:
        render.render(harness, args)
    assert message in caught.value.stderr


def test_a_metallb_values_file_is_refused_not_run_with_metallbs_images(harness, tmp_path):
    # The image section of MetalLB's values.yaml, as a user's copy of it carries it.
    values = tmp_path / "metallb-values.yaml"
    values.write_text(yaml.safe_dump({
        "controller": {"image": {"repository": "quay.io/metallb/controller", "tag": None}},
        "speaker": {"image": {"repository": "quay.io/metallb/speaker", "tag": None},
                    "frr": {"image": {"repository": "quay.io/frrouting/frr",
                                      "tag": "10.5.3"}}}}))
    with pytest.raises(subprocess.CalledProcessError) as caught:
        render.render(harness, ["-f", str(values)])
    assert "is MetalLB's image: this chart runs Ingot's daemons" in caught.value.stderr


def agent_help(binary: Path) -> str:
    done = subprocess.run([str(binary), "--help"], capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "")}, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_the_memberlist_tuning_configmap_is_mounted_where_the_agent_reads_it(harness):
    # MetalLB's optional metallb-memberlist-config ConfigMap (key config.json) is mounted at the
    # directory of the agent's --ml-tuning-path default, inside the excludel2 mount at /etc/metallb.
    agent = pod_spec(rendered(harness), "DaemonSet", "metallb-speaker")
    volume = next(v for v in agent["volumes"] if v["name"] == "memberlist-config")
    assert volume["configMap"] == {"name": "metallb-memberlist-config", "optional": True}
    mounts = {m["name"]: m["mountPath"] for m in agent["containers"][0]["volumeMounts"]}
    default = re.search(r"memberlist tuning JSON.*?\(default (\S+)\)",
                        agent_help(daemon_binary("INGOT_AGENT", "agent/ingot-agent")), re.S)
    assert default, "ingot-agent --help names no default tuning file"
    assert f"{mounts['memberlist-config']}/config.json" == default[1]
    assert mounts["metallb-excludel2"] == "/etc/metallb"
    without = pod_spec(rendered(harness, "speaker.memberlist.enabled=false"), "DaemonSet",
                       "metallb-speaker")
    assert "memberlist-config" not in {v["name"] for v in without["volumes"]}


def test_wan_config_reaches_the_agent(harness):
    args = pod_spec(rendered(harness, "speaker.wanConfig=true"), "DaemonSet",
                    "metallb-speaker")["containers"][0]["args"]
    assert "--ml-wan-config" in args
    assert "--ml-wan-config" not in pod_spec(rendered(harness), "DaemonSet",
                                             "metallb-speaker")["containers"][0]["args"]


def test_the_pods_run_on_linux_nodes_only(harness):
    # MetalLB's chart and manifests pin both daemons to kubernetes.io/os=linux; a user's
    # nodeSelector is merged with it.
    for objs in (rendered(harness), rendered(harness, "naming=manifests")):
        for kind in ("DaemonSet", "Deployment"):
            spec = next(o for (k, _), o in objs.items() if k == kind)["spec"]["template"]["spec"]
            assert spec["nodeSelector"] == {"kubernetes.io/os": "linux"}, kind
    objs = rendered(harness, "controller.nodeSelector.role=infra")
    assert pod_spec(objs, "Deployment", "metallb-controller")["nodeSelector"] == {
        "role": "infra", "kubernetes.io/os": "linux"}


def test_tls_values_reach_the_controllers_webhook_server(harness):
    args = pod_spec(rendered(harness, "tls.minVersion=VersionTLS12",
                             "tls.cipherSuites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
                    "Deployment", "metallb-controller")["containers"][0]["args"]
    assert "--tls-min-version=VersionTLS12" in args
    assert "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" in args


def test_network_policies_are_metallbs_and_select_the_controller(harness):
    assert not [k for k in rendered(harness) if k[0] == "NetworkPolicy"]
    objs = rendered(harness, "networkpolicies.enabled=true", "networkpolicies.apiPort=8443")
    assert ("NetworkPolicy", "default-deny") not in objs
    policy = objs[("NetworkPolicy", "controller")]["spec"]
    template = objs[("Deployment", "metallb-controller")]["spec"]["template"]
    labels = template["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    assert policy["policyTypes"] == ["Egress", "Ingress"]
    assert policy["egress"] == [{"ports": [{"protocol": "TCP", "port": 8443}]}]
    # Each ingress port is a port the controller serves: the metrics port (by number) and the
    # webhook (by the container port's name).
    container = template["spec"]["containers"][0]
    named = {p["name"]: p["containerPort"] for p in container["ports"]}
    ports = [p["port"] for p in policy["ingress"][0]["ports"]]
    assert [named.get(p, p) for p in ports] == [9120, 9443]
    no_webhook = rendered(harness, "networkpolicies.enabled=true",
                          "controller.webhookMode=disabled")
    assert [p["port"] for p in no_webhook[("NetworkPolicy", "controller")]["spec"]["ingress"][0]
            ["ports"]] == [9120]
    deny = rendered(harness, "networkpolicies.enabled=true", "networkpolicies.defaultDeny=true")
    assert deny[("NetworkPolicy", "default-deny")]["spec"] == {
        "podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


@pytest.mark.parametrize("args, controller, speaker, name_label", [
    # MetalLB's chart's names by default: release "metallb" gives its objects' names.
    (["--release", "metallb"], "metallb-controller", "metallb-speaker", "metallb"),
    (["--release", "lb"], "lb-metallb-controller", "lb-metallb-speaker", "metallb"),
    # nameOverride keeps Ingot's earlier names; the agent's objects are "-speaker" either way.
    (["--release", "ingot", "--set", "nameOverride=ingot"], "ingot-controller", "ingot-speaker",
     "ingot"),
])
def test_names_and_memberlist_seeds_follow_the_release_and_name_override(harness, args,
                                                                         controller, speaker,
                                                                         name_label):
    objs = {(o["kind"], o["metadata"]["name"]): o for o in objects(render.render(harness, args))}
    deployment, daemonset = objs[("Deployment", controller)], objs[("DaemonSet", speaker)]
    labels = daemonset["spec"]["template"]["metadata"]["labels"]
    assert labels["app.kubernetes.io/name"] == name_label
    assert labels["app.kubernetes.io/component"] == "speaker"
    # The memberlist seeds and the controller's view of the agents select exactly these Pods.
    env = {e["name"]: e.get("value") for e in
           daemonset["spec"]["template"]["spec"]["containers"][0]["env"]}
    selector = dict(pair.split("=") for pair in env["METALLB_ML_LABELS"].split(","))
    assert selector.items() <= labels.items()
    flag = next(a for a in deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                if a.startswith("--agent-labels="))
    assert flag == f"--agent-labels={env['METALLB_ML_LABELS']}"
    assert not dict(pair.split("=") for pair in flag.split("=", 1)[1].split(",")).items() <= \
        deployment["spec"]["template"]["metadata"]["labels"].items()
    assert ("Secret", f"{controller.removesuffix('-controller')}-memberlist") not in objs
    volume = next(v for v in daemonset["spec"]["template"]["spec"]["volumes"]
                  if v["name"] == "memberlist")
    assert volume["secret"]["secretName"] == f"{controller.removesuffix('-controller')}-memberlist"


@pytest.mark.parametrize("naming", ["chart", "manifests"])
def test_the_controller_is_told_or_defaults_to_the_rendered_object_names(harness, naming):
    # Names the controller must find: the webhook Service and certificate Secret (its defaults,
    # MetalLB's, which the chart does not pass), its own Deployment and the memberlist Secret
    # (passed as METALLB_DEPLOYMENT and METALLB_ML_SECRET_NAME), all as rendered.
    help_text = subprocess.run(
        [str(daemon_binary("INGOT_CONTROLLER", "controller/ingot-controller")), "--help"],
        capture_output=True, text=True, timeout=30).stdout
    defaults = dict(re.findall(r"--([a-z-]+) value\n\s+.*\(default (\S+)\)", help_text))
    objs = rendered(harness, f"naming={naming}")
    assert ("Service", defaults["cert-service-name"]) in objs
    assert ("Secret", defaults["webhook-secret"]) in objs
    deployment = next(o for (k, _), o in objs.items() if k == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert not [a for a in container["args"]
                if a.startswith(("--cert-service-name", "--webhook-secret"))]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["METALLB_DEPLOYMENT"] == deployment["metadata"]["name"]
    agent = next(o for (k, _), o in objs.items() if k == "DaemonSet")["spec"]["template"]["spec"]
    secret = next(v for v in agent["volumes"] if v["name"] == "memberlist")["secret"]
    assert env["METALLB_ML_SECRET_NAME"] == secret["secretName"]
    role = next(o for (k, n), o in objs.items()
                if k == "Role" and n == deployment["metadata"]["name"])
    named = {n for r in role["rules"] for n in r.get("resourceNames", [])}
    assert {deployment["metadata"]["name"], secret["secretName"],
            defaults["webhook-secret"]} <= named
