# SPDX-License-Identifier: Apache-2.0
"""FRR inside one lab namespace (e2e/netlab/README.md): zebra, bfdd, bgpd and staticd started
in the foreground with the pathspace `-N <namespace>`, so that their PIDs are the lab's own
children, recorded in the run ledger and stopped by PID.

Files of a router (D = <run workdir>/<namespace>, owned by user frr):
    D/frr.conf                 the desired configuration (what frr-reload.py applies)
    D/<namespace>/vtysh.conf   empty; vtysh and frr-reload.py run with --config_dir D, so they
                               find it and nothing is read from or written to /etc/frr
    D/<daemon>.log             the daemon's stdout/stderr (`log stdout` in frr.conf lands here)
    /var/run/frr/<namespace>/  FRR's sockets and pid files for the pathspace (removed by close)
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
from pathlib import Path
from typing import Any, Optional, Sequence

from .proc import LabError, kill_pid, pid_alive, run, wait_until
from .topology import Host, Lab

FRR_LIBDIR = Path(os.environ.get("INGOT_FRR_LIBDIR", "/usr/lib/frr"))
VTYSH = os.environ.get("INGOT_VTYSH", "/usr/bin/vtysh")
FRR_RUNDIR = Path("/var/run/frr")
DAEMONS = ("zebra", "bfdd", "bgpd", "staticd")
START_TIMEOUT = 10.0


def frr_missing() -> Optional[str]:
    """Returns why FRR cannot run here (a missing binary or user), or None when it can."""
    for path in [Path(VTYSH)] + [FRR_LIBDIR / d for d in DAEMONS] + [FRR_LIBDIR / "frr-reload.py"]:
        if not path.exists():
            return f"{path} is not installed (apt-get install frr frr-pythontools)"
    try:
        pwd.getpwnam("frr")
    except KeyError:
        return "user frr does not exist (apt-get install frr)"
    return None


def _chown_frr(path: Path) -> None:
    entry = pwd.getpwnam("frr")
    os.chown(path, entry.pw_uid, entry.pw_gid)


class FrrRouter:
    """The FRR daemons of one lab host. start() brings them up; close() (also registered with
    the lab) stops them by PID and removes the pathspace directory."""

    def __init__(self, lab: Lab, host: Host, daemons: Sequence[str] = DAEMONS):
        self.lab = lab
        self.host = host
        self.daemons = tuple(daemons)
        self.dir = lab.workdir / host.namespace
        self.rundir = FRR_RUNDIR / host.namespace
        self.pids: dict = {}
        self._logs: list = []
        self._owns_rundir = False
        lab.on_close(self.close)

    @property
    def namespace(self) -> str:
        return self.host.namespace

    @property
    def config_path(self) -> Path:
        return self.dir / "frr.conf"

    def _prepare_dirs(self) -> None:
        if self.rundir.exists():
            raise LabError(f"{self.rundir} already exists: another FRR uses pathspace "
                           f"{self.namespace}")
        self.lab.ledger.add_directory(str(self.rundir))
        self._owns_rundir = True
        for d in (self.dir, self.dir / self.namespace, self.rundir):
            d.mkdir(parents=True, exist_ok=True)
            _chown_frr(d)
        (self.dir / self.namespace / "vtysh.conf").write_text("")

    def _spawn(self, daemon: str, extra: Sequence[str]) -> None:
        program = str(FRR_LIBDIR / daemon)
        argv = ["ip", "netns", "exec", self.namespace, program, "-N", self.namespace, "-P", "0",
                "-u", "frr", "-g", "frr", *extra]
        log = open(self.dir / f"{daemon}.log", "ab")
        self._logs.append(log)
        # `ip netns exec` execs the daemon, so this PID is the daemon's own.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
        self.lab.ledger.add_process(proc.pid, self.namespace, program)
        self.pids[daemon] = proc

    def _socket_ready(self, name: str) -> bool:
        return (self.rundir / name).exists()

    def start(self, config: Optional[str] = None) -> "FrrRouter":
        """Starts the daemons (zebra first, then the others once zebra's socket exists) and
        waits until every daemon's socket exists (a daemon that exits meanwhile fails
        the start with the end of its log). With config, writes it to frr.conf and applies it
        with `vtysh -f` (additive; use reload.FrrReload for later changes)."""
        self._prepare_dirs()
        if "zebra" in self.daemons:
            self._spawn("zebra", ["-s", "90000000"])
            self._wait_socket("zebra", "zserv.api")
        for daemon in self.daemons:
            if daemon != "zebra":
                self._spawn(daemon, [])
        for daemon in self.daemons:
            self._wait_socket(daemon, f"{daemon}.vty")
        if config is not None:
            self.write_config(config)
            self.apply_file(self.config_path)
        return self

    def _wait_socket(self, daemon: str, name: str) -> None:
        def ready() -> bool:
            proc = self.pids[daemon]
            if proc.poll() is not None:
                raise _Fatal(f"{daemon} in {self.namespace} exited {proc.returncode}: "
                             f"{self.log_tail(daemon)}")
            return self._socket_ready(name)
        try:
            wait_until(f"{daemon} socket {self.rundir / name}", ready, START_TIMEOUT)
        except _Fatal as e:
            raise LabError(str(e)) from None

    def log_tail(self, daemon: str, chars: int = 1500) -> str:
        try:
            return (self.dir / f"{daemon}.log").read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # Configuration and queries -------------------------------------------------------------

    def vtysh_argv(self) -> list:
        return [VTYSH, "--config_dir", str(self.dir), "-N", self.namespace]

    def write_config(self, text: str, path: Optional[Path] = None) -> Path:
        """Writes text as the desired configuration (frr.conf by default) and returns the path."""
        path = path or self.config_path
        path.write_text(text)
        _chown_frr(path)
        return path

    def vtysh(self, *commands: str, timeout: float = 30.0) -> str:
        """Runs vtysh commands (each one `-c`) and returns the output. Raises CommandError."""
        argv = self.vtysh_argv()
        for c in commands:
            argv += ["-c", c]
        return run(argv, timeout=timeout).stdout

    def show_json(self, command: str) -> Any:
        """Runs a `show … json` command and returns the parsed JSON. Raises LabError naming the
        router and command when the output is not JSON."""
        text = self.vtysh(command)
        try:
            return json.loads(text) if text.strip() else {}
        except ValueError as e:
            raise LabError(f"{self.namespace}: `{command}` did not return JSON ({e}): "
                           f"{text[:300]}") from None

    def apply_file(self, path: Path) -> None:
        """Applies a file additively with `vtysh -f` (never removes anything)."""
        run(self.vtysh_argv() + ["-f", str(path)], timeout=120)

    def running_config(self) -> str:
        return self.vtysh("show running-config")

    # Teardown ------------------------------------------------------------------------------

    def alive(self) -> dict:
        """Returns daemon → whether its process is alive."""
        return {d: p.poll() is None for d, p in self.pids.items()}

    def stop_daemon(self, daemon: str) -> None:
        """Stops one daemon by PID (SIGTERM, then SIGKILL)."""
        proc = self.pids.get(daemon)
        if proc is not None and proc.poll() is None:
            kill_pid(proc.pid)
            proc.wait(timeout=5)

    def start_daemon(self, daemon: str) -> None:
        """Starts one daemon again after stop_daemon (empty configuration; its stale vty socket
        is removed first so that the wait sees the new one)."""
        (self.rundir / f"{daemon}.vty").unlink(missing_ok=True)
        if daemon == "zebra":
            (self.rundir / "zserv.api").unlink(missing_ok=True)
            self._spawn("zebra", ["-s", "90000000"])
            self._wait_socket("zebra", "zserv.api")
        else:
            self._spawn(daemon, [])
        self._wait_socket(daemon, f"{daemon}.vty")

    def close(self) -> None:
        """Stops every daemon by PID, newest first, and removes the pathspace directory."""
        for daemon in reversed(list(self.pids)):
            try:
                self.stop_daemon(daemon)
            except subprocess.TimeoutExpired:
                pass
        survivors = [d for d, p in self.pids.items() if pid_alive(p.pid)]
        for log in self._logs:
            log.close()
        self._logs.clear()
        if self._owns_rundir:
            shutil.rmtree(self.rundir, ignore_errors=True)
        if survivors:
            raise LabError(f"{self.namespace}: {', '.join(survivors)} survived SIGKILL")

    def __repr__(self) -> str:
        return f"FrrRouter({self.namespace})"


class _Fatal(Exception):
    """A daemon died while we waited for it (not retried by wait_until)."""
