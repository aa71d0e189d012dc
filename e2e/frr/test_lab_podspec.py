# SPDX-License-Identifier: Apache-2.0
"""The lab's Pod spec → launch plan translator (netlab/podspec.py), without root or FRR: argv
with $(VAR) expansion, the environment (values, Downward API, Secret and ConfigMap keys), volumes
(files and modes, the service-account projection), probes, ports, the fields the lab refuses,
the mount script, and the chart's rendered Pods (the checked-in plain manifests) planned as the
lab runs them."""

from __future__ import annotations

import base64
import copy
import subprocess
from pathlib import Path

import pytest

from netlab import podrun, podspec, rbac
from netlab.proc import LabError

SECRET = {"kind": "Secret", "data": {"secretkey": base64.b64encode(b"k" * 16).decode()}}
CONFIG = {"kind": "ConfigMap", "data": {"excludel2.yaml": "announcedInterfacesToExclude: []\n",
                                        "level": "debug"}}
OBJECTS = {("Secret", "ns", "ml"): SECRET, ("ConfigMap", "ns", "cm"): CONFIG}
SA = {"token": (b"tok", 0o644), "ca.crt": (b"CA", 0o644), "namespace": (b"ns", 0o644)}


def lookup(kind, namespace, name):
    return copy.deepcopy(OBJECTS.get((kind, namespace, name)))


def pod(container: dict, **spec) -> dict:
    return {"metadata": {"name": "speaker-n1", "namespace": "ns", "labels": {"app": "x"}},
            "spec": {"nodeName": "n1", "serviceAccountName": "speaker",
                     "containers": [container], **spec},
            "status": {"podIP": "10.0.0.11", "hostIP": "10.0.0.11"}}


def plan(p: dict, name: str = "c", base=None) -> podspec.LaunchPlan:
    return podspec.plan(p, name, lookup, lambda image: ["/usr/bin/ingot-agent"] if image else [],
                        lambda: SA, base)


def test_argv_is_the_entrypoint_or_command_plus_args_with_var_expansion():
    c = {"name": "c", "image": "ingot/agent:1", "args": ["--node=$(NODE)", "--x=$$(NODE)",
                                                         "--y=$(UNSET)", "$5"],
         "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]}
    assert plan(pod(c)).argv == ["/usr/bin/ingot-agent", "--node=n1", "--x=$(NODE)",
                                 "--y=$(UNSET)", "$5"]
    c["command"] = ["/bin/sh", "-c", "echo $(NODE)"]
    assert plan(pod(c)).argv[:3] == ["/bin/sh", "-c", "echo n1"]


def test_environment_resolves_values_downward_api_and_object_keys_in_order():
    c = {"name": "c", "image": "i", "env": [
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
        {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "ml", "key": "secretkey"}}},
        {"name": "LVL", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "level"}}},
        {"name": "GONE", "valueFrom": {"secretKeyRef": {"name": "nope", "key": "k",
                                                        "optional": True}}},
        {"name": "BOTH", "value": "$(POD)@$(IP)"}]}
    env = plan(pod(c), base={"PATH": "/bin"}).env
    assert env == {"PATH": "/bin", "POD": "speaker-n1", "NS": "ns", "IP": "10.0.0.11",
                   "APP": "x", "KEY": "k" * 16, "LVL": "debug", "BOTH": "speaker-n1@10.0.0.11"}


def test_missing_objects_and_keys_are_named():
    c = {"name": "c", "image": "i",
         "env": [{"name": "K", "valueFrom": {"secretKeyRef": {"name": "absent", "key": "k"}}}]}
    with pytest.raises(podspec.Missing, match="container c env K: Secret ns/absent not found"):
        plan(pod(c))
    c["env"][0]["valueFrom"]["secretKeyRef"]["name"] = "ml"
    with pytest.raises(LabError, match="Secret ns/ml has no key 'k'"):
        plan(pod(c))
    c["env"][0]["valueFrom"] = {"fieldRef": {"fieldPath": "spec.bogus"}}
    with pytest.raises(LabError, match="fieldRef 'spec.bogus' is not a field"):
        plan(pod(c))


def test_volumes_become_files_with_modes_and_the_token_is_projected():
    c = {"name": "c", "image": "i", "volumeMounts": [
        {"name": "ml", "mountPath": "/etc/ml_secret_key"},
        {"name": "cm", "mountPath": "/etc/metallb/"},
        {"name": "sock", "mountPath": "/var/run/frr"}]}
    p = pod(c, volumes=[{"name": "ml", "secret": {"secretName": "ml", "defaultMode": 0o400}},
                        {"name": "cm", "configMap": {"name": "cm", "items": [
                            {"key": "excludel2.yaml", "path": "excludel2.yaml"}]}},
                        {"name": "sock", "emptyDir": {}}])
    mounts = {m.path: m for m in plan(p).mounts}
    assert mounts["/etc/ml_secret_key"].volume.files == {"secretkey": (b"k" * 16, 0o400)}
    assert mounts["/etc/metallb"].volume.files == {
        "excludel2.yaml": (b"announcedInterfacesToExclude: []\n", 0o644)}
    assert mounts["/var/run/frr"].volume.shared == "sock"
    token = mounts[podspec.SERVICE_ACCOUNT_DIR]
    assert token.volume.files == SA and token.read_only
    assert plan(dict(p, spec=dict(p["spec"], automountServiceAccountToken=False))).mounts[-1] \
        .path != podspec.SERVICE_ACCOUNT_DIR


def test_a_mount_of_an_undeclared_volume_or_an_unknown_field_fails_with_its_name():
    c = {"name": "c", "image": "i", "volumeMounts": [{"name": "x", "mountPath": "/x"}]}
    with pytest.raises(LabError, match="volumeMount /x names volume 'x', which the Pod"):
        plan(pod(c))
    with pytest.raises(LabError, match="field 'lifecycle' is neither run by the lab nor "
                                       "listed"):
        plan(pod({"name": "c", "image": "i", "lifecycle": {}}))
    with pytest.raises(LabError, match="field 'hostPID'"):
        plan(pod({"name": "c", "image": "i"}, hostPID=True))
    # Listed with a reason: accepted.
    plan(pod({"name": "c", "image": "i", "resources": {"limits": {"cpu": "1"}},
              "securityContext": {}}, hostNetwork=True, tolerations=[]))


def test_probes_resolve_named_ports_and_default_to_the_pod_ip():
    c = {"name": "c", "image": "i", "ports": [{"name": "health", "containerPort": 17472},
                                              {"name": "ml", "containerPort": 7946,
                                               "protocol": "UDP"}],
         "readinessProbe": {"httpGet": {"path": "/readyz", "port": "health"},
                            "periodSeconds": 10},
         "livenessProbe": {"httpGet": {"path": "/healthz", "port": 17472,
                                       "host": "127.0.0.1"}}}
    got = plan(pod(c))
    assert [(p.kind, p.url) for p in got.probes] == [
        ("readinessProbe", "http://10.0.0.11:17472/readyz"),
        ("livenessProbe", "http://127.0.0.1:17472/healthz")]
    assert got.ports == [podspec.Port("health", 17472, "TCP"), podspec.Port("ml", 7946, "UDP")]
    c["readinessProbe"] = {"exec": {"command": ["true"]}}
    with pytest.raises(LabError, match="readinessProbe: handler \\['exec'\\] is not supported"):
        plan(pod(c))


def test_mount_script_overlays_missing_ancestors_before_any_bind():
    existing = {"/", "/etc", "/run", "/var", "/var/run", "/etc/frr", "/run/frr"}
    script = podspec.mount_script(
        [("/w/frr", "/etc/frr", False, False), ("/w/ml", "/etc/ml_secret_key", True, False),
         ("/w/sa", "/var/run/secrets/kubernetes.io/serviceaccount", True, False),
         ("/w/sub", "/etc/frr/sub", False, False)],
        lambda p: p in existing, lambda p: "/run" if p == "/var/run" else p)
    lines = script.splitlines()
    overlays = [i for i, line in enumerate(lines) if "-t overlay" in line]
    binds = [i for i, line in enumerate(lines) if line.startswith("mount --bind /tmp")]
    assert [lines[i].split()[-1] for i in overlays] == ["'/etc'", "'/run'"]
    assert max(overlays) < min(binds)
    assert "mount -o remount,bind,ro '/etc/ml_secret_key'" in lines
    assert lines[-1] == 'exec "$@"'
    with pytest.raises(LabError, match="under /tmp"):
        podspec.mount_script([("/tmp/x", "/x", False, False)], lambda p: True, str)


def test_mount_script_runs_in_a_shell():
    """The script is valid sh (syntax only: mounting needs root)."""
    script = podspec.mount_script([("/srv/it's", "/etc/x y", False, False)],
                                  lambda p: p != "/etc/x y", str, "/w")
    subprocess.run(["/bin/sh", "-n", "-c", script], check=True)


@pytest.mark.parametrize("mode", ["none", "frr", "frr-k8s"])
def test_the_charts_pods_plan_as_the_lab_runs_them(mode):
    """Each checked-in plain manifest's controller and agent Pods plan completely: the
    programs are the images' entrypoints, node and Pod names come from the Downward API, the
    memberlist key and excludel2 ConfigMap are mounted, and every probe is an httpGet."""
    docs = rbac.manifest_docs(mode)
    daemons = rbac.daemons(docs)
    ml_secret = next(v["secret"]["secretName"] for v in
                     daemons["agent"][0]["spec"]["template"]["spec"]["volumes"] if "secret" in v)
    objects = {("Secret", "metallb-system", ml_secret): SECRET}
    objects.update({("ConfigMap", d["metadata"]["namespace"], d["metadata"]["name"]): d
                    for d in docs if d.get("kind") == "ConfigMap"})
    for daemon, (workload, container) in daemons.items():
        p = podspec.pod_from_template(workload, f"{daemon}-x", "node1", "10.99.0.11")
        got = podspec.plan(p, container, lambda k, n, name: objects.get((k, n, name)),
                           podrun.image_entrypoint, lambda: SA, {})
        assert got.program == f"/usr/bin/{rbac.DAEMONS[daemon][1]}"
        assert got.env["METALLB_POD_NAME"] == f"{daemon}-x"
        assert {p.kind for p in got.probes} >= {"readinessProbe", "livenessProbe"}
        paths = {m.path for m in got.mounts}
        assert podspec.SERVICE_ACCOUNT_DIR in paths
        if daemon == "agent":
            assert got.env["METALLB_NODE_NAME"] == "node1"
            assert {"/etc/ml_secret_key", "/etc/metallb"} <= paths
            assert f"--bgp-mode={mode}" in got.argv


def test_the_lab_readme_lists_what_the_lab_does_not_honour_and_supplies():
    """e2e/netlab/README.md repeats podspec's one list: every entry is named there."""
    readme = (Path(podspec.__file__).parent / "README.md").read_text()
    text = " ".join(readme.split())
    missing = [k for k in podspec.UNHONOURED if f"`{k}`" not in text and k not in text]
    missing += [k for k in podspec.LAB_OVERRIDES if f"**{k}**" not in text]
    assert not missing, f"e2e/netlab/README.md does not name {missing}"
