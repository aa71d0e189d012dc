# SPDX-License-Identifier: Apache-2.0
"""Running commands and waiting for conditions: the only place the lab calls subprocess.run.

Every command has a timeout, so nothing in the lab can hang a test run; a failing command raises
CommandError with the command line, exit status and both output streams.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable, Optional, Sequence, TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0


class LabError(Exception):
    """A lab operation failed; the message says which object and why."""


class CommandError(LabError):
    """A command exited non-zero or timed out."""

    def __init__(self, argv: Sequence[str], returncode: Optional[int], stdout: str, stderr: str,
                 note: str = ""):
        self.argv = list(argv)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        status = "timed out" if returncode is None else f"exited {returncode}"
        detail = (stderr.strip() or stdout.strip())[-2000:]
        super().__init__(f"{' '.join(self.argv)}: {status}{note}: {detail}")


def run(argv: Sequence[str], *, check: bool = True, timeout: float = DEFAULT_TIMEOUT,
        input_text: Optional[str] = None, env: Optional[dict] = None
        ) -> subprocess.CompletedProcess:
    """Runs argv and returns the completed process (text output). Raises CommandError when it
    exits non-zero and check is set, and always when it outlives timeout (the process is
    killed first)."""
    try:
        result = subprocess.run(list(argv), input=input_text, capture_output=True, text=True,
                                timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise CommandError(argv, None, out, err, f" after {timeout:.0f} s") from None
    if check and result.returncode != 0:
        raise CommandError(argv, result.returncode, result.stdout, result.stderr)
    return result


def wait_until(what: str, probe: Callable[[], Optional[T]], timeout: float,
               interval: float = 0.05) -> T:
    """Calls probe until it returns a truthy value and returns that value. Raises LabError
    naming `what` and the last value seen when timeout seconds pass first. A probe that raises
    LabError counts as "not yet"; the last such error is part of the timeout message."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            value = probe()
            if value:
                return value
            last = value
        except LabError as e:
            last = e
        if time.monotonic() >= deadline:
            raise LabError(f"timed out after {timeout:.1f} s waiting for {what}; last: {last!r}")
        time.sleep(interval)


def pid_alive(pid: int) -> bool:
    """Reports whether pid names a live (not zombie) process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[-1].split()
    except OSError:
        return False
    return bool(fields) and fields[0] not in ("Z", "X")


def pid_cmdline(pid: int) -> list:
    """Returns the argv of pid, or [] when it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def kill_pid(pid: int, grace: float = 3.0) -> None:
    """Stops one process by PID: SIGTERM, then SIGKILL if it is still alive after grace
    seconds. Returns once it is gone (or after a further 2 s, for an unkillable one)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            _reap(pid)
            if not pid_alive(pid):
                return
            time.sleep(0.02)


def _reap(pid: int) -> None:
    """Collects pid's exit status when it is our child, so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
