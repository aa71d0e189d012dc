# SPDX-License-Identifier: Apache-2.0
"""`ingotctl frr-k8s` (what frr-k8s itself would configure): FRRConfigurations → frr.conf for one
node. No root needed. The frr.conf it prints for the FRRConfiguration that `ingotctl render`
computes must be exactly what `render --format frr.conf` prints (both merge + render the same
configurations); bad input gets exit 1 or 2 with a message naming the problem."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from netlab import manifests as m
from netlab.ingotctl import REPO, find_ingotctl

EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def ingotctl() -> Path:
    binary = find_ingotctl("frr-k8s")
    if binary is None:
        pytest.skip("needs a built ingotctl with the frr-k8s subcommand (set INGOT_INGOTCTL)")
    return binary


def _run(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("node", ["node1", "node2"])
def test_frr_conf_equals_render_for_the_examples(ingotctl, tmp_path, node):
    own = _run(ingotctl, "render", "--node", node, "-f", str(EXAMPLES))
    assert own.returncode == 0, own.stderr
    (tmp_path / "own.yaml").write_text(own.stdout)
    got = _run(ingotctl, "frr-k8s", "--node", node, "--frrk8s-namespace", "metallb-system",
               "-f", str(tmp_path / "own.yaml"), "-f", str(EXAMPLES / "cluster"))
    want = _run(ingotctl, "render", "--node", node, "--format", "frr.conf", "-f",
                str(EXAMPLES))
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    assert "router bgp 64513" in got.stdout


def _frr_config(name: str, asn: int, selector=None) -> dict:
    spec = {"bgp": {"routers": [{"asn": asn, "neighbors": [
        {"address": "10.99.0.1", "asn": 64512}]}]}}
    if selector is not None:
        spec["nodeSelector"] = {"matchLabels": selector}
    return {"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration",
            "metadata": {"name": name, "namespace": "frr-k8s-system"}, "spec": spec}


def test_node_selectors_and_namespace_choose_the_configurations(ingotctl, tmp_path):
    objs = [m.node("node1", "10.99.0.11", {"rack": "r1"}), _frr_config("mine", 64513),
            _frr_config("other-rack", 64999, {"rack": "r2"})]
    other_ns = _frr_config("elsewhere", 64998)
    other_ns["metadata"]["namespace"] = "default"
    m.write(tmp_path / "in.yaml", objs + [other_ns])
    out = _run(ingotctl, "frr-k8s", "--node", "node1", "-f", str(tmp_path / "in.yaml"))
    assert out.returncode == 0, out.stderr
    assert "router bgp 64513" in out.stdout
    assert "64999" not in out.stdout and "64998" not in out.stdout


@pytest.mark.parametrize("desc,objs,args,code,message", [
    ("missing node", [_frr_config("c", 64513)], ["--node", "node1"], 1,
     'node "node1" is not defined'),
    ("conflicting ASNs", [m.node("node1", "10.99.0.11"), _frr_config("a", 64513),
                          _frr_config("b", 64514)], ["--node", "node1"], 1, "different asns"),
    ("no node flag", [], [], 2, "give --node NODE"),
    ("unknown flag", [], ["--node", "n", "--bogus", "x"], 2, "bogus"),
])
def test_bad_input_is_refused_with_a_reason(ingotctl, tmp_path, desc, objs, args, code,
                                            message):
    m.write(tmp_path / "in.yaml", objs)
    out = _run(ingotctl, "frr-k8s", *args, "-f", str(tmp_path / "in.yaml"))
    assert out.returncode == code, (desc, out.stdout, out.stderr)
    assert message in out.stdout + out.stderr, desc


def test_invalid_manifest_names_file_and_field(ingotctl, tmp_path):
    bad = _frr_config("c", 64513)
    bad["spec"]["bgp"]["routers"][0]["bogusField"] = 1
    m.write(tmp_path / "in.yaml", [m.node("node1", "10.99.0.11"), bad])
    out = _run(ingotctl, "frr-k8s", "--node", "node1", "-f", str(tmp_path / "in.yaml"))
    assert out.returncode == 1
    assert "in.yaml" in out.stdout and "FRRConfiguration" in out.stdout, out.stdout


def test_timers_follow_frrk8s_there_and_the_user_in_ingots_frr_mode(ingotctl, tmp_path):
    """A peer with hold 90 s and keepalive 60 s: frr-k8s clears the keepalive (its default) on
    its own and then writes no `timers` line at all, so `ingotctl frr-k8s` shows none; Ingot's
    own FRR mode (`render --format frr.conf`) keeps what the user wrote."""
    objs = [m.node("node1", "10.99.0.11"),
            m.ip_address_pool("pool", ["10.99.4.0/24"]),
            m.bgp_peer("tor", 64513, 64512, "10.99.0.1", hold="1m30s", keepalive="1m0s",
                       connect="1m0s")]
    m.write(tmp_path / "in.yaml", objs)
    own = _run(ingotctl, "render", "--node", "node1", "-f", str(tmp_path / "in.yaml"))
    assert own.returncode == 0, own.stderr
    assert "holdTime: 1m30s" in own.stdout and "keepaliveTime: 1m0s" in own.stdout, own.stdout
    (tmp_path / "own.yaml").write_text(own.stdout)
    frrk8s = _run(ingotctl, "frr-k8s", "--node", "node1", "--frrk8s-namespace", "metallb-system",
                  "-f", str(tmp_path / "own.yaml"), "-f", str(tmp_path / "in.yaml"))
    assert frrk8s.returncode == 0, frrk8s.stderr
    assert "neighbor 10.99.0.1 remote-as 64512" in frrk8s.stdout, frrk8s.stdout
    assert " timers" not in frrk8s.stdout, frrk8s.stdout
    ingot = _run(ingotctl, "render", "--node", "node1", "--format", "frr.conf", "-f",
                 str(tmp_path / "in.yaml"))
    assert ingot.returncode == 0, ingot.stderr
    assert " neighbor 10.99.0.1 timers 60 90" in ingot.stdout, ingot.stdout
    assert " neighbor 10.99.0.1 timers connect 60" in ingot.stdout, ingot.stdout
