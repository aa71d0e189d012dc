# SPDX-License-Identifier: Apache-2.0
"""The frr.conf Ingot renders for every example node is accepted by real FRR 8.4 and converges:
after one reload, frr-reload.py --test shows no delta. frr-reload.py compares text, so anything
FRR spells differently from what frrgen writes (a well-known community such as no-export,
65535:65281, is shown by name) would never converge and the agent would retry forever."""

from __future__ import annotations

import subprocess

import pytest

from netlab.frr import FrrRouter
from netlab.ingotctl import REPO, find_ingotctl
from netlab.reload import FrrReload
from netlab.topology import Lab


@pytest.mark.parametrize("node", ["node1", "node2"])
def test_example_frr_conf_converges_in_one_reload(live, node):
    binary = find_ingotctl("render")
    if binary is None:
        pytest.skip("needs a built ingotctl (set INGOT_INGOTCTL)")
    out = subprocess.run([str(binary), "render", "--node", node, "--format", "frr.conf", "-f",
                          str(REPO / "examples")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    with Lab() as lab:
        router = FrrRouter(lab, lab.add_host(node, 11)).start()
        result = FrrReload(router).apply(out.stdout, max_passes=3, check=False)
        assert result.converged, result.describe()
        assert len(result.passes) == 1, result.describe()
