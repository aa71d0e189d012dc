# SPDX-License-Identifier: Apache-2.0
"""Applying Ingot's frr.conf leaves the node's forwarding sysctls alone. A Kubernetes node
forwards (pod and Service traffic depend on it); zebra writes net.ipv4.ip_forward and
net.ipv6.conf.all.forwarding when a configuration carries an `ip forwarding` line of either
polarity, so frrgen writes none. FRR shows no forwarding line while forwarding is on, so
frr-reload.py has nothing to change there and converges in one pass."""

from __future__ import annotations

import subprocess

from netlab.frr import FrrRouter
from netlab.ingotctl import REPO
from netlab.reload import FrrReload
from netlab.topology import Lab, read_forwarding

FORWARDING_ON = {"net.ipv4.ip_forward": "1", "net.ipv6.conf.all.forwarding": "1"}


def test_applying_the_rendered_conf_keeps_forwarding_on(ingotctl):
    out = subprocess.run([str(ingotctl), "render", "--node", "node1", "--format", "frr.conf",
                          "-f", str(REPO / "examples")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "forwarding" not in out.stdout
    with Lab() as lab:
        host = lab.add_host("node1", 11, forwarding=True)
        assert read_forwarding(host.namespace) == FORWARDING_ON
        router = FrrRouter(lab, host).start()
        result = FrrReload(router).apply(out.stdout, max_passes=3, check=False)
        assert result.converged, result.describe()
        assert len(result.passes) == 1, result.describe()
        assert read_forwarding(host.namespace) == FORWARDING_ON
        # A second reload of the same file changes nothing either.
        again = FrrReload(router).apply(out.stdout, max_passes=1, check=False)
        assert again.converged and not again.passes, again.describe()
        assert read_forwarding(host.namespace) == FORWARDING_ON
