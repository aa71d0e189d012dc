// SPDX-License-Identifier: Apache-2.0
// Full-pass scenarios: every scenario of MetalLB's e2etest/l2tests/assignment.go,
// replayed on the pure core through reprocessAll, plus the ordering guarantees of a pass.
#include "controller/core/reprocess.h"

#include <functional>

#include <boost/test/unit_test.hpp>

#include "controller/tests/core/cluster_sim.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

using Strings = std::vector<std::string>;
const Strings kDual = {"10.96.0.10", "fd00::10"};

SvcSpec lb(const std::string& ns, const std::string& name) {
  SvcSpec s;
  s.ns = ns;
  s.name = name;
  return s;
}

SvcSpec preferDual(const std::string& ns, const std::string& name) {
  SvcSpec s = lb(ns, name);
  s.cluster_ips = kDual;
  s.policy = "PreferDualStack";
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reprocess)

BOOST_AUTO_TEST_CASE(a_released_address_goes_to_the_pending_service) {
  struct Case {
    std::string desc;
    std::function<void(ClusterSim&)> release;
  };
  const std::vector<Case> cases = {
      {"changing the service type to ClusterIP",
       [](ClusterSim& c) { c.svc("test", "singleip").spec.type = "ClusterIP"; }},
      {"deleting the service", [](ClusterSim& c) { c.remove("test", "singleip"); }},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ClusterSim sim;
      sim.config = makeConfig({{"singleip-pool", {"192.168.10.7/32"}}});
      sim.services = {makeService(lb("test", "singleip")), makeService(lb("test", "singleip1"))};
      sim.pass();
      BOOST_TEST(sim.ipsOf("test", "singleip") == Strings{"192.168.10.7"});
      BOOST_TEST(sim.ipsOf("test", "singleip1").empty());
      BOOST_TEST(sim.outcome("test", "singleip1").events.at(0).reason == "AllocationFailed");
      c.release(sim);
      sim.pass();
      BOOST_TEST(sim.ipsOf("test", "singleip1") == Strings{"192.168.10.7"});
    }
  }
}

BOOST_AUTO_TEST_CASE(addresses_survive_controller_restarts) {
  ClusterSim sim;
  sim.config = makeConfig(
      {{"assignment-controller-reset-test-pool", {"192.168.10.100/32", "192.168.20.200/32"}}});
  sim.services = {makeService(lb("test", "service-a")), makeService(lb("test", "service-b"))};
  sim.pass();
  // Pending services created later sort before the holders: a restart must still not move
  // anything.
  sim.services.push_back(makeService(lb("test", "service-0")));
  sim.services.push_back(makeService(lb("aaa", "service-d")));
  for (int restart = 0; restart < 5; ++restart) {
    BOOST_TEST_CONTEXT("restart " << restart) {
      Allocator fresh;
      std::swap(sim.allocator, fresh);
      sim.pass();
      BOOST_TEST(sim.ipsOf("test", "service-a") == Strings{"192.168.10.100"});
      BOOST_TEST(sim.ipsOf("test", "service-b") == Strings{"192.168.20.200"});
      BOOST_TEST(sim.ipsOf("test", "service-0").empty());
      BOOST_TEST(sim.ipsOf("aaa", "service-d").empty());
      BOOST_TEST(!sim.outcome("test", "service-a").write);
    }
  }
}

BOOST_AUTO_TEST_CASE(removing_pools_clears_or_moves_services) {
  auto pools = [](bool with_pool1, bool with_pool2) {
    std::vector<PoolSpec> specs;
    if (with_pool1) {
      specs.push_back(
          {"test-ns-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {"test"})});
    }
    if (with_pool2) {
      specs.push_back({"test-ns-pool-2", {"192.168.10.0/32"}});
    }
    return makeConfig(specs);
  };
  {BOOST_TEST_CONTEXT("removes all pools"){ClusterSim sim;
  sim.config = pools(true, true);
  sim.services = {makeService(lb("test", "svc-test-ns-pool-1"))};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc-test-ns-pool-1") == Strings{"192.168.5.0"});
  sim.config = pools(false, false);
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc-test-ns-pool-1").empty());
  BOOST_TEST(sim.poolOf("test", "svc-test-ns-pool-1") == "");
}
}
{
  BOOST_TEST_CONTEXT("reallocates svc after deleting a pool") {
    ClusterSim sim;
    sim.config = pools(true, true);
    sim.services = {makeService(lb("test", "svc-test-ns-pool-1"))};
    sim.pass();
    sim.config = pools(false, true);
    sim.pass();
    BOOST_TEST(sim.ipsOf("test", "svc-test-ns-pool-1") == Strings{"192.168.10.0"});
    BOOST_TEST(sim.poolOf("test", "svc-test-ns-pool-1") == "test-ns-pool-2");
    const auto& events = sim.outcome("test", "svc-test-ns-pool-1").events;
    BOOST_REQUIRE(events.size() == 2U);
    BOOST_TEST(events[0].message ==
               "current IP for \"test/svc-test-ns-pool-1\" not allowed by config, will attempt "
               "for new IP assignment: [\"192.168.5.0\"] is not allowed in config");
    BOOST_TEST(events[1].message == "Assigned IP [\"192.168.10.0\"]");
  }
}
}

BOOST_AUTO_TEST_CASE(service_allocation_in_address_pools) {
  const api::StringMap e2e = {{"test", "e2e"}};
  struct Case {
    std::string desc;
    std::vector<PoolSpec> pools;
    api::StringMap labels;
    Strings want;  // pool of svc 1, 2, 3 (created in this order)
  };
  const std::vector<Case> cases = {
      {"with namespace",
       {{"test-ns-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {"test"})},
        {"test-ns-pool-2", {"192.168.10.0/32"}, true, false, allocationIn(10, {"test"})},
        {"ns-test-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(0, {"test"})}},
       {},
       {"test-ns-pool-2", "test-ns-pool-1", "ns-test-ip-pool"}},
      {"with namespace and namespace labels (selector resolved by the config parser)",
       {{"test-ns-label-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {"test"})},
        {"test-ns-label-pool-2", {"192.168.10.0/32"}, true, false, allocationIn(10, {"test"})},
        {"ns-test-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(0, {"test"})}},
       {},
       {"test-ns-label-pool-2", "test-ns-label-pool-1", "ns-test-ip-pool"}},
      {"with service label",
       {{"test-svc-label-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {}, {e2e})},
        {"test-svc-label-pool-2", {"192.168.10.0/32"}, true, false, allocationIn(10, {}, {e2e})},
        {"ns-test-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(0, {"test"})}},
       e2e,
       {"test-svc-label-pool-2", "test-svc-label-pool-1", "ns-test-ip-pool"}},
      {"with namespace and service label",
       {{"test-ns-svc-label-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {"test"})},
        {"test-ns-svc-label-pool-2", {"192.168.10.0/32"}, true, false, allocationIn(10, {}, {e2e})},
        {"ns-test-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(0, {"test"})}},
       e2e,
       {"test-ns-svc-label-pool-2", "test-ns-svc-label-pool-1", "ns-test-ip-pool"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ClusterSim sim;
      sim.config = makeConfig(c.pools);
      for (int i = 1; i <= 3; ++i) {
        SvcSpec s = lb("test", "svc-" + std::to_string(i));
        s.labels = c.labels;
        sim.services.push_back(makeService(s));
        sim.pass();  // services are created one at a time, as in the e2e test
      }
      BOOST_TEST(sim.poolOf("test", "svc-1") == c.want[0]);
      BOOST_TEST(sim.poolOf("test", "svc-2") == c.want[1]);
      BOOST_TEST(sim.poolOf("test", "svc-3") == c.want[2]);
    }
  }
}

BOOST_AUTO_TEST_CASE(service_allocation_follows_namespace_labels) {
  // "with namespace with labels": namespace selectors are resolved to namespace sets by the
  // config parser; relabelling a namespace produces a new Config.
  auto config = [](bool relabelled) {
    return makeConfig(
        {{"first-ns-labels-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(10, {"test"})},
         {"second-ns-labels-ip-pool",
          {"192.168.30.0/32"},
          true,
          false,
          allocationIn(10, {"test-namespace"})},
         {"second-ns-labels-higher-priority-ip-pool",
          {"192.168.50.0/32"},
          true,
          false,
          allocationIn(5, relabelled ? std::vector<std::string>{"test-namespace"}
                                     : std::vector<std::string>{"never-matched"})},
         {"no-ns-labels-ip-pool", {"192.168.40.0/32"}}});
  };
  ClusterSim sim;
  sim.config = config(false);
  sim.services = {makeService(lb("test-namespace", "second-ns-service")),
                  makeService(lb("test", "default-ns-service")),
                  makeService(lb("test", "default-ns-service2"))};
  sim.pass();
  BOOST_TEST(sim.poolOf("test-namespace", "second-ns-service") == "second-ns-labels-ip-pool");
  BOOST_TEST(sim.poolOf("test", "default-ns-service") == "first-ns-labels-ip-pool");
  BOOST_TEST(sim.poolOf("test", "default-ns-service2") == "no-ns-labels-ip-pool");
  sim.config = config(true);
  sim.services.push_back(makeService(lb("test-namespace", "second-ns-service2")));
  sim.pass();
  BOOST_TEST(sim.poolOf("test-namespace", "second-ns-service2") ==
             "second-ns-labels-higher-priority-ip-pool");
  // The services placed earlier keep their addresses.
  BOOST_TEST(sim.poolOf("test-namespace", "second-ns-service") == "second-ns-labels-ip-pool");
}

BOOST_AUTO_TEST_CASE(sharing_is_reconsidered_when_conditions_change) {
  // PR #2692's e2e: two services share the only address; the second turns to Local traffic and
  // loses it; once the first turns Local too (same pods), the second gets it back.
  ClusterSim sim;
  sim.config = makeConfig({{"singleip-pool", {"192.168.10.7/32"}}});
  SvcSpec first = lb("test", "svc-a");
  first.annotations = {{"metallb.io/allow-shared-ip", "share"}};
  SvcSpec second = first;
  second.name = "svc-b";
  second.ports = "TCP/81";
  sim.services = {makeService(first), makeService(second)};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc-a") == Strings{"192.168.10.7"});
  BOOST_TEST(sim.ipsOf("test", "svc-b") == Strings{"192.168.10.7"});
  sim.svc("test", "svc-b").spec.external_traffic_policy = "Local";
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc-a") == Strings{"192.168.10.7"});
  BOOST_TEST(sim.ipsOf("test", "svc-b").empty());
  BOOST_TEST(sim.outcome("test", "svc-b").events.at(0).reason == "ClearAssignment");
  sim.svc("test", "svc-a").spec.external_traffic_policy = "Local";
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc-a") == Strings{"192.168.10.7"});
  BOOST_TEST(sim.ipsOf("test", "svc-b") == Strings{"192.168.10.7"});
}

BOOST_AUTO_TEST_CASE(a_service_requesting_a_node_address_stays_pending) {
  ClusterSim sim;
  sim.config = makeConfig({{"specificid-pool", {"192.168.60.0/32"}}});
  SvcSpec s = lb("test", "specificip");
  s.load_balancer_ip = "172.18.0.2";  // a node address, in no pool
  sim.services = {makeService(s)};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "specificip").empty());
  BOOST_TEST(sim.outcome("test", "specificip").events.at(0).message ==
             "Failed to allocate IP for \"test/specificip\": [\"172.18.0.2\"] is not allowed in "
             "config");
}

BOOST_AUTO_TEST_CASE(prefer_dual_stack_pool_selection) {
  const PoolSpec v4 = {"test-ns-ipv4-pool", {"192.168.10.100/32"}};
  const PoolSpec v6 = {"test-ns-ipv6-pool", {"fc00:f853:ccd:e799::/124"}};
  const PoolSpec both = {"test-ns-dualstack-pool",
                         {"192.168.11.100/32", "fc00:f853:ccd:e800::/124"}};
  struct Case {
    std::string desc;
    std::vector<PoolSpec> pools;
    Strings families;
    Strings want;
  };
  const std::vector<Case> cases = {
      {"selects the dual-stack pool if available",
       {v4, v6, both},
       {},
       {"192.168.11.100", "fc00:f853:ccd:e800::"}},
      {"prefers the IPv4 primary family among single-stack pools by default",
       {v6, v4},
       {},
       {"192.168.10.100"}},
      {"prefers the IPv6 primary family when ipFamilies says so",
       {v4, v6},
       {"IPv6", "IPv4"},
       {"fc00:f853:ccd:e799::"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ClusterSim sim;
      sim.config = makeConfig(c.pools);
      SvcSpec s = preferDual("test", "svc-test-ns-pool-1");
      s.families = c.families;
      sim.services = {makeService(s)};
      sim.pass();
      BOOST_TEST(sim.ipsOf("test", "svc-test-ns-pool-1") == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(prefer_dual_stack_gets_the_second_family_when_its_pool_becomes_dual_stack) {
  const auto pinned = allocationIn(0, {"test"});
  ClusterSim sim;
  sim.config = makeConfig({{"test-ns-dualstack-pool", {"192.168.10.100/32"}, true, false, pinned}});
  sim.services = {makeService(preferDual("test", "svc"))};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == Strings{"192.168.10.100"});
  sim.config = makeConfig({{"test-ns-dualstack-pool",
                            {"192.168.10.100/24", "fc00:f853:ccd:e799::/124"},
                            true,
                            false,
                            pinned}});
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == (Strings{"192.168.10.100", "fc00:f853:ccd:e799::"}));
}

// A cluster taken over from MetalLB: dual-stack statuses in either order are adopted as they
// are, by the first pass and after every restart (a reordered status moves the L2 owner).
BOOST_AUTO_TEST_CASE(adopted_dual_stack_statuses_keep_their_order) {
  ClusterSim sim;
  sim.config = makeConfig({{"dual", {"192.168.10.0/29", "fc00::/125"}}});
  SvcSpec v6_first = preferDual("test", "v6-first");
  v6_first.cluster_ips = {"fd00::10", "10.96.0.10"};
  v6_first.families = {"IPv6", "IPv4"};
  v6_first.policy = "RequireDualStack";
  v6_first.status = {"fc00::1", "192.168.10.1"};
  SvcSpec v4_first = preferDual("test", "v4-first");
  v4_first.status = {"192.168.10.2", "fc00::2"};
  SvcSpec pending = v6_first;
  pending.name = "a-pending";
  pending.status = {};
  sim.services = {makeService(v6_first), makeService(v4_first), makeService(pending)};
  for (int restart = 0; restart < 3; ++restart) {
    BOOST_TEST_CONTEXT("restart " << restart) {
      Allocator fresh;
      std::swap(sim.allocator, fresh);
      sim.pass();
      BOOST_TEST(sim.ipsOf("test", "v6-first") == (Strings{"fc00::1", "192.168.10.1"}));
      BOOST_TEST(sim.ipsOf("test", "v4-first") == (Strings{"192.168.10.2", "fc00::2"}));
      // A new ipFamilies [IPv6, IPv4] Service is allocated IPv4 first, as MetalLB does.
      BOOST_TEST(sim.ipsOf("test", "a-pending") == (Strings{"192.168.10.0", "fc00::"}));
    }
  }
}

// PreferDualStack holding IPv6 only gets IPv4 once its pool has some, listed after the IPv6.
BOOST_AUTO_TEST_CASE(prefer_dual_stack_upgrade_lists_the_held_family_first) {
  ClusterSim sim;
  sim.config = makeConfig({{"pool", {"fc00::/125"}}});
  SvcSpec s = preferDual("test", "svc");
  s.cluster_ips = {"fd00::10", "10.96.0.10"};
  s.families = {"IPv6", "IPv4"};
  sim.services = {makeService(s)};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == Strings{"fc00::"});
  sim.config = makeConfig({{"pool", {"fc00::/125", "192.168.10.0/29"}}});
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == (Strings{"fc00::", "192.168.10.0"}));
  sim.pass();
  BOOST_TEST(!sim.outcome("test", "svc").write);
}

BOOST_AUTO_TEST_CASE(a_single_stack_pool_follows_prefer_and_require_dual_stack_changes) {
  const auto pinned = allocationIn(0, {"test"});
  ClusterSim sim;
  sim.config = makeConfig({{"test-ns-dualstack-pool", {"192.168.10.100/32"}, true, false, pinned}});
  sim.services = {makeService(preferDual("test", "svc"))};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == Strings{"192.168.10.100"});
  sim.svc("test", "svc").spec.ip_family_policy = "RequireDualStack";
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc").empty());
  sim.svc("test", "svc").spec.ip_family_policy = "PreferDualStack";
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == Strings{"192.168.10.100"});
}

BOOST_AUTO_TEST_CASE(a_service_of_a_single_stack_pool_does_not_jump_to_a_new_dual_stack_pool) {
  ClusterSim sim;
  sim.config = makeConfig({{"test-ns-ipv4-pool", {"192.168.10.100/32"}}});
  sim.services = {makeService(preferDual("test", "svc"))};
  sim.pass();
  sim.config =
      makeConfig({{"test-ns-ipv4-pool", {"192.168.10.100/32"}},
                  {"test-ns-dualstack-pool", {"192.168.11.100/32", "fc00:f853:ccd:e800::/124"}}});
  for (int i = 0; i < 3; ++i) {
    sim.pass();
    BOOST_TEST(sim.ipsOf("test", "svc") == Strings{"192.168.10.100"});
    BOOST_TEST(sim.outcome("test", "svc").events.at(0).reason == "AdditionalAssignFailed");
  }
}

BOOST_AUTO_TEST_CASE(a_dual_stack_pool_turned_single_stack_sends_the_service_to_another_one) {
  const auto pinned = allocationIn(0, {"test"});
  ClusterSim sim;
  sim.config = makeConfig({{"test-ns-dualstack-pool",
                            {"192.168.10.100/32", "fc00:f853:ccd:e799::/124"},
                            true,
                            false,
                            pinned}});
  sim.services = {makeService(preferDual("test", "svc"))};
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc").size() == 2U);
  sim.config =
      makeConfig({{"test-ns-dualstack-pool", {"fc00:f853:ccd:e799::/124"}, true, false, pinned},
                  {"pooldual", {"192.168.11.100/32", "fc00:f853:ccd:e800::/124"}}});
  sim.pass();
  BOOST_TEST(sim.ipsOf("test", "svc") == (Strings{"192.168.11.100", "fc00:f853:ccd:e800::"}));
  BOOST_TEST(sim.poolOf("test", "svc") == "pooldual");
}

BOOST_AUTO_TEST_CASE(pool_status_counters_follow_the_pass) {
  ClusterSim sim;
  sim.config = makeConfig(
      {{"dual", {"192.168.10.0/24", "fc00::/120"}, true, true}, {"huge", {"fd00::/64"}, false}});
  SvcSpec shared_a = lb("ns", "a");
  shared_a.annotations = {{"metallb.io/allow-shared-ip", "k"}};
  SvcSpec shared_b = shared_a;
  shared_b.name = "b";
  shared_b.ports = "TCP/443";
  SvcSpec require = lb("ns", "c");
  require.cluster_ips = kDual;
  require.policy = "RequireDualStack";
  SvcSpec huge = lb("ns", "h");
  huge.cluster_ips = {"fd00::10"};
  huge.annotations = {{"metallb.io/address-pool", "huge"}};
  sim.services = {makeService(shared_a), makeService(shared_b), makeService(require),
                  makeService(huge)};
  sim.pass();
  BOOST_REQUIRE(sim.last.pools.size() == 2U);
  const auto& dual = sim.last.pools[0];
  BOOST_TEST(dual.pool == "dual");
  BOOST_TEST((dual.assigned_v4 == 2));  // a and b share one address
  BOOST_TEST((dual.assigned_v6 == 1));
  BOOST_TEST((dual.availableV4() == 252));
  BOOST_TEST((dual.availableV6() == 255));
  BOOST_TEST(dual.services == 3U);
  const auto& big = sim.last.pools[1];
  BOOST_TEST((big.availableV6() == (net::U128{1} << 64) - 1));
  BOOST_TEST(sim.ipsOf("ns", "a") == Strings{"192.168.10.1"});
  BOOST_TEST(sim.ipsOf("ns", "b") == Strings{"192.168.10.1"});
  BOOST_TEST(sim.ipsOf("ns", "c") == (Strings{"192.168.10.2", "fc00::"}));
}

BOOST_AUTO_TEST_CASE(holders_claim_their_addresses_before_anything_allocates) {
  // a-upgrader (PreferDualStack, one IPv4 address) comes before b-holder, which holds the pool's
  // only IPv6 address. Converging in plain list order on a fresh allocator (a restart) would let
  // a-upgrader's second family take b-holder's address before b-holder re-claims it, moving
  // b-holder. Claiming every held address first prevents that.
  ClusterSim sim;
  sim.config = makeConfig({{"p", {"192.168.10.1/32", "192.168.10.2/32", "fc00::1/128"}}});
  SvcSpec upgrader = preferDual("ns", "a-upgrader");
  upgrader.status = {"192.168.10.1"};
  SvcSpec holder = lb("ns", "b-holder");
  holder.cluster_ips = {"fd00::10"};
  holder.status = {"fc00::1"};
  SvcSpec pending = lb("aa", "pending");
  pending.cluster_ips = {"fd00::11"};
  sim.services = {makeService(upgrader), makeService(holder), makeService(pending)};
  sim.pass();
  BOOST_TEST(sim.ipsOf("ns", "b-holder") == Strings{"fc00::1"});
  BOOST_TEST(sim.ipsOf("ns", "a-upgrader") == Strings{"192.168.10.1"});
  BOOST_TEST(sim.outcome("ns", "a-upgrader").events.at(0).reason == "AdditionalAssignFailed");
  BOOST_TEST(sim.ipsOf("aa", "pending").empty());
  // Conflicting claims: the first holder in namespace/name order keeps the address.
  SvcSpec dup = lb("zz", "dup");
  dup.status = {"192.168.10.1"};
  sim.services.push_back(makeService(dup));
  sim.pass();
  BOOST_TEST(sim.ipsOf("ns", "a-upgrader") == Strings{"192.168.10.1"});
  BOOST_TEST(sim.ipsOf("zz", "dup") == Strings{"192.168.10.2"});
  BOOST_TEST(sim.outcome("zz", "dup").events.at(0).reason == "ClearAssignment");
}

BOOST_AUTO_TEST_CASE(plan_lists_every_service_by_name_and_flags_ignored_ones) {
  ClusterSim sim;
  sim.config = makeConfig({{"p", {"192.168.10.0/30"}}});
  SvcSpec foreign = lb("b", "foreign");
  foreign.lb_class = "other";
  SvcSpec cluster_ip = lb("a", "plain");
  cluster_ip.type = "ClusterIP";
  sim.services = {makeService(foreign), makeService(lb("b", "lb")), makeService(cluster_ip)};
  sim.pass();
  BOOST_REQUIRE(sim.last.services.size() == 3U);
  BOOST_TEST(sim.last.services[0].name == "plain");
  BOOST_TEST(!sim.last.services[0].load_balancer);
  BOOST_TEST(sim.last.services[1].name == "foreign");
  BOOST_TEST(sim.last.services[1].ignored);
  BOOST_TEST(sim.last.services[2].name == "lb");
  BOOST_TEST(sim.last.services[2].ips == Strings{"192.168.10.0"});
}

BOOST_AUTO_TEST_SUITE_END()
