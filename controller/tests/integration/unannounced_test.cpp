// SPDX-License-Identifier: Apache-2.0
// The unannounced check against the test API server: a Service whose only node is excluded from
// load balancers gets, after the grace period, a Warning Event naming the reason per node, the
// condition ingot.dev/Announced False and ingot_services_unannounced 1; all three clear once an
// agent reports announcing it (a ServiceL2Status). A Service an agent reports from the start is
// never reported, and a Service that loses its address loses the condition in the same write.
#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr const char* kL2Advertisement = R"({"apiVersion":"metallb.io/v1beta1",
  "kind":"L2Advertisement","metadata":{"name":"l2","namespace":"metallb-system"},
  "spec":{"ipAddressPools":["l2"]}})";

constexpr const char* kExcludedNode = R"({"apiVersion":"v1","kind":"Node","metadata":{
  "name":"node1","labels":{"node.kubernetes.io/exclude-from-external-load-balancers":""}}})";

std::string sliceJson(const std::string& service) {
  return R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":")" +
         service + R"(-1","namespace":"default","labels":{"kubernetes.io/service-name":")" +
         service + R"("}},"addressType":"IPv4","endpoints":[{"addresses":["10.1.0.2"],)" +
         R"("nodeName":"node1","conditions":{"ready":true}}]})";
}

/// reportAnnounced creates a ServiceL2Status saying node1 announces default/<service>.
void reportAnnounced(Cluster& cluster, const std::string& service) {
  const std::string name = "l2-" + service;
  cluster.create(k8s::resources::kServiceL2Statuses, "metallb-system",
                 R"({"apiVersion":"metallb.io/v1beta1","kind":"ServiceL2Status","metadata":{)"
                 R"("name":")" +
                     name + R"(","namespace":"metallb-system"}})");
  const std::string status = R"({"status":{"node":"node1","serviceName":")" + service +
                             R"(","serviceNamespace":"default"}})";
  auto r = cluster.api->patchStatus(k8s::resources::kServiceL2Statuses, "metallb-system", name,
                                    k8s::PatchType::Merge, status);
  BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
}

std::optional<api::Condition> announcedOf(Cluster& cluster, const std::string& key) {
  const auto svc = cluster.services()[key];
  for (const auto& c : svc.status.conditions) {
    if (c.type == "ingot.dev/Announced") return c;
  }
  return std::nullopt;
}

bool hasEvent(Cluster& cluster, const std::string& name, const std::string& line) {
  auto events = eventsFor(*cluster.api, "default", name);
  return events && std::find(events->begin(), events->end(), line) != events->end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(unannounced)

BOOST_AUTO_TEST_CASE(reported_after_grace_and_cleared_when_an_agent_announces) {
  Cluster cluster;
  cluster.createPool("l2", {"192.168.30.0/28"});
  cluster.create(k8s::resources::kL2Advertisements, "metallb-system", kL2Advertisement);
  cluster.create(k8s::resources::kNodes, "", kExcludedNode);
  for (const char* name : {"web", "db"}) {
    cluster.create(k8s::resources::kEndpointSlices, "default", sliceJson(name));
  }
  reportAnnounced(cluster, "db");  // an agent reports db before it even has an address
  cluster.createService("default", "web");
  cluster.createService("default", "db");
  auto controller = cluster.startController({"--unannounced-grace-seconds", "2"});

  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(20000), [&] { return announcedOf(cluster, "default/web").has_value(); }),
      controller->log());
  const auto ips = ingressIps(cluster.services()["default/web"]);
  BOOST_REQUIRE(ips.size() == 1U);
  const std::string message = "no node announces " + ips[0] +
                              ": node1: excluded by "
                              "node.kubernetes.io/exclude-from-external-load-balancers";
  const auto condition = announcedOf(cluster, "default/web");
  BOOST_TEST(condition->status == "False");
  BOOST_TEST(condition->reason == "NoAnnouncingNode");
  BOOST_TEST(condition->message == message);
  BOOST_TEST(!condition->last_transition_time.empty());
  BOOST_TEST(waitFor(Millis(10000), [&] {
    return hasEvent(cluster, "web", "Warning NotAnnounced metallb-controller: " + message);
  }));
  BOOST_TEST(waitFor(Millis(10000),
                     [&] { return controller->metric("ingot_services_unannounced") == 1.0; }));
  // db, which an agent reported all along, has an address and was never reported.
  BOOST_TEST(ingressIps(cluster.services()["default/db"]).size() == 1U);
  BOOST_TEST(!announcedOf(cluster, "default/db").has_value());

  reportAnnounced(cluster, "web");
  BOOST_TEST(
      waitFor(Millis(10000), [&] { return !announcedOf(cluster, "default/web").has_value(); }),
      controller->log());
  BOOST_TEST(waitFor(Millis(10000),
                     [&] { return controller->metric("ingot_services_unannounced") == 0.0; }));
  BOOST_TEST(waitFor(Millis(10000), [&] {
    return hasEvent(cluster, "web",
                    "Normal Announced metallb-controller: " + ips[0] + " is announced again");
  }));
  BOOST_TEST(!hasEvent(cluster, "db",
                       "Warning NotAnnounced metallb-controller: no node announces " +
                           ingressIps(cluster.services()["default/db"])[0] +
                           ": node1: excluded by "
                           "node.kubernetes.io/exclude-from-external-load-balancers"));
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_CASE(losing_the_address_removes_the_condition_in_the_same_write) {
  Cluster cluster;
  cluster.createPool("l2", {"192.168.31.0/28"});
  cluster.create(k8s::resources::kL2Advertisements, "metallb-system", kL2Advertisement);
  cluster.create(k8s::resources::kNodes, "", kExcludedNode);
  cluster.create(k8s::resources::kEndpointSlices, "default", sliceJson("web"));
  cluster.createService("default", "web");
  auto controller = cluster.startController({"--unannounced-grace-seconds", "1"});
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(20000), [&] { return announcedOf(cluster, "default/web").has_value(); }),
      controller->log());
  // The pool goes away: the controller clears the address and, with it, the condition.
  cluster.kubectlOk("-n metallb-system delete ipaddresspool l2");
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(20000),
                                [&] {
                                  const auto svc = cluster.services()["default/web"];
                                  return svc.status.ingress.empty();
                                }),
                        controller->log());
  BOOST_TEST(!announcedOf(cluster, "default/web").has_value());
  BOOST_TEST(waitFor(Millis(10000),
                     [&] { return controller->metric("ingot_services_unannounced") == 0.0; }));
  stopCleanly(*controller);
}

BOOST_AUTO_TEST_SUITE_END()
