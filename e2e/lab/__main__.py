# SPDX-License-Identifier: Apache-2.0
"""`python3 -m lab list|cleanup [--all]` (run from e2e/, as root): shows the lab runs recorded on
this machine, or removes what runs left behind. `cleanup` releases runs whose owning process is
dead; `cleanup --all` also live ones (stop their tests first)."""

from __future__ import annotations

import argparse
import sys
import time

from . import ledger


def _list() -> int:
    runs = ledger.all_ledgers()
    if not runs:
        print(f"no lab runs in {ledger.LEDGER_ROOT}")
    for run in runs:
        state = "running" if run.owner_alive() else "dead owner"
        print(f"{run.run}  slot {run.slot}  pid {run.owner_pid} ({state})  "
              f"age {time.time() - run.created:.0f} s  namespaces {len(run.namespaces)}  "
              f"processes {len(run.processes)}")
    return 0


def _cleanup(everything: bool) -> int:
    failed = 0
    for run in ledger.all_ledgers():
        if run.owner_alive() and not everything:
            print(f"{run.run}: owner {run.owner_pid} is alive, kept (use --all)")
            continue
        problems = ledger.release(run) + [p for p in ledger.leftovers(run.run)
                                          if not p.startswith("ledger")]
        print(f"{run.run}: " + ("released" if not problems else "; ".join(problems)))
        failed += bool(problems)
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m lab", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="show recorded lab runs")
    clean = sub.add_parser("cleanup", help="remove what dead lab runs left behind")
    clean.add_argument("--all", action="store_true", help="also runs whose owner is alive")
    args = parser.parse_args(argv)
    if args.command == "list":
        return _list()
    return _cleanup(args.all)


if __name__ == "__main__":
    sys.exit(main())
