// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "controller/core/allocator.h"
#include "controller/tests/core/allocator_steps.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

// The PREFER DUALSTACK pools of MetalLB's l2tests/assignment.go, named so that name order alone
// would pick the single-family pools first.
std::map<std::string, ingot::config::Pool> e2ePools(bool with_v4, bool with_v6, bool with_dual) {
  std::vector<PoolSpec> specs;
  if (with_v4) {
    specs.push_back({"a-ipv4", {"192.168.10.100/32"}});
  }
  if (with_v6) {
    specs.push_back({"b-ipv6", {"fc00:f853:ccd:e799::/124"}});
  }
  if (with_dual) {
    specs.push_back({"z-dual", {"192.168.11.100/32", "fc00:f853:ccd:e800::/124"}});
  }
  return makePools(specs);
}

const FamilyRequest kPrefer = dual(FamilyPolicy::PreferDualStack);
const FamilyRequest kPreferV6 = dual(FamilyPolicy::PreferDualStack, ingot::net::Family::V6);
const FamilyRequest kRequire = dual(FamilyPolicy::RequireDualStack);
const FamilyRequest kSingleDual = dual(FamilyPolicy::SingleStack);

}  // namespace

BOOST_AUTO_TEST_SUITE(allocator_families)

BOOST_AUTO_TEST_CASE(dual_stack_services_prefer_a_pool_with_both_families) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(e2ePools(true, true, true)).has_value());
  const std::vector<Step> steps = {
      {.desc = "PreferDualStack takes both families from the dual pool",
       .op = Op::Allocate,
       .svc = "ns/p1",
       .ips = {"192.168.11.100", "fc00:f853:ccd:e800::"},
       .fam = kPrefer},
      {.desc = "RequireDualStack needs both from one pool: only IPv6 is left in z-dual",
       .op = Op::Allocate,
       .svc = "ns/r1",
       .want_error = "no available IPs",
       .fam = kRequire},
      {.desc = "PreferDualStack then takes the primary family (IPv4) from a single-family pool",
       .op = Op::Allocate,
       .svc = "ns/p2",
       .ips = {"192.168.10.100"},
       .fam = kPrefer},
      {.desc = "with IPv4 gone, PreferDualStack falls back to the secondary family",
       .op = Op::Allocate,
       .svc = "ns/p3",
       .ips = {"fc00:f853:ccd:e799::"},
       .fam = kPrefer},
      {.desc = "SingleStack with dual clusterIPs gets nothing (MetalLB)",
       .op = Op::Allocate,
       .svc = "ns/s1",
       .want_error = "no available IPs",
       .fam = kSingleDual},
      {.desc = "an IPv6 single-stack service uses the first pool with IPv6",
       .op = Op::Allocate,
       .svc = "ns/v6",
       .ips = {"fc00:f853:ccd:e799::1"},
       .fam = v6()},
      {.desc = "an IPv4 single-stack service finds IPv4 exhausted",
       .op = Op::Allocate,
       .svc = "ns/v4",
       .want_error = "no available IPs",
       .fam = v4()},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(prefer_dual_stack_follows_the_primary_family) {
  struct Case {
    std::string desc;
    FamilyRequest fam;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"IPv4 primary picks the IPv4 pool", kPrefer, {"192.168.10.100"}},
      {"IPv6 primary picks the IPv6 pool", kPreferV6, {"fc00:f853:ccd:e799::"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Allocator a;
      BOOST_REQUIRE(a.setPools(e2ePools(true, true, false)).has_value());
      auto got = a.allocate(request("ns/svc"), c.fam);
      BOOST_REQUIRE(got.has_value());
      BOOST_TEST(ipStrings(*got) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_general_dual_pool_beats_a_pinned_single_family_pool) {
  // l2tests: "When current dualstack pool becomes single-stack, svc should pick another
  // dualstack pool if possible": the namespace pool now has only IPv6.
  Allocator a;
  auto pools =
      makePools({{"pool1", {"fc00:f853:ccd:e799::/124"}, true, false, allocationIn(0, {"test"})},
                 {"pooldual", {"192.168.11.100/32", "fc00:f853:ccd:e800::/124"}}});
  BOOST_REQUIRE(a.setPools(pools).has_value());
  auto got = a.allocate(request("test/svc"), kPrefer);
  BOOST_REQUIRE(got.has_value());
  BOOST_TEST(ipStrings(*got) ==
             (std::vector<std::string>{"192.168.11.100", "fc00:f853:ccd:e800::"}));
  // A single-family service still prefers its pinned pool.
  BOOST_TEST(ipStrings(*a.allocate(request("test/v6"), v6())) ==
             std::vector<std::string>{"fc00:f853:ccd:e799::"});
}

BOOST_AUTO_TEST_CASE(requested_pool_applies_the_family_policy) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(e2ePools(true, true, true)).has_value());
  const std::vector<Step> steps = {
      {.desc = "RequireDualStack from a single-family pool",
       .op = Op::FromPool,
       .svc = "ns/r",
       .want_error = "no available IPs in pool a-ipv4 for dual IPFamily",
       .pool = "a-ipv4",
       .fam = kRequire},
      {.desc = "PreferDualStack from a single-family pool gets that family",
       .op = Op::FromPool,
       .svc = "ns/p",
       .ips = {"fc00:f853:ccd:e799::"},
       .pool = "b-ipv6",
       .fam = kPrefer},
      {.desc = "RequireDualStack from the dual pool",
       .op = Op::FromPool,
       .svc = "ns/r",
       .ips = {"192.168.11.100", "fc00:f853:ccd:e800::"},
       .pool = "z-dual",
       .fam = kRequire},
      {.desc = "an IPv4 service finds the dual pool's IPv4 taken",
       .op = Op::FromPool,
       .svc = "ns/v4",
       .want_error = "no available IPs in pool z-dual for ipv4 IPFamily",
       .pool = "z-dual",
       .fam = v4()},
      {.desc = "an IPv6 service from the dual pool",
       .op = Op::FromPool,
       .svc = "ns/v6",
       .ips = {"fc00:f853:ccd:e800::1"},
       .pool = "z-dual",
       .fam = v6()},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(additional_family_comes_from_the_same_pool) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(e2ePools(true, true, true)).has_value());
  const std::vector<Step> steps = {
      {.desc = "a service holds an IPv4 address of the dual pool",
       .op = Op::Assign,
       .svc = "ns/s",
       .ips = {"192.168.11.100"}},
      {.desc = "an unknown pool",
       .op = Op::Additional,
       .svc = "ns/s",
       .ips = {"192.168.11.100"},
       .want_error = "unknown pool \"gone\"",
       .pool = "gone"},
      {.desc = "the IPv6 address is added from the dual pool",
       .op = Op::Additional,
       .svc = "ns/s",
       .ips = {"192.168.11.100"},
       .pool = "z-dual",
       .want_held = {"192.168.11.100", "fc00:f853:ccd:e800::"}},
      {.desc = "t holds the IPv4-only pool's address",
       .op = Op::Assign,
       .svc = "ns/t",
       .ips = {"192.168.10.100"}},
      {.desc = "the IPv4-only pool has no IPv6 to add",
       .op = Op::Additional,
       .svc = "ns/t",
       .ips = {"192.168.10.100"},
       .want_error = "no available IPs in pool a-ipv4 for ipv6 IPFamily",
       .pool = "a-ipv4"},
      {.desc = "u holds an IPv6 address",
       .op = Op::Assign,
       .svc = "ns/u",
       .ips = {"fc00:f853:ccd:e800::5"}},
      {.desc = "the dual pool's only IPv4 is taken",
       .op = Op::Additional,
       .svc = "ns/u",
       .ips = {"fc00:f853:ccd:e800::5"},
       .want_error = "no available IPs in pool z-dual for ipv4 IPFamily",
       .pool = "z-dual"},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(dual_stack_services_share_both_addresses) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"d", {"10.0.0.0/30", "fc00::/126"}}})).has_value());
  const std::vector<Step> steps = {
      {.desc = "first dual service",
       .op = Op::Allocate,
       .svc = "ns/a",
       .ips = {"10.0.0.0", "fc00::"},
       .fam = kRequire,
       .ports = "TCP/80",
       .sharing = "k"},
      {.desc = "a second dual service with the key packs onto both",
       .op = Op::Allocate,
       .svc = "ns/b",
       .ips = {"10.0.0.0", "fc00::"},
       .fam = kRequire,
       .ports = "TCP/443",
       .sharing = "k"},
      {.desc = "an IPv6 service with the key shares the IPv6 one",
       .op = Op::Allocate,
       .svc = "ns/c",
       .ips = {"fc00::"},
       .fam = v6(),
       .ports = "UDP/53",
       .sharing = "k"},
      {.desc = "a port clash moves to the next free pair",
       .op = Op::Allocate,
       .svc = "ns/d",
       .ips = {"10.0.0.1", "fc00::1"},
       .fam = kRequire,
       .ports = "TCP/80",
       .sharing = "k"},
  };
  runSteps(a, steps);
  BOOST_TEST((a.counters("d")->assigned_v6 == 2));
}

BOOST_AUTO_TEST_SUITE_END()
