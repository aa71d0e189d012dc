# SPDX-License-Identifier: Apache-2.0
"""frr-reload.py, the way Ingot's agent applies a rendered frr.conf to a node's FRR, with the
bounded re-run loop frrgen's tests showed is needed:

* `--test` prints the delta between the file and the running config; `--reload` applies it.
* A reload can exit 1 although the change was applied (a newly added `neighbor X
  graceful-restart`), and some changes need a second pass (removing BFD from a neighbor). So the
  result of a reload is judged by the delta a fresh `--test` shows afterwards, not by the exit
  status: apply() reloads until that delta is empty, at most max_passes times.
* `no hostname <uts name>` is reported on every run when the file has no hostname line (FRR
  shows the host's UTS name, which a vtysh command cannot change); it is noise and is ignored
  when judging "empty".

frr-reload.py is run with --confdir <router dir> and the desired file at <router dir>/frr.conf,
so it neither reads /etc/frr nor runs its closing `write`; --rundir is the router dir too, and
--stdout keeps its log out of /var/log/frr.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .frr import FRR_LIBDIR, FrrRouter
from .proc import LabError, run

FRR_RELOAD = str(FRR_LIBDIR / "frr-reload.py")
PYTHON = "/usr/bin/python3"  # FRR's tools need Debian's interpreter and its packages

NOISE = (re.compile(r"^no hostname \S+$"),)


@dataclass(frozen=True)
class ReloadDelta:
    """What `frr-reload.py --test` would change. Each command is the tuple of its lines with the
    indentation stripped: its contexts, then the command ("router bgp 64513",
    "address-family ipv4 unicast", "network 10.99.4.1/32")."""
    deletes: tuple = ()
    adds: tuple = ()

    @property
    def noise(self) -> tuple:
        return tuple(c for c in self.deletes + self.adds if _is_noise(c))

    @property
    def empty(self) -> bool:
        """True when nothing but noise would change."""
        return all(_is_noise(c) for c in self.deletes + self.adds)

    def summary(self, limit: int = 12) -> str:
        def show(cmds):
            shown = [" / ".join(c) for c in cmds if not _is_noise(c)]
            extra = f" … (+{len(shown) - limit})" if len(shown) > limit else ""
            return "; ".join(shown[:limit]) + extra
        return f"delete [{show(self.deletes)}] add [{show(self.adds)}]"


def _is_noise(command: tuple) -> bool:
    return len(command) == 1 and any(p.match(command[0]) for p in NOISE)


def parse_test_output(text: str) -> ReloadDelta:
    """Parses the stdout of `frr-reload.py --test`: a "Lines To Delete" and a "Lines To Add"
    section (each optional, each under a ==== rule), holding commands printed with their
    contexts, one indent level per context; a command starts at every unindented line."""
    sections = {"Lines To Delete": [], "Lines To Add": []}
    current: Optional[list] = None
    command: list = []

    def flush() -> None:
        if command and current is not None:
            current.append(tuple(command))
        command.clear()

    for raw in text.splitlines():
        line = raw.rstrip()
        if line in sections:
            flush()
            current = sections[line]
            continue
        if not line or set(line) == {"="} or current is None:
            continue
        if not line.startswith(" "):
            flush()
        command.append(line.strip())
    flush()
    return ReloadDelta(tuple(sections["Lines To Delete"]), tuple(sections["Lines To Add"]))


@dataclass
class ReloadPass:
    """One `--reload` run and the `--test` that judged it."""
    returncode: int
    reload_seconds: float
    test_seconds: float
    log: str
    delta_after: ReloadDelta


@dataclass
class ApplyResult:
    """The outcome of FrrReload.apply()."""
    initial: ReloadDelta
    passes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def converged(self) -> bool:
        last = self.passes[-1].delta_after if self.passes else self.initial
        return last.empty

    @property
    def reload_seconds(self) -> float:
        return sum(p.reload_seconds for p in self.passes)

    def describe(self) -> str:
        steps = ", ".join(f"pass {i + 1}: rc {p.returncode} in {p.reload_seconds:.2f} s, then "
                          f"{'empty' if p.delta_after.empty else p.delta_after.summary()}"
                          for i, p in enumerate(self.passes))
        return f"initial {self.initial.summary()}; {steps or 'nothing to do'}"


class FrrReload:
    """frr-reload.py against one lab router."""

    def __init__(self, router: FrrRouter, timeout: float = 900.0):
        self.router = router
        self.timeout = timeout

    def _argv(self, mode: str, path: Path) -> list:
        if path.parent != self.router.dir or path.name != "frr.conf":
            raise LabError(f"{path}: frr-reload.py input must be {self.router.config_path} "
                           "(any other name makes it write the running config to /etc/frr)")
        return [PYTHON, FRR_RELOAD, mode, "--stdout", "--confdir", str(self.router.dir),
                "--rundir", str(self.router.dir), "-N", self.router.namespace, str(path)]

    def test(self, path: Optional[Path] = None) -> tuple:
        """Runs `--test` and returns (ReloadDelta, seconds). Raises CommandError when
        frr-reload.py fails (a file vtysh cannot parse)."""
        path = path or self.router.config_path
        start = time.monotonic()
        out = run(self._argv("--test", path), timeout=self.timeout)
        return parse_test_output(out.stdout), time.monotonic() - start

    def reload(self, path: Optional[Path] = None) -> tuple:
        """Runs `--reload` once and returns (exit status, seconds, log). Does not raise on a
        non-zero exit status: see the module comment."""
        path = path or self.router.config_path
        start = time.monotonic()
        out = run(self._argv("--reload", path), check=False, timeout=self.timeout)
        return out.returncode, time.monotonic() - start, out.stdout + out.stderr

    def apply(self, text: Optional[str] = None, max_passes: int = 3,
              check: bool = True) -> ApplyResult:
        """Writes text (when given) to the router's frr.conf, then reloads until `--test` shows
        an empty delta, at most max_passes reloads. Raises LabError with every pass's exit
        status and remaining delta when it does not converge and check is set."""
        if text is not None:
            self.router.write_config(text)
        start = time.monotonic()
        delta, _ = self.test()
        result = ApplyResult(initial=delta)
        while not delta.empty and len(result.passes) < max_passes:
            rc, seconds, log = self.reload()
            delta, test_seconds = self.test()
            result.passes.append(ReloadPass(rc, seconds, test_seconds, log, delta))
        result.seconds = time.monotonic() - start
        if check and not result.converged:
            last_log = result.passes[-1].log[-1500:] if result.passes else ""
            raise LabError(f"{self.router.namespace}: frr-reload.py did not converge in "
                           f"{max_passes} passes: {result.describe()}; last log: {last_log}")
        return result
