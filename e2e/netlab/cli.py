# SPDX-License-Identifier: Apache-2.0
"""`e2e/lab up|status|down|list|cleanup` (as root).

    up [--nodes 2] [--mode frr|frr-k8s|none]   bring the cluster lab up in slot 0 (the addresses of
                                          examples/), apply examples/, print the Services'
                                          addresses, the ToR's routes and, for L2 addresses,
                                          the node that answers ARP/NDP; the lab keeps running
    status                                the same, plus whether every daemon is alive
    down                                  stop and remove the lab `up` started
    list                                  every lab run on this machine (tests, benchmarks, up)
    cleanup [--all]                       remove runs whose owner died (--all: every run)
"""

from __future__ import annotations

import argparse
import sys
import time

from . import ledger
from .cluster import CLUSTER_KIND, MODES, Cluster, ClusterSpec
from .frr import frr_missing
from .proc import LabError

UP_SLOT = 0


def _up_runs() -> list:
    return [l for l in ledger.all_ledgers()
            if l.persistent and l.info.get("kind") == CLUSTER_KIND]


def _state(run: ledger.Ledger) -> str:
    if run.persistent:
        return "persistent (e2e/lab up)"
    return "running" if run.owner_alive() else "dead owner"


def cmd_list(_args) -> int:
    runs = ledger.all_ledgers()
    if not runs:
        print(f"no lab runs in {ledger.LEDGER_ROOT}")
    for run in runs:
        print(f"{run.run}  slot {run.slot}  pid {run.owner_pid} ({_state(run)})  "
              f"age {time.time() - run.created:.0f} s  namespaces {len(run.namespaces)}  "
              f"processes {len(run.processes)}")
    return 0


def cmd_cleanup(args) -> int:
    failed = 0
    for run in ledger.all_ledgers():
        if run.in_use() and not args.all:
            why = "persistent (use e2e/lab down)" if run.persistent else \
                f"owner {run.owner_pid} is alive"
            print(f"{run.run}: {why}, kept (use --all)")
            continue
        problems = ledger.release(run) + [p for p in ledger.leftovers(run.run)
                                          if not p.startswith("ledger")]
        print(f"{run.run}: " + ("released" if not problems else "; ".join(problems)))
        failed += bool(problems)
    return 1 if failed else 0


def _print_status(cluster: Cluster, processes: bool) -> int:
    from .mainjob import describe, describe_l2

    info = cluster.ledger.info
    print(f"lab {cluster.run_name}: slot {cluster.ledger.slot}, mode {info['mode']}, "
          f"API {cluster.api_url} (kubectl: ip netns exec {cluster.ns('api')} kubectl "
          f"--kubeconfig {info['kubeconfig']} …)")
    hosts = ", ".join(f"{r} {cluster.address(r)}" for r in info["tors"] + info["nodes"])
    print(f"hosts: {hosts}")
    if not info.get("agent"):
        print("NOTE: ingot-agent is not built, so no node announces anything "
              "(build build/agent/ingot-agent, then e2e/lab down && e2e/lab up)")
    dead = []
    if processes:
        print("processes:")
        for role, (pid, alive) in sorted(cluster.process_states().items()):
            print(f"  {role:24} pid {pid:<8} {'alive' if alive else 'DEAD'}")
            if not alive:
                dead.append(role)
    describe(cluster, sys.stdout)
    describe_l2(cluster, sys.stdout)
    if dead:
        print(f"DEAD: {', '.join(dead)} (logs in {cluster.workdir / 'logs'})")
    return 1 if dead else 0


def cmd_status(_args) -> int:
    runs = _up_runs()
    if not runs:
        print("no lab is up (e2e/lab up starts one)")
        return 1
    return _print_status(Cluster.attach(runs[0]), processes=True)


def cmd_up(args) -> int:
    from .mainjob import add_l2_routes, apply_examples, bgp_ranges, in_ranges, ingress_ips, \
        wait_addresses, wait_l2, wait_routes

    if _up_runs():
        print("the lab is already up:")
        return cmd_status(args)
    missing = frr_missing()
    if missing:
        print(f"e2e/lab up: {missing}", file=sys.stderr)
        return 1
    start = time.monotonic()
    cluster = Cluster(ClusterSpec(nodes=args.nodes, mode=args.mode, slot=UP_SLOT,
                                  persistent=True, ingot_frr=args.ingot_frr))
    try:
        cluster.up()
        print(f"lab {cluster.run_name} up in {time.monotonic() - start:.1f} s; applying "
              "examples/", flush=True)
        apply_examples(cluster)
        services = wait_addresses(cluster)
        ranges = bgp_ranges(cluster)
        ips = [ip for s in services for ip in ingress_ips(s) if in_ranges(ip, ranges)]
        routes = add_l2_routes(cluster)
        print(f"tor: on-link routes for the L2 pools: {', '.join(routes) or '(none)'}")
        if cluster.agent is not None:
            problems = [wait_routes(cluster, ips), wait_l2(cluster)]
            for problem in filter(None, problems):
                print(f"WARNING: {problem} (logs in {cluster.workdir / 'logs'})")
    except BaseException:
        print("e2e/lab up failed; removing what was started", file=sys.stderr)
        try:
            cluster.close()
        except LabError as e:
            print(f"teardown: {e}", file=sys.stderr)
        raise
    print(f"ready after {time.monotonic() - start:.1f} s")
    code = _print_status(cluster, processes=False)
    print("take it down with: e2e/lab down")
    return code


def cmd_down(_args) -> int:
    runs = _up_runs()
    if not runs:
        print("no lab is up")
        return 0
    failed = 0
    for run in runs:
        problems = ledger.release(run) + [p for p in ledger.leftovers(run.run)
                                          if not p.startswith("ledger")]
        print(f"{run.run}: " + ("down" if not problems else "; ".join(problems)))
        failed += bool(problems)
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="e2e/lab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="bring the cluster lab up and apply examples/")
    up.add_argument("--nodes", type=int, default=2)
    up.add_argument("--mode", choices=MODES, default="frr")
    up.add_argument("--ingot-frr", action="store_true",
                    help="frr-k8s mode: the chart's frrk8s.ingotFrr.enabled (ingot-frr from the "
                         "render)")
    sub.add_parser("status", help="addresses, ToR routes and process liveness")
    sub.add_parser("down", help="stop and remove the lab started by up")
    sub.add_parser("list", help="show recorded lab runs")
    clean = sub.add_parser("cleanup", help="remove what dead lab runs left behind")
    clean.add_argument("--all", action="store_true",
                       help="also runs whose owner is alive, and the `up` lab")
    args = parser.parse_args(argv)
    commands = {"up": cmd_up, "status": cmd_status, "down": cmd_down, "list": cmd_list,
                "cleanup": cmd_cleanup}
    try:
        return commands[args.command](args)
    except LabError as e:
        print(f"e2e/lab {args.command}: {e}", file=sys.stderr)
        return 1
