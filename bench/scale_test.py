# SPDX-License-Identifier: Apache-2.0
"""Smoke test of bench/scale.py at a tiny scale (CTest: ingot_bench_scale_smoke), so that the
bench keeps working: it must converge, with the agent's FRRConfiguration listing exactly the
prefixes of the Services its node announces, and print every figure. No figure is asserted."""

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale import announced_by_first  # noqa: E402

SERVICES, NODES = 40, 4


def test_scale_bench_converges_and_prints_its_figures():
    argv = [sys.executable, str(HERE / "scale.py"), "--services", str(SERVICES),
            "--nodes", str(NODES), "--steady", "1", "--bound", "90", "--status-bound", "90",
            "--idle-window", "1"]
    for flag, env in (("--agent", "INGOT_AGENT"), ("--controller", "INGOT_CONTROLLER")):
        if os.environ.get(env):
            argv += [flag, os.environ[env]]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    expected = announced_by_first(SERVICES, NODES)
    assert 0 < expected < SERVICES  # the Local Services are split between the nodes
    assert f"node001 should announce {expected};" in out.stdout
    assert re.search(rf"controller: all {SERVICES} Services have an address [\d.]+ s", out.stdout)
    assert re.search(rf"agent: metallb-node001 lists all {expected} prefixes [\d.]+ s", out.stdout)
    for phase in ("start-up", "until convergence", "convergence to idle", "steady 1 s"):
        for role in ("controller", "agent"):
            assert re.search(rf"{phase}: {role} \d+ requests, \d+ writes", out.stdout), phase
    assert f"agent: {expected} of {expected} ServiceBGPStatus objects written" in out.stdout
    # Until convergence the controller wrote every Service's status.
    assert re.search(rf"until convergence: controller .*patch services/status {SERVICES}\b",
                     out.stdout), out.stdout
