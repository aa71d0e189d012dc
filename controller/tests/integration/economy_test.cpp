// SPDX-License-Identifier: Apache-2.0
// Request economy: once the controller has converged, a full pass over every Service (a
// configuration change that changes nothing) and a re-list after the server expired its watches
// (410 Gone) must write nothing: no Service status, no pool status, no ConfigurationState and
// no Event. (A restart with nothing changed is covered by restart_test.cpp.)
#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr int kEconomyServices = 20;

/// writes sums the controller's API requests of every writing verb.
double writes(const ControllerProcess& c) {
  double sum = 0;
  for (const char* verb :
       {"create", "update", "patch", "update_status", "patch_status", "delete"}) {
    sum += c.metric("ingot_controller_api_requests_total{verb=\"" + std::string(verb) + "\"}");
  }
  return sum;
}

double lists(const ControllerProcess& c) {
  return c.metric("ingot_controller_api_requests_total{verb=\"list\"}");
}

/// events returns how many Events the server holds in ns (their writes are asynchronous).
size_t events(k8s::ApiClient& api, const std::string& ns) {
  auto page = api.list(k8s::resources::kEvents, ns, {});
  return page ? page->items.size() : 0;
}

bool idle(const ControllerProcess& c) {
  return c.metric("ingot_controller_workqueue_depth") == 0.0;
}

std::string configMapJson(int i) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"filler-)" +
         std::to_string(i) + R"("},"data":{"k":"v"}})";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(economy)

BOOST_AUTO_TEST_CASE(full_pass_and_relist_after_410_write_nothing) {
  // A short history and no bookmarks: a watch resumed after the server closed it starts from
  // the version of the last event of its own kind, which the filler writes push out: 410.
  Cluster cluster({"--history", "40", "--bookmark-interval", "3600", "--close-watches-after", "2"});
  cluster.createPool("econ", {"10.30.0.0/24"});
  for (int i = 0; i < kEconomyServices; ++i) {
    cluster.createService("default", "svc-" + std::to_string(i));
  }
  auto c = cluster.startController({"--kube-api-qps=0"});
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(30000),
                                [&] {
                                  auto st = poolStatusOf(*cluster.api, "econ");
                                  return st && st->assigned_ipv4 == kEconomyServices && idle(*c) &&
                                         events(*cluster.api, "default") >= kEconomyServices;
                                }),
                        "not converged (statuses, pool status, IPAllocated Events):\n" + c->log());
  const double converged = writes(*c);
  BOOST_TEST_REQUIRE(converged > 0.0);  // the statuses were written once

  // A full pass: a new Community changes the configuration, so every Service is reprocessed,
  // and all keep what they hold.
  const double passes = c->metric("ingot_controller_reconciles_total{kind=\"full_pass\"}");
  cluster.create(k8s::resources::kCommunities, "metallb-system",
                 R"({"apiVersion":"metallb.io/v1beta1","kind":"Community","metadata":)"
                 R"({"name":"econ","namespace":"metallb-system"},"spec":{"communities":)"
                 R"([{"name":"no-export","value":"65535:65281"}]}})");
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(20000),
              [&] {
                return c->metric("ingot_controller_reconciles_total{kind=\"full_pass\"}") >
                           passes &&
                       idle(*c);
              }),
      "no full pass after the new Community:\n" + c->log());
  BOOST_TEST(writes(*c) == converged, "the full pass wrote " << writes(*c) - converged);

  // Watch expiry: every informer re-lists (at least the Service, pool, namespace, community and
  // ConfigurationState lists) and finds nothing new.
  const double listed = lists(*c);
  for (int i = 0; i < 60; ++i) {
    cluster.create(k8s::resources::kConfigMaps, "default", configMapJson(i));
  }
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(30000), [&] { return lists(*c) >= listed + 5 && idle(*c); }),
                        "no re-list after the watches expired:\n" + c->log());
  BOOST_TEST(writes(*c) == converged, "the re-list wrote " << writes(*c) - converged);
  stopCleanly(*c);
}

BOOST_AUTO_TEST_SUITE_END()
