# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the live FRR tests. Live tests need root (network namespaces), FRR 8.4 with its
Python tools, and a built `ingotctl` with the `render` subcommand; without any of them they are
skipped with a message naming what is missing. The parser tests next to them always run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parents[1]
if str(E2E) not in sys.path:
    sys.path.insert(0, str(E2E))

from netlab import ingotctl as ingotctl_mod  # noqa: E402
from netlab.frr import frr_missing  # noqa: E402
from netlab.ledger import assert_released  # noqa: E402
from netlab.topology import Lab  # noqa: E402


def live_skip_reason():
    """Returns why the live tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "live FRR tests need root (network namespaces); run as root"
    missing = frr_missing()
    if missing:
        return f"live FRR tests need FRR: {missing}"
    return None


@pytest.fixture(scope="session")
def live():
    """Skips the test unless it runs as root with FRR installed."""
    reason = live_skip_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def ingotctl(live) -> Path:
    """The ingotctl binary; skips the test when none with `render` is built."""
    binary = ingotctl_mod.find_ingotctl()
    if binary is None:
        pytest.skip("live frrgen tests need a built ingotctl with `render` (scripts/setup, or "
                    "set INGOT_INGOTCTL)")
    return binary


@pytest.fixture(scope="module")
def lab_run(live):
    """One lab run (namespaces, FRR processes, files), torn down after the module even when a
    test or the setup failed; teardown fails the run if anything of it survives."""
    lab = Lab()
    try:
        yield lab
    finally:
        run = lab.run
        lab.close()
        assert_released(run)
