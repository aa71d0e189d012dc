# SPDX-License-Identifier: Apache-2.0
"""The chart as the lab runs it: charts/ingot rendered by the Go harness (charts/render.py
builds it) for the flavour under test, as a list of objects.

Flavours (lab mode → MetalLB's manifest flavour → the chart values, charts/render.py VARIANTS):
"none" → native (`frrk8s.enabled=false`), "frr" → frr (`frrk8s.enabled=false`,
`speaker.frr.enabled=true`), "frr-k8s" → frr-k8s (the defaults), optionally with
`frrk8s.ingotFrr.enabled=true` (ingot-frr in frr-k8s' place). The lab adds only
`frrk8s.namespace=frr-k8s-system` in frr-k8s mode (its API server's frr-k8s namespace) and
`speaker.memberlist.enabled=false` when a spec turns memberlist off."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path

import yaml

from .proc import LabError

REPO = Path(__file__).resolve().parents[2]
CHARTS = REPO / "charts"
FRRK8S_NS = "frr-k8s-system"


def _render_module():
    spec = importlib.util.spec_from_file_location("chart_render", CHARTS / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def values(mode: str, ingot_frr: bool = False, memberlist: bool = True,
           extra: tuple = ()) -> list:
    """The harness' --set arguments of a lab flavour."""
    variant = {"none": "ingot-native.yaml", "frr": "ingot-frr.yaml",
               "frr-k8s": "ingot-frr-k8s.yaml"}[mode]
    # The plain manifests' names (Deployment controller, DaemonSet speaker, ServiceAccounts
    # controller/speaker): what a kubectl apply of charts/manifests/ installs, and what the RBAC
    # record (test_zz_rbac_record) reads.
    args = list(_render_module().VARIANTS[variant]) + list(_render_module().MANIFEST_NAMES)
    if mode == "frr-k8s":
        args += ["--set", f"frrk8s.namespace={FRRK8S_NS}"]
        if ingot_frr:
            args += ["--set", "frrk8s.ingotFrr.enabled=true"]
    elif ingot_frr:
        raise LabError(f"frrk8s.ingotFrr.enabled needs mode frr-k8s, not {mode}")
    if not memberlist:
        args += ["--set", "speaker.memberlist.enabled=false"]
    for value in extra:
        args += ["--set", value]
    return args


def _harness_digest() -> str:
    h = hashlib.sha256()
    for path in sorted((CHARTS / "harness").glob("*.go")):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()[:16]


def harness() -> Path:
    """The compiled harness, built once per harness source (cached in <repo>/build when it
    exists, else in the temporary directory)."""
    cache = REPO / "build" if (REPO / "build").is_dir() else Path(tempfile.gettempdir())
    binary = cache / f"chart-render-{_harness_digest()}"
    if binary.is_file():
        return binary
    with open(cache / "chart-render.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.is_file():
            with tempfile.TemporaryDirectory(dir=cache) as tmp:
                try:
                    built = _render_module().build_harness(Path(tmp))
                except (OSError, subprocess.CalledProcessError) as e:
                    raise LabError(f"building the chart harness (charts/harness) failed: {e}") \
                        from None
                os.replace(built, binary)
    return binary


def render(mode: str, ingot_frr: bool = False, memberlist: bool = True,
           extra: tuple = ()) -> list:
    """The chart's objects for the flavour (CRDs left out: the test API server has its own)."""
    args = values(mode, ingot_frr, memberlist, extra)
    try:
        text = _render_module().render(harness(), args)
    except subprocess.CalledProcessError as e:
        raise LabError(f"the chart does not render with {' '.join(args)}: {e.stderr.strip()}") \
            from None
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
