# SPDX-License-Identifier: Apache-2.0
"""Smoke test of bench/scale.py at a tiny scale (CTest: ingot_bench_scale_smoke), so that the
bench keeps working in both modes: it must converge, with the agent's FRRConfiguration (frr
mode: its FRR's BGP table) holding exactly the prefixes of the Services its node announces,
print every figure and, in frr mode, leave no namespace or FRR process behind. No figure is
asserted. frr mode needs root and FRR 8.4; without them it is skipped, naming what is
missing."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale import announced_by_first  # noqa: E402
from scale_frr import frr_missing  # noqa: E402

SERVICES, NODES = 40, 4


def run_bench(mode: str) -> str:
    argv = [sys.executable, str(HERE / "scale.py"), "--mode", mode, "--services", str(SERVICES),
            "--nodes", str(NODES), "--steady", "1", "--bound", "90", "--status-bound", "90",
            "--idle-window", "1"]
    for flag, env in (("--agent", "INGOT_AGENT"), ("--controller", "INGOT_CONTROLLER")):
        if os.environ.get(env):
            argv += [flag, os.environ[env]]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def check_common(out: str, expected: int) -> None:
    assert 0 < expected < SERVICES  # the Local Services are split between the nodes
    assert f"node001 should announce {expected};" in out
    assert re.search(rf"controller: all {SERVICES} Services have an address [\d.]+ s", out)
    for phase in ("start-up", "until convergence", "convergence to idle", "steady 1 s"):
        for role in ("controller", "agent"):
            assert re.search(rf"{phase}: {role} \d+ requests, \d+ writes", out), phase
    assert re.search(r"first write to convergence: CPU controller [\d.]+ s \([\d.]+ ms per "
                     r"Service\), agent [\d.]+ s", out), out
    assert f"agent: {expected} of {expected} ServiceBGPStatus objects written" in out
    # Until convergence the controller wrote every Service's status.
    assert re.search(rf"until convergence: controller .*patch services/status {SERVICES}\b",
                     out), out


def test_scale_bench_frrk8s_mode_converges_and_prints_its_figures():
    out = run_bench("frr-k8s")
    expected = announced_by_first(SERVICES, NODES)
    check_common(out, expected)
    assert re.search(rf"agent: metallb-node001 lists all {expected} prefixes [\d.]+ s", out)


def processes_naming(word: str) -> list:
    """PIDs of live processes with word in their command line (FRR runs with `-N <ns>`)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and word.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def live_netns() -> set:
    return set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                              check=True).stdout.split())


def test_scale_bench_frr_mode_converges_and_removes_its_lab():
    if os.geteuid() != 0 or frr_missing():
        pytest.skip(f"frr mode needs root and FRR 8.4: {frr_missing() or 'not root'}")
    out = run_bench("frr")
    expected = announced_by_first(SERVICES, NODES)
    check_common(out, expected)
    found = re.search(rf"agent: bgpd in (\S+) holds all {expected} prefixes [\d.]+ s", out)
    assert found, out
    namespace = found.group(1)
    # Every announced prefix went to FRR through the agent's applies.
    added = re.search(r"until convergence: agent \d+ FRR applies \(.*\), networks \+(\d+)", out)
    assert added and int(added.group(1)) >= expected, out
    for daemon in ("zebra", "bgpd", "bfdd", "staticd"):
        assert re.search(rf"at convergence: FRR {daemon}: VmRSS [\d.]+ MiB", out), daemon
    assert namespace not in live_netns(), namespace
    assert f"{namespace.rsplit('-', 1)[0]}-sw" not in live_netns()
    assert not (Path("/var/run/frr") / namespace).exists()
    assert not processes_naming(namespace)
