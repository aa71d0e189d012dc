# SPDX-License-Identifier: Apache-2.0
"""The lab leaves nothing behind: not after a normal close, not after a step failed half-way,
and not after its process was killed (then `e2e/lab cleanup` removes the rest)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from netlab import ledger
from netlab.frr import FrrRouter
from netlab.proc import LabError
from netlab.topology import Lab

E2E = Path(__file__).resolve().parents[1]


def test_close_after_a_failed_step_removes_every_namespace_process_and_directory(live):
    lab = Lab()
    run = lab.run
    try:
        host = lab.add_host("tor", 1)
        router = FrrRouter(lab, host).start()
        assert all(router.alive().values())
        with pytest.raises(LabError, match="already used"):
            lab.add_host("other", 1)
        with pytest.raises(LabError):
            FrrRouter(lab, host).start()  # the same pathspace twice
        assert len(ledger.leftovers(run)) > 3
    finally:
        lab.close()
    assert ledger.leftovers(run) == []


def test_a_killed_run_is_removed_by_lab_cleanup(live):
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(E2E)!r})
        from netlab.topology import Lab
        from netlab.frr import FrrRouter
        lab = Lab()
        FrrRouter(lab, lab.add_host("node1", 11)).start()
        print(lab.run, flush=True)
        time.sleep(60)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        run = child.stdout.readline().strip()
        assert run.startswith(ledger.RUN_PREFIX), run
        before = ledger.leftovers(run)
        assert any(x.startswith("namespace") for x in before)
        assert any(x.startswith("process") for x in before)
    finally:
        child.kill()
        child.wait()
    # The FRR daemons outlive their killed parent: that is what cleanup is for.
    assert any(x.startswith("process") for x in ledger.leftovers(run))
    out = subprocess.run([str(E2E / "lab"), "cleanup"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{run}: released" in out.stdout
    assert ledger.leftovers(run) == []
