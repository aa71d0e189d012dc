# SPDX-License-Identifier: Apache-2.0
"""frr mode of bench/scale.py: the measured node's FRR 8.4 (zebra, bfdd, bgpd, staticd) in a
network namespace of its own, built and torn down with e2e/netlab (Lab, FrrRouter), so that
the namespaces and every FRR process are recorded in a run ledger before they exist and are
removed by PID and name at the end (or by `e2e/lab cleanup` when the bench itself was killed).

The agent runs in the root namespace beside the in-process test API server (loopback) and
reaches its FRR through the pathspace's sockets (`--frr-pathspace`), as it would reach a FRR in
its own host namespace. The configured peers (10.99.0.1 and .2) do not exist: no session comes
up, nothing leaves the namespace, and what is measured is the agent's apply of the `network`
lines and FRR's own cost of holding them.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from netlab.bulk import agent_events  # noqa: E402
from netlab.frr import FrrRouter, frr_missing  # noqa: E402
from netlab.proc import LabError  # noqa: E402
from netlab.topology import Lab  # noqa: E402

NODE_OCTET = 11  # the node's host octet in the lab's address plan (netlab/topology.py)


class NodeFrr:
    """The measured node's FRR. start() builds the lab; close() removes it (idempotent)."""

    def __init__(self):
        self.lab = None
        self.router = None
        self._count = (0.0, 0)  # (when, prefixes) of the last query

    def start(self, node: str) -> "NodeFrr":
        why = frr_missing()
        if why:
            raise SystemExit(f"scale: frr mode needs FRR 8.4: {why}")
        if os.geteuid() != 0:
            raise SystemExit("scale: frr mode runs FRR in a network namespace: run it as root")
        self.lab = Lab()
        host = self.lab.add_host(node, NODE_OCTET)
        self.router = FrrRouter(self.lab, host).start()
        return self

    def agent_args(self) -> list:
        return ["--bgp-mode", "frr", "--frr-pathspace", self.router.namespace,
                "--frr-workdir", str(self.router.dir)]

    def pids(self) -> dict:
        """FRR daemon → PID (the daemon's own: `ip netns exec` execs it)."""
        return {d: p.pid for d, p in self.router.pids.items()}

    def check_alive(self) -> None:
        dead = [d for d, up in self.router.alive().items() if not up]
        if dead:
            raise SystemExit(f"scale: FRR {', '.join(dead)} in {self.router.namespace} exited: "
                             f"{self.router.log_tail(dead[0])}")

    def prefixes(self, every: float = 0.25) -> int:
        """The prefixes in bgpd's IPv4 unicast table (`show bgp ipv4 unicast statistics`:
        with no session up, exactly the `network` lines it holds). Queried at most once per
        `every` seconds, so that polling costs bgpd little."""
        now = time.monotonic()
        if now - self._count[0] >= every:
            self.check_alive()
            try:
                text = self.router.vtysh("show bgp ipv4 unicast statistics")
            except LabError:
                return self._count[1]  # bgpd busy past vtysh's timeout: not yet
            total = [line.split(":")[1] for line in text.splitlines()
                     if line.startswith("Total Prefixes")]
            self._count = (time.monotonic(), int(total[0]) if total else 0)
        return self._count[1]

    def close(self) -> None:
        if self.lab is not None:
            self.lab.close()
            self.lab = None


def applies(log: Path, offset: int = 0) -> str:
    """What the agent's frr_applied log lines from byte offset say: how many applies, by path,
    the networks added/removed and the milliseconds spent sending and verifying."""
    lines = agent_events(log, "frr_applied", offset)
    paths = {}
    for line in lines:
        paths[line.get("path", "?")] = paths.get(line.get("path", "?"), 0) + 1

    def total(key: str) -> int:
        return sum(int(line.get(key, 0)) for line in lines)
    by_path = ", ".join(f"{p} {n}" for p, n in sorted(paths.items())) or "none"
    return (f"{len(lines)} FRR applies ({by_path}), networks +{total('networks_added')} "
            f"-{total('networks_removed')}, send {total('send_ms')} ms, "
            f"verify {total('verify_ms')} ms")
