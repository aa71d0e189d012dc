#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds the chart render harness (charts/harness) and renders the plain manifests in
charts/manifests/ from charts/ingot with its default values and MetalLB's manifest names. With --check, compares instead of
writing and exits 1 naming every file that is out of date."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHARTS = Path(__file__).resolve().parent
CHART = CHARTS / "ingot"
NAMESPACE = "metallb-system"
# file -> the overrides that select its BGP mode: MetalLB's three flavours (metallb-native.yaml,
# metallb-frr.yaml, metallb-frr-k8s.yaml). No memberlist key is rendered: the controller creates
# the Secret at start-up.
VARIANTS = {
    "ingot-frr-k8s.yaml": [],
    "ingot-frr.yaml": ["--set", "frrk8s.enabled=false", "--set", "speaker.frr.enabled=true"],
    "ingot-native.yaml": ["--set", "frrk8s.enabled=false"],
}
# The plain manifests carry MetalLB's manifest names (Deployment controller, DaemonSet speaker,
# app=metallb,component=...), so patches and selectors written for metallb-native.yaml apply.
MANIFEST_NAMES = ["--set", "naming=manifests"]
HEADER = f"""\
# Rendered from charts/ingot by charts/render.py with MetalLB's plain-manifest names
# (naming=manifests) and the chart's default values{{extra}}.
# Do not edit: change the chart and run charts/render.py.
---
apiVersion: v1
kind: Namespace
metadata:
  name: {NAMESPACE}
  labels:
    pod-security.kubernetes.io/enforce: privileged
    pod-security.kubernetes.io/audit: privileged
    pod-security.kubernetes.io/warn: privileged
"""


def go_env(cache: Path) -> dict:
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=str(cache))
    env.setdefault("HOME", str(cache))
    return env


def build_harness(out_dir: Path) -> Path:
    """Compiles charts/harness into out_dir/chart-render and returns its path."""
    binary = out_dir / "chart-render"
    # The CMake build folder keeps the compiled packages between runs when it exists.
    default = CHARTS.parent / "build" / "gocache" if (CHARTS.parent / "build").is_dir() else \
        out_dir / "gocache"
    cache = Path(os.environ.get("INGOT_GOCACHE", default))
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=CHARTS / "harness",
                   env=go_env(cache), check=True)
    return binary


def render(harness: Path, args: list[str]) -> str:
    """Runs the harness on charts/ingot; raises CalledProcessError with its stderr on failure."""
    done = subprocess.run([str(harness), "--namespace", NAMESPACE, *args, str(CHART)],
                          capture_output=True, text=True, check=True)
    return done.stdout


def manifest(harness: Path, overrides: list[str]) -> str:
    extra = "" if not overrides else " and " + " ".join(overrides[1::2])
    return HEADER.format(extra=extra) + render(harness, ["--include-crds", *MANIFEST_NAMES,
                                                         *overrides])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        harness = build_harness(Path(tmp))
        stale = []
        for name, overrides in VARIANTS.items():
            path = CHARTS / "manifests" / name
            text = manifest(harness, overrides)
            if opts.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(name)
            else:
                path.write_text(text)
    for name in stale:
        print(f"charts/manifests/{name} is out of date: run charts/render.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
