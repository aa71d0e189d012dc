// SPDX-License-Identifier: Apache-2.0
// spec.raw through ingot-frr's FrrPort::applyFile against real FRR 8.4 (CTest label `frr`, root
// only), on agent/bgp's two-namespace lab (a node and an eBGP ToR, frr_lab.h): the file frr-k8s
// renders for the agent's FRRConfiguration with endpoint weights (frrgen/weight_raw.h) loads into
// the node's FRR, the ToR receives each weighted prefix with its link-bandwidth and the others
// without, and a weight change reaches the ToR while the prefix stays and the session stays up.
// Skips, printing "skipped: <why>", when not root or FRR is missing.
#define BOOST_TEST_MODULE ingot_frrd_frr
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "frr/port.h"
#include "frr/tests/applier_lab.h"
#include "frrgen/compact.h"
#include "frrgen/weight_raw.h"

namespace utf = boost::unit_test;
using namespace ingot;
using namespace ingot::frr::testing;

namespace {

struct Lab : ApplierLab {};

/// nodeFile is what frr-k8s (and ingot-frr) get from the agent for the node: the typed session
/// and prefixes, and the weights (prefix → endpoint count, 0 = unweighted) as the raw snippet.
frrgen::Model nodeFile(const std::map<std::string, uint32_t>& weights) {
  frrgen::Router r = nodeRouter();
  for (const auto& [prefix, weight] : weights) {
    r.prefixes_v4.push_back(prefix);
    r.neighbors[0].outgoing_v4.append({prefix, 0, {}, {}, weight});
  }
  auto raw = frrgen::weightRawText({r});
  BOOST_TEST_REQUIRE(raw.has_value(), (raw ? "" : raw.error().message));
  frrgen::Router typed = nodeRouter();  // what frr-k8s converts: no bandwidth
  for (const auto& [prefix, weight] : weights) {
    typed.prefixes_v4.push_back(prefix);
    typed.neighbors[0].outgoing_v4.append({prefix, 0, {}, {}, 0});
  }
  frrgen::Model m;
  m.routers = {typed};
  m.bfd_profiles = {labBfd()};
  m.raw_config = *raw + "\n";  // frr-k8s ends each snippet with a newline
  return m;
}

frr::FrrPort& port() {
  static std::unique_ptr<frr::FrrPort> p = [] {
    frr::FrrDriverOptions o;
    o.pathspace = lab().node();
    o.workdir = lab().dir() + "/ingotfrr";
    o.command_timeout = std::chrono::seconds(120);
    return frr::makeFrrPort(o);
  }();
  return *p;
}

void applyFile(const frrgen::Model& m) {
  auto r = port().applyFile(m, {});
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
}

std::string established() {
  const std::string j = flat(lab().vtysh(lab().tor(), {"show bgp neighbors 192.168.77.2 json"}));
  const size_t at = j.find("\"connectionsEstablished\":");
  return at == std::string::npos ? "" : j.substr(at, j.find_first_of(",}", at) - at);
}

/// carries tells whether the ToR's route for prefix has the link-bandwidth of count endpoints
/// (FRR's Mbps: count × 125,000 bytes/s from AS 64512).
bool carries(const std::string& prefix, uint32_t count) {
  return torRoute(prefix).find("LB:64512:" + std::to_string(count * 125000)) != std::string::npos;
}

/// torHolds is torHas without Boost.Test assertions, for the watcher thread.
bool torHolds(const std::string& prefix) {
  const std::string route = flat(ApplierLab::lab->vtysh(
      ApplierLab::lab->tor(), {"show bgp ipv4 unicast " + prefix + " json"}));
  return route.find("\"prefix\":\"" + prefix + "\"") != std::string::npos;
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(Lab);

BOOST_AUTO_TEST_SUITE(raw_frr, *utf::precondition(labRunnable))

BOOST_AUTO_TEST_CASE(weights_reach_the_tor_and_follow_a_change_without_withdrawal_or_reset) {
  lab();
  // First as ingot-frr runs without raw text: the compact shape, through the incremental engine.
  frrgen::Model plain = nodeFile({{"10.1.0.1/32", 0}, {"10.1.0.2/32", 0}, {"10.1.0.3/32", 0}});
  plain.raw_config.clear();
  auto compacted = frrgen::compact(plain);
  BOOST_TEST_REQUIRE(compacted.has_value());
  BOOST_TEST_REQUIRE(port().apply(*compacted, {}).has_value());
  BOOST_TEST_REQUIRE(FrrLab::waitFor([] { return torHas("10.1.0.3/32"); }, 300),
                     "10.1.0.3/32 never reached the ToR: " << torRoute("10.1.0.3/32"));
  const std::string sessions = established();

  // Weights appear: the whole file replaces the compact shape; the prefixes stay meanwhile.
  std::atomic<bool> stop{false};
  std::atomic<bool> gone{false};
  std::thread watcher([&] {
    while (!stop) {
      if (!torHolds("10.1.0.3/32")) {
        gone = true;
      }
    }
  });
  applyFile(nodeFile({{"10.1.0.1/32", 3}, {"10.1.0.2/32", 1}, {"10.1.0.3/32", 0}}));
  const bool weighted = FrrLab::waitFor([] { return carries("10.1.0.1/32", 3); }, 300);
  stop = true;
  watcher.join();
  BOOST_TEST(!gone);
  BOOST_TEST_REQUIRE(
      weighted, "10.1.0.1/32 never reached the ToR with LB 3 Mbps: " << torRoute("10.1.0.1/32"));
  BOOST_TEST(FrrLab::waitFor([] { return carries("10.1.0.2/32", 1); }, 100));
  BOOST_TEST(torHas("10.1.0.3/32"));
  BOOST_TEST(torRoute("10.1.0.3/32").find("LB:") == std::string::npos, torRoute("10.1.0.3/32"));

  // 3:1 becomes 1:2; the prefixes stay at the ToR at every look.
  applyFile(nodeFile({{"10.1.0.1/32", 1}, {"10.1.0.2/32", 2}, {"10.1.0.3/32", 0}}));
  bool left = false;
  BOOST_TEST(FrrLab::waitFor(
      [&left] {
        left = left || !torHas("10.1.0.1/32") || !torHas("10.1.0.2/32");
        return carries("10.1.0.1/32", 1) && carries("10.1.0.2/32", 2);
      },
      100));
  BOOST_TEST(!left);
  BOOST_TEST(established() == sessions);
}

BOOST_AUTO_TEST_SUITE_END()
