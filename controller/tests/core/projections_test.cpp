// SPDX-License-Identifier: Apache-2.0
#include "controller/core/projections.h"

#include <boost/test/unit_test.hpp>

#include "controller/core/service.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

/// dressed adds to a Service everything a real cluster puts there and the controller never
/// reads: foreign annotations and labels' neighbours, owner references, finalizers, port names,
/// target and node ports, a second cluster IP family's defaults.
api::Service dressed(api::Service svc) {
  svc.metadata.uid = "uid-" + svc.metadata.name;
  svc.metadata.resource_version = "41";
  svc.metadata.generation = 3;
  svc.metadata.generate_name = "gen-";
  svc.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  svc.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{\"big\":1}";
  svc.metadata.annotations["example.com/owner"] = "team";
  svc.metadata.owner_references.push_back({"v1", "Pod", "p", "u", true, false});
  svc.metadata.finalizers = {"service.kubernetes.io/load-balancer-cleanup"};
  for (auto& p : svc.spec.ports) {
    p.name = "p" + std::to_string(p.port);
    p.target_port = "8080";
    p.node_port = 30000 + p.port;
  }
  for (auto& i : svc.status.ingress) {
    i.ip_mode = "VIP";
  }
  return svc;
}

/// sameOutcome requires two convergences to decide and write the same.
void sameOutcome(const ServiceOutcome& full, const ServiceOutcome& projected) {
  BOOST_TEST(full.ignored == projected.ignored);
  BOOST_TEST(full.load_balancer == projected.load_balancer);
  BOOST_TEST(full.converged == projected.converged);
  BOOST_TEST(full.ips == projected.ips);
  BOOST_TEST(full.pool == projected.pool);
  BOOST_TEST((full.status == projected.status));
  BOOST_TEST((full.set_annotations == projected.set_annotations));
  BOOST_TEST(full.remove_annotations == projected.remove_annotations);
  BOOST_TEST(full.write == projected.write);
  BOOST_TEST(eventText(full.events) == eventText(projected.events));
  BOOST_TEST(full.reprocess_all == projected.reprocess_all);
}

const std::string kShare = "metallb.io/allow-shared-ip";

/// Each sequence is converged in order, full objects in one allocator and projected ones in
/// another; every step must decide the same.
const std::vector<std::pair<std::string, std::vector<SvcSpec>>> kSequences = {
    {"plain allocations and a held address",
     {{.name = "a"}, {.name = "b", .status = {"192.168.10.3"}}, {.name = "c", .ports = "UDP/53"}}},
    {"sharing: same key and different ports share, a port clash does not",
     {{.name = "a", .annotations = {{kShare, "k"}}, .ports = "TCP/80"},
      {.name = "b", .annotations = {{kShare, "k"}}, .ports = "TCP/443"},
      {.name = "c", .annotations = {{kShare, "k"}}, .ports = "TCP/80"}}},
    {"sharing with Local: the selector is the backend key",
     {{.name = "a", .annotations = {{kShare, "k"}}, .ports = "TCP/80", .etp = "Local"},
      {.name = "b",
       .annotations = {{kShare, "k"}},
       .ports = "TCP/81",
       .etp = "Local",
       .selector = {{"app", "other"}}},
      {.name = "c", .annotations = {{kShare, "k"}}, .ports = "TCP/82", .etp = "Local"}}},
    {"requested pool, requested addresses, legacy annotations",
     {{.name = "a", .annotations = {{"metallb.io/address-pool", "other"}}},
      {.name = "b", .annotations = {{"metallb.io/loadBalancerIPs", "192.168.10.2"}}},
      {.name = "c", .annotations = {{"metallb.universe.tf/address-pool", "other"}}},
      {.name = "d", .load_balancer_ip = "192.168.20.3"}}},
    {"dual stack, classes and types",
     {{.name = "a",
       .cluster_ips = {"10.96.0.10", "fd00::10"},
       .policy = "RequireDualStack",
       .families = {"IPv4", "IPv6"}},
      {.name = "b", .cluster_ips = {"fd00::11"}, .families = {"IPv6"}},
      {.name = "c", .lb_class = "other"},
      {.name = "d", .type = "ClusterIP", .annotations = {{kShare, "x"}}, .status = {"1.1.1.1"}},
      {.name = "e", .labels = {{"tier", "edge"}}}}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(controller_projections)

BOOST_AUTO_TEST_CASE(service_keeps_what_convergence_and_the_writes_read) {
  SvcSpec spec{.annotations = {{"metallb.io/address-pool", "p"},
                               {"metallb.universe.tf/allow-shared-ip", "k"},
                               {"metallb.io/ip-allocated-from-pool", "p"}},
               .labels = {{"tier", "edge"}},
               .status = {"192.168.10.1"},
               .ports = "TCP/80,UDP/53",
               .lb_class = "c"};
  const api::Service full = dressed(makeService(spec));
  api::Service svc = full;
  projectService(svc);
  BOOST_TEST(svc.metadata.name == full.metadata.name);
  BOOST_TEST(svc.metadata.namespace_ == full.metadata.namespace_);
  BOOST_TEST(svc.metadata.uid == "uid-svc");
  BOOST_TEST(svc.metadata.resource_version == "41");
  BOOST_TEST(svc.metadata.generation == 3);
  BOOST_TEST((svc.metadata.labels == full.metadata.labels));
  BOOST_TEST((svc.metadata.annotations == spec.annotations));
  BOOST_TEST(svc.metadata.generate_name.empty());
  BOOST_TEST(svc.metadata.creation_timestamp.empty());
  BOOST_TEST(svc.metadata.owner_references.empty());
  BOOST_TEST(svc.metadata.finalizers.empty());
  // A Cluster Service's selector is no sharing key; ports keep protocol and number only.
  BOOST_TEST(svc.spec.selector.empty());
  BOOST_REQUIRE(svc.spec.ports.size() == 2U);
  BOOST_TEST(svc.spec.ports[1].protocol == "UDP");
  BOOST_TEST(svc.spec.ports[1].port == 53);
  BOOST_TEST(svc.spec.ports[1].name.empty());
  BOOST_TEST(svc.spec.ports[1].target_port.empty());
  BOOST_TEST(svc.spec.ports[1].node_port == 0);
  // Everything else of the spec, and the whole status, is kept.
  api::ServiceSpec want = full.spec;
  want.selector.clear();
  want.ports = svc.spec.ports;
  BOOST_TEST((svc.spec == want));
  BOOST_TEST((svc.status == full.status));
}

BOOST_AUTO_TEST_CASE(a_local_service_keeps_its_selector) {
  api::Service svc = dressed(makeService({.etp = "Local", .selector = {{"app", "web"}}}));
  projectService(svc);
  BOOST_TEST((svc.spec.selector == api::StringMap{{"app", "web"}}));
}

BOOST_AUTO_TEST_CASE(convergence_over_projections_decides_as_over_full_services) {
  const config::Config cfg =
      makeConfig({{"default", {"192.168.10.0/30", "fc00::/126"}}, {"other", {"192.168.20.0/30"}}});
  for (const auto& [desc, specs] : kSequences) {
    BOOST_TEST_CONTEXT(desc) {
      Allocator full_alloc;
      Allocator projected_alloc;
      BOOST_REQUIRE(full_alloc.setPools(cfg.pools).has_value());
      BOOST_REQUIRE(projected_alloc.setPools(cfg.pools).has_value());
      for (const auto& spec : specs) {
        BOOST_TEST_CONTEXT(spec.name) {
          const api::Service full = dressed(makeService(spec));
          api::Service projected = full;
          projectService(projected);
          sameOutcome(convergeService(full_alloc, cfg, full, {}),
                      convergeService(projected_alloc, cfg, projected, {}));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(an_update_of_unread_fields_is_no_change) {
  using Edit = void (*)(api::Service&);
  struct Case {
    std::string desc;
    SvcSpec spec;
    Edit edit;
    bool same;  ///< the projections differ only in resourceVersion
  };
  const std::vector<Case> cases = {
      {"a foreign annotation",
       {},
       [](api::Service& s) { s.metadata.annotations["example.com/owner"] = "other"; },
       true},
      {"the last applied configuration",
       {},
       [](api::Service& s) {
         s.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}";
       },
       true},
      {"a finalizer", {}, [](api::Service& s) { s.metadata.finalizers.clear(); }, true},
      {"a port name and node port",
       {},
       [](api::Service& s) {
         s.spec.ports[0].name = "web";
         s.spec.ports[0].node_port = 31000;
       },
       true},
      {"the selector of a Cluster Service",
       {},
       [](api::Service& s) {
         s.spec.selector = {{"app", "v2"}};
       },
       true},
      {"the selector of a Local Service",
       {.etp = "Local"},
       [](api::Service& s) {
         s.spec.selector = {{"app", "v2"}};
       },
       false},
      {"a MetalLB annotation",
       {},
       [](api::Service& s) { s.metadata.annotations["metallb.io/address-pool"] = "other"; },
       false},
      {"a legacy MetalLB annotation",
       {},
       [](api::Service& s) { s.metadata.annotations["metallb.universe.tf/allow-shared-ip"] = "k"; },
       false},
      {"a label", {}, [](api::Service& s) { s.metadata.labels["tier"] = "edge"; }, false},
      {"a port number", {}, [](api::Service& s) { s.spec.ports[0].port = 81; }, false},
      {"the generation", {}, [](api::Service& s) { ++s.metadata.generation; }, false},
      {"the status",
       {},
       [](api::Service& s) {
         s.status.ingress.push_back({"1.2.3.4", "", {}});
       },
       false},
      {"a status condition",
       {},
       [](api::Service& s) {
         s.status.conditions.push_back({"ingot.dev/Announced", "False", "", "", "", 0});
       },
       false},
      {"the loadBalancerClass",
       {},
       [](api::Service& s) { s.spec.load_balancer_class = "x"; },
       false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      api::Service before = dressed(makeService(c.spec));
      api::Service after = before;
      c.edit(after);
      after.metadata.resource_version = "42";
      projectService(before);
      projectService(after);
      BOOST_TEST(sameProjectedService(before, after) == c.same);
    }
  }
}

BOOST_AUTO_TEST_CASE(endpoint_slice_keeps_owner_node_and_conditions) {
  api::EndpointSlice s;
  s.metadata.name = "web-abc";
  s.metadata.namespace_ = "default";
  s.metadata.resource_version = "7";
  s.metadata.labels = {{"kubernetes.io/service-name", "web"},
                       {"endpointslice.kubernetes.io/managed-by", "x"}};
  s.metadata.annotations = {{"a", "b"}};
  s.address_type = "IPv4";
  s.ports.push_back({"http", "TCP", 80});
  s.endpoints.push_back({{"10.0.0.1", "10.0.0.2"}, {true, true, false}, "node1"});
  s.endpoints.push_back({{}, {false, std::nullopt, true}, std::nullopt});
  projectEndpointSlice(s);
  BOOST_TEST((s.metadata.labels == api::StringMap{{"kubernetes.io/service-name", "web"}}));
  BOOST_TEST(s.metadata.annotations.empty());
  BOOST_TEST(s.metadata.resource_version.empty());
  BOOST_TEST(s.address_type == "IPv4");
  BOOST_TEST(s.ports.empty());
  BOOST_REQUIRE(s.endpoints.size() == 2U);
  BOOST_TEST(s.endpoints[0].addresses == std::vector<std::string>{"10.0.0.1"});
  BOOST_TEST((s.endpoints[0].conditions == api::EndpointConditions{true, true, false}));
  BOOST_TEST((s.endpoints[0].node_name == std::optional<std::string>("node1")));
  BOOST_TEST(s.endpoints[1].addresses.empty());
  BOOST_TEST((s.endpoints[1].conditions == api::EndpointConditions{false, std::nullopt, true}));
}

BOOST_AUTO_TEST_CASE(node_pod_namespace_and_status_objects) {
  api::Node n;
  n.metadata.name = "node1";
  n.metadata.labels = {{"zone", "a"}};
  n.metadata.annotations = {{"node.alpha.kubernetes.io/ttl", "0"}};
  n.unschedulable = true;
  n.addresses.push_back({"InternalIP", "10.0.0.1"});
  n.conditions.push_back({"NetworkUnavailable", "False", "RouteCreated", "routes created"});
  projectNode(n);
  BOOST_TEST((n.metadata.labels == api::StringMap{{"zone", "a"}}));
  BOOST_TEST(n.metadata.annotations.empty());
  BOOST_TEST(n.addresses.empty());
  BOOST_TEST(
      (n.conditions == std::vector<api::NodeCondition>{{"NetworkUnavailable", "False", "", ""}}));

  api::Pod p;
  p.metadata.name = "speaker-x";
  p.metadata.labels = {{"app", "speaker"}};
  p.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  p.node_name = "node1";
  p.ready = true;
  p.phase = "Running";
  p.pod_ips = {"10.1.0.1"};
  projectPod(p);
  BOOST_TEST(p.metadata.labels.empty());
  BOOST_TEST((p.metadata.deletion_timestamp == std::optional<std::string>("2026-01-01T00:00:00Z")));
  BOOST_TEST(p.node_name == "node1");
  BOOST_TEST(p.ready);
  BOOST_TEST(p.phase.empty());
  BOOST_TEST(p.pod_ips.empty());

  api::Namespace ns;
  ns.metadata.name = "team";
  ns.metadata.labels = {{"env", "prod"}};
  ns.metadata.annotations = {{"a", "b"}};
  projectNamespace(ns);
  BOOST_TEST((ns.metadata.labels == api::StringMap{{"env", "prod"}}));
  BOOST_TEST(ns.metadata.annotations.empty());

  api::ServiceBGPStatus bgp;
  bgp.metadata.name = "s1";
  bgp.metadata.uid = "u1";
  bgp.metadata.resource_version = "9";
  bgp.metadata.labels = {{"metallb.io/node", "node1"}};
  bgp.status = {"node1", "web", "default", {"peer1", "peer2"}};
  projectServiceBGPStatus(bgp);
  BOOST_TEST((bgp.status == api::ServiceBGPStatusStatus{"node1", "web", "default", {}}));
  BOOST_TEST(bgp.metadata.labels.empty());
  BOOST_TEST(bgp.metadata.name == "s1");
  BOOST_TEST(bgp.metadata.uid.empty());
  BOOST_TEST(bgp.metadata.resource_version.empty());

  api::ServiceL2Status l2;
  l2.status = {"node1", "web", "default", {"eth0"}};
  projectServiceL2Status(l2);
  BOOST_TEST((l2.status == api::ServiceL2StatusStatus{"node1", "web", "default", {}}));
}

BOOST_AUTO_TEST_SUITE_END()
