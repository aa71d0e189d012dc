// SPDX-License-Identifier: Apache-2.0
#include "controller/core/service.h"

#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "controller/core/service_info.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

config::Config convergenceConfig() {
  return makeConfig({{"default", {"192.168.10.0/30", "fc00::/126"}},
                     {"other", {"192.168.20.0/30"}},
                     {"manual", {"192.168.30.0/30"}, false},
                     {"v4only", {"192.168.40.0/32"}, false}});
}

const std::string kPool = "metallb.io/ip-allocated-from-pool";
const std::string kLegacyPool = "metallb.universe.tf/ip-allocated-from-pool";
const std::vector<std::string> kDualClusterIps = {"10.96.0.10", "fd00::10"};

struct Case {
  std::string desc;
  SvcSpec svc;
  std::vector<std::string> want_ips = {};
  std::string want_pool = {};
  std::vector<std::string> want_events = {};
  bool want_write = true;
  bool want_converged = true;
  std::vector<SvcSpec> others = {};  ///< converged first, in order
  Options options = {};
  std::map<std::string, std::string> want_set = {};  ///< checked when want_check_annotations
  std::vector<std::string> want_remove = {};
  bool want_check_annotations = false;
};

/// ipv4First returns addresses in the allocator's storage order.
std::vector<std::string> ipv4First(const std::vector<std::string>& texts) {
  std::vector<net::IpAddress> ips;
  ips.reserve(texts.size());
  for (const auto& t : texts) {
    ips.push_back(*net::IpAddress::parse(t));
  }
  std::sort(ips.begin(), ips.end());
  return ipStrings(ips);
}

void runCases(const std::vector<Case>& cases, const config::Config& cfg) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Allocator a;
      BOOST_REQUIRE(a.setPools(cfg.pools).has_value());
      for (const auto& o : c.others) {
        BOOST_REQUIRE(convergeService(a, cfg, makeService(o), {}).converged);
      }
      const auto out = convergeService(a, cfg, makeService(c.svc), c.options);
      BOOST_TEST(out.ips == c.want_ips);
      BOOST_TEST(out.pool == c.want_pool);
      BOOST_TEST(eventText(out.events) == c.want_events);
      BOOST_TEST(out.write == c.want_write);
      BOOST_TEST(out.converged == c.want_converged);
      // The allocator holds the addresses of the desired status (it stores them IPv4 first;
      // the status order is the convergence's).
      const std::string key = c.svc.ns + "/" + c.svc.name;
      if (out.converged && !out.ignored) {
        BOOST_TEST(heldBy(a, key) == ipv4First(c.want_ips));
      }
      if (c.want_check_annotations) {
        BOOST_TEST((out.set_annotations == c.want_set));
        BOOST_TEST(out.remove_annotations == c.want_remove);
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(service_convergence)

BOOST_AUTO_TEST_CASE(which_services_are_handled) {
  const std::vector<Case> cases = {
      {.desc = "a new LoadBalancer service gets the lowest address of the first pool",
       .svc = {},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"},
       .want_set = {{kPool, "default"}},
       .want_check_annotations = true},
      {.desc = "a held address is kept without events or writes",
       .svc = {.annotations = {{kPool, "default"}}, .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_pool = "default",
       .want_write = false},
      {.desc = "a held address without the pool annotation only gets the annotation",
       .svc = {.status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_pool = "default",
       .want_set = {{kPool, "default"}},
       .want_check_annotations = true},
      {.desc = "a ClusterIP service is cleared",
       .svc = {.type = "ClusterIP",
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.2"}},
       .want_remove = {kPool},
       .want_check_annotations = true},
      {.desc = "a ClusterIP service with nothing to clear is not written",
       .svc = {.type = "ClusterIP"},
       .want_write = false},
      {.desc = "a service of another loadBalancerClass is ignored",
       .svc = {.status = {"1.1.1.1"}, .lb_class = "other"},
       .want_write = false},
      {.desc = "with --lb-class, a service without class is ignored",
       .svc = {},
       .want_write = false,
       .options = {"mine"}},
      {.desc = "with --lb-class, a service of that class is handled",
       .svc = {.lb_class = "mine"},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"},
       .options = {"mine"}},
      {.desc = "a service without clusterIP is cleared without an event",
       .svc = {.cluster_ips = {}, .status = {"192.168.10.2"}},
       .want_converged = false},
      {.desc = "RequireDualStack with one clusterIP is refused and cleared",
       .svc = {.policy = "RequireDualStack", .status = {"192.168.10.2"}},
       .want_events = {"Warning not enough clusterips: Service requires dual stack but not "
                       "enough clusterips [10.96.0.10]"},
       .want_converged = false},
  };
  runCases(cases, convergenceConfig());
}

BOOST_AUTO_TEST_CASE(held_addresses_are_rechecked_against_the_config) {
  const std::vector<Case> cases = {
      {.desc = "an address in no pool is cleared and a new one allocated",
       .svc = {.status = {"9.9.9.9"}},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events =
           {"Normal ClearAssignment: current IP for \"default/svc\" not allowed by config, will "
            "attempt for new IP assignment: [\"9.9.9.9\"] is not allowed in config",
            "Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"}},
      {.desc = "an address of the wrong family is dropped silently",
       .svc = {.status = {"fc00::1"}},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"}},
      {.desc = "an unparsable status address is reported and replaced",
       .svc = {.status = {"garbage"}},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Warning nolbIPsIPFamily: Failed to retrieve LBIPs IPFamily for "
                       "[\"garbage\"]: IPFamilyForAddresses: Invalid address [\"garbage\"]",
                       "Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"}},
      {.desc = "clusterIPs of one family twice are reported",
       .svc = {.cluster_ips = {"10.96.0.10", "10.96.0.11"}, .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_events = {"Warning noclusterIPsIPFamily: Failed to retrieve ClusterIPs IPFamily for "
                       "[\"10.96.0.10\" \"10.96.0.11\"] 10.96.0.10: IPFamilyForAddresses: same "
                       "address family [\"10.96.0.10\" \"10.96.0.11\"]"},
       .want_write = false,
       .want_converged = false},
      {.desc = "another service now holding the address without sharing forces a move",
       .svc = {.status = {"192.168.10.1"}},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events =
           {"Normal ClearAssignment: current IP for \"default/svc\" not allowed by config, will "
            "attempt for new IP assignment: can't change sharing key for \"default/svc\", "
            "address also in use by default/a",
            "Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"},
       .others = {{.name = "a", .load_balancer_ip = "192.168.10.1"}}},
      {.desc = "a different address-pool annotation moves the service",
       .svc = {.annotations = {{kPool, "default"}, {"metallb.io/address-pool", "other"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.20.0"},
       .want_pool = "other",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.20.0\"]"}},
      {.desc = "a different requested address moves the service",
       .svc = {.annotations = {{kPool, "default"}, {"metallb.io/loadBalancerIPs", "192.168.20.3"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.20.3"},
       .want_pool = "other",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.20.3\"]"}},
      {.desc = "invalid requested addresses stop convergence and keep the held address",
       .svc = {.annotations = {{kPool, "default"}, {"metallb.io/loadBalancerIPs", "nope"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_pool = "default",
       .want_events = {"Warning LoadBalancerFailed: invalid requested loadbalancer IPs: invalid "
                       "metallb.io/loadBalancerIPs: \"nope\""},
       .want_write = false,
       .want_converged = false},
      {.desc = "a legacy ip-allocated-from-pool annotation is replaced by the new one",
       .svc = {.annotations = {{kLegacyPool, "default"}}, .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_pool = "default",
       .want_events = {"Warning deprecatedAnnotation: Service uses deprecated annotation " +
                       kLegacyPool},
       .want_set = {{kPool, "default"}},
       .want_remove = {kLegacyPool},
       .want_check_annotations = true},
  };
  runCases(cases, convergenceConfig());
}

BOOST_AUTO_TEST_CASE(requested_pools_and_addresses) {
  const std::vector<Case> cases = {
      {.desc = "the address-pool annotation picks a manual pool",
       .svc = {.annotations = {{"metallb.io/address-pool", "manual"}}},
       .want_ips = {"192.168.30.0"},
       .want_pool = "manual",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.30.0\"]"}},
      {.desc = "the legacy address-pool annotation still works, with a warning",
       .svc = {.annotations = {{"metallb.universe.tf/address-pool", "other"}}},
       .want_ips = {"192.168.20.0"},
       .want_pool = "other",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.20.0\"]",
                       "Warning deprecatedAnnotation: Service uses deprecated annotation "
                       "metallb.universe.tf/address-pool"}},
      {.desc = "the new annotation wins over the legacy one",
       .svc = {.annotations = {{"metallb.io/address-pool", "manual"},
                               {"metallb.universe.tf/address-pool", "other"}}},
       .want_ips = {"192.168.30.0"},
       .want_pool = "manual",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.30.0\"]",
                       "Warning deprecatedAnnotation: Service uses deprecated annotation "
                       "metallb.universe.tf/address-pool"}},
      {.desc = "an unknown requested pool",
       .svc = {.annotations = {{"metallb.io/address-pool", "nope"}}},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "unknown pool \"nope\""},
       .want_write = false,
       .want_converged = false},
      {.desc = "an exhausted requested pool",
       .svc = {.annotations = {{"metallb.io/address-pool", "v4only"}}},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": no "
                       "available IPs in pool v4only for ipv4 IPFamily"},
       .want_write = false,
       .want_converged = false,
       .others = {{.name = "a", .annotations = {{"metallb.io/address-pool", "v4only"}}}}},
      {.desc = "the loadBalancerIPs annotation",
       .svc = {.annotations = {{"metallb.io/loadBalancerIPs", "192.168.20.3"}}},
       .want_ips = {"192.168.20.3"},
       .want_pool = "other",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.20.3\"]"}},
      {.desc = "spec.loadBalancerIP bypasses autoAssign",
       .svc = {.load_balancer_ip = "192.168.30.2"},
       .want_ips = {"192.168.30.2"},
       .want_pool = "manual",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.30.2\"]"}},
      {.desc = "both the annotation and spec.loadBalancerIP",
       .svc = {.annotations = {{"metallb.io/loadBalancerIPs", "192.168.20.3"}},
               .load_balancer_ip = "192.168.20.2"},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "service can not have both metallb.io/loadBalancerIPs and "
                       "svc.Spec.LoadBalancerIP"},
       .want_write = false,
       .want_converged = false},
      {.desc = "an unparsable spec.loadBalancerIP",
       .svc = {.load_balancer_ip = "192.168.20.300"},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "invalid spec.loadBalancerIP \"192.168.20.300\""},
       .want_write = false,
       .want_converged = false},
      {.desc = "two requested addresses of one family",
       .svc = {.annotations = {{"metallb.io/loadBalancerIPs", "192.168.20.1, 192.168.20.2"}}},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "IPFamilyForAddresses: same address family [\"192.168.20.1\" "
                       "\"192.168.20.2\"]"},
       .want_write = false,
       .want_converged = false},
      {.desc = "a requested address of the wrong family",
       .svc = {.annotations = {{"metallb.io/loadBalancerIPs", "fc00::1"}}},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "requested loadBalancer IP(s) [\"fc00::1\"] does not match the ipFamily "
                       "of the service"},
       .want_write = false,
       .want_converged = false},
      {.desc = "a requested address outside every pool",
       .svc = {.load_balancer_ip = "9.9.9.9"},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "[\"9.9.9.9\"] is not allowed in config"},
       .want_write = false,
       .want_converged = false},
      {.desc = "a requested address outside the requested pool",
       .svc = {.annotations = {{"metallb.io/loadBalancerIPs", "192.168.20.3"},
                               {"metallb.io/address-pool", "default"}}},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "requested loadBalancer IP(s) [\"192.168.20.3\"] is not compatible with "
                       "requested address pool default"},
       .want_write = false,
       .want_converged = false},
      {.desc = "a requested address another service holds",
       .svc = {.load_balancer_ip = "192.168.20.3"},
       .want_events = {"Warning AllocationFailed: Failed to allocate IP for \"default/svc\": "
                       "can't change sharing key for \"default/svc\", address also in use by "
                       "default/a"},
       .want_write = false,
       .want_converged = false,
       .others = {{.name = "a", .load_balancer_ip = "192.168.20.3"}}},
      {.desc = "a dual-stack request in one annotation",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "RequireDualStack",
               .annotations = {{"metallb.io/loadBalancerIPs", "fc00::2,192.168.10.2"}}},
       .want_ips = {"192.168.10.2", "fc00::2"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"fc00::2\" \"192.168.10.2\"]"}},
  };
  runCases(cases, convergenceConfig());
}

BOOST_AUTO_TEST_CASE(sharing_annotations_and_backend_keys) {
  const std::vector<Case> cases = {
      {.desc = "services with one sharing key share the lowest address",
       .svc = {.annotations = {{"metallb.io/allow-shared-ip", "k"}}, .ports = "TCP/443"},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"},
       .others = {{.name = "a", .annotations = {{"metallb.io/allow-shared-ip", "k"}}}}},
      {.desc = "the legacy sharing annotation is honoured",
       .svc = {.annotations = {{"metallb.universe.tf/allow-shared-ip", "k"}}, .ports = "TCP/443"},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]",
                       "Warning deprecatedAnnotation: Service uses deprecated annotation "
                       "metallb.universe.tf/allow-shared-ip"},
       .others = {{.name = "a", .annotations = {{"metallb.io/allow-shared-ip", "k"}}}}},
      {.desc = "a port clash keeps sharing services apart",
       .svc = {.annotations = {{"metallb.io/allow-shared-ip", "k"}}},
       .want_ips = {"192.168.10.1"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.1\"]"},
       .others = {{.name = "a", .annotations = {{"metallb.io/allow-shared-ip", "k"}}}}},
      {.desc = "Local traffic policy services with other pods do not share",
       .svc = {.annotations = {{"metallb.io/allow-shared-ip", "k"}},
               .ports = "TCP/443",
               .etp = "Local",
               .selector = {{"app", "db"}}},
       .want_ips = {"192.168.10.1"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.1\"]"},
       .others = {{.name = "a",
                   .annotations = {{"metallb.io/allow-shared-ip", "k"}},
                   .etp = "Local"}}},
      {.desc = "Local traffic policy services with the same pods share",
       .svc = {.annotations = {{"metallb.io/allow-shared-ip", "k"}},
               .ports = "TCP/443",
               .etp = "Local"},
       .want_ips = {"192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\"]"},
       .others = {{.name = "a",
                   .annotations = {{"metallb.io/allow-shared-ip", "k"}},
                   .etp = "Local"}}},
  };
  runCases(cases, convergenceConfig());
}

BOOST_AUTO_TEST_CASE(dual_stack_policies) {
  const std::vector<Case> cases = {
      {.desc = "RequireDualStack gets both families, IPv4 first whatever ipFamilies says",
       .svc = {.cluster_ips = {"fd00::10", "10.96.0.10"},
               .policy = "RequireDualStack",
               .families = {"IPv6", "IPv4"}},
       .want_ips = {"192.168.10.0", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\" \"fc00::\"]"}},
      {.desc = "RequireDualStack holding one family is cleared and gets both",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "RequireDualStack",
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.0", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\" \"fc00::\"]"}},
      {.desc = "PreferDualStack holding one family gets the other from the same pool",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "PreferDualStack",
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned additional IP \"fc00::\""}},
      {.desc = "PreferDualStack in a single-family pool reports the missing family every time",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "PreferDualStack",
               .annotations = {{kPool, "v4only"}, {"metallb.io/address-pool", "v4only"}},
               .status = {"192.168.40.0"}},
       .want_ips = {"192.168.40.0"},
       .want_pool = "v4only",
       .want_events = {"Normal AdditionalAssignFailed: cannot assign additional IP in "
                       "PreferDualStack: no available IPs in pool v4only for ipv6 IPFamily"},
       .want_write = false},
      {.desc = "PreferDualStack with a single clusterIP stays single-stack",
       .svc = {.policy = "PreferDualStack",
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.2"}},
       .want_ips = {"192.168.10.2"},
       .want_pool = "default",
       .want_write = false},
      {.desc = "PreferDualStack new service in a dual-stack cluster",
       .svc = {.cluster_ips = kDualClusterIps, .policy = "PreferDualStack"},
       .want_ips = {"192.168.10.0", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\" \"fc00::\"]"}},
      {.desc = "a single-stack IPv6 service",
       .svc = {.cluster_ips = {"fd00::10"}},
       .want_ips = {"fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"fc00::\"]"}},
  };
  runCases(cases, convergenceConfig());
}

// The order of status.loadBalancer.ingress is MetalLB's: its speakers (and Ingot's agents)
// elect the Layer 2 owner on the first address, so a different order moves the owner.
BOOST_AUTO_TEST_CASE(status_order_is_metallbs) {
  // "doc" holds addresses whose text sorts IPv6 first ("2001:…" < "203.…").
  const auto cfg = makeConfig({{"default", {"192.168.10.0/30", "fc00::/126"}},
                               {"doc", {"203.0.113.0/30", "2001:db8::/126"}, false}});
  const std::vector<std::string> v6_first = {"IPv6", "IPv4"};
  const std::vector<std::string> dual_v6 = {"fd00::10", "10.96.0.10"};
  const std::string lb_ips = "metallb.io/loadBalancerIPs";
  const std::vector<Case> cases = {
      {.desc = "a held IPv6-first status is kept as it is",
       .svc = {.cluster_ips = dual_v6,
               .policy = "RequireDualStack",
               .families = v6_first,
               .annotations = {{kPool, "default"}},
               .status = {"fc00::2", "192.168.10.2"}},
       .want_ips = {"fc00::2", "192.168.10.2"},
       .want_pool = "default",
       .want_write = false},
      {.desc = "a held IPv4-first status of an IPv6-first service is kept as it is",
       .svc = {.cluster_ips = dual_v6,
               .policy = "RequireDualStack",
               .families = v6_first,
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.2", "fc00::2"}},
       .want_ips = {"192.168.10.2", "fc00::2"},
       .want_pool = "default",
       .want_write = false},
      {.desc = "a held IPv6-first PreferDualStack status is kept, its pool annotation added",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "PreferDualStack",
               .status = {"fc00::1", "192.168.10.1"}},
       .want_ips = {"fc00::1", "192.168.10.1"},
       .want_pool = "default",
       .want_set = {{kPool, "default"}},
       .want_check_annotations = true},
      {.desc = "a new ipFamilies [IPv6, IPv4] service is allocated IPv4 first",
       .svc = {.cluster_ips = dual_v6, .policy = "PreferDualStack", .families = v6_first},
       .want_ips = {"192.168.10.0", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"192.168.10.0\" \"fc00::\"]"}},
      {.desc = "PreferDualStack holding IPv6 lists the added IPv4 after it",
       .svc = {.cluster_ips = dual_v6,
               .policy = "PreferDualStack",
               .families = v6_first,
               .annotations = {{kPool, "default"}},
               .status = {"fc00::3"}},
       .want_ips = {"fc00::3", "192.168.10.0"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned additional IP \"192.168.10.0\""}},
      {.desc = "PreferDualStack holding IPv4 lists the added IPv6 after it",
       .svc = {.cluster_ips = dual_v6,
               .policy = "PreferDualStack",
               .families = v6_first,
               .annotations = {{kPool, "default"}},
               .status = {"192.168.10.3"}},
       .want_ips = {"192.168.10.3", "fc00::"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned additional IP \"fc00::\""}},
      {.desc = "requested addresses are listed in text order, IPv6 first here",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "RequireDualStack",
               .annotations = {{lb_ips, "203.0.113.1,2001:db8::1"}}},
       .want_ips = {"2001:db8::1", "203.0.113.1"},
       .want_pool = "doc",
       .want_events = {"Normal IPAllocated: Assigned IP [\"203.0.113.1\" \"2001:db8::1\"]"}},
      {.desc = "requested addresses are listed in text order, IPv4 first here",
       .svc = {.cluster_ips = dual_v6,
               .policy = "RequireDualStack",
               .families = v6_first,
               .annotations = {{lb_ips, "fc00::3, 192.168.10.3"}}},
       .want_ips = {"192.168.10.3", "fc00::3"},
       .want_pool = "default",
       .want_events = {"Normal IPAllocated: Assigned IP [\"fc00::3\" \"192.168.10.3\"]"}},
      {.desc = "a held status in annotation order is rewritten in text order, as MetalLB's "
               "second pass does",
       .svc = {.cluster_ips = dual_v6,
               .policy = "RequireDualStack",
               .families = v6_first,
               .annotations = {{kPool, "default"}, {lb_ips, "fc00::3,192.168.10.3"}},
               .status = {"fc00::3", "192.168.10.3"}},
       .want_ips = {"192.168.10.3", "fc00::3"},
       .want_pool = "default"},
      {.desc = "a held status in text order stays, whatever the annotation's order",
       .svc = {.cluster_ips = kDualClusterIps,
               .policy = "RequireDualStack",
               .annotations = {{kPool, "doc"}, {lb_ips, "203.0.113.2,2001:db8::2"}},
               .status = {"2001:db8::2", "203.0.113.2"}},
       .want_ips = {"2001:db8::2", "203.0.113.2"},
       .want_pool = "doc",
       .want_write = false},
  };
  runCases(cases, cfg);
  // What a case writes is what the next pass keeps: the order never flips back.
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc << " (next pass)") {
      Allocator a;
      BOOST_REQUIRE(a.setPools(cfg.pools).has_value());
      api::Service svc = makeService(c.svc);
      const auto first = convergeService(a, cfg, svc, {});
      svc.status = first.status;
      for (const auto& [k, v] : first.set_annotations) {
        svc.metadata.annotations[k] = v;
      }
      const auto second = convergeService(a, cfg, svc, {});
      BOOST_TEST(!second.write);
      BOOST_TEST(second.ips == c.want_ips);
      BOOST_TEST(second.events.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(no_pools_clears_every_service) {
  Allocator a;
  const config::Config empty;
  const auto out = convergeService(
      a, empty, makeService({.annotations = {{kPool, "gone"}}, .status = {"1.2.3.4"}}), {});
  BOOST_TEST(!out.converged);
  BOOST_TEST(out.write);
  BOOST_TEST(out.ips.empty());
  BOOST_TEST(out.events.empty());
  BOOST_TEST(out.remove_annotations == std::vector<std::string>{kPool});
}

BOOST_AUTO_TEST_CASE(unchanged_ingress_keeps_the_ip_mode_the_api_server_set) {
  Allocator a;
  const auto cfg = convergenceConfig();
  BOOST_REQUIRE(a.setPools(cfg.pools).has_value());
  auto svc = makeService({.annotations = {{kPool, "default"}}, .status = {"192.168.10.2"}});
  svc.status.ingress[0].ip_mode = "VIP";
  const auto out = convergeService(a, cfg, svc, {});
  BOOST_TEST(!out.write);
  BOOST_TEST(out.status.ingress.at(0).ip_mode.value_or("") == "VIP");
}

BOOST_AUTO_TEST_CASE(reprocess_all_is_requested_when_room_is_freed_or_sharing_changes) {
  Allocator a;
  const auto cfg = makeConfig({{"one", {"192.168.10.1/32"}}});
  BOOST_REQUIRE(a.setPools(cfg.pools).has_value());
  const api::StringMap shared = {{"metallb.io/allow-shared-ip", "k"}};
  struct Step {
    std::string desc;
    SvcSpec svc;
    std::vector<std::string> want_ips;
    bool want_reprocess;
  };
  // MetalLB's "sharing reconsidered when conditions change" (PR #2692) on a one-address pool.
  const std::vector<Step> steps = {
      {"a takes the only address", {.name = "a", .annotations = shared}, {"192.168.10.1"}, true},
      {"b shares it",
       {.name = "b", .annotations = shared, .ports = "TCP/443"},
       {"192.168.10.1"},
       true},
      {"b switches to Local traffic and loses the address",
       {.name = "b",
        .annotations = shared,
        .status = {"192.168.10.1"},
        .ports = "TCP/443",
        .etp = "Local"},
       {},
       true},
      {"b stays pending",
       {.name = "b", .annotations = shared, .ports = "TCP/443", .etp = "Local"},
       {},
       false},
      {"a switches to Local traffic too: its key changes",
       {.name = "a", .annotations = shared, .status = {"192.168.10.1"}, .etp = "Local"},
       {"192.168.10.1"},
       true},
      {"the reprocess gives b the address again",
       {.name = "b", .annotations = shared, .ports = "TCP/443", .etp = "Local"},
       {"192.168.10.1"},
       true},
      {"a stops being a LoadBalancer: room is freed",
       {.name = "a",
        .type = "ClusterIP",
        .annotations = shared,
        .status = {"192.168.10.1"},
        .etp = "Local"},
       {},
       true},
      {"a ClusterIP service with nothing held asks nothing",
       {.name = "a", .type = "ClusterIP", .annotations = shared, .etp = "Local"},
       {},
       false},
  };
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT(s.desc) {
      const auto out = convergeService(a, cfg, makeService(s.svc), {});
      BOOST_TEST(out.ips == s.want_ips);
      BOOST_TEST(out.reprocess_all == s.want_reprocess);
    }
  }
  BOOST_TEST(releaseService(a, "default/b"));
  BOOST_TEST(!releaseService(a, "default/b"));
}

BOOST_AUTO_TEST_SUITE_END()
