// SPDX-License-Identifier: Apache-2.0
// Convergence under faults: the server cuts every watch after 2 s and fails 10% of writes with
// 500. Services are created and deleted meanwhile; in the end every remaining one holds exactly
// one distinct address, annotated, and the pool status counts exactly those.
#include <set>

#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

BOOST_AUTO_TEST_SUITE(faults)

BOOST_AUTO_TEST_CASE(converges_with_watches_cut_every_2s_and_10_percent_of_writes_failing) {
  Cluster cluster(
      {"--close-watches-after", "2", "--fail-writes", "0.1", "--seed", "7", "--history", "5000"});
  cluster.createPool("pool-f", {"10.30.0.0/24"});
  auto controller = cluster.startController();

  constexpr int kWaves = 3;
  constexpr int kPerWave = 50;
  const std::string watches = R"(ingot_controller_api_requests_total{verb="watch"})";
  for (int wave = 0; wave < kWaves; ++wave) {
    const double watches_before = controller->metric(watches);
    for (int i = 0; i < kPerWave; ++i) {
      cluster.createService("default", "w" + std::to_string(wave) + "-" + std::to_string(i));
    }
    // Delete a fifth of the previous wave while this one is being allocated.
    if (wave > 0) {
      for (int i = 0; i < kPerWave; i += 5) {
        const std::string name = "w" + std::to_string(wave - 1) + "-" + std::to_string(i);
        auto r = removeRetrying(*cluster.api, k8s::resources::kServices, "default", name);
        BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
      }
    }
    // The next wave after the server has cut the watches (every 2 s) and the controller has
    // started new ones: each wave meets a relist.
    BOOST_REQUIRE_MESSAGE(
        waitFor(Millis(20000), [&] { return controller->metric(watches) > watches_before; }),
        controller->log());
  }
  const size_t expected = kWaves * kPerWave - (kWaves - 1) * (kPerWave / 5);

  auto converged = [&] {
    auto services = cluster.services();
    std::set<std::string> ips;
    size_t lb = 0;
    for (const auto& [key, svc] : services) {
      if (svc.spec.type != "LoadBalancer") continue;
      ++lb;
      const auto held = ingressIps(svc);
      const auto it = svc.metadata.annotations.find("metallb.io/ip-allocated-from-pool");
      if (held.size() != 1 || it == svc.metadata.annotations.end() || it->second != "pool-f") {
        return false;
      }
      ips.insert(held[0]);
    }
    return lb == expected && ips.size() == expected;
  };
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(40000), converged),
                        "services did not converge:\n" + controller->log());
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto st = poolStatusOf(*cluster.api, "pool-f");
    return st && st->assigned_ipv4 == static_cast<int64_t>(expected) &&
           st->available_ipv4 == 256 - static_cast<int64_t>(expected);
  }));
  BOOST_TEST(controller->metric("metallb_allocator_addresses_in_use_total{pool=\"pool-f\"}") ==
             static_cast<double>(expected));
  // The faults really happened: the controller saw failed writes and re-watched many times.
  BOOST_TEST(
      controller->metric("ingot_controller_api_request_errors_total{verb=\"patch_status\"}") > 0);
  BOOST_TEST(controller->metric("ingot_controller_api_requests_total{verb=\"watch\"}") > 10);
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_SUITE_END()
