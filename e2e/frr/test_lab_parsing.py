# SPDX-License-Identifier: Apache-2.0
"""The lab harness's own logic, without root or FRR: parsing frr-reload.py and FRR/iproute2 JSON
(samples captured from FRR 8.4.4 and iproute2 6.1 in the lab), reset and gap detection, the
address plan, the ToR config and the run ledger."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from netlab import bgp, ledger, manifests
from netlab.proc import LabError
from netlab.reload import ApplyResult, ReloadDelta, ReloadPass, parse_test_output
from netlab.topology import Addressing
from netlab.torconf import TorConfig
from netlab.watch import RouteWatcher, kernel_routes, kernel_weights

# frr-reload.py --test output captured in the lab (the community-change step, shortened).
RELOAD_TEST_OUTPUT = """
Lines To Delete
===============
no hostname vm
no route-map 10.99.0.1-out permit 11337

Lines To Add
============
router bgp 64513
 address-family ipv4 unicast
  network 10.99.4.11/32 
ip prefix-list 10.99.0.1-64512:300-ip-community-prefixes seq 1210811288 permit 10.99.4.10/32
route-map 10.99.0.1-out permit 59899
route-map 10.99.0.1-out permit 59899
 set community 64512:300 additive
no ip prefix-list 10.99.0.1-64512:100-ip-community-prefixes seq 1210811288 permit 10.99.4.10/32
"""


def test_frr_reload_test_output_is_split_into_commands_with_their_contexts():
    cases = [
        SimpleNamespace(desc="no output means no change", text="", deletes=(), adds=(),
                        empty=True),
        SimpleNamespace(desc="only the hostname line is noise",
                        text="\nLines To Delete\n===============\nno hostname vm\n",
                        deletes=(("no hostname vm",),), adds=(), empty=True),
        SimpleNamespace(desc="a neighbor line inside router bgp",
                        text="\nLines To Add\n============\nrouter bgp 64513\n neighbor 10.99.0.1 "
                             "bfd profile fast\n",
                        deletes=(), adds=(("router bgp 64513", "neighbor 10.99.0.1 bfd profile "
                                           "fast"),), empty=False),
        SimpleNamespace(desc="both sections, nested contexts and single-line commands",
                        text=RELOAD_TEST_OUTPUT,
                        deletes=(("no hostname vm",), ("no route-map 10.99.0.1-out permit 11337",)),
                        adds=(("router bgp 64513", "address-family ipv4 unicast",
                               "network 10.99.4.11/32"),
                              ("ip prefix-list 10.99.0.1-64512:300-ip-community-prefixes seq "
                               "1210811288 permit 10.99.4.10/32",),
                              ("route-map 10.99.0.1-out permit 59899",),
                              ("route-map 10.99.0.1-out permit 59899",
                               "set community 64512:300 additive"),
                              ("no ip prefix-list 10.99.0.1-64512:100-ip-community-prefixes seq "
                               "1210811288 permit 10.99.4.10/32",)),
                        empty=False),
        SimpleNamespace(desc="a hostname among real changes does not hide them",
                        text="\nLines To Delete\n===============\nno hostname vm\nno ip "
                             "prefix-list x seq 5 permit 10.0.0.1/32\n",
                        deletes=(("no hostname vm",),
                                 ("no ip prefix-list x seq 5 permit 10.0.0.1/32",)),
                        adds=(), empty=False),
    ]
    for c in cases:
        delta = parse_test_output(c.text)
        assert (delta.deletes, delta.adds, delta.empty) == (c.deletes, c.adds, c.empty), c.desc


def test_apply_result_is_converged_only_when_the_last_delta_is_empty():
    change = ReloadDelta(adds=(("ip prefix-list x seq 5 permit 10.0.0.1/32",),))
    noise = ReloadDelta(deletes=(("no hostname vm",),))
    cases = [
        ("nothing to do", ApplyResult(initial=noise), True),
        ("one pass that empties the delta",
         ApplyResult(initial=change, passes=[ReloadPass(0, 1.0, 1.0, "", noise)]), True),
        ("exit 1 but applied (graceful-restart) still converges",
         ApplyResult(initial=change, passes=[ReloadPass(1, 1.0, 1.0, "", noise)]), True),
        ("a delta left after the last pass",
         ApplyResult(initial=change, passes=[ReloadPass(0, 1.0, 1.0, "", change)] * 3), False),
    ]
    for desc, result, converged in cases:
        assert result.converged == converged, desc


def test_kernel_routes_map_prefixes_to_their_gateways():
    sample = json.loads(
        '[{"dst":"10.99.0.0/24","dev":"eth0","protocol":"kernel","scope":"link"},'
        '{"dst":"10.99.4.10","nhid":11,"protocol":"bgp","metric":20,"flags":[],"nexthops":['
        '{"gateway":"10.99.0.12","dev":"eth0","weight":1,"flags":[]},'
        '{"gateway":"10.99.0.11","dev":"eth0","weight":1,"flags":[]}]},'
        '{"dst":"10.99.4.11","nhid":7,"gateway":"10.99.0.11","dev":"eth0","protocol":"bgp"},'
        '{"dst":"default","gateway":"10.99.0.254","dev":"eth0"},'
        '{"dst":"fd99:0:1::5","gateway":"fd99::b","dev":"eth0"}]')
    assert kernel_routes(sample) == {
        "10.99.0.0/24": (),
        "10.99.4.10/32": ("10.99.0.11", "10.99.0.12"),
        "10.99.4.11/32": ("10.99.0.11",),
        "fd99:0:1::5/128": ("fd99::b",),
    }


def test_kernel_weights_map_prefixes_to_their_next_hops_weights():
    sample = json.loads(
        '[{"dst":"10.99.0.0/24","dev":"eth0","protocol":"kernel","scope":"link"},'
        '{"dst":"10.99.4.29","nhid":11,"protocol":"bgp","metric":20,"flags":[],"nexthops":['
        '{"gateway":"10.99.0.12","dev":"eth0","weight":25,"flags":[]},'
        '{"gateway":"10.99.0.11","dev":"eth0","weight":75,"flags":[]}]},'
        '{"dst":"10.99.4.11","nhid":7,"gateway":"10.99.0.11","dev":"eth0","protocol":"bgp"}]')
    assert kernel_weights(sample) == {
        "10.99.0.0/24": {},
        "10.99.4.29/32": {"10.99.0.11": 75, "10.99.0.12": 25},
        "10.99.4.11/32": {"10.99.0.11": 1},
    }


def _session(**kw):
    base = dict(peer="10.99.0.11", state="Established", established=1, dropped=0, up_msec=10000,
                up_epoch=1000, last_reset="")
    base.update(kw)
    return bgp.Session(**base)


def test_session_resets_are_found_from_counters_state_and_uptime():
    before = {"10.99.0.11": _session()}
    cases = [
        ("the same session, older", {"10.99.0.11": _session(up_msec=16000, up_epoch=1001)}, 0),
        ("a new connection", {"10.99.0.11": _session(established=2, dropped=1)}, 1),
        ("not established any more", {"10.99.0.11": _session(state="Active")}, 1),
        ("the peer disappeared", {}, 1),
        ("up since a later time", {"10.99.0.11": _session(up_epoch=1005, up_msec=1000)}, 1),
        ("uptime went backwards", {"10.99.0.11": _session(up_msec=5000)}, 1),
    ]
    for desc, after, problems in cases:
        assert len(bgp.session_resets(before, after)) == problems, desc


def test_sessions_are_read_from_show_bgp_neighbors_json():
    sample = {"10.99.0.11": {"bgpState": "Established", "connectionsEstablished": 2,
                             "connectionsDropped": 1, "bgpTimerUpMsec": 4000,
                             "bgpTimerUpEstablishedEpoch": 1796083979,
                             "lastResetDueTo": "No AFI/SAFI activated for peer"}}
    assert bgp.sessions(sample) == {"10.99.0.11": bgp.Session(
        "10.99.0.11", "Established", 2, 1, 4000, 1796083979, "No AFI/SAFI activated for peer")}


def test_bfd_flaps_compare_up_and_down_counters():
    before = bgp.bfd_peers([{"peer": "10.99.0.11", "session-up": 1, "session-down": 0}])
    cases = [
        ("unchanged", [{"peer": "10.99.0.11", "session-up": 1, "session-down": 0}], 0),
        ("went down and up", [{"peer": "10.99.0.11", "session-up": 2, "session-down": 1}], 2),
        ("gone", [], 2),
    ]
    for desc, after, problems in cases:
        assert len(bgp.bfd_flaps(before, bgp.bfd_peers(after))) == problems, desc


def test_fib_next_hops_count_only_installed_active_ones():
    def route(installed, hops):
        return {"10.99.4.10/32": [{"installed": installed, "nexthops": [
            {"ip": ip, "active": active} for ip, active in hops]}]}
    cases = [
        ("ECMP", route(True, [("10.99.0.12", True), ("10.99.0.11", True)]),
         ["10.99.0.11", "10.99.0.12"]),
        ("an inactive next hop", route(True, [("10.99.0.11", True), ("10.99.0.12", False)]),
         ["10.99.0.11"]),
        ("not installed", route(False, [("10.99.0.11", True)]), []),
        ("no route", {}, []),
    ]
    for desc, sample, want in cases:
        assert bgp.fib_nexthops(sample, "10.99.4.10/32") == want, desc


def test_bgp_paths_carry_local_pref_and_communities():
    sample = {"prefix": "10.99.4.10/32", "paths": [
        {"aspath": {"string": "Local"}, "locPrf": 150, "multipath": True,
         "community": {"list": ["64512:100"]}, "largeCommunity": {"list": ["64512:7:1"]},
         "nexthops": [{"ip": "10.99.0.12"}], "peer": {"peerId": "10.99.0.12"}},
        {"aspath": {"string": "Local"}, "locPrf": 150, "multipath": True,
         "bestpath": {"overall": True}, "community": {"list": ["64512:100"]},
         "nexthops": [{"ip": "10.99.0.11"}], "peer": {"peerId": "10.99.0.11"}}]}
    paths = bgp.bgp_paths(sample)
    assert [p.peer for p in paths] == ["10.99.0.11", "10.99.0.12"]
    assert paths[0] == bgp.BgpPath("10.99.0.11", "10.99.0.11", True, True, 150, ("64512:100",),
                                   (), "Local")
    assert paths[1].large_communities == ("64512:7:1",) and not paths[1].best


def test_route_watcher_records_each_interval_a_prefix_was_short_of_next_hops():
    two = {"10.99.4.10/32": ("a", "b")}
    one = {"10.99.4.10/32": ("a",)}
    cases = [
        ("always two next hops", [two, two, two], []),
        ("one hop for two samples", [two, one, one, two], [(1.0, 3.0, 1)]),
        ("missing, then back, then short again", [two, {}, two, one], [(1.0, 2.0, 0),
                                                                      (3.0, None, 1)]),
        ("the worst moment of a gap is kept", [one, {}, one, two], [(0.0, 3.0, 0)]),
    ]
    for desc, samples, want in cases:
        watcher = RouteWatcher("unused", {"10.99.4.10/32": 2})
        for t, routes in enumerate(samples):
            watcher._observe(routes, float(t))
        got = [(g.start, g.end, g.fewest_hops) for g in watcher.report.gaps]
        assert got == want, desc


def test_each_slot_has_its_own_address_blocks():
    blocks = []
    for slot in range(ledger.MAX_SLOTS):
        a = Addressing(slot)
        blocks += [a.link_v4, a.vip_v4, a.link_v6, a.vip_v6]
        assert a.host_v4(1) in [str(h) for h in a.link_v4.hosts()]
        assert a.vip(1023) == str(a.vip_v4.broadcast_address)
    for i, x in enumerate(blocks):
        assert all(not x.overlaps(y) for y in blocks[i + 1:] if x.version == y.version), x
    assert Addressing(0).link_v4.subnet_of(ipaddress.ip_network("10.99.0.0/16"))


def test_out_of_range_addressing_is_refused_with_the_value():
    cases = [("slot -1", lambda: Addressing(-1)), ("slot 32", lambda: Addressing(32)),
             ("octet 0", lambda: Addressing(0).host_v4(0)),
             ("octet 255", lambda: Addressing(0).host_v4(255)),
             ("VIP 1024", lambda: Addressing(0).vip(1024))]
    for desc, call in cases:
        with pytest.raises(LabError):
            call()


def test_tor_config_peers_with_every_node_and_accepts_their_routes():
    text = TorConfig(64512, "10.99.0.1", 64513, ["10.99.0.11", "10.99.0.12"]).render()
    for line in ("router bgp 64512", " neighbor NODES remote-as 64513", " neighbor NODES bfd",
                 " neighbor 10.99.0.11 peer-group NODES", " neighbor 10.99.0.12 peer-group NODES",
                 " no bgp ebgp-requires-policy", "bgp route-map delay-timer 0",
                 "  neighbor NODES route-map RFC8326 in",
                 "bgp community-list standard GSHUT permit 65535:0", " match community GSHUT",
                 " set local-preference 0"):
        assert line in text.splitlines(), line
    assert " neighbor NODES bfd" not in TorConfig(1, "10.99.0.1", 2, ["x"], bfd=False).render()
    for bad in (TorConfig(0, "r", 1, ["x"]), TorConfig(1, "r", 2**32, ["x"]),
                TorConfig(1, "r", 2, [])):
        with pytest.raises(LabError):
            bad.render()


def test_tor_config_with_fast_bfd_and_ecmp_names_its_profile_and_paths():
    lines = TorConfig(64513, "10.99.0.2", 64513, ["10.99.0.11"], bfd_interval_ms=100,
                      bgp_multipath=8).render().splitlines()
    for line in ("bfd", " profile tor", "  receive-interval 100", "  transmit-interval 100",
                 "  detect-multiplier 3", " neighbor NODES bfd profile tor",
                 "  maximum-paths 8", "  maximum-paths ibgp 8"):
        assert line in lines, line
    plain = TorConfig(64512, "10.99.0.1", 64513, ["10.99.0.11"]).render()
    assert "profile tor" not in plain and "maximum-paths" not in plain


def test_manifests_are_one_json_document_each():
    objs = [manifests.node("node1", "10.99.0.11"), manifests.ip_address_pool("p", ["10.99.4.0/22"])]
    docs = [d for d in manifests.to_yaml(objs).split("---\n") if d.strip()]
    assert [json.loads(d) for d in docs] == [json.loads(json.dumps(o)) for o in objs]


@pytest.fixture
def ledger_root(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger, "LEDGER_ROOT", tmp_path / "runs")
    return tmp_path / "runs"


def test_ledgers_get_distinct_runs_and_slots_and_release_removes_their_files(ledger_root,
                                                                            tmp_path):
    a, b = ledger.create_ledger(), ledger.create_ledger()
    assert a.run != b.run and a.slot != b.slot
    work = tmp_path / "work"
    work.mkdir()
    a.add_directory(str(work))
    assert ledger.release(a) == []
    assert not work.exists() and not a.path.exists() and b.path.exists()
    assert [x.run for x in ledger.all_ledgers()] == [b.run]


def test_cleanup_releases_only_runs_whose_owner_died(ledger_root):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive, orphan = ledger.create_ledger(), ledger.create_ledger()
    orphan.owner_pid = dead.pid
    orphan.save()
    released = ledger.cleanup_stale()
    assert released == [(orphan.run, [])]
    assert [x.run for x in ledger.all_ledgers()] == [alive.run]


def test_release_kills_a_recorded_process_only_while_it_is_the_same_program(ledger_root):
    victim = subprocess.Popen(["sleep", "30"])
    other = subprocess.Popen(["sleep", "30"])
    try:
        run = ledger.create_ledger()
        run.add_process(victim.pid, "none", "/bin/sleep")
        run.add_process(other.pid, "none", "/usr/lib/frr/zebra")  # a reused PID: not ours
        assert ledger.release(run) == []
        assert victim.wait(timeout=5) is not None
        assert other.poll() is None
    finally:
        for p in (victim, other):
            if p.poll() is None:
                p.kill()
                p.wait()


def test_the_slots_run_out_with_a_message_naming_the_cleanup(ledger_root, monkeypatch):
    monkeypatch.setattr(ledger, "MAX_SLOTS", 2)
    ledger.create_ledger(), ledger.create_ledger()
    with pytest.raises(LabError, match="cleanup"):
        ledger.create_ledger()
    assert os.path.isdir(ledger_root)
