#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: how long frr-reload.py takes to apply Ingot's rendered frr.conf on a node, against
the number of changed prefixes, and how long until the ToR sees every change (issue 5).

Lab (root, network namespaces, e2e/netlab): a ToR FRR (AS 64512) and one node FRR (AS 64513), eBGP
with BFD; hold time --hold seconds on both sides (default 9, the lab's; MetalLB's default is 90),
keepalive a third of it. The node's frr.conf always comes from `ingotctl render --node node1
--format frr.conf` on generated manifests: a pool, a BGPPeer, a BFDProfile, one BGPAdvertisement
(with a community unless --no-community), and one LoadBalancer Service per prefix (status holding
its VIP, an EndpointSlice on node1). A baseline of --steady Services stays announced throughout;
the ToR's kernel table is polled during every operation to catch any moment one of them is gone.

For each N in --prefixes, repeated --repeat times, three operations from the baseline:
  add      N Services appear                      (baseline → baseline + N)
  one      1 Service appears below all N          (the lowest VIP: would renumber every entry
                                                   with frr-k8s' sequence numbering)
  withdraw all N + 1 Services go                  (→ baseline)
and for each: `--test` seconds, `--reload` seconds (all passes of the bounded loop), the number of
passes, the verifying `--test` seconds, and "ToR" = seconds from the start of the first `--test`
until the ToR's kernel table holds exactly the expected prefixes. Figures are printed as a table
(medians) and, with --json, written with every run.

Usage (as root, after building ingotctl):
    /usr/bin/python3 bench/frr_reload.py --prefixes 100 1000 [--hold 90] [--repeat 3]
        [--ops add,one,withdraw] [--no-community] [--json FILE] [--logs DIR]
--logs copies the routers' logs (bgpd's "CPU HOG" lines explain long reloads) and the manifests.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "e2e"))

from netlab import bgp, manifests as m  # noqa: E402
from netlab.bgplab import BgpLab, TorSpec  # noqa: E402
from netlab.frr import frr_missing  # noqa: E402
from netlab.ingotctl import find_ingotctl, render_frr_conf  # noqa: E402
from netlab.proc import LabError  # noqa: E402
from netlab.topology import Lab  # noqa: E402
from netlab.watch import RouteWatcher  # noqa: E402

TOR_ASN, NODE_ASN = 64512, 64513


class Bench:
    def __init__(self, lab: Lab, ingotctl: Path, steady: int, community: bool, hold: int):
        self.lab = lab
        self.hold = hold
        self.ingotctl = ingotctl
        self.steady = steady
        self.community = community
        self.bgplab = BgpLab(lab, [TorSpec("tor", TOR_ASN, 1, hold=hold)], ["node1"],
                             NODE_ASN).up()
        self.node_ip = self.bgplab.host("node1").ipv4
        self.tor = self.bgplab.router("tor")
        self.announced: set = set()

    def vips(self, count: int, first: int) -> list:
        return [self.lab.addressing.vip(i) for i in range(first, first + count)]

    def manifests(self, vips: list) -> list:
        h = self.bgplab.host
        objs = [m.node("node1", h("node1").ipv4), m.namespace("bench"),
                m.ip_address_pool("bench-pool", [str(self.lab.addressing.vip_v4)]),
                m.bfd_profile("bench-bfd", 300, 300, 3),
                m.bgp_peer("tor", NODE_ASN, TOR_ASN, h("tor").ipv4, bfd_profile_name="bench-bfd",
                           hold=f"{self.hold}s", keepalive=f"{self.hold // 3}s"),
                m.bgp_advertisement("bench-adv", ["bench-pool"],
                                    communities=["64512:100"] if self.community else [])]
        for i, vip in enumerate(vips):
            name = f"svc-{vip.replace('.', '-')}"
            objs += [m.service(name, "bench", vip, cluster_ip=f"10.96.{i // 250}.{i % 250 + 1}"),
                     m.endpoint_slice(name, "bench", [(f"10.244.{i // 250}.{i % 250 + 1}",
                                                       "node1")])]
        return objs

    def render(self, vips: list, tag: str) -> str:
        path = m.write(self.lab.workdir / f"bench-{tag}.yaml", self.manifests(vips))
        return render_frr_conf(self.ingotctl, "node1", [path])

    def _timed_apply(self, want: set, steady: list) -> tuple:
        """Runs the bounded frr-reload loop on the node's frr.conf while polling the ToR;
        returns (ApplyResult, seconds until the ToR held exactly want, WatchReport)."""
        reached: dict = {}

        def on_sample(routes: dict, now: float) -> None:
            ours = {p for p, hops in routes.items() if hops == (self.node_ip,)}
            if "t" not in reached and ours == want:
                reached["t"] = now

        watcher = RouteWatcher(self.tor.namespace, {f"{v}/32": 1 for v in steady},
                               self.lab.ledger, on_sample)
        start = time.monotonic()
        watcher.start()
        try:
            result = self.bgplab.reloaders["node1"].apply(max_passes=3)
            deadline = time.monotonic() + max(120.0, 2 * (time.monotonic() - start))
            while "t" not in reached and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            report = watcher.stop()
        if "t" not in reached:
            raise LabError(f"the ToR never showed exactly the {len(want)} prefixes")
        return result, reached["t"] - start, report

    def operation(self, vips: list, tag: str, steady: list) -> dict:
        """Applies the config announcing exactly vips and returns its figures."""
        node = self.bgplab.router("node1")
        node.write_config(self.render(vips, tag))
        sessions_before = bgp.query_sessions(self.tor)
        result, tor_s, report = self._timed_apply({f"{v}/32" for v in vips}, steady)
        verify = sum(p.test_seconds for p in result.passes)
        changed = len(set(vips) ^ self.announced)
        self.announced = set(vips)
        return {"op": tag, "changed": changed, "prefixes": len(vips),
                "test_s": round(result.seconds - result.reload_seconds - verify, 3),
                "reload_s": round(result.reload_seconds, 3), "passes": len(result.passes),
                "verify_test_s": round(verify, 3), "apply_total_s": round(result.seconds, 3),
                "tor_s": round(tor_s, 3),
                "steady_gaps": len(report.gaps), "steady_deleted": len(report.deleted_events),
                "session_resets": bgp.session_resets(sessions_before,
                                                     bgp.query_sessions(self.tor)),
                "node_last_reset": [x.last_reset for x in bgp.query_sessions(node).values()],
                "poll_samples": report.samples,
                "exit_codes": [p.returncode for p in result.passes]}

    def run(self, n: int, ops: list) -> list:
        steady = self.vips(self.steady, 0)
        bulk = self.vips(n, self.steady + 1)      # leaves one free VIP below the bulk
        lowest = self.vips(1, self.steady)
        rows = []
        for tag, vips in (("add", steady + bulk), ("one", steady + lowest + bulk),
                          ("withdraw", steady)):
            if tag not in ops:
                continue
            rows.append(dict(self.operation(vips, f"{tag}-{n}", steady), n=n, kind=tag))
        return rows

    def baseline(self) -> None:
        steady = self.vips(self.steady, 0)
        self.bgplab.apply_node("node1", self.render(steady, "baseline"))
        self.bgplab.wait_established("tor", timeout=30)
        for v in steady:
            self.bgplab.wait_paths("tor", f"{v}/32", [self.node_ip], timeout=30)
        self.announced = set(steady)


def summarize(rows: list) -> str:
    lines = ["| N | operation | --test | --reload (passes) | verify --test | ToR sees all | "
             "steady-prefix gaps | session resets |", "|---|---|---|---|---|---|---|---|"]
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["n"], r["kind"]), []).append(r)
    for (n, kind), rs in groups.items():
        med = {k: statistics.median(r[k] for r in rs)
               for k in ("test_s", "reload_s", "verify_test_s", "tor_s")}
        passes = "/".join(str(r["passes"]) for r in rs)
        lines.append(f"| {n} | {kind} ({rs[0]['changed']} changed) | {med['test_s']:.2f} s | "
                     f"{med['reload_s']:.2f} s ({passes}) | {med['verify_test_s']:.2f} s | "
                     f"{med['tor_s']:.2f} s | {sum(r['steady_gaps'] for r in rs)} | "
                     f"{sum(len(r['session_resets']) for r in rs)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefixes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--steady", type=int, default=10,
                        help="Services announced throughout (watched for gaps)")
    parser.add_argument("--no-community", dest="community", action="store_false")
    parser.add_argument("--hold", type=int, default=9,
                        help="BGP hold time in seconds on both sides (keepalive = hold / 3)")
    parser.add_argument("--ops", default="add,one,withdraw",
                        help="comma-separated subset of add,one,withdraw")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--logs", type=Path, help="copy the routers' logs and configs here")
    args = parser.parse_args()
    if any(not 1 <= n <= 1000 for n in args.prefixes) or not 1 <= args.steady <= 10:
        parser.error("--prefixes must be 1..1000 and --steady 1..10 (the slot has 1,024 VIPs)")
    missing = frr_missing()
    ingotctl = find_ingotctl()
    if missing or ingotctl is None:
        print(f"cannot run: {missing or 'no ingotctl with render is built'}", file=sys.stderr)
        return 2
    ops = args.ops.split(",")
    rows = []
    with Lab() as lab:
        try:
            bench = Bench(lab, ingotctl, args.steady, args.community, args.hold)
            bench.baseline()
            print(f"lab {lab.run}: ingotctl {ingotctl}, community={args.community}, "
                  f"hold={args.hold}s", flush=True)
            for _ in range(args.repeat):
                for n in args.prefixes:
                    for row in bench.run(n, ops):
                        print(json.dumps(row), flush=True)
                        rows.append(row)
        finally:
            if args.logs:
                shutil.copytree(lab.workdir, args.logs, dirs_exist_ok=True)
    print(summarize(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
