// SPDX-License-Identifier: Apache-2.0
// An invalid configuration is reported (ConfigurationState Invalid, stale metric) and never
// replaces the last good one: Services keep their addresses and new ones still get addresses.
#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr const char* kOverlappingPool = R"(apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: bad
  namespace: metallb-system
spec:
  addresses: ["192.168.20.8/29"]
)";

std::string heldBy(Cluster& cluster, const std::string& key) {
  const auto ips = ingressIps(cluster.services()[key]);
  return ips.size() == 1 ? ips[0] : std::string();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(configuration)

BOOST_AUTO_TEST_CASE(invalid_pool_reports_invalid_state_and_services_keep_their_addresses) {
  Cluster cluster;
  cluster.createPool("good", {"192.168.20.0/28"});
  for (const char* name : {"a", "b", "c"}) cluster.createService("default", name);
  auto controller = cluster.startController();
  BOOST_REQUIRE(waitFor(Millis(10000), [&] { return !heldBy(cluster, "default/c").empty(); }));
  const auto before = cluster.services();

  BOOST_REQUIRE(writeWholeFile(cluster.server->dir() + "/bad.yaml", kOverlappingPool).has_value());
  cluster.kubectlOk("apply -f " + cluster.server->dir() + "/bad.yaml");
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(10000),
                                [&] {
                                  auto st = configurationState(*cluster.api);
                                  return st && st->status.result == "Invalid";
                                }),
                        controller->log());
  auto state = configurationState(*cluster.api);
  BOOST_REQUIRE(state.has_value());
  BOOST_TEST(state->status.error_summary.find("overlaps") != std::string::npos,
             state->status.error_summary);
  BOOST_TEST(state->status.error_summary.rfind("configuration error: ", 0) == 0u);
  BOOST_REQUIRE(state->status.conditions.size() == 1u);
  BOOST_TEST(state->status.conditions[0].status == "False");
  BOOST_TEST(state->status.conditions[0].reason == "ConfigurationError");
  BOOST_TEST(controller->metric("metallb_k8s_client_config_stale_bool") == 1.0);

  // Existing services are untouched; a new one is served from the last good configuration.
  cluster.createService("default", "d");
  BOOST_REQUIRE(waitFor(Millis(10000), [&] { return !heldBy(cluster, "default/d").empty(); }));
  auto after = cluster.services();
  for (const char* key : {"default/a", "default/b", "default/c"}) {
    BOOST_TEST_CONTEXT(key) {
      BOOST_TEST(ingressIps(after[key]) == ingressIps(before.at(key)),
                 boost::test_tools::per_element());
      BOOST_TEST(after[key].metadata.resource_version == before.at(key).metadata.resource_version);
    }
  }
  BOOST_TEST(heldBy(cluster, "default/d") == "192.168.20.3");

  cluster.kubectlOk("-n metallb-system delete ipaddresspool bad");
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto st = configurationState(*cluster.api);
    return st && st->status.result == "Valid" && st->status.error_summary.empty();
  }));
  BOOST_TEST(waitFor(Millis(5000), [&] {
    return controller->metric("metallb_k8s_client_config_stale_bool") == 0.0;
  }));
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_CASE(deleted_configuration_state_is_recreated) {
  Cluster cluster;
  cluster.createPool("good", {"192.168.30.0/28"});
  auto controller = cluster.startController();
  BOOST_REQUIRE(
      waitFor(Millis(10000), [&] { return configurationState(*cluster.api).has_value(); }));
  cluster.kubectlOk("-n metallb-system delete configurationstate controller");
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto st = configurationState(*cluster.api);
    return st && st->status.result == "Valid";
  }));
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_SUITE_END()
