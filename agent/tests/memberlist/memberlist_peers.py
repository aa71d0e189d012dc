# SPDX-License-Identifier: Apache-2.0
"""Start Ingot and Go memberlist members as child processes on loopback and talk to them over
their stdin/stdout line protocol. Used by the interop tests and bench/memberlist_timing.py."""

import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = Path(os.environ.get("INGOT_SOURCE_DIR", HERE.parents[2]))
BINARY_DIR = Path(os.environ.get("INGOT_BINARY_DIR", SOURCE_DIR / "build"))
GO_SOURCES = Path("/usr/share/gocode/src/github.com/hashicorp/memberlist")


def ingot_peer_binary():
    """Path of ingot-memberlist-peer (from CTest's environment or the default build dir)."""
    return Path(os.environ.get("INGOT_ML_PEER", BINARY_DIR / "agent" / "ingot-memberlist-peer"))


def build_go_peer():
    """Build gopeer offline from Debian's Go packages; None (with a reason) when impossible."""
    go = shutil.which("go")
    if go is None or not GO_SOURCES.is_dir():
        return None, "go or golang-github-hashicorp-memberlist-dev is not installed"
    out_dir = BINARY_DIR / "gopeer"
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = out_dir / "gopeer"
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode",
               GOCACHE=str(out_dir / "cache"))
    result = subprocess.run([go, "build", "-o", str(binary), "."], cwd=HERE / "gopeer", env=env,
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError("go build of gopeer failed:\n" + result.stderr)
    return binary, ""


class Peer:
    """One member process. Lines it prints are queued; replies are matched by their first word."""

    def __init__(self, argv, name):
        self.name = name
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.events = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.port = int(self.expect("port", 20).split()[1])

    def _pump(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("event "):
                self.events.append((time.monotonic(), line))
            else:
                self.lines.put(line)

    def expect(self, word, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no '{word}' line within {timeout} s "
                                   f"(exit {self.proc.poll()}): {self.stderr_tail()}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line.split(" ", 1)[0] == word:
                return line

    def command(self, cmd, reply, timeout=10):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self.expect(reply, timeout)

    def members(self):
        """Names this member lists as alive or suspect."""
        return set(self.command("members", "members").split()[1:])

    def counters(self):
        line = self.command("counters", "counters")
        return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:])}

    def stderr_tail(self):
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read()[-2000:]

    def kill(self):
        """SIGKILL: no leave message, sockets vanish (a crashed node)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.kill()


def wait_for(predicate, timeout, what):
    """Poll predicate every 50 ms until true; raise with `what` after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")
