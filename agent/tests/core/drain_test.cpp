// SPDX-License-Identifier: Apache-2.0
// The drain state machine (triggers, phases over time), the BGP graceful-shutdown rewrite of a
// decision, and the Layer 2 membership of draining nodes.
#include "agent/core/drain.h"

#include <boost/test/unit_test.hpp>

#include "agent/core/election.h"

namespace ingot::agent {
namespace {

api::Node node(const std::string& name = "n1") {
  api::Node n;
  n.metadata.name = name;
  n.conditions = {{"Ready", "True", "KubeletReady", "kubelet is posting ready status"}};
  return n;
}

api::Node cordoned() {
  api::Node n = node();
  n.unschedulable = true;
  return n;
}

api::Node tainted(const std::string& key) {
  api::Node n = node();
  n.taints = {{key, "", "NoSchedule"}};
  return n;
}

api::Node shuttingDown() {
  api::Node n = node();
  n.conditions = {{"Ready", "False", "KubeletNotReady", "node is shutting down"}};
  return n;
}

api::Node excluded() {
  api::Node n = cordoned();
  n.metadata.labels = {{std::string(kExcludeBalancersLabel), ""}};
  return n;
}

DrainOptions all() {
  DrainOptions o;
  o.triggers = {DrainTrigger::Cordon, DrainTrigger::Taint, DrainTrigger::KubeletShutdown,
                DrainTrigger::Sigterm};
  o.taint_key = "example.com/maintenance";
  o.delay_ms = 10'000;
  return o;
}

DrainOptions only(std::set<DrainTrigger> t) {
  DrainOptions o = all();
  o.triggers = std::move(t);
  return o;
}

struct StepCase {
  std::string desc;
  DrainState prev;
  api::Node node;
  bool sigterm;
  DrainOptions options;
  int64_t now;
  DrainState want;
};

const DrainState kServing{};
DrainState graceful(DrainReason r, int64_t since, int64_t end) {
  return {DrainPhase::GracefulShutdown, r, since, end};
}
DrainState withdrawn(DrainReason r, std::optional<int64_t> since) {
  return {DrainPhase::Withdrawn, r, since, std::nullopt};
}

const std::vector<StepCase>& stepCases() {
  using R = DrainReason;
  static const std::vector<StepCase> kCases = {
      {"schedulable_node_serves", kServing, node(), false, all(), 100, kServing},
      {"cordon_starts_graceful_shutdown", kServing, cordoned(), false, all(), 100,
       graceful(R::Cordoned, 100, 10'100)},
      {"unschedulable_taint_counts_as_cordon", kServing, tainted(std::string(kUnschedulableTaint)),
       false, all(), 100, graceful(R::Cordoned, 100, 10'100)},
      {"configured_taint_drains", kServing, tainted("example.com/maintenance"), false, all(), 5,
       graceful(R::Tainted, 5, 10'005)},
      {"other_taint_does_not_drain", kServing, tainted("example.com/other"), false, all(), 5,
       kServing},
      {"taint_trigger_without_key_never_fires", kServing, tainted("example.com/maintenance"), false,
       [] {
         DrainOptions o = all();
         o.taint_key.clear();
         return o;
       }(),
       5, kServing},
      {"kubelet_shutdown_drains", kServing, shuttingDown(), false, all(), 7,
       graceful(R::KubeletShutdown, 7, 10'007)},
      {"not_ready_for_another_cause_does_not_drain", kServing,
       [] {
         api::Node n = node();
         n.conditions[0].status = "False";
         n.conditions[0].message = "container runtime is down";
         return n;
       }(),
       false, all(), 7, kServing},
      {"drain_under_way_keeps_its_start", graceful(R::Cordoned, 100, 10'100), cordoned(), false,
       all(), 9'000, graceful(R::Cordoned, 100, 10'100)},
      {"withdrawn_once_the_delay_passed", graceful(R::Cordoned, 100, 10'100), cordoned(), false,
       all(), 10'100, withdrawn(R::Cordoned, 100)},
      {"zero_delay_withdraws_at_once", kServing, cordoned(), false,
       [] {
         DrainOptions o = all();
         o.delay_ms = 0;
         return o;
       }(),
       50, withdrawn(R::Cordoned, 50)},
      {"uncordon_serves_again", withdrawn(R::Cordoned, 100), node(), false, all(), 20'000,
       kServing},
      {"uncordon_during_graceful_shutdown_serves", graceful(R::Cordoned, 100, 10'100), node(),
       false, all(), 200, kServing},
      {"off_by_default", kServing, cordoned(), false, DrainOptions{}, 100, kServing},
      {"cordon_trigger_off", kServing, cordoned(), false, only({DrainTrigger::Taint}), 100,
       kServing},
      {"sigterm_while_cordoned", kServing, cordoned(), true, only({DrainTrigger::Sigterm}), 3,
       graceful(R::SigtermWhileCordoned, 3, 10'003)},
      {"sigterm_while_schedulable_is_no_drain", kServing, node(), true, all(), 3, kServing},
      {"sigterm_trigger_off", kServing, cordoned(), true, only({DrainTrigger::Taint}), 3, kServing},
      {"exclude_label_withdraws_at_once", kServing, excluded(), false, all(), 3,
       withdrawn(R::ExcludeLabel, std::nullopt)},
      {"exclude_label_without_drain_awareness", kServing, excluded(), false, DrainOptions{}, 3,
       withdrawn(R::ExcludeLabel, std::nullopt)},
      {"exclude_label_removed_while_cordoned_starts_a_drain",
       withdrawn(R::ExcludeLabel, std::nullopt), cordoned(), false, all(), 40,
       graceful(R::Cordoned, 40, 10'040)},
  };
  return kCases;
}

BOOST_AUTO_TEST_SUITE(drain)

BOOST_AUTO_TEST_CASE(state_machine_steps) {
  for (const auto& c : stepCases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      DrainInputs in{&c.node, c.sigterm, false, c.now};
      const DrainState got = nextDrainState(c.prev, in, c.options);
      BOOST_TEST(drainPhaseName(got.phase) == drainPhaseName(c.want.phase));
      BOOST_TEST(drainReasonName(got.reason) == drainReasonName(c.want.reason));
      BOOST_TEST(got.since_ms.value_or(-1) == c.want.since_ms.value_or(-1));
      BOOST_TEST(got.next_change_ms.value_or(-1) == c.want.next_change_ms.value_or(-1));
    }
  }
}

BOOST_AUTO_TEST_CASE(ignored_exclude_label_leaves_the_cordon_decide) {
  const api::Node n = excluded();
  const DrainState got = nextDrainState(kServing, {&n, false, true, 0}, all());
  BOOST_TEST(drainReasonName(got.reason) == "cordoned");
  BOOST_TEST(drainPhaseName(got.phase) == "gracefulShutdown");
}

BOOST_AUTO_TEST_CASE(unseen_node_serves) {
  const DrainState got = nextDrainState(kServing, {nullptr, true, false, 0}, all());
  BOOST_TEST(drainPhaseName(got.phase) == "serving");
}

BOOST_AUTO_TEST_CASE(triggers_parse) {
  auto t = parseDrainTriggers("cordon,shutdown");
  BOOST_REQUIRE(t.has_value());
  BOOST_TEST((*t == std::set<DrainTrigger>{DrainTrigger::Cordon, DrainTrigger::KubeletShutdown}));
  BOOST_TEST(parseDrainTriggers("")->empty());
  auto bad = parseDrainTriggers("cordon,reboot");
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message ==
             "unknown drain trigger \"reboot\" (expected cordon, taint, shutdown or sigterm)");
}

config::Config bgpConfig() {
  config::Config cfg;
  config::Peer ext;
  ext.name = "tor";
  ext.my_asn = 64512;
  ext.peer_asn = 64500;
  config::Peer in = ext;
  in.name = "rr";
  in.peer_asn = 64512;
  config::Peer dyn = ext;
  dyn.name = "dyn";
  dyn.peer_asn = 0;
  dyn.dynamic_asn = config::DynamicAsn::Internal;
  config::Peer local = ext;
  local.name = "local";
  local.local_asn = 64500;
  cfg.peers = {{"tor", ext}, {"rr", in}, {"dyn", dyn}, {"local", local}};
  return cfg;
}

BgpDecision announced(std::vector<std::string> peers) {
  BgpDecision d;
  Announcement a;
  a.prefix = *net::Cidr::parse("192.0.2.10/32");
  a.local_pref = 0;
  a.communities = {{false, 64512, 7, 0}, {false, 65535, 65281, 0}};
  a.peers = std::move(peers);
  d.announcements = {a};
  d.peers = a.peers;
  return d;
}

BOOST_AUTO_TEST_CASE(ibgp_sessions) {
  const auto cfg = bgpConfig();
  BOOST_TEST(!peerIsIbgp(cfg.peers.at("tor")));
  BOOST_TEST(peerIsIbgp(cfg.peers.at("rr")));
  BOOST_TEST(peerIsIbgp(cfg.peers.at("dyn")));
  BOOST_TEST(peerIsIbgp(cfg.peers.at("local")));  // localASN 64500 = peer ASN
}

struct BgpCase {
  std::string desc;
  DrainPhase phase;
  std::vector<std::string> peers;
  /// want: per resulting announcement, its peers and LOCAL_PREF; gshut: the community is added.
  std::vector<std::pair<std::vector<std::string>, uint32_t>> want;
  bool gshut;
  std::string skip;
};

BOOST_AUTO_TEST_CASE(bgp_decision_per_phase) {
  const std::vector<BgpCase> cases = {
      {"serving_is_unchanged", DrainPhase::Serving, {"tor"}, {{{"tor"}, 0}}, false, ""},
      {"ebgp_gets_the_community_only",
       DrainPhase::GracefulShutdown,
       {"tor"},
       {{{"tor"}, 0}},
       true,
       ""},
      {"ibgp_also_gets_the_lowest_local_pref",
       DrainPhase::GracefulShutdown,
       {"rr"},
       {{{"rr"}, kGracefulShutdownLocalPref}},
       true,
       ""},
      {"mixed_peers_are_split",
       DrainPhase::GracefulShutdown,
       {"dyn", "rr", "tor"},
       {{{"tor"}, 0}, {{"dyn", "rr"}, kGracefulShutdownLocalPref}},
       true,
       ""},
      {"withdrawn_announces_nothing",
       DrainPhase::Withdrawn,
       {"tor", "rr"},
       {},
       false,
       "nodeDraining"},
  };
  const auto cfg = bgpConfig();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BgpDecision d = announced(c.peers);
      drainBgpDecision(c.phase, cfg, d);
      BOOST_TEST((d.skip ? std::string(bgpSkipReason(*d.skip)) : "") == c.skip);
      BOOST_REQUIRE(d.announcements.size() == c.want.size());
      for (size_t i = 0; i < c.want.size(); ++i) {
        const auto& a = d.announcements[i];
        BOOST_TEST(a.peers == c.want[i].first);
        BOOST_TEST(a.local_pref == c.want[i].second);
        BOOST_TEST(a.prefix.toString() == "192.0.2.10/32");
        std::vector<config::BgpCommunity> want = {{false, 64512, 7, 0}};
        if (c.gshut) want.push_back(kGracefulShutdownCommunity);
        want.push_back({false, 65535, 65281, 0});
        BOOST_TEST((a.communities == want));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(graceful_shutdown_is_idempotent) {
  const auto cfg = bgpConfig();
  BgpDecision d = announced({"tor"});
  d.announcements[0].communities.insert(d.announcements[0].communities.begin() + 1,
                                        kGracefulShutdownCommunity);
  drainBgpDecision(DrainPhase::GracefulShutdown, cfg, d);
  BOOST_TEST(d.announcements[0].communities.size() == 3u);
}

BOOST_AUTO_TEST_CASE(skipped_decision_stays_skipped) {
  BgpDecision d;
  d.skip = BgpSkip::NotOwner;
  drainBgpDecision(DrainPhase::Withdrawn, bgpConfig(), d);
  BOOST_TEST(bgpSkipReason(*d.skip) == "notOwner");
}

// Every agent computes the same membership from the same Node objects: a cordoned node leaves
// it only when drain-awareness is on.
BOOST_AUTO_TEST_CASE(draining_node_leaves_the_l2_membership) {
  std::vector<api::Node> nodes = {node("a"), node("b"), node("c")};
  nodes[1].unschedulable = true;
  const std::set<std::string> live = {"a", "b", "c"};
  BOOST_TEST(
      (l2Membership(nodes, live, false).eligible == std::vector<std::string>{"a", "b", "c"}));
  BOOST_TEST(
      (l2Membership(nodes, live, false, all()).eligible == std::vector<std::string>{"a", "c"}));
  BOOST_TEST((l2Membership(nodes, live, false, only({DrainTrigger::Sigterm})).eligible ==
              std::vector<std::string>{"a", "b", "c"}));
}

struct ReportCase {
  std::string desc;
  L2HandOffView view;
  bool want;
};

// The draining node "a": only the elected new owner's status counts as its report.
BOOST_AUTO_TEST_CASE(l2_hand_off_counts_only_the_new_owners_status) {
  const std::vector<ReportCase> cases = {
      {"no status yet", {"b", {}, {}}, false},
      {"only the draining node's own status", {"b", {"a"}, {}}, false},
      {"the new owner's status", {"b", {"b"}, {}}, true},
      {"both, before the new owner deleted ours", {"b", {"a", "b"}, {}}, true},
      {"a stale status of a node that is not the winner", {"b", {"c"}, {}}, false},
      {"no new owner (no other candidate)", {std::nullopt, {"a"}, {}}, false},
      {"the winner is the draining node itself", {"a", {"a"}, {}}, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(newOwnerReported("a", c.view) == c.want);
    }
  }
}

struct HandOffCase {
  std::string desc;
  std::optional<int64_t> reported_ms;
  int64_t now_ms;
  HandOffEnd want;
};

// Handed off at 0 with the upper bound at 2000: the node stops answering kL2HandOffSettleMs
// after it saw the new owner's report, or at the bound, never earlier.
BOOST_AUTO_TEST_CASE(l2_hand_off_ends_after_the_report_settled_or_at_the_bound) {
  const int64_t settle = kL2HandOffSettleMs;
  const std::vector<HandOffCase> cases = {
      {"no report", std::nullopt, 100, HandOffEnd::Waiting},
      {"no report, just before the bound", std::nullopt, 1999, HandOffEnd::Waiting},
      {"no report, at the bound", std::nullopt, 2000, HandOffEnd::TimedOut},
      {"reported, settling", 100, 100 + settle - 1, HandOffEnd::Waiting},
      {"reported, settled", 100, 100 + settle, HandOffEnd::NewOwnerAnnounced},
      {"reported late, the bound first", 1900, 2000, HandOffEnd::TimedOut},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const L2HandOffView view{"b", {"b"}, c.reported_ms};
      BOOST_TEST(handOffEndName(l2HandOffEnd(view, c.now_ms, 2000)) == handOffEndName(c.want));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace ingot::agent
