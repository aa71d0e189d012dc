# SPDX-License-Identifier: Apache-2.0
"""Watching a router's kernel routing table while something changes, to prove that routes that
should stay never went away.

RouteWatcher polls `ip -j route show` in the router's namespace from a background thread as fast
as the command returns (a few ms per sample) and, for every watched prefix, records each interval
in which it was missing or had fewer next hops than expected. In parallel it runs
`ip monitor route` in the namespace and keeps every "Deleted" event for a watched prefix, which
catches even a withdrawal shorter than one poll.
"""

from __future__ import annotations

import ipaddress
import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .proc import LabError, kill_pid, run


def _canonical(prefix: str) -> str:
    """Returns prefix as "a.b.c.d/len" (the kernel prints host routes without a length)."""
    return str(ipaddress.ip_network(prefix, strict=False))


def kernel_routes(route_json: list) -> dict:
    """Maps each route of `ip -j route show` output to the sorted tuple of its gateways: a
    multipath route lists them under "nexthops", a single-path one under "gateway"."""
    out = {}
    for r in route_json:
        dst = r.get("dst")
        if not dst or dst == "default":
            continue
        hops = [h.get("gateway") for h in r.get("nexthops", []) if h.get("gateway")]
        if not hops and r.get("gateway"):
            hops = [r["gateway"]]
        out[_canonical(dst)] = tuple(sorted(hops))
    return out


def kernel_weights(route_json: list) -> dict:
    """Maps each route of `ip -j route show` output to {gateway: weight}: the weights of a
    multipath route's next hops (weighted ECMP); a single-path route's gateway gets 1."""
    out = {}
    for r in route_json:
        dst = r.get("dst")
        if not dst or dst == "default":
            continue
        hops = {h["gateway"]: int(h.get("weight", 1)) for h in r.get("nexthops", [])
                if h.get("gateway")}
        if not hops and r.get("gateway"):
            hops = {r["gateway"]: 1}
        out[_canonical(dst)] = hops
    return out


def read_kernel_weights(namespace: str, prefix: str) -> dict:
    """Returns kernel_weights() of prefix in the namespace's main table ({} when absent)."""
    out = run(["ip", "-j", "-n", namespace, "route", "show", prefix], timeout=10)
    try:
        return kernel_weights(json.loads(out.stdout or "[]")).get(_canonical(prefix), {})
    except ValueError as e:
        raise LabError(f"{namespace}: `ip -j route show` is not JSON: {e}") from None


def read_kernel_routes(namespace: str, family: str = "-4") -> dict:
    """Returns kernel_routes() of the namespace's main table."""
    out = run(["ip", "-j", family, "-n", namespace, "route", "show"], timeout=10)
    try:
        return kernel_routes(json.loads(out.stdout or "[]"))
    except ValueError as e:
        raise LabError(f"{namespace}: `ip -j route show` is not JSON: {e}") from None


@dataclass
class Gap:
    """An interval in which a watched prefix was missing or short of next hops."""
    prefix: str
    start: float                  # monotonic seconds
    end: Optional[float] = None   # None while still open at stop()
    fewest_hops: int = 0

    @property
    def seconds(self) -> float:
        return (self.end or time.monotonic()) - self.start


@dataclass
class WatchReport:
    samples: int = 0
    seconds: float = 0.0
    gaps: list = field(default_factory=list)
    deleted_events: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    max_interval: float = 0.0  # the longest time between two samples: the poll's resolution

    def describe(self) -> str:
        gaps = "; ".join(f"{g.prefix} short ({g.fewest_hops} hops) for {g.seconds * 1000:.0f} ms"
                         for g in self.gaps[:10])
        return (f"{self.samples} samples over {self.seconds:.2f} s (longest interval "
                f"{self.max_interval * 1000:.0f} ms); gaps: [{gaps}]; monitor deletions: "
                f"{self.deleted_events[:10]}; errors: {self.errors[:3]}")


class RouteWatcher:
    """Polls a namespace's kernel routes for `expected` (prefix → minimum next-hop count) until
    stop(); use as a context manager around the change being observed."""

    def __init__(self, namespace: str, expected: dict, ledger=None, on_sample=None):
        """on_sample, when given, is called from the polling thread with (routes, monotonic
        time) after every sample (e.g. to time when a set of routes arrived)."""
        self.namespace = namespace
        self.ledger = ledger
        self.on_sample = on_sample
        self.expected = {_canonical(p): n for p, n in expected.items()}
        self.report = WatchReport()
        self._stop = threading.Event()
        self._open: dict = {}
        self._thread = threading.Thread(target=self._poll, name=f"watch-{namespace}",
                                        daemon=True)
        self._monitor: Optional[subprocess.Popen] = None
        self._monitor_thread: Optional[threading.Thread] = None

    def start(self) -> "RouteWatcher":
        self._monitor = subprocess.Popen(
            ["ip", "-n", self.namespace, "monitor", "route"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        if self.ledger is not None:
            self.ledger.add_process(self._monitor.pid, self.namespace, "ip")
        self._monitor_thread = threading.Thread(target=self._read_monitor, daemon=True,
                                                name=f"monitor-{self.namespace}")
        self._monitor_thread.start()
        self._started = time.monotonic()
        self._thread.start()
        return self

    def _observe(self, routes: dict, now: float) -> None:
        for prefix, want in self.expected.items():
            have = len(routes.get(prefix, ()))
            gap = self._open.get(prefix)
            if have < want:
                if gap is None:
                    gap = Gap(prefix, now, fewest_hops=have)
                    self._open[prefix] = gap
                    self.report.gaps.append(gap)
                gap.fewest_hops = min(gap.fewest_hops, have)
            elif gap is not None:
                gap.end = now
                del self._open[prefix]

    def _families(self) -> list:
        versions = {ipaddress.ip_network(p).version for p in self.expected}
        return [f"-{v}" for v in sorted(versions)] or ["-4"]

    def _poll(self) -> None:
        last = time.monotonic()
        families = self._families()
        while not self._stop.is_set():
            try:
                routes = {}
                for family in families:
                    routes.update(read_kernel_routes(self.namespace, family))
            except LabError as e:
                self.report.errors.append(str(e))
                time.sleep(0.01)
                continue
            now = time.monotonic()
            self.report.max_interval = max(self.report.max_interval, now - last)
            last = now
            self.report.samples += 1
            self._observe(routes, now)
            if self.on_sample is not None:
                self.on_sample(routes, now)

    def _read_monitor(self) -> None:
        assert self._monitor is not None and self._monitor.stdout is not None
        for line in self._monitor.stdout:
            if not line.startswith("Deleted "):
                continue
            words = line.split()
            if len(words) > 1 and words[1] != "default":
                try:
                    dst = _canonical(words[1])
                except ValueError:
                    continue
                if dst in self.expected:
                    self.report.deleted_events.append(line.strip())

    def stop(self) -> WatchReport:
        """Stops polling and the monitor and returns the report."""
        self._stop.set()
        self._thread.join(timeout=10)
        if self._monitor is not None:
            kill_pid(self._monitor.pid, grace=1.0)
            self._monitor.wait(timeout=5)
            if self._monitor_thread is not None:
                self._monitor_thread.join(timeout=5)
        self.report.seconds = time.monotonic() - self._started
        return self.report

    def __enter__(self) -> "RouteWatcher":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def wait_routes(namespace: str, want: Iterable, hops: int, timeout: float) -> float:
    """Waits until every prefix in want has at least hops next hops in the namespace's kernel
    table and returns the seconds that took; raises LabError naming the missing ones."""
    targets = [_canonical(p) for p in want]
    families = sorted({"-6" if ":" in p else "-4" for p in targets})
    start = time.monotonic()
    while True:
        routes = {}
        for family in families:
            routes.update(read_kernel_routes(namespace, family))
        missing = [p for p in targets if len(routes.get(p, ())) < hops]
        if not missing:
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise LabError(f"{namespace}: after {timeout:.0f} s, {len(missing)} of {len(targets)} "
                           f"prefixes lack {hops} next hops, e.g. {missing[:5]}")
        time.sleep(0.02)
