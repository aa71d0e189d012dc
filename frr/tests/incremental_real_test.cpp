// SPDX-License-Identifier: Apache-2.0
// IncrementalApplier against real FRR 8.4 (CTest label `frr`, root only): a node FRR configured
// only through the applier (VtyshSession + FrrDriver's frr-reload.py fallback) and an eBGP ToR
// with BFD (frr_lab.h). Checks at the ToR that the compact policy carries the right communities
// to the right peer, that deltas (add, re-point, withdraw, 1,000 at once) arrive without a session
// reset, and that a hand edit on the node is found and corrected. Skips, printing "skipped: <why>",
// when not root or FRR is missing.
#define BOOST_TEST_MODULE ingot_frr_incremental_real
#include <chrono>
#include <cstdio>
#include <memory>

#include <boost/test/unit_test.hpp>

#include "frr/session_metrics.h"
#include "frr/tests/applier_lab.h"
#include "frrgen/compact.h"

namespace utf = boost::unit_test;
using namespace ingot;
using namespace ingot::frr;
using namespace ingot::frr::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kGhost = "192.168.77.9";  // a configured peer that never comes up

/// Route is one prefix the node originates: to the ToR and/or the ghost peer.
struct Route {
  std::string prefix;
  bool tor = true;
  bool ghost = false;
  std::vector<std::string> communities = {};
  std::vector<std::string> large = {};
};

frrgen::CompactModel nodeModel(const std::vector<Route>& routes) {
  frrgen::Router r = nodeRouter();
  frrgen::Neighbor tor = r.neighbors[0];
  frrgen::Neighbor ghost;
  ghost.address = kGhost;
  ghost.remote_as = "64599";
  for (const auto& x : routes) {
    r.prefixes_v4.push_back(x.prefix);
    frrgen::OutgoingPrefix o{x.prefix, 0, x.communities, x.large};
    if (x.tor) {
      tor.outgoing_v4.append(o);
    }
    if (x.ghost) {
      ghost.outgoing_v4.append(o);
    }
  }
  r.neighbors = {tor, ghost};
  frrgen::Model m;
  m.routers = {r};
  m.bfd_profiles = {labBfd()};
  auto c = frrgen::compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  return *c;
}

std::vector<Route> bulk(int n) {
  std::vector<Route> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out.push_back({"10.50." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1) + "/32"});
  }
  return out;
}

/// Lab is the module's global fixture (VtyshSession's default timeout).
struct Lab : ApplierLab {};

std::string torField(const std::string& command, const std::string& field) {
  const std::string j = flat(lab().vtysh(lab().tor(), {command}));
  const size_t at = j.find("\"" + field + "\":");
  if (at == std::string::npos) {
    return "";
  }
  const size_t from = at + field.size() + 3;
  return j.substr(from, j.find_first_of(",}", from) - from);
}

std::string received() {
  return torField("show bgp ipv4 unicast summary json", "pfxRcd");
}

std::string established() {
  return torField("show bgp neighbors 192.168.77.2 json", "connectionsEstablished");
}

FastApplyReport apply(const frrgen::CompactModel& m) {
  auto r = Lab::applier->apply(m);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  return *r;
}

const std::vector<Route> kBase = {
    {"10.1.0.1/32", true, false, {"64512:100", "65535:65281"}, {"64512:1:1"}},
    {"10.1.0.2/32", false, true, {"64512:300"}},
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(Lab);

BOOST_AUTO_TEST_SUITE(incremental_frr, *utf::precondition(labRunnable))

BOOST_AUTO_TEST_CASE(deltas_reach_the_tor_with_the_right_attributes_and_peers) {
  lab();
  auto first = apply(nodeModel(kBase));
  BOOST_TEST((first.path == ApplyPath::FullReload));
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return torHas("10.1.0.1/32"); }, 300),
                     "10.1.0.1/32 never reached the ToR; " << diagnostics());
  const std::string route = torRoute("10.1.0.1/32");
  BOOST_TEST(route.find("\"string\":\"64512:100 no-export\"") != std::string::npos, route);
  BOOST_TEST(route.find("\"string\":\"64512:1:1\"") != std::string::npos, route);
  BOOST_TEST(!torHas("10.1.0.2/32"));  // sent to the ghost peer only
  const std::string sessions = established();

  auto plus = kBase;
  plus.push_back({"10.1.0.3/32"});
  auto added = apply(nodeModel(plus));
  BOOST_TEST((added.path == ApplyPath::Delta));
  BOOST_TEST(added.networks_added == 1u);
  BOOST_TEST(FrrLab::waitFor([] { return torHas("10.1.0.3/32"); }, 100));

  plus[0].communities = {"64512:200"};
  auto changed = apply(nodeModel(plus));
  BOOST_TEST((changed.path == ApplyPath::Delta));
  BOOST_TEST(changed.networks_changed == 1u);
  BOOST_TEST(FrrLab::waitFor(
      [] { return torRoute("10.1.0.1/32").find("\"string\":\"64512:200\"") != std::string::npos; },
      100));

  plus.pop_back();
  auto withdrawn = apply(nodeModel(plus));
  BOOST_TEST((withdrawn.path == ApplyPath::Delta));
  BOOST_TEST(FrrLab::waitFor([] { return !torHas("10.1.0.3/32"); }, 100));
  BOOST_TEST(established() == sessions);
}

BOOST_AUTO_TEST_CASE(a_hand_edit_on_the_node_is_reported_and_corrected) {
  lab();
  auto m = nodeModel(kBase);
  apply(m);
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return torHas("10.1.0.1/32"); }, 100));
  lab().vtysh(lab().node(), {"configure terminal", "router bgp 64512",
                             "address-family ipv4 unicast", "no network 10.1.0.1/32"});
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return !torHas("10.1.0.1/32"); }, 100));
  const uint64_t drift_before = Lab::applier->driftCount();
  auto r = Lab::applier->verify();
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  BOOST_TEST((r->path == ApplyPath::FullReload));
  BOOST_TEST(r->drift.find("network 10.1.0.1/32") != std::string::npos, r->drift);
  BOOST_TEST(Lab::applier->driftCount() == drift_before + 1);
  BOOST_TEST(FrrLab::waitFor([] { return torHas("10.1.0.1/32"); }, 300));
  auto clean = Lab::applier->verify();
  BOOST_TEST_REQUIRE(clean.has_value());
  BOOST_TEST(clean->drift.empty());
}

BOOST_AUTO_TEST_CASE(a_thousand_prefixes_come_and_go_without_a_session_reset) {
  lab();
  apply(nodeModel(kBase));
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return received() == "1"; }, 600));
  const std::string sessions = established();
  auto routes = kBase;
  const auto extra = bulk(1000);
  routes.insert(routes.end(), extra.begin(), extra.end());
  const auto start = std::chrono::steady_clock::now();
  auto up = apply(nodeModel(routes));
  BOOST_TEST((up.path == ApplyPath::Delta));
  BOOST_TEST(up.networks_added == 1000u);
  BOOST_TEST(FrrLab::waitFor([] { return received() == "1001"; }, 600), "ToR has " << received());
  const auto at_tor = std::chrono::steady_clock::now() - start;
  auto down = apply(nodeModel(kBase));
  BOOST_TEST((down.path == ApplyPath::Delta));
  BOOST_TEST(FrrLab::waitFor([] { return received() == "1"; }, 600), "ToR has " << received());
  BOOST_TEST(established() == sessions);
  BOOST_TEST_MESSAGE("+1000: send "
                     << up.send_elapsed.count() << " ms, verify " << up.verify_elapsed.count()
                     << " ms, at the ToR within "
                     << std::chrono::duration_cast<std::chrono::milliseconds>(at_tor).count()
                     << " ms; -1000: send " << down.send_elapsed.count() << " ms");
}

namespace {

/// sessionSample is the value of a session family for the peer address (BGP labels add the
/// port, which depends on who opened the connection), or -1 when there is none.
double sessionSample(SessionMetrics& m, const std::string& family, const std::string& peer) {
  for (const auto& f : m.families()) {
    for (const auto& s : f.samples) {
      const std::string& label = s.labels.front().second;
      if (f.name == family && (label == peer || label.rfind(peer + ":", 0) == 0)) {
        return s.value;
      }
    }
  }
  return -1;
}

}  // namespace

BOOST_AUTO_TEST_CASE(session_metrics_follow_the_sessions) {
  lab();
  apply(nodeModel(kBase));
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return received() == "1"; }, 600));
  VtyshSessionOptions v;
  v.pathspace = lab().node();
  VtyshSession session(v);
  SessionMetrics m(session, kMetalLbSessions);
  const std::string tor = kTorAddress;
  const std::string ghost = kGhost;
  // BFD comes up after BGP.
  BOOST_TEST(FrrLab::waitFor(
      [&] { return sessionSample(m, "metallb_bfd_session_up", kTorAddress) == 1; }, 300));
  BOOST_TEST(sessionSample(m, "metallb_bgp_session_up", tor) == 1, m.lastError());
  BOOST_TEST(sessionSample(m, "metallb_bgp_session_up", ghost) == 0, m.lastError());
  BOOST_TEST(sessionSample(m, "metallb_bgp_announced_prefixes_total", tor) == 1);
  BOOST_TEST(sessionSample(m, "metallb_bgp_updates_total", tor) >= 1);
  BOOST_TEST(sessionSample(m, "metallb_bfd_control_packet_input", kTorAddress) >= 1);
  const double downs = sessionSample(m, "metallb_bfd_session_down_events", kTorAddress);

  // The ToR shuts the session: BGP reads down, and up again once it is re-enabled.
  lab().vtysh(lab().tor(),
              {"configure terminal", "router bgp 64513", "neighbor 192.168.77.2 shutdown"});
  BOOST_TEST(
      FrrLab::waitFor([&] { return sessionSample(m, "metallb_bgp_session_up", tor) == 0; }, 300),
      m.lastError());
  lab().vtysh(lab().tor(),
              {"configure terminal", "router bgp 64513", "no neighbor 192.168.77.2 shutdown"});
  BOOST_TEST(
      FrrLab::waitFor([&] { return sessionSample(m, "metallb_bgp_session_up", tor) == 1; }, 600),
      m.lastError());
  // The ToR stops BFD for the node: the node's BFD session times out, and comes back with it.
  lab().vtysh(lab().tor(),
              {"configure terminal", "router bgp 64513", "no neighbor 192.168.77.2 bfd"});
  BOOST_TEST(FrrLab::waitFor(
      [&] { return sessionSample(m, "metallb_bfd_session_up", kTorAddress) == 0; }, 300));
  BOOST_TEST(sessionSample(m, "metallb_bfd_session_down_events", kTorAddress) > downs);
  lab().vtysh(lab().tor(), {"configure terminal", "router bgp 64513", "neighbor 192.168.77.2 bfd"});
  BOOST_TEST(FrrLab::waitFor(
      [&] { return sessionSample(m, "metallb_bfd_session_up", kTorAddress) == 1; }, 600));
}

BOOST_AUTO_TEST_SUITE_END()
