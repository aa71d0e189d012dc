// SPDX-License-Identifier: Apache-2.0
// IncrementalApplier against a fake vtysh and a fake full reload. The fake "FRR" holds a running
// configuration: a full reload replaces it with the file; a delta is applied to it only when the
// test says FRR takes it (so read-back and drift are exercised with real projections).
#include "frr/incremental.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <boost/test/unit_test.hpp>

#include "frrgen/tests/compact_fixtures.h"

namespace ingot::frr {
namespace {

using frrgen::testing::Send;
using frrgen::testing::threePeers;

frrgen::CompactModel model(int prefixes, const std::string& community = "64512:100") {
  std::vector<Send> sends;
  for (int i = 1; i <= prefixes; ++i) {
    sends.push_back({"10.1.0." + std::to_string(i) + "/32", {"10.0.0.1"}, 0, {community}});
  }
  auto c = frrgen::compact(threePeers(sends));
  BOOST_TEST_REQUIRE(c.has_value());
  return *c;
}

std::string text(const frrgen::CompactModel& m) {
  return *frrgen::renderCompact(m, {});
}

/// FakeFrr plays both ports.
class FakeFrr final : public VtyshPort, public FullReload {
 public:
  // VtyshPort
  Result<void> configure(const std::vector<std::string>& commands) override {
    configured.push_back(commands);
    if (!reject.empty()) {
      return Error{ErrorCode::InvalidArgument, reject};
    }
    if (trouble) {
      return *std::exchange(trouble, std::nullopt);
    }
    if (takes_delta && next_state) {
      running = text(*next_state);
    }
    return {};
  }
  Result<std::string> show(const std::string& command) override {
    shows.push_back(command);
    if (command == "show daemons") {
      return daemons;
    }
    if (command.rfind("show bgp", 0) == 0 && hung) {
      return Error{ErrorCode::Unavailable, "vtysh did not answer within 30000 ms (session ended)"};
    }
    return running;
  }
  void reset() override { ++resets; }
  // FullReload
  Result<ApplyReport> reload(const std::string& file) override {
    reloads.push_back(file);
    if (reload_fails) {
      return Error{ErrorCode::Unavailable, "frr-reload.py exited 1"};
    }
    for (const auto& marker : refuse) {
      if (file.find(marker) != std::string::npos) {
        return Error{ErrorCode::InvalidArgument, "% Invalid value: " + marker};
      }
    }
    running = file;
    return ApplyReport{};
  }

  std::string running;
  std::optional<frrgen::CompactModel> next_state;  ///< what a delta turns FRR into
  bool takes_delta = true;
  std::string reject;
  bool reload_fails = false;
  std::vector<std::string> refuse;  ///< a full reload of a file holding one of these is refused
  std::string daemons = " zebra bgpd bfdd\n";
  bool hung = false;             ///< bgpd does not answer the probe
  std::optional<Error> trouble;  ///< what the next delta reports instead of applying
  std::vector<std::vector<std::string>> configured;
  std::vector<std::string> shows;
  std::vector<std::string> reloads;
  int resets = 0;
};

struct Fixture {
  FakeFrr frr;
  IncrementalApplier applier{frr, frr, {}};

  FastApplyReport apply(const frrgen::CompactModel& m) {
    frr.next_state = m;
    auto r = applier.apply(m);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return *r;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(incremental)

BOOST_FIXTURE_TEST_CASE(start_up_reloads_then_changes_go_as_deltas_read_back_later, Fixture) {
  const auto a = model(3);
  const auto b = model(4);
  auto first = apply(a);
  BOOST_TEST((first.path == ApplyPath::FullReload));
  BOOST_TEST(first.reload_reason == "start-up");
  BOOST_TEST(frr.reloads.size() == 1u);
  // The daemons were checked before the reload.
  const std::vector<std::string> checks = {"show daemons", "show bgp vrf all summary json"};
  BOOST_TEST(frr.shows == checks, boost::test_tools::per_element());
  BOOST_TEST(!applier.verifyPending());
  // Every line went through vtysh first (a daemon that restarted gets its whole part back),
  // without what only a daemon's start takes.
  BOOST_TEST_REQUIRE(frr.configured.size() == 1u);
  const auto& primed = frr.configured[0];
  BOOST_TEST(std::count(primed.begin(), primed.end(), "router bgp 64512") == 1);
  BOOST_TEST(std::none_of(primed.begin(), primed.end(), [](const std::string& l) {
    return l.rfind("frr ", 0) == 0 || l == "end";
  }));
  auto second = apply(b);
  BOOST_TEST((second.path == ApplyPath::Delta));
  BOOST_TEST(second.networks_added == 1u);
  BOOST_TEST(frr.reloads.size() == 1u);
  BOOST_TEST(frr.configured.size() == 2u);
  // Nothing read back on the hot path: the caller verifies once changes go quiet.
  BOOST_TEST(frr.shows == checks, boost::test_tools::per_element());
  BOOST_TEST(applier.verifyPending());
  auto third = apply(b);
  BOOST_TEST((third.path == ApplyPath::Unchanged));
  BOOST_TEST(frr.configured.size() == 2u);
  auto checked = applier.verify();
  BOOST_TEST_REQUIRE(checked.has_value());
  BOOST_TEST((checked->path == ApplyPath::Unchanged));
  BOOST_TEST(frr.shows.back() == "show running-config");
  BOOST_TEST(!applier.verifyPending());
}

BOOST_FIXTURE_TEST_CASE(a_rejected_line_falls_back_to_a_full_reload, Fixture) {
  apply(model(3));
  frr.reject = "FRR rejected 1 command(s): network …";
  auto r = apply(model(5));
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(r.reload_reason.find("FRR rejected 1 command(s)") != std::string::npos);
  BOOST_TEST(applier.fallbackCount() == 1u);
  BOOST_TEST(frr.running == text(model(5)));
}

BOOST_FIXTURE_TEST_CASE(a_delta_frr_did_not_take_is_drift_and_is_corrected, Fixture) {
  apply(model(3));
  frr.takes_delta = false;
  BOOST_TEST((apply(model(4)).path == ApplyPath::Delta));
  auto v = applier.verify();
  BOOST_TEST_REQUIRE(v.has_value(), (v ? "" : v.error().message));
  const FastApplyReport& r = *v;
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(r.drift.find("-router bgp 64512|ipv4|network 10.1.0.4/32") != std::string::npos,
             r.drift);
  BOOST_TEST(applier.driftCount() == 1u);
  BOOST_TEST(frr.running == text(model(4)));
}

BOOST_FIXTURE_TEST_CASE(verify_finds_a_hand_edit_or_a_restart_and_reloads, Fixture) {
  apply(model(3));
  auto clean = applier.verify();
  BOOST_TEST_REQUIRE(clean.has_value());
  BOOST_TEST((clean->path == ApplyPath::Unchanged));
  frr.running = "frr version 8.4.4\n!\nend\n";  // bgpd restarted with an empty configuration
  const int resets = frr.resets;
  auto r = applier.verify();
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST((r->path == ApplyPath::FullReload));
  BOOST_TEST(!r->drift.empty());
  BOOST_TEST(frr.resets > resets);  // a new vtysh session after the reload
  BOOST_TEST(frr.running == text(model(3)));
}

BOOST_FIXTURE_TEST_CASE(a_failed_reload_restores_the_last_model_and_retries_next_time, Fixture) {
  apply(model(3));
  frr.reject = "rejected";
  frr.reload_fails = true;
  auto r = applier.apply(model(5));
  BOOST_TEST(!r.has_value());
  frr.reject.clear();
  frr.reload_fails = false;
  const size_t reloads = frr.reloads.size();
  auto again = apply(model(5));
  BOOST_TEST((again.path == ApplyPath::FullReload));
  BOOST_TEST(frr.running == text(model(5)));
  BOOST_TEST(frr.reloads.size() == reloads + 1);
}

BOOST_FIXTURE_TEST_CASE(session_changes_take_the_full_reload_path, Fixture) {
  apply(model(3));
  frr.configured.clear();  // the start-up reload's priming
  auto changed = model(3);
  changed.routers[0].neighbors[1].session.hold_time = 9;
  changed.routers[0].neighbors[1].session.keepalive_time = 3;
  auto r = apply(changed);
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(r.reload_reason == "neighbor 10.0.0.2 changed");
  BOOST_TEST(frr.configured.empty());
}

BOOST_FIXTURE_TEST_CASE(a_daemon_down_stops_the_reload_before_frr_reload_runs, Fixture) {
  frr.daemons = " zebra\n";
  auto r = applier.apply(model(3));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("bgpd is not running") != std::string::npos, r.error().message);
  BOOST_TEST(r.error().message.find("lists: zebra)") != std::string::npos, r.error().message);
  BOOST_TEST((classifyFailure(r.error()) == FailureReason::DaemonDown));
  BOOST_TEST(frr.reloads.empty());
  // bgpd back: the retry reloads.
  frr.daemons = " zebra bgpd bfdd\n";
  BOOST_TEST((apply(model(3)).path == ApplyPath::FullReload));
  BOOST_TEST(frr.running == text(model(3)));
}

BOOST_FIXTURE_TEST_CASE(a_hung_bgpd_costs_one_bounded_probe_not_a_reload, Fixture) {
  apply(model(3));
  frr.trouble = Error{ErrorCode::Unavailable, "vtysh did not answer within 30000 ms"};
  auto r = applier.apply(model(4));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((classifyFailure(r.error()) == FailureReason::Timeout), r.error().message);
  BOOST_TEST(frr.reloads.size() == 1u);  // no reload into a daemon that does not answer
  frr.hung = true;
  auto again = applier.apply(model(4));
  BOOST_TEST_REQUIRE(!again.has_value());
  BOOST_TEST(again.error().message.find("bgpd probe") != std::string::npos, again.error().message);
  BOOST_TEST(frr.reloads.size() == 1u);
  frr.hung = false;
  auto back = apply(model(4));
  BOOST_TEST((back.path == ApplyPath::FullReload));
  BOOST_TEST(back.reload_reason == "resynchronising after an error");
  BOOST_TEST(frr.running == text(model(4)));
}

BOOST_FIXTURE_TEST_CASE(a_daemon_restarted_under_a_delta_reloads_at_once, Fixture) {
  apply(model(3));
  frr.trouble = Error{ErrorCode::Transient, "FRR: bgpd restarted"};
  auto r = apply(model(4));
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(r.reload_reason.find("bgpd restarted") != std::string::npos, r.reload_reason);
  BOOST_TEST(frr.running == text(model(4)));
}

BOOST_FIXTURE_TEST_CASE(a_model_above_the_limit_sends_nothing, Fixture) {
  apply(model(3));
  auto huge = model(3);
  for (size_t i = 0; i <= kMaxPrefixes; ++i) {
    huge.routers[0].networks_v6["2001:db8::" + std::to_string(i) + "/128"] =
        huge.routers[0].networks_v4.begin()->second;
  }
  const size_t reloads = frr.reloads.size();
  const size_t configured = frr.configured.size();
  auto r = applier.apply(huge);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((classifyFailure(r.error()) == FailureReason::TooLarge));
  BOOST_TEST(frr.configured.size() == configured);
  BOOST_TEST(frr.reloads.size() == reloads);
  // FRR still holds the last model, and the applier knows it: the next change is a delta.
  BOOST_TEST((apply(model(4)).path == ApplyPath::Delta));
}

/// sessions is a router with one session per password (10.0.0.1, 10.0.0.2, ...), each sent the
/// prefix 10.1.0.1/32.
frrgen::CompactModel sessions(const std::vector<std::string>& passwords) {
  frrgen::Router r;
  r.asn = 64512;
  r.prefixes_v4 = {"10.1.0.1/32"};
  for (size_t i = 0; i < passwords.size(); ++i) {
    frrgen::Neighbor n;
    n.address = "10.0.0." + std::to_string(i + 1);
    n.remote_as = "64513";
    n.password = passwords[i];
    n.outgoing_v4.append(frrgen::OutgoingPrefix{"10.1.0.1/32", 0, {}, {}});
    r.neighbors.push_back(n);
  }
  frrgen::Model m;
  m.routers = {r};
  auto c = frrgen::compact(m);
  BOOST_TEST_REQUIRE(c.has_value());
  return *c;
}

// The sessions FRR refuses are found (in halves) and left out; FRR gets everything else, and each
// refused session is reported once per apply with why.
BOOST_AUTO_TEST_CASE(refused_sessions_are_isolated_and_the_rest_applies) {
  struct Case {
    std::string desc;
    std::vector<std::string> before;  ///< applied first (empty = none)
    std::vector<std::string> after;
    std::vector<std::string> refused;  ///< markers FRR refuses
    std::vector<std::string> want_rejected;
    bool kept_previous = false;
  };
  const std::vector<Case> cases = {
      {"all taken", {}, {"a", "b", "c"}, {"password BAD"}, {}},
      {"one new session of one", {}, {"BAD1"}, {"password BAD"}, {"10.0.0.1"}},
      {"two of five at start-up",
       {},
       {"a", "BAD2", "c", "BAD4", "e"},
       {"password BAD"},
       {"10.0.0.2", "10.0.0.4"}},
      {"a new session next to working ones",
       {"a", "b"},
       {"a", "b", "BAD3"},
       {"password BAD"},
       {"10.0.0.3"}},
      {"a changed session keeps what FRR had",
       {"a", "b", "c"},
       {"a", "BAD2", "c2"},
       {"password BAD"},
       {"10.0.0.2"},
       true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Fixture f;
      f.frr.refuse = c.refused;
      if (!c.before.empty()) {
        f.apply(sessions(c.before));
      }
      const auto m = sessions(c.after);
      auto r = f.apply(m);
      std::vector<std::string> rejected;
      for (const auto& s : r.rejected) {
        rejected.push_back(s.peer);
        BOOST_TEST(s.kept_previous == c.kept_previous);
        BOOST_TEST(s.error.find("Invalid value") != std::string::npos, s.error);
      }
      BOOST_TEST(rejected == c.want_rejected, boost::test_tools::per_element());
      // FRR holds every other session as wanted, and none it refuses.
      for (size_t i = 0; i < c.after.size(); ++i) {
        const std::string line =
            "neighbor 10.0.0." + std::to_string(i + 1) + " password " + c.after[i];
        const bool refused = c.after[i].find("BAD") != std::string::npos;
        BOOST_TEST((f.frr.running.find(line) != std::string::npos) == !refused, line);
      }
      if (c.kept_previous) {
        BOOST_TEST(f.frr.running.find("neighbor 10.0.0.2 password b") != std::string::npos);
      }
      // Unchanged, a refused session is not tried again: nothing is sent, it is still reported.
      const size_t reloads = f.frr.reloads.size();
      auto again = f.apply(m);
      BOOST_TEST((again.path == ApplyPath::Unchanged));
      BOOST_TEST(f.frr.reloads.size() == reloads);
      BOOST_TEST(again.rejected.size() == c.want_rejected.size());
    }
  }
}

// When FRR refuses the model even without the new sessions, the cause is elsewhere: the apply
// fails as before, naming what FRR said.
BOOST_FIXTURE_TEST_CASE(a_refusal_sessions_do_not_explain_is_an_error, Fixture) {
  frr.refuse = {"10.1.0.1/32"};
  auto r = applier.apply(sessions({"a", "b"}));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((classifyFailure(r.error()) == FailureReason::Rejected));
  BOOST_TEST(r.error().message.find("10.1.0.1/32") != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
