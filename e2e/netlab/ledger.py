# SPDX-License-Identifier: Apache-2.0
"""The run ledger: what one lab run created, written to disk as it is created, so that teardown
(or `e2e/lab cleanup` after a run was killed) removes exactly that and nothing else.

Layout: LEDGER_ROOT/<run>/ledger.json, next to the run's working files (FRR configs and logs).
A run owns a slot (0..MAX_SLOTS-1) that selects its address block (topology.Addressing), so
parallel runs on one machine never use the same addresses; slots are handed out under an
exclusive flock on LEDGER_ROOT/.lock.

A run is normally owned by the process that created it (a pytest run, a benchmark): once that
process is gone, the run is stale and `e2e/lab cleanup` may release it. `e2e/lab up` creates a
*persistent* run instead: its creator exits while the daemons keep running, so the owner check
does not apply; only `e2e/lab down` (or `cleanup --all`) releases it.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from .proc import LabError, kill_pid, pid_alive, pid_cmdline

LEDGER_ROOT = Path(os.environ.get("INGOT_LAB_ROOT", "/run/ingot-lab"))
MAX_SLOTS = 32
RUN_PREFIX = "ig"


@dataclass
class ProcessRecord:
    """One process the run started: its PID, the namespace it runs in, and argv[0] (checked
    before a later cleanup kills the PID, in case the PID was reused)."""
    pid: int
    namespace: str
    program: str


@dataclass
class Ledger:
    run: str
    slot: int
    owner_pid: int
    created: float
    namespaces: list = field(default_factory=list)
    processes: list = field(default_factory=list)  # of ProcessRecord
    directories: list = field(default_factory=list)
    persistent: bool = False   # created by `e2e/lab up`: outlives its owner on purpose
    info: dict = field(default_factory=dict)  # free-form facts for `e2e/lab status`

    @property
    def path(self) -> Path:
        return LEDGER_ROOT / self.run

    def save(self) -> None:
        """Writes the ledger atomically (write to a temporary name, then rename)."""
        data = asdict(self)
        tmp = self.path / "ledger.json.tmp"
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, self.path / "ledger.json")

    def add_namespace(self, name: str) -> None:
        self.namespaces.append(name)
        self.save()

    def add_process(self, pid: int, namespace: str, program: str) -> None:
        self.processes.append(ProcessRecord(pid, namespace, program))
        self.save()

    def add_directory(self, path: str) -> None:
        self.directories.append(path)
        self.save()

    def owner_alive(self) -> bool:
        return pid_alive(self.owner_pid)

    def in_use(self) -> bool:
        """True while the run must not be cleaned up as stale: it is persistent, or its owner
        is alive."""
        return self.persistent or self.owner_alive()

    def set_info(self, **facts) -> None:
        self.info.update(facts)
        self.save()


def _load(path: Path) -> Optional[Ledger]:
    try:
        data = json.loads((path / "ledger.json").read_text())
    except (OSError, ValueError):
        return None
    data["processes"] = [ProcessRecord(**p) for p in data.get("processes", [])]
    return Ledger(**data)


def all_ledgers() -> list:
    """Returns the ledgers of every run on this machine, sorted by run name."""
    if not LEDGER_ROOT.is_dir():
        return []
    found = (_load(p) for p in sorted(LEDGER_ROOT.iterdir()) if p.is_dir())
    return [l for l in found if l is not None]


def create_ledger(slot: Optional[int] = None, persistent: bool = False) -> Ledger:
    """Creates the ledger of a new run with a unique run name and a free slot (exactly `slot`
    when given). Raises LabError when every slot, or the requested one, is taken (call
    cleanup_stale() for runs whose owner died)."""
    LEDGER_ROOT.mkdir(parents=True, exist_ok=True, mode=0o755)
    with open(LEDGER_ROOT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        existing = all_ledgers()
        used = {l.slot for l in existing}
        if slot is not None:
            holder = next((l for l in existing if l.slot == slot), None)
            if holder is not None:
                state = ("persistent, from `e2e/lab up`" if holder.persistent else
                         "owner alive" if holder.owner_alive() else "owner dead")
                raise LabError(f"lab slot {slot} is taken by run {holder.run} (owner pid "
                               f"{holder.owner_pid}, {state}); `e2e/lab list` shows it, "
                               "`e2e/lab down` or `e2e/lab cleanup` removes it")
        free = [s for s in range(MAX_SLOTS) if s not in used] if slot is None else [slot]
        if not free:
            raise LabError(f"all {MAX_SLOTS} lab slots in {LEDGER_ROOT} are taken; "
                           "run `e2e/lab cleanup` to remove dead runs")
        names = {l.run for l in existing}
        run = RUN_PREFIX + secrets.token_hex(2)
        while run in names or (LEDGER_ROOT / run).exists():
            run = RUN_PREFIX + secrets.token_hex(2)
        (LEDGER_ROOT / run).mkdir(mode=0o755)
        ledger = Ledger(run=run, slot=free[0], owner_pid=os.getpid(), created=time.time(),
                        persistent=persistent)
        ledger.save()
        return ledger


def _matches(record: ProcessRecord) -> bool:
    """Reports whether the live process record.pid is still the one the run started."""
    argv = pid_cmdline(record.pid)
    return bool(argv) and os.path.basename(argv[0]) == os.path.basename(record.program)


def _existing_namespaces() -> set:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10)
    return {line.split()[0] for line in out.stdout.splitlines() if line.strip()}


def stray_pids(run: str) -> list:
    """Returns the PIDs of live processes whose command line names one of run's namespaces
    (`<run>-…`) other than this process: children that a recorded daemon started itself (the
    agent's frr-reload.py and vtysh), which outlive it when it is killed. Run names are unique,
    so these belong to the run."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            argv = pid_cmdline(int(entry))
            if any(a.startswith(run + "-") for a in argv) and pid_alive(int(entry)):
                out.append(int(entry))
    return out


def release(ledger: Ledger) -> list:
    """Removes everything the ledger lists: kills its processes by PID (newest first), then any
    stray process of the run (stray_pids), deletes its namespaces and directories, then the
    ledger itself. Keeps going after a failure and returns the problems met (empty when
    everything is gone)."""
    problems = []
    for record in reversed(ledger.processes):
        if pid_alive(record.pid) and _matches(record):
            kill_pid(record.pid)
            if pid_alive(record.pid):
                problems.append(f"process {record.pid} ({record.program}) survived SIGKILL")
    for pid in stray_pids(ledger.run):
        kill_pid(pid)
        if pid_alive(pid):
            problems.append(f"stray process {pid} of run {ledger.run} survived SIGKILL")
    present = _existing_namespaces()
    for ns in reversed(ledger.namespaces):
        if ns in present:
            out = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True,
                                 timeout=10)
            if out.returncode != 0:
                problems.append(f"ip netns del {ns}: {out.stderr.strip()}")
    for directory in reversed(ledger.directories):
        shutil.rmtree(directory, ignore_errors=True)
        if os.path.exists(directory):
            problems.append(f"directory {directory} could not be removed")
    if not problems:
        shutil.rmtree(ledger.path, ignore_errors=True)
    return problems


def cleanup_stale() -> list:
    """Releases every run whose owning process is gone; returns (run, problems) pairs."""
    return [(l.run, release(l)) for l in all_ledgers() if not l.in_use()]


def leftovers(run: str) -> list:
    """Returns what of run still exists on the machine: namespaces named <run>-*, processes
    whose command line names such a namespace, FRR pathspace directories and the ledger."""
    found = [f"namespace {ns}" for ns in sorted(_existing_namespaces())
             if ns.startswith(run + "-")]
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            argv = pid_cmdline(int(entry))
            if any(a.startswith(run + "-") for a in argv) and pid_alive(int(entry)):
                found.append(f"process {entry}: {' '.join(argv)[:120]}")
    rundir = Path("/var/run/frr")
    if rundir.is_dir():
        found += [f"directory {p}" for p in sorted(rundir.glob(run + "-*"))]
    if (LEDGER_ROOT / run).exists():
        found.append(f"ledger {LEDGER_ROOT / run}")
    return found


def assert_released(run: str) -> None:
    """Raises LabError listing whatever of run survived its teardown."""
    left = leftovers(run)
    if left:
        raise LabError(f"lab run {run} left behind: " + "; ".join(left))
