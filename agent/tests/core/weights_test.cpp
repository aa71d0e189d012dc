// SPDX-License-Identifier: Apache-2.0
#include "agent/core/weights.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/announce.h"
#include "agent/tests/core/endpoint_fixtures.h"

namespace api = ingot::api;
namespace config = ingot::config;
namespace net = ingot::net;
using ingot::agent::endpointBandwidth;
using ingot::agent::readyLocalEndpoints;
using ingot::agent::weightOptIn;
using ingot::agent::WeightOptIn;

using ingot::agent::testing::endpointOn;
using ingot::agent::testing::serviceSlice;

namespace {

api::Service service(const std::string& etp, std::optional<std::string> annotation) {
  api::Service s;
  s.metadata.name = "web";
  s.metadata.namespace_ = "default";
  if (annotation) {
    s.metadata.annotations = {{"ingot.dev/weighted-ecmp", *annotation}};
  }
  s.spec.type = "LoadBalancer";
  s.spec.external_traffic_policy = etp;
  s.status.ingress = {api::LoadBalancerIngress{"192.168.10.5", "", std::nullopt}};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(weights)

BOOST_AUTO_TEST_CASE(ready_local_endpoints_follow_the_bgp_serving_rule) {
  struct Case {
    std::string desc;
    std::vector<api::EndpointSlice> slices;
    uint32_t node1;
    uint32_t node2;
  };
  const std::vector<Case> cases = {
      {"no slices", {}, 0, 0},
      {"three ready on node1, one on node2",
       {serviceSlice("web",
                     {endpointOn("10.0.1.1", "node1", true), endpointOn("10.0.1.2", "node1", true),
                      endpointOn("10.0.1.3", "node1", true), endpointOn("10.0.2.1", "node2", true)},
                     "a")},
       3,
       1},
      {"ready unset counts",
       {serviceSlice("web", {endpointOn("10.0.1.1", "node1", std::nullopt)}, "a")},
       1,
       0},
      {"not ready but serving (terminating) counts",
       {serviceSlice("web", {endpointOn("10.0.1.1", "node1", false, true)}, "a")},
       1,
       0},
      {"not ready and not serving does not count",
       {serviceSlice(
           "web",
           {endpointOn("10.0.1.1", "node1", false, false), endpointOn("10.0.1.2", "node1", false)},
           "a")},
       0,
       0},
      {"an endpoint without an address does not count",
       {serviceSlice("web", {endpointOn("", "node1", true), endpointOn("10.0.1.2", "node1", true)},
                     "a")},
       1,
       0},
      {"endpoints spread over slices add up",
       {serviceSlice("web", {endpointOn("10.0.1.1", "node1", true)}, "a"),
        serviceSlice("web", {endpointOn("10.0.1.2", "node1", true)}, "b"),
        serviceSlice("web",
                     {endpointOn("10.0.2.1", "node2", true), endpointOn("10.0.2.2", "node2", true)},
                     "c")},
       2,
       2},
      {"an address listed twice across slices counts once",
       {serviceSlice("web", {endpointOn("10.0.1.1", "node1", true)}, "a"),
        serviceSlice("web", {endpointOn("10.0.1.1", "node1", true)}, "b")},
       1,
       0},
      {"a serving copy of an address listed unready elsewhere counts",
       {serviceSlice("web", {endpointOn("10.0.1.1", "node1", false)}, "a"),
        serviceSlice("web", {endpointOn("10.0.1.1", "node1", true)}, "b")},
       1,
       0},
      {"an endpoint without a node counts nowhere",
       {serviceSlice("web", {endpointOn("10.0.1.1", "", true)}, "a")},
       0,
       0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(readyLocalEndpoints(c.slices, "node1") == c.node1);
      BOOST_TEST(readyLocalEndpoints(c.slices, "node2") == c.node2);
    }
  }
}

BOOST_AUTO_TEST_CASE(annotation_overrides_the_cluster_default) {
  struct Case {
    std::string desc;
    std::optional<std::string> annotation;
    bool cluster_default;
    WeightOptIn want;
  };
  const std::vector<Case> cases = {
      {"no annotation, default off", std::nullopt, false, WeightOptIn::Off},
      {"no annotation, default on", std::nullopt, true, WeightOptIn::On},
      {"true, default off", "true", false, WeightOptIn::On},
      {"false, default on", "false", true, WeightOptIn::Off},
      {"unparsable", "yes", false, WeightOptIn::BadAnnotation},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const api::Service s = service("Local", c.annotation);
      BOOST_TEST(static_cast<int>(weightOptIn(s, c.cluster_default)) == static_cast<int>(c.want));
      BOOST_TEST(ingot::agent::weightedEcmp(s, c.cluster_default) ==
                 (c.want == WeightOptIn::On ||
                  (c.want == WeightOptIn::BadAnnotation && c.cluster_default)));
    }
  }
}

BOOST_AUTO_TEST_CASE(bandwidth_is_the_local_count_for_weighted_local_services_only) {
  std::vector<api::Endpoint> many;
  many.reserve(25601);
  for (int i = 0; i < 25601; ++i) {
    many.push_back(endpointOn("10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250),
                              "node1", true));
  }
  const std::vector<api::EndpointSlice> three_one = {
      serviceSlice("web",
                   {endpointOn("10.0.1.1", "node1", true), endpointOn("10.0.1.2", "node1", true),
                    endpointOn("10.0.1.3", "node1", true), endpointOn("10.0.2.1", "node2", true)},
                   "a")};
  struct Case {
    std::string desc;
    std::string etp;
    std::optional<std::string> annotation;
    bool cluster_default;
    std::vector<api::EndpointSlice> slices;
    uint32_t want;
  };
  const std::vector<Case> cases = {
      {"opted in by annotation", "Local", "true", false, three_one, 3},
      {"opted in by the flag", "Local", std::nullopt, true, three_one, 3},
      {"not opted in", "Local", std::nullopt, false, three_one, 0},
      {"opted out over the flag", "Local", "false", true, three_one, 0},
      {"cluster policy gets equal weights (no community)", "Cluster", "true", true, three_one, 0},
      {"capped at FRR's maximum", "Local", "true", false, {serviceSlice("web", many, "a")}, 25600},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const api::Service s = service(c.etp, c.annotation);
      BOOST_TEST(endpointBandwidth(s, c.slices, "node1", c.cluster_default) == c.want);
    }
  }
}

// The announce decision attaches the bandwidth to every prefix of the Service, and each node of a
// two-node cluster announces its own count (3:1, then 1:1, 0:1 and 2:3 as the endpoints change).
BOOST_AUTO_TEST_CASE(decide_bgp_attaches_each_nodes_count) {
  config::Config cfg;
  config::Pool pool;
  pool.name = "pool-a";
  pool.cidrs = {*net::Cidr::parse("192.168.10.0/24")};
  cfg.pools = {{"pool-a", pool}};
  config::Peer tor;
  tor.name = "tor";
  tor.my_asn = 64512;
  tor.peer_asn = 64500;
  tor.address = *net::IpAddress::parse("10.0.0.1");
  tor.nodes = {"node1", "node2"};
  cfg.peers = {{"tor", tor}};
  config::BgpAdvertisement ad;
  ad.name = "ad";
  ad.pools = {"pool-a"};
  ad.nodes = {"node1", "node2"};
  cfg.bgp_advertisements = {ad};
  ingot::agent::AnnounceOptions options;
  const api::Service svc = service("Local", "true");

  auto slices = [](int n1, int n2) {
    std::vector<api::Endpoint> eps;
    eps.reserve(static_cast<size_t>(n1) + static_cast<size_t>(n2));
    for (int i = 0; i < n1; ++i) {
      eps.push_back(endpointOn("10.0.1." + std::to_string(i + 1), "node1", true));
    }
    for (int i = 0; i < n2; ++i) {
      eps.push_back(endpointOn("10.0.2." + std::to_string(i + 1), "node2", true));
    }
    return std::vector<api::EndpointSlice>{serviceSlice("web", eps, "a")};
  };
  // want: the bandwidth node1 and node2 announce, -1 = not announced.
  struct Case {
    int n1;
    int n2;
    int want1;
    int want2;
  };
  const std::vector<Case> cases = {{3, 1, 3, 1}, {1, 1, 1, 1}, {0, 1, -1, 1}, {2, 3, 2, 3}};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.n1 << ":" << c.n2) {
      const auto eps = slices(c.n1, c.n2);
      for (const auto& [node, want] : {std::pair{"node1", c.want1}, std::pair{"node2", c.want2}}) {
        const auto d = ingot::agent::decideBgp(cfg, node, nullptr, svc, eps, options);
        if (want < 0) {
          BOOST_TEST(!d.announced());
          continue;
        }
        BOOST_TEST_REQUIRE(d.announcements.size() == 1U);
        BOOST_TEST(d.announcements[0].bandwidth == static_cast<uint32_t>(want));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
