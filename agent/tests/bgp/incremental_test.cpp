// SPDX-License-Identifier: Apache-2.0
// IncrementalApplier against a fake vtysh and a fake full reload. The fake "FRR" holds a running
// configuration: a full reload replaces it with the file; a delta is applied to it only when the
// test says FRR takes it (so read-back and drift are exercised with real projections).
#include "agent/bgp/incremental.h"

#include <boost/test/unit_test.hpp>

#include "frrgen/tests/compact_fixtures.h"

namespace ingot::agent::bgp {
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
    if (takes_delta) {
      running = text(*next_state);
    }
    return {};
  }
  Result<std::string> show(const std::string& command) override {
    shows.push_back(command);
    return running;
  }
  void reset() override { ++resets; }
  // FullReload
  Result<ApplyReport> reload(const std::string& file) override {
    reloads.push_back(file);
    if (reload_fails) {
      return Error{ErrorCode::Unavailable, "frr-reload.py exited 1"};
    }
    running = file;
    return ApplyReport{};
  }

  std::string running;
  const frrgen::CompactModel* next_state = nullptr;  ///< what a delta turns FRR into
  bool takes_delta = true;
  std::string reject;
  bool reload_fails = false;
  std::vector<std::vector<std::string>> configured;
  std::vector<std::string> shows;
  std::vector<std::string> reloads;
  int resets = 0;
};

struct Fixture {
  FakeFrr frr;
  IncrementalApplier applier{frr, frr, {}};

  FastApplyReport apply(const frrgen::CompactModel& m) {
    frr.next_state = &m;
    auto r = applier.apply(m);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return *r;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(incremental)

BOOST_FIXTURE_TEST_CASE(start_up_reloads_then_changes_go_as_verified_deltas, Fixture) {
  const auto a = model(3);
  const auto b = model(4);
  auto first = apply(a);
  BOOST_TEST((first.path == ApplyPath::FullReload));
  BOOST_TEST(first.reload_reason == "start-up");
  BOOST_TEST(frr.reloads.size() == 1u);
  auto second = apply(b);
  BOOST_TEST((second.path == ApplyPath::Delta));
  BOOST_TEST(second.networks_added == 1u);
  BOOST_TEST(frr.reloads.size() == 1u);
  BOOST_TEST(frr.configured.size() == 1u);
  BOOST_TEST(frr.shows == std::vector<std::string>{"show running-config"});
  auto third = apply(b);
  BOOST_TEST((third.path == ApplyPath::Unchanged));
  BOOST_TEST(frr.configured.size() == 1u);
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
  auto r = apply(model(4));
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
  auto changed = model(3);
  changed.routers[0].neighbors[1].session.hold_time = 9;
  changed.routers[0].neighbors[1].session.keepalive_time = 3;
  auto r = apply(changed);
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(r.reload_reason == "neighbor 10.0.0.2 changed");
  BOOST_TEST(frr.configured.empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::agent::bgp
