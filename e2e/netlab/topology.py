# SPDX-License-Identifier: Apache-2.0
"""The lab network: a switch namespace holding a bridge, and host namespaces (ToRs, nodes,
clients) each with one `eth0` plugged into that bridge by a veth pair.

Every name and address comes from the run (ledger.Ledger): namespaces are `<run>-<role>`, the
veth ends live only inside the run's namespaces (nothing is created in the root namespace), and
the addresses come from the run's slot:

    slot s (0..31)     link IPv4  10.99.(8s).0/24      hosts at .1 (ToR), .2, … .11 (node1), …
                       VIP IPv4   10.99.(8s+4).0/22    1,024 addresses for Services
                       link IPv6  fd99:0:0:s::/64      hosts at ::<octet> (nodad)
                       VIP IPv6   fd99:0:1:s::/64

Teardown (Lab.close) works from the ledger, so it removes what was created even when a step
failed half-way, and `e2e/lab cleanup` can do the same for a run that was killed.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import ledger as ledger_mod
from .proc import LabError, run


@dataclass(frozen=True)
class Addressing:
    """The address plan of one slot (see the module comment)."""
    slot: int

    def __post_init__(self):
        if not 0 <= self.slot < ledger_mod.MAX_SLOTS:
            raise LabError(f"slot {self.slot} outside 0..{ledger_mod.MAX_SLOTS - 1}")

    @property
    def link_v4(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network(f"10.99.{8 * self.slot}.0/24")

    @property
    def vip_v4(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network(f"10.99.{8 * self.slot + 4}.0/22")

    @property
    def link_v6(self) -> ipaddress.IPv6Network:
        return ipaddress.IPv6Network(f"fd99:0:0:{self.slot:x}::/64")

    @property
    def vip_v6(self) -> ipaddress.IPv6Network:
        return ipaddress.IPv6Network(f"fd99:0:1:{self.slot:x}::/64")

    def host_v4(self, octet: int) -> str:
        if not 1 <= octet <= 254:
            raise LabError(f"host octet {octet} outside 1..254")
        return str(self.link_v4.network_address + octet)

    def host_v6(self, octet: int) -> str:
        return str(self.link_v6.network_address + octet)

    def vip(self, index: int) -> str:
        """Returns the index-th IPv4 VIP (0-based) of the slot's VIP block."""
        if not 0 <= index < self.vip_v4.num_addresses:
            raise LabError(f"VIP index {index} outside the {self.vip_v4} block")
        return str(self.vip_v4.network_address + index)


FORWARDING_SYSCTLS = ("net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding")


def set_forwarding(namespace: str, on: bool) -> None:
    """Sets both forwarding sysctls (FORWARDING_SYSCTLS) of a lab namespace."""
    value = "1" if on else "0"
    run(["ip", "netns", "exec", namespace, "sysctl", "-q", "-w"]
        + [f"{name}={value}" for name in FORWARDING_SYSCTLS])


def read_forwarding(namespace: str) -> dict:
    """Returns {sysctl name: value} of the forwarding sysctls of a lab namespace."""
    out = run(["ip", "netns", "exec", namespace, "sysctl", "-n"] + list(FORWARDING_SYSCTLS))
    return dict(zip(FORWARDING_SYSCTLS, out.stdout.split()))


@dataclass
class Host:
    """One host namespace on the lab bridge."""
    role: str        # "tor", "node1", … (also the Kubernetes node name for nodes)
    namespace: str   # "<run>-<role>"
    ipv4: str
    ipv6: str

    @property
    def ipv4_cidr(self) -> str:
        return f"{self.ipv4}/24"


class Lab:
    """One lab run: its ledger, its switch and its hosts. Use as a context manager, or call
    close() yourself: close() is idempotent and always removes everything the run created."""

    def __init__(self, slot: Optional[int] = None, persistent: bool = False) -> None:
        """slot: take exactly this slot (LabError when it is taken); persistent: the run
        outlives this process (see ledger.py; `e2e/lab up`)."""
        self.ledger = ledger_mod.create_ledger(slot, persistent)
        self.addressing = Addressing(self.ledger.slot)
        self.hosts: dict = {}
        self.switch: Optional[str] = None
        self._closers: list = []
        self._closed = False

    # Naming --------------------------------------------------------------------------------

    @property
    def run(self) -> str:
        return self.ledger.run

    @property
    def workdir(self) -> Path:
        """The run's private directory (configs, logs); removed with the ledger."""
        return self.ledger.path

    def namespace(self, role: str) -> str:
        return f"{self.run}-{role}"

    # Building ------------------------------------------------------------------------------

    def _add_namespace(self, name: str) -> None:
        # Recorded before it exists: a failure half-way still gets it removed.
        self.ledger.add_namespace(name)
        run(["ip", "netns", "add", name])
        run(["ip", "-n", name, "link", "set", "lo", "up"])

    def add_switch(self) -> str:
        """Creates the switch namespace and its bridge br0 (once)."""
        if self.switch is None:
            name = self.namespace("sw")
            self._add_namespace(name)
            run(["ip", "-n", name, "link", "add", "br0", "type", "bridge"])
            run(["ip", "-n", name, "link", "set", "br0", "up"])
            self.switch = name
        return self.switch

    def add_host(self, role: str, octet: int, forwarding: bool = True) -> Host:
        """Creates namespace <run>-<role> with eth0 on the bridge, holding the slot's link
        addresses for octet (IPv4 /24, IPv6 /64 without DAD). forwarding sets
        net.ipv4.ip_forward and net.ipv6.conf.all.forwarding: on by default, as on Kubernetes
        nodes and routers (a new namespace starts with both off)."""
        if role in self.hosts:
            raise LabError(f"host {role} already exists in run {self.run}")
        if any(h.ipv4 == self.addressing.host_v4(octet) for h in self.hosts.values()):
            raise LabError(f"host octet {octet} is already used in run {self.run}")
        switch = self.add_switch()
        host = Host(role, self.namespace(role), self.addressing.host_v4(octet),
                    self.addressing.host_v6(octet))
        self._add_namespace(host.namespace)
        port = f"p-{role}"[:15]
        run(["ip", "-n", switch, "link", "add", port, "type", "veth", "peer", "name", "eth0",
             "netns", host.namespace])
        run(["ip", "-n", switch, "link", "set", port, "master", "br0", "up"])
        run(["ip", "-n", host.namespace, "addr", "add", host.ipv4_cidr, "dev", "eth0"])
        run(["ip", "-n", host.namespace, "addr", "add", f"{host.ipv6}/64", "dev", "eth0",
             "nodad"])
        run(["ip", "-n", host.namespace, "link", "set", "eth0", "up"])
        set_forwarding(host.namespace, forwarding)
        self.hosts[role] = host
        return host

    def set_link(self, role: str, up: bool) -> None:
        """Takes a host's switch port down or up (a cable pulled / plugged back)."""
        run(["ip", "-n", self.add_switch(), "link", "set", f"p-{role}"[:15],
             "up" if up else "down"])

    def on_close(self, closer) -> None:
        """Registers a callable run by close() before the namespaces go (e.g. stopping FRR
        gracefully); closers run newest first and their failures do not stop the teardown."""
        self._closers.append(closer)

    # Teardown ------------------------------------------------------------------------------

    def close(self) -> None:
        """Stops what on_close registered, then releases the ledger: every process by PID,
        every namespace, every directory. Raises LabError listing anything that survived."""
        if self._closed:
            return
        self._closed = True
        problems = []
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception as e:  # noqa: BLE001 - teardown must go on
                problems.append(f"{closer}: {e}")
        problems += ledger_mod.release(self.ledger)
        if problems:
            raise LabError(f"lab run {self.run} teardown: " + "; ".join(problems))

    def __enter__(self) -> "Lab":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
