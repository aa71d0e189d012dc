# SPDX-License-Identifier: Apache-2.0
"""Issue 5, live: Ingot's rendered frr.conf drives real FRR 8.4 in network namespaces.

Topology (one lab run, addresses from its slot, see lab/topology.py):

    tor   AS 64512  eBGP to both nodes, BFD      ┐
    tori  AS 64513  iBGP to both nodes, BFD      ├─ one bridge
    node1, node2  AS 64513, FRR configured only  ┘
                  from `ingotctl render --node N --format frr.conf` through frr-reload.py

Manifests: a pool, a BFDProfile with non-default timers, a BGPPeer per ToR using it, a
Community alias, a BGPAdvertisement with a community, a large community and localPref, and a
Service whose status holds a VIP with endpoints on both nodes. Then two changes, each
re-rendered and reloaded while the ToRs' kernel routes are watched: a second Service (with a
second advertisement selecting it), and a changed community on the first advertisement.

The module's tests share one lab and run in file order: the first ones check the initial state,
test_change_* apply the changes in sequence (fixtures change_service and change_community).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest

from netlab import bgp, manifests as m
from netlab.bgplab import BgpLab, TorSpec
from netlab.ingotctl import render_frr_conf
from netlab.proc import wait_until
from netlab.watch import RouteWatcher, read_kernel_routes

TOR_ASN, NODE_ASN = 64512, 64513
BFD_RX, BFD_TX, BFD_MULT = 200, 250, 4
COMMUNITY, COMMUNITY_API, COMMUNITY_CHANGED = "64512:100", "64512:200", "64512:300"
LARGE = "64512:7:1"
LOCAL_PREF = 150
NODES = ("node1", "node2")


@dataclass
class Scenario:
    """The manifests of each step, built from the run's addresses."""
    bgplab: BgpLab
    vip_web: str = ""
    vip_api: str = ""
    applied: dict = field(default_factory=dict)  # step → {node: ApplyResult}

    def objects(self, with_api: bool, community: str) -> list:
        a, h = self.bgplab.lab.addressing, self.bgplab.host
        objs = [m.node(n, h(n).ipv4) for n in NODES]
        objs += [m.namespace("web"),
                 m.ip_address_pool("lab-pool", [str(a.vip_v4)]),
                 m.bfd_profile("lab-bfd", BFD_RX, BFD_TX, BFD_MULT),
                 m.bgp_peer("tor", NODE_ASN, TOR_ASN, h("tor").ipv4, bfd_profile_name="lab-bfd"),
                 m.bgp_peer("tori", NODE_ASN, NODE_ASN, h("tori").ipv4,
                            bfd_profile_name="lab-bfd"),
                 m.community_aliases("lab-communities", {"vip-routes": community}),
                 m.bgp_advertisement("lab-adv", ["lab-pool"],
                                     communities=["vip-routes", f"large:{LARGE}"],
                                     local_pref=LOCAL_PREF),
                 m.service("web", "web", self.vip_web, cluster_ip="10.96.0.10"),
                 m.endpoint_slice("web", "web", [("10.244.1.5", "node1"),
                                                 ("10.244.2.5", "node2")])]
        if with_api:
            objs += [m.bgp_advertisement("api-adv", ["lab-pool"], communities=[COMMUNITY_API],
                                         local_pref=LOCAL_PREF, service_selector={"tier": "api"}),
                     m.service("api", "web", self.vip_api, cluster_ip="10.96.0.11",
                               labels={"tier": "api"}),
                     m.endpoint_slice("api", "web", [("10.244.1.6", "node1"),
                                                     ("10.244.2.6", "node2")])]
        return objs

    def apply(self, ingotctl, step: str, with_api: bool, community: str) -> dict:
        """Writes the step's manifests, renders each node's frr.conf with ingotctl and applies
        it with frr-reload.py on both nodes at once (as two agents would)."""
        path = m.write(self.bgplab.lab.workdir / f"manifests-{step}.yaml",
                       self.objects(with_api, community))
        confs = {n: render_frr_conf(ingotctl, n, [path]) for n in NODES}
        with ThreadPoolExecutor(len(NODES)) as pool:
            futures = {n: pool.submit(self.bgplab.apply_node, n, confs[n]) for n in NODES}
            self.applied[step] = {n: f.result() for n, f in futures.items()}
        return self.applied[step]


@pytest.fixture(scope="module")
def scenario(ingotctl, lab_run) -> Scenario:
    bgplab = BgpLab(lab_run, [TorSpec("tor", TOR_ASN, 1), TorSpec("tori", NODE_ASN, 2)], NODES,
                    NODE_ASN).up()
    sc = Scenario(bgplab, vip_web=lab_run.addressing.vip(10), vip_api=lab_run.addressing.vip(11))
    sc.apply(ingotctl, "initial", with_api=False, community=COMMUNITY)
    nodes = bgplab.node_addresses()
    for tor in ("tor", "tori"):
        bgplab.wait_established(tor, timeout=30)
        bgplab.wait_bfd_up(tor, timeout=30)
        bgplab.wait_paths(tor, f"{sc.vip_web}/32", nodes, timeout=30)
    return sc


def paths_at(sc: Scenario, tor: str, vip: str) -> list:
    return bgp.query_paths(sc.bgplab.router(tor), f"{vip}/32")


# The initial configuration ----------------------------------------------------------------


def test_node_frr_configs_are_applied_by_frr_reload_until_no_delta_remains(scenario):
    for node, result in scenario.applied["initial"].items():
        assert result.converged, f"{node}: {result.describe()}"
        assert 1 <= len(result.passes) <= 2, f"{node}: {result.describe()}"
        running = scenario.bgplab.router(node).running_config()
        assert f"network {scenario.vip_web}/32" in running
        assert "bfd profile lab-bfd" in running


def test_the_vip_has_two_ecmp_next_hops_at_the_tor(scenario):
    nodes = sorted(scenario.bgplab.node_addresses())
    vip = f"{scenario.vip_web}/32"
    tor = scenario.bgplab.router("tor")
    assert bgp.query_fib_nexthops(tor, vip) == nodes
    assert read_kernel_routes(tor.namespace).get(vip) == tuple(nodes)
    paths = paths_at(scenario, "tor", scenario.vip_web)
    assert [p.peer for p in paths] == nodes
    assert all(p.as_path == str(NODE_ASN) for p in paths)
    assert sum(p.best for p in paths) == 1 and all(p.best or p.multipath for p in paths)


def test_bfd_is_up_with_the_profile_timers_on_both_sides(scenario):
    for tor in ("tor", "tori"):
        peers = bgp.query_bfd(scenario.bgplab.router(tor))
        for node in scenario.bgplab.node_addresses():
            p = peers[node]
            assert p["status"] == "up", f"{tor} → {node}: {p}"
            # What the node's BFD advertises, as the ToR received it.
            assert (p["remote-receive-interval"], p["remote-transmit-interval"],
                    p["remote-detect-multiplier"]) == (BFD_RX, BFD_TX, BFD_MULT), f"{tor}: {p}"
    for node in NODES:
        peers = bgp.query_bfd(scenario.bgplab.router(node))
        assert len(peers) == 2
        for p in peers.values():
            assert p["status"] == "up"
            assert (p["receive-interval"], p["transmit-interval"], p["detect-multiplier"]) == (
                BFD_RX, BFD_TX, BFD_MULT), f"{node}: {p}"


def test_the_communities_reach_the_ebgp_tor(scenario):
    for p in paths_at(scenario, "tor", scenario.vip_web):
        assert p.communities == (COMMUNITY,), p
        assert p.large_communities == (LARGE,), p
        # LOCAL_PREF is not sent over eBGP.
        assert p.local_pref in (None, 100), p


def test_local_pref_and_communities_reach_the_ibgp_tor(scenario):
    nodes = sorted(scenario.bgplab.node_addresses())
    paths = paths_at(scenario, "tori", scenario.vip_web)
    assert [p.peer for p in paths] == nodes
    for p in paths:
        assert p.local_pref == LOCAL_PREF, p
        assert p.communities == (COMMUNITY,) and p.large_communities == (LARGE,), p
    assert bgp.query_fib_nexthops(scenario.bgplab.router("tori"), f"{scenario.vip_web}/32") == nodes


# Changes: re-rendered, reloaded, watched ---------------------------------------------------


@dataclass
class Change:
    sessions_before: dict
    sessions_after: dict
    bfd_before: dict
    bfd_after: dict
    watch: dict  # tor → WatchReport


def _wait_attributes(sc: Scenario, vip: str, communities: tuple, timeout: float = 15.0):
    for tor in sc.bgplab.tor_roles:
        wait_until(f"{tor}: {vip} with communities {communities}",
                   lambda: (ps := paths_at(sc, tor, vip)) and len(ps) == 2
                   and all(tuple(sorted(p.communities)) == communities for p in ps),
                   timeout, interval=0.1)


def _observed_change(sc: Scenario, ingotctl, step: str, with_api: bool, community: str,
                     watched: list, expected: dict) -> Change:
    """Applies a step while both ToRs' kernel routes for the `watched` VIPs are polled, and
    keeps polling until every VIP in `expected` (VIP → communities) has two next hops and those
    communities at both ToRs."""
    routers = {t: sc.bgplab.router(t) for t in sc.bgplab.tor_roles}
    sessions_before = {t: bgp.query_sessions(r) for t, r in routers.items()}
    bfd_before = {t: bgp.query_bfd_counters(r) for t, r in routers.items()}
    watchers = {t: RouteWatcher(r.namespace, {f"{v}/32": 2 for v in watched},
                                sc.bgplab.lab.ledger).start() for t, r in routers.items()}
    try:
        sc.apply(ingotctl, step, with_api, community)
        nodes = sc.bgplab.node_addresses()
        for vip, communities in expected.items():
            for tor in routers:
                sc.bgplab.wait_paths(tor, f"{vip}/32", nodes, timeout=20)
            _wait_attributes(sc, vip, tuple(sorted(communities)))
    finally:
        reports = {t: w.stop() for t, w in watchers.items()}
    return Change(sessions_before, {t: bgp.query_sessions(r) for t, r in routers.items()},
                  bfd_before, {t: bgp.query_bfd_counters(r) for t, r in routers.items()},
                  reports)


@pytest.fixture(scope="module")
def change_service(scenario, ingotctl) -> Change:
    return _observed_change(scenario, ingotctl, "add-service", True, COMMUNITY,
                            watched=[scenario.vip_web],
                            expected={scenario.vip_api: (COMMUNITY, COMMUNITY_API),
                                      scenario.vip_web: (COMMUNITY,)})


@pytest.fixture(scope="module")
def change_community(change_service, scenario, ingotctl) -> Change:
    return _observed_change(scenario, ingotctl, "change-community", True, COMMUNITY_CHANGED,
                            watched=[scenario.vip_web, scenario.vip_api],
                            expected={scenario.vip_web: (COMMUNITY_CHANGED,),
                                      scenario.vip_api: (COMMUNITY_API, COMMUNITY_CHANGED)})


def _assert_no_disruption(change: Change) -> None:
    for tor, before in change.sessions_before.items():
        assert bgp.session_resets(before, change.sessions_after[tor]) == [], tor
        assert bgp.bfd_flaps(change.bfd_before[tor], change.bfd_after[tor]) == [], tor
        report = change.watch[tor]
        assert report.samples >= 20 and report.max_interval < 0.5, report.describe()
        assert report.errors == [], report.describe()
        assert report.gaps == [] and report.deleted_events == [], report.describe()


def test_change_adding_a_service_reaches_the_tors_without_reset_or_gap(change_service, scenario):
    for result in scenario.applied["add-service"].values():
        assert result.converged, result.describe()
    _assert_no_disruption(change_service)
    for p in paths_at(scenario, "tori", scenario.vip_api):
        assert p.local_pref == LOCAL_PREF and p.large_communities == (LARGE,), p


def test_change_of_a_community_reaches_the_tors_without_reset_or_gap(change_community, scenario):
    for result in scenario.applied["change-community"].values():
        assert result.converged, result.describe()
        # Only the alias value changed: the reload touches community lines, not sessions.
        touched = result.initial.deletes + result.initial.adds
        assert not any("remote-as" in " ".join(c) for c in touched), result.describe()
    _assert_no_disruption(change_community)


def test_the_detectors_see_a_hard_session_clear_as_reset_and_gap(change_community, scenario):
    """The checks above can fail: a hard clear of node1's session to the eBGP ToR shows up as a
    reset of exactly that session and a gap in the VIP's next hops. (Last: it disturbs the lab.)"""
    tor, node1 = scenario.bgplab.router("tor"), scenario.bgplab.router("node1")
    vip = f"{scenario.vip_web}/32"
    before = bgp.query_sessions(tor)
    with RouteWatcher(tor.namespace, {vip: 2}, scenario.bgplab.lab.ledger) as watcher:
        node1.vtysh(f"clear bgp {scenario.bgplab.host('tor').ipv4}")
        wait_until("the gap", lambda: watcher.report.gaps, 10)
    resets = bgp.session_resets(before, bgp.query_sessions(tor))
    assert [r.split(":")[0] for r in resets] == [scenario.bgplab.host("node1").ipv4], resets
    assert watcher.report.gaps[0].prefix == vip and watcher.report.gaps[0].fewest_hops <= 1
