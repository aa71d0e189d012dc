# SPDX-License-Identifier: Apache-2.0
"""The lab runs what the chart renders (netlab/chart.py, podspec.py, podrun.py).

For each flavour (native = mode none, frr, frr-k8s, frr-k8s with frrk8s.ingotFrr.enabled) the
running daemons carry exactly their rendered Pod's argv and Downward-API environment, read the
mounted memberlist key, ServiceAccount token and CA at the paths the Pod spec gives (seen through
/proc/<pid>/root, the daemon's own mount namespace), and passed their probes. Then a chart that
breaks a flag, an environment variable, a mount or a probe makes the lab start fail, naming the
Pod, the container and the cause."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from scenario import _recorded, lab_skip_reason, show_logs_on_failure  # noqa: F401
from netlab import rbac
from netlab.cluster import Cluster, ClusterSpec
from netlab.podspec import SERVICE_ACCOUNT_DIR
from netlab.proc import LabError, pid_cmdline

FLAVOURS = {"native": dict(mode="none"), "frr": dict(mode="frr"),
            "frr-k8s": dict(mode="frr-k8s"),
            "frr-k8s-ingot-frr": dict(mode="frr-k8s", ingot_frr=True)}


def _skip(spec: ClusterSpec) -> None:
    reason = lab_skip_reason(True, spec.mode == "frr-k8s" and spec.node_frr)
    if reason:
        pytest.skip(reason)


def _environ(pid: int) -> dict:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(e.decode().split("=", 1) for e in raw if b"=" in e)


def _inside(pid: int, path: str) -> Path:
    """path as the daemon sees it (its mount namespace), through /proc/<pid>/root. An absolute
    symlink there would resolve in ours: /var/run is Debian's symlink to /run."""
    if path == "/var/run" or path.startswith("/var/run/"):
        path = path[len("/var"):]
    return Path(f"/proc/{pid}/root") / path.lstrip("/")


def _container(workload: dict, name: str) -> dict:
    return next(c for c in workload["spec"]["template"]["spec"]["containers"]
                if c["name"] == name)


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_each_daemon_runs_its_rendered_pod(flavour):
    spec = ClusterSpec(nodes=1, webhooks=False, **FLAVOURS[flavour])
    _skip(spec)
    # Its RBAC decisions join the scenarios' record (test_zz_rbac_record.py).
    with Cluster(_recorded(spec)) as cluster:
        roles = {"controller": "controller", "agent": "agent-node1"}
        if spec.ingot_frr:
            roles["ingot-frr"] = "frr-k8s-node1"
        assert set(cluster.daemons) == set(roles)
        for daemon, role in roles.items():
            workload, name = cluster.daemons[daemon]
            container = _container(workload, name)
            pid = cluster.procs[role].pid
            argv = pid_cmdline(pid)
            pod = cluster.pods[role]["metadata"]
            # argv: the rendered args after the image's program, $(VAR)s expanded.
            args = [a.replace("$(NODE_NAME)", "node1").replace("$(POD_NAME)", pod["name"])
                    for a in container.get("args", [])]
            assert argv[1:1 + len(args)] == args, f"{role}: {argv}"
            assert os.path.basename(argv[0]) == rbac.DAEMONS[daemon][1]
            env = _environ(pid)
            for item in container.get("env", []):
                if "value" in item:
                    assert env[item["name"]] == item["value"], item
                elif item["valueFrom"].get("fieldRef", {}).get("fieldPath") == "metadata.name":
                    assert env[item["name"]] == pod["name"]
            token = (_inside(pid, SERVICE_ACCOUNT_DIR) / "token").read_text()
            ns, account = workload["metadata"]["namespace"], \
                workload["spec"]["template"]["spec"]["serviceAccountName"]
            secret = cluster.client.get("Secret", f"{account}-token", ns)
            assert token == base64.b64decode(secret["data"]["token"]).decode()
            assert (_inside(pid, SERVICE_ACCOUNT_DIR) / "ca.crt").read_bytes() == \
                cluster.ca_file.read_bytes()
            for mount in container.get("volumeMounts", []):
                assert _inside(pid, mount["mountPath"]).exists(), mount
            if daemon == "agent":
                volume = next(v for v in workload["spec"]["template"]["spec"]["volumes"]
                              if "secret" in v)
                key = cluster.client.get("Secret", volume["secret"]["secretName"], ns)
                mount = next(m for m in container["volumeMounts"]
                             if m["name"] == volume["name"])
                got = (_inside(pid, mount["mountPath"]) / "secretkey").read_bytes()
                assert got == base64.b64decode(key["data"]["secretkey"])
                assert env["METALLB_NODE_NAME"] == "node1"
                assert env["METALLB_ML_BIND_ADDR"] == cluster.address("node1")
        assert not cluster.authz_denials()


def _agent(docs: list) -> dict:
    workload, name = rbac.daemons(docs)["agent"]
    return _container(workload, name)


def _misspell_flag(docs: list) -> None:
    c = _agent(docs)
    c["args"] = [a.replace("--bgp-mode=", "--bgp-mod=") for a in c["args"]]


def _drop_node_name(docs: list) -> None:
    c = _agent(docs)
    c["env"] = [e for e in c["env"] if e["name"] != "METALLB_NODE_NAME"]


def _drop_memberlist_mount(docs: list) -> None:
    c = _agent(docs)
    c["volumeMounts"] = [m for m in c["volumeMounts"] if m["mountPath"] != "/etc/ml_secret_key"]


def _break_readiness_path(docs: list) -> None:
    c = _agent(docs)
    c["readinessProbe"]["httpGet"]["path"] = "/ready"


def _undeclared_volume(docs: list) -> None:
    c = _agent(docs)
    c["volumeMounts"].append({"name": "nowhere", "mountPath": "/etc/nowhere"})


def _unknown_field(docs: list) -> None:
    workload, _ = rbac.daemons(docs)["agent"]
    workload["spec"]["template"]["spec"]["hostPID"] = True


@pytest.mark.parametrize("mutate,message", [
    (_misspell_flag, r"(?s)speaker-node1 container \w+\)? .*exited \d+.*bgp-mod"),
    (_drop_node_name, r"(?s)speaker-node1 container \w+\)? .*exited \d+.*METALLB_NODE_NAME"),
    (_drop_memberlist_mount, r"(?s)speaker-node1 container \w+\)? .*exited \d+.*"
                             r"/etc/ml_secret_key/secretkey"),
    (_break_readiness_path, r"speaker-node1 container \w+: readinessProbe GET "
                            r"http://127.0.0.1:\d+/ready answered 404"),
    (_undeclared_volume, r"volumeMount /etc/nowhere names volume 'nowhere'"),
    (_unknown_field, r"field 'hostPID' is neither run by the lab nor listed"),
], ids=["flag", "env", "mount", "probe", "volume", "field"])
def test_a_broken_render_fails_the_lab_start(mutate, message):
    spec = ClusterSpec(nodes=1, mode="none", webhooks=False, mutate=mutate)
    _skip(spec)
    cluster = Cluster(spec)
    with pytest.raises(LabError, match=message):
        cluster.up()  # on failure up() removes what it built (and checks that it did)
