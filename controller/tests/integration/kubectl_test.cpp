// SPDX-License-Identifier: Apache-2.0
// The user's path: kubectl apply of a pool and Services; the controller writes status,
// the ip-allocated-from-pool annotation, Events, pool status, ConfigurationState and metrics.
#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr const char* kManifest = R"(apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: pool-a
  namespace: metallb-system
spec:
  addresses: ["192.168.10.10-192.168.10.13"]
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  type: LoadBalancer
  ports: [{port: 80}]
  selector: {app: web}
---
apiVersion: v1
kind: Service
metadata:
  name: fixed
  namespace: default
  annotations:
    metallb.io/loadBalancerIPs: 192.168.10.13
spec:
  type: LoadBalancer
  ports: [{port: 443}]
  selector: {app: fixed}
---
apiVersion: v1
kind: Service
metadata:
  name: internal
  namespace: default
spec:
  ports: [{port: 80}]
  selector: {app: internal}
---
apiVersion: v1
kind: Service
metadata:
  name: foreign
  namespace: default
spec:
  type: LoadBalancer
  loadBalancerClass: example.com/other
  ports: [{port: 80}]
  selector: {app: foreign}
)";

/// moreServices are three more LoadBalancer Services, applied once the first ones hold addresses.
std::string moreServices() {
  std::string out;
  for (const char* name : {"s1", "s2", "s3"}) {
    out += std::string(out.empty() ? "" : "---\n") +
           "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  type: LoadBalancer\n  ports: [{port: 80}]\n";
  }
  return out;
}

bool hasEvent(const std::vector<std::string>& events, const std::string& text) {
  return std::find(events.begin(), events.end(), text) != events.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kubectl)

BOOST_AUTO_TEST_CASE(
    kubectl_applied_pool_and_services_get_status_annotation_events_and_pool_status) {
  Cluster cluster;
  auto controller = cluster.startController();
  BOOST_REQUIRE(writeWholeFile(cluster.server->dir() + "/m.yaml", kManifest).has_value());
  cluster.kubectlOk("apply -f " + cluster.server->dir() + "/m.yaml");

  struct Case {
    std::string desc;
    std::string key;
    std::vector<std::string> ips;
    std::string pool;  ///< expected annotation, "" = absent
  };
  const std::vector<Case> cases = {
      {"automatic allocation takes the lowest address", "default/web", {"192.168.10.10"}, "pool-a"},
      {"requested address is honoured", "default/fixed", {"192.168.10.13"}, "pool-a"},
      {"ClusterIP service is left alone", "default/internal", {}, ""},
      {"service of another class is ignored", "default/foreign", {}, ""},
  };
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(15000),
                                [&] {
                                  auto s = cluster.services();
                                  return ingressIps(s["default/web"]).size() == 1 &&
                                         ingressIps(s["default/fixed"]).size() == 1;
                                }),
                        controller->log());
  auto services = cluster.services();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto& svc = services.at(c.key);
      BOOST_TEST(ingressIps(svc) == c.ips, boost::test_tools::per_element());
      const auto& ann = svc.metadata.annotations;
      const auto it = ann.find("metallb.io/ip-allocated-from-pool");
      BOOST_TEST((it == ann.end() ? std::string() : it->second) == c.pool);
    }
  }

  // Events are sent by the recorder's own thread, so they may land after the status write.
  BOOST_TEST(waitFor(Millis(5000), [&] {
    auto ev = eventsFor(*cluster.api, "default", "web");
    return ev &&
           hasEvent(*ev, "Normal IPAllocated metallb-controller: Assigned IP [\"192.168.10.10\"]");
  }));
  auto foreign_events = eventsFor(*cluster.api, "default", "foreign");
  BOOST_REQUIRE(foreign_events.has_value());
  BOOST_TEST(foreign_events->empty());

  BOOST_TEST(waitFor(Millis(5000), [&] {
    auto st = poolStatusOf(*cluster.api, "pool-a");
    return st && st->assigned_ipv4 == 2 && st->available_ipv4 == 2;
  }));
  BOOST_TEST(waitFor(Millis(5000), [&] {
    auto st = configurationState(*cluster.api);
    return st && st->status.result == "Valid";
  }));
  auto state = configurationState(*cluster.api);
  BOOST_REQUIRE_MESSAGE(state.has_value(), why(state));
  BOOST_TEST(state->status.result == "Valid");
  BOOST_TEST(state->metadata.labels["metallb.io/component-type"] == "controller");
  BOOST_REQUIRE(state->status.conditions.size() == 1u);
  BOOST_TEST(state->status.conditions[0].type == "poolReconcilerValid");
  BOOST_TEST(state->status.conditions[0].status == "True");
  BOOST_TEST(controller->metric("metallb_allocator_addresses_in_use_total{pool=\"pool-a\"}") ==
             2.0);
  BOOST_TEST(controller->metric("metallb_k8s_client_config_loaded_bool") == 1.0);
  BOOST_TEST(controller->buildInfo() == 1.0);

  // Exhaust the pool: two more fit, the third fails loudly; deleting one makes room for it.
  BOOST_REQUIRE(writeWholeFile(cluster.server->dir() + "/more.yaml", moreServices()).has_value());
  cluster.kubectlOk("apply -f " + cluster.server->dir() + "/more.yaml");
  BOOST_REQUIRE(waitFor(Millis(10000), [&] {
    auto ev = eventsFor(*cluster.api, "default", "s3");
    return ev && hasEvent(*ev,
                          "Warning AllocationFailed metallb-controller: Failed to allocate IP for "
                          "\"default/s3\": no available IPs");
  }));
  BOOST_TEST(cluster.services()["default/s3"].status.ingress.empty());
  cluster.kubectlOk("delete service web");
  BOOST_TEST_MESSAGE("a deleted service frees its address and pending ones are reprocessed");
  BOOST_TEST(waitFor(Millis(10000), [&] {
    return ingressIps(cluster.services()["default/s3"]) ==
           std::vector<std::string>{"192.168.10.10"};
  }));
  BOOST_TEST(waitFor(Millis(5000), [&] {
    auto st = poolStatusOf(*cluster.api, "pool-a");
    return st && st->assigned_ipv4 == 4 && st->available_ipv4 == 0;
  }));
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_SUITE_END()
