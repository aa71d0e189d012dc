# SPDX-License-Identifier: Apache-2.0
"""`ingotctl render`: the frr.conf the agent on a node would apply, computed by Ingot's own
announce + frrgen code from manifest files. The lab configures node FRRs only from this output.

The binary is $INGOT_INGOTCTL when set, else <repo>/build/cli/ingotctl (what scripts/setup
builds), else the newest <repo>/build*/cli/ingotctl that has the `render` subcommand.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Optional, Sequence

from .proc import CommandError, LabError, run

REPO = Path(__file__).resolve().parents[2]


def _has_subcommand(binary: Path, command: str) -> bool:
    try:
        out = subprocess.run([str(binary), command], capture_output=True, text=True, timeout=10)
    except OSError:
        return False
    text = out.stdout + out.stderr
    # A binary without the subcommand answers `unknown command "X"` and its usage; with it, the
    # subcommand's own usage error names it ("ingotctl render: give --node …", "ingotctl
    # support-bundle: no output: …").
    return f"unknown command \"{command}\"" not in text and f"ingotctl {command}:" in text


def find_ingotctl(command: str = "render") -> Optional[Path]:
    """Returns the ingotctl binary to use, or None when none with `command` (a subcommand that
    needs --node: render, frr-k8s) is built."""
    env = os.environ.get("INGOT_INGOTCTL")
    if env:
        return Path(env) if Path(env).is_file() else None
    candidates = [REPO / "build" / "cli" / "ingotctl"]
    others = sorted(REPO.glob("build*/cli/ingotctl"), key=lambda p: p.stat().st_mtime,
                    reverse=True)
    for binary in candidates + [p for p in others if p not in candidates]:
        if binary.is_file() and os.access(binary, os.X_OK) and _has_subcommand(binary, command):
            return binary
    return None


def render_frr_conf(binary: Path, node: str, files: Sequence[Path],
                    extra: Sequence[str] = ()) -> str:
    """Returns `ingotctl render --node NODE --format frr.conf -f FILE...`. Raises LabError with
    ingotctl's own message when it rejects the manifests."""
    argv = [str(binary), "render", "--node", node, "--format", "frr.conf", *extra]
    for f in files:
        argv += ["-f", str(f)]
    try:
        out = run(argv, timeout=120)
    except CommandError as e:
        raise LabError(f"ingotctl render --node {node} failed (exit {e.returncode}): "
                       f"{(e.stdout + e.stderr).strip()[:2000]}") from None
    return out.stdout
