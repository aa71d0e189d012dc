# SPDX-License-Identifier: Apache-2.0
"""Builds the Go oracles of oracle/ offline from Debian's Go packages (GO111MODULE=off, GOPATH
/usr/share/gocode), as the other Go peers of the tests are built. Each binary is built once
into build/oracles/ (or $INGOT_BINARY_DIR/oracles) and rebuilt only when its source changes,
so a test session pays the compile once."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
OUT_DIR = Path(os.environ.get("INGOT_BINARY_DIR", SOURCE_DIR / "build")) / "oracles"
GOPATH = Path("/usr/share/gocode")

# oracle (its folder under oracle/) -> (the Debian package, the folder it installs)
ORACLES = {
    "openapi": ("golang-k8s-kube-openapi-dev", GOPATH / "src/k8s.io/kube-openapi"),
    "smd": ("golang-k8s-sigs-structured-merge-diff-dev",
            GOPATH / "src/sigs.k8s.io/structured-merge-diff"),
}
# Debian installs structured-merge-diff v4 without the /v4 its imports name; GOPATH mode finds it
# through a link in a GOPATH of our own placed first.
MAJOR_VERSION_LINKS = {"src/sigs.k8s.io/structured-merge-diff/v4":
                       GOPATH / "src/sigs.k8s.io/structured-merge-diff"}


def _gopath() -> str:
    """GOPATH for the builds: the links above, then Debian's."""
    own = OUT_DIR / "gopath"
    for link, target in MAJOR_VERSION_LINKS.items():
        path = own / link
        if target.is_dir() and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
    return f"{own}:{GOPATH}"


def _digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(folder.glob("*.go")):
        sha.update(path.name.encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()[:16]


def build(name: str) -> tuple:
    """(path of the built oracle, "") or (None, why it cannot be built)."""
    package, sources = ORACLES[name]
    go = shutil.which("go")
    if go is None:
        return None, "go is not installed (Debian package golang-go)"
    if not sources.is_dir():
        return None, f"{package} is not installed (scripts/setup installs it)"
    folder = HERE / "oracle" / name
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    binary = OUT_DIR / f"{name}-oracle-{_digest(folder)}"
    with open(OUT_DIR / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build when several sessions start together
        if binary.exists():
            return binary, ""
        env = dict(os.environ, GO111MODULE="off", GOPATH=_gopath(),
                   GOCACHE=str(OUT_DIR / "gocache"), GOFLAGS="")
        env.setdefault("HOME", str(OUT_DIR))
        done = subprocess.run([go, "build", "-o", str(binary) + ".tmp", "."], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"go build of oracle/{name} failed:\n{done.stderr}")
        os.replace(str(binary) + ".tmp", binary)
    return binary, ""


def build_or_skip(name: str) -> Path:
    """The built oracle, or a skip of the calling test with the printed reason."""
    binary, reason = build(name)
    if binary is None:
        print(f"oracle/{name} skipped: {reason}")
        pytest.skip(reason)
    return binary
