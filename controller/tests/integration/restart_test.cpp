// SPDX-License-Identifier: Apache-2.0
// Restarting the controller must not move a single address: the first full pass claims every
// address a Service holds before anything allocates, and writes nothing when nothing differs.
#include <atomic>
#include <set>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr int kServices = 1000;
constexpr int kCreators = 8;

/// createServices creates svc-0 .. svc-(n-1) in default from several threads.
void createServices(Cluster& cluster, int n) {
  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  std::vector<std::jthread> threads;
  threads.reserve(kCreators);
  for (int t = 0; t < kCreators; ++t) {
    threads.emplace_back([&] {
      auto api = cluster.server->client();
      if (!api) {
        failures += n;
        return;
      }
      for (int i = next++; i < n; i = next++) {
        const std::string name = "svc-" + std::to_string(i);
        if (!createRetrying(**api, k8s::resources::kServices, "default",
                            serviceJson("default", name))) {
          ++failures;
        }
      }
    });
  }
  threads.clear();
  BOOST_REQUIRE_EQUAL(failures.load(), 0);
}

struct Held {
  std::string ips;
  std::string resource_version;
  friend bool operator==(const Held&, const Held&) = default;
};

std::map<std::string, Held> heldAddresses(Cluster& cluster) {
  std::map<std::string, Held> out;
  for (const auto& [key, svc] : cluster.services()) {
    if (svc.spec.type != "LoadBalancer") continue;
    std::string ips;
    for (const auto& ip : ingressIps(svc)) ips += ip + " ";
    out[key] = Held{ips, svc.metadata.resource_version};
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(restart)

BOOST_AUTO_TEST_CASE(restart_with_1000_services_changes_no_address) {
  Cluster cluster({"--history", "20000"});
  cluster.createPool("big", {"10.20.0.0/22"});
  createServices(cluster, kServices);
  // Without a client-side limit: the first start writes 1,000 statuses (at the default 20 QPS
  // that alone would take 50 s).
  const std::vector<std::string> unthrottled = {"--kube-api-qps=0"};
  auto first = cluster.startController(unthrottled);
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(40000),
                                [&] {
                                  for (const auto& [k, h] : heldAddresses(cluster)) {
                                    if (h.ips.empty()) return false;
                                  }
                                  return true;
                                }),
                        "not every service got an address:\n" + first->log());
  BOOST_REQUIRE(waitFor(Millis(5000), [&] {
    auto st = poolStatusOf(*cluster.api, "big");
    return st && st->assigned_ipv4 == kServices;
  }));
  const auto before = heldAddresses(cluster);
  std::set<std::string> distinct;
  for (const auto& [k, h] : before) distinct.insert(h.ips);
  BOOST_TEST(distinct.size() == static_cast<size_t>(kServices));
  stopCleanly(*first);

  auto second = cluster.startController(unthrottled);
  // Ready means the first full pass ran; the work-queue gauge counts waiting, delayed (the pool
  // status follows the pass after 500 ms) and running keys, so 0 after ready means the restarted
  // controller has done everything the restart gave it to do.
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(30000),
              [&] { return second->metric("ingot_controller_workqueue_depth") == 0.0; }),
      "the restarted controller's work queue did not drain:\n" + second->log());
  const auto after = heldAddresses(cluster);
  BOOST_REQUIRE_EQUAL(after.size(), before.size());
  size_t changed = 0;
  for (const auto& [key, held] : before) {
    if (after.at(key) != held) ++changed;
  }
  BOOST_TEST(changed == 0u, changed << " services changed address or resourceVersion");
  BOOST_TEST(second->metric("ingot_controller_api_requests_total{verb=\"patch_status\"}") == 0.0);
  BOOST_TEST(second->metric("ingot_controller_api_requests_total{verb=\"create\"}") == 0.0);
  BOOST_TEST(second->metric("metallb_allocator_addresses_in_use_total{pool=\"big\"}") ==
             static_cast<double>(kServices));
  stopCleanly(*second);
}

BOOST_AUTO_TEST_SUITE_END()
