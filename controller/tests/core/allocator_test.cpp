// SPDX-License-Identifier: Apache-2.0
#include "controller/core/allocator.h"

#include <boost/test/unit_test.hpp>

#include "controller/tests/core/allocator_steps.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;
using ingot::net::U128;

BOOST_AUTO_TEST_SUITE(allocator)

BOOST_AUTO_TEST_CASE(assign_follows_the_sharing_rules) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"test", {"1.2.3.4/31", "1000::4/127"}},
                                      {"test2", {"1.2.4.0/24", "1000::4:0/120"}, true, true}}))
                    .has_value());
  const std::string s1_blocks =
      "can't change sharing key for \"ns/s2\", address also in use by ns/s1";
  const std::vector<Step> steps = {
      {.desc = "s1 takes an address", .op = Op::Assign, .svc = "ns/s1", .ips = {"1.2.3.4"}},
      {.desc = "assigning it again is idempotent", .svc = "ns/s1", .ips = {"1.2.3.4"}},
      {.desc = "s2 cannot take s1's address",
       .svc = "ns/s2",
       .ips = {"1.2.3.4"},
       .want_error = s1_blocks},
      {.desc = "s2 takes the other address", .svc = "ns/s2", .ips = {"1.2.3.5"}},
      {.desc = "s1 cannot move onto s2's address",
       .svc = "ns/s1",
       .ips = {"1.2.3.5"},
       .want_error = "can't change sharing key for \"ns/s1\", address also in use by ns/s2"},
      {.desc = "s1 frees its address", .op = Op::Unassign, .svc = "ns/s1"},
      {.desc = "freeing twice reports nothing held",
       .op = Op::Unassign,
       .svc = "ns/s1",
       .want_error = "nothing held"},
      {.desc = "s2 moves to s1's former address", .svc = "ns/s2", .ips = {"1.2.3.4"}},
      {.desc = "s1 takes s2's former address", .svc = "ns/s1", .ips = {"1.2.3.5"}},
      {.desc = "s3 cannot take a .0 of an avoidBuggyIPs pool",
       .svc = "ns/s3",
       .ips = {"1.2.4.0"},
       .want_error = "[\"1.2.4.0\"] is not allowed in config"},
      {.desc = "s3 cannot take a .255 of an avoidBuggyIPs pool",
       .svc = "ns/s3",
       .ips = {"1.2.4.255"},
       .want_error = "[\"1.2.4.255\"] is not allowed in config"},
      {.desc = "s3 takes .254 of that pool", .svc = "ns/s3", .ips = {"1.2.4.254"}},
      {.desc = "s4 takes an address with a sharing key",
       .svc = "ns/s4",
       .ips = {"1.2.4.3"},
       .ports = "TCP/80",
       .sharing = "sharing",
       .backend = "backend"},
      {.desc = "s4 changes its sharing key in place",
       .svc = "ns/s4",
       .ips = {"1.2.4.3"},
       .ports = "TCP/80",
       .sharing = "share",
       .backend = "backend"},
      {.desc = "s3 cannot share with s4 on the same port",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "port TCP/80 is already in use on \"1.2.4.3\"",
       .ports = "TCP/80",
       .sharing = "share",
       .backend = "backend"},
      {.desc = "s3 cannot share with s4 under another sharing key",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "can't change sharing key for \"ns/s3\", address also in use by ns/s4",
       .ports = "TCP/443",
       .sharing = "othershare",
       .backend = "backend"},
      {.desc = "s3 cannot share with s4 with other backends",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "can't change sharing key for \"ns/s3\", address also in use by ns/s4",
       .ports = "TCP/443",
       .sharing = "share",
       .backend = "otherbackend"},
      {.desc = "s3 cannot share without a sharing key",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "can't change sharing key for \"ns/s3\", address also in use by ns/s4",
       .ports = "TCP/443",
       .backend = "backend"},
      {.desc = "s3 shares s4's address on another port",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .ports = "TCP/443",
       .sharing = "share",
       .backend = "backend"},
      {.desc = "s3 changes its ports and keeps the address",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .ports = "UDP/53",
       .sharing = "share",
       .backend = "backend"},
      {.desc = "the same port number over another protocol does not clash",
       .svc = "ns/s5",
       .ips = {"1.2.4.3"},
       .ports = "UDP/80",
       .sharing = "share",
       .backend = "backend"},
      {.desc = "s3 cannot change its sharing key while others share",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "can't change sharing key for \"ns/s3\", address also in use by ns/s4,ns/s5",
       .ports = "TCP/443",
       .sharing = "othershare",
       .backend = "backend"},
      {.desc = "s3 cannot change its backend key while others share",
       .svc = "ns/s3",
       .ips = {"1.2.4.3"},
       .want_error = "can't change sharing key for \"ns/s3\", address also in use by ns/s4,ns/s5",
       .ports = "TCP/443",
       .sharing = "share",
       .backend = "otherbackend"},
      {.desc = "s4 moves to s3's former address",
       .svc = "ns/s4",
       .ips = {"1.2.4.254"},
       .ports = "TCP/80",
       .sharing = "share",
       .backend = "backend"},
      // The same sequence over IPv6 (avoidBuggyIPs does not apply).
      {.desc = "v6: s1 takes an address", .svc = "ns/s1", .ips = {"1000::4"}},
      {.desc = "v6: s2 cannot take s1's address",
       .svc = "ns/s2",
       .ips = {"1000::4"},
       .want_error = s1_blocks},
      {.desc = "v6: s2 takes the other address", .svc = "ns/s2", .ips = {"1000::5"}},
      {.desc = "v6: a ::ff address is usable", .svc = "ns/s6", .ips = {"1000::4:ff"}},
      {.desc = "v6: a ::0 address is usable", .svc = "ns/s7", .ips = {"1000::4:0"}},
      {.desc = "v6: sharing with a key",
       .svc = "ns/s8",
       .ips = {"1000::4:3"},
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "v6: port clash",
       .svc = "ns/s9",
       .ips = {"1000::4:3"},
       .want_error = "port TCP/80 is already in use on \"1000::4:3\"",
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "v6: shared on another port",
       .svc = "ns/s9",
       .ips = {"1000::4:3"},
       .ports = "TCP/443",
       .sharing = "share"},
  };
  runSteps(a, steps);
  BOOST_TEST(a.usersOf(ip("1.2.4.3")) == (std::vector<std::string>{"ns/s3", "ns/s5"}));
  BOOST_TEST(a.usersOf(ip("1000::4:3")) == (std::vector<std::string>{"ns/s8", "ns/s9"}));
}

BOOST_AUTO_TEST_CASE(assign_checks_count_families_and_pool) {
  Allocator a;
  BOOST_REQUIRE(
      a.setPools(makePools({{"test", {"1.2.3.4/31", "1000::4/127"}}, {"other", {"1000::4:0/120"}}}))
          .has_value());
  const std::vector<Step> steps = {
      {.desc = "no address is an error",
       .svc = "ns/s",
       .ips = {},
       .want_error = "no addresses to assign to \"ns/s\""},
      {.desc = "an address outside every pool",
       .svc = "ns/s",
       .ips = {"9.9.9.9"},
       .want_error = "[\"9.9.9.9\"] is not allowed in config"},
      {.desc = "addresses from two pools",
       .svc = "ns/s",
       .ips = {"1.2.3.4", "1000::4:5"},
       .want_error = "[\"1.2.3.4\" \"1000::4:5\"] is not allowed in config"},
      {.desc = "three addresses",
       .svc = "ns/s",
       .ips = {"1.2.3.4", "1.2.3.5", "1000::4"},
       .want_error = "more than two addresses [\"1.2.3.4\" \"1.2.3.5\" \"1000::4\"]"},
      {.desc = "two addresses of one family",
       .svc = "ns/s",
       .ips = {"1.2.3.4", "1.2.3.5"},
       .want_error = "\"1.2.3.4\" \"1.2.3.5\" has the same family"},
      {.desc = "one address per family from one pool, stored IPv4 first",
       .svc = "ns/s",
       .ips = {"1000::5", "1.2.3.4"}},
      {.desc = "a dual service shares nothing by default",
       .svc = "ns/t",
       .ips = {"1.2.3.5", "1000::5"},
       .want_error = "can't change sharing key for \"ns/t\", address also in use by ns/s"},
  };
  runSteps(a, steps);
  BOOST_TEST(heldBy(a, "ns/s") == (std::vector<std::string>{"1.2.3.4", "1000::5"}));
}

BOOST_AUTO_TEST_CASE(allocate_from_pool_hands_out_the_lowest_usable_address) {
  Allocator a;
  BOOST_REQUIRE(
      a.setPools(makePools({{"not_this_one", {"192.168.0.0/16", "fc00::1:0/112"}},
                            {"test", {"1.2.3.4/31", "1.2.3.10/31", "1000::/127", "2000::/127"}}}))
          .has_value());
  const std::string full4 = "no available IPs in pool test for ipv4 IPFamily";
  const std::string full6 = "no available IPs in pool test for ipv6 IPFamily";
  const std::vector<Step> steps = {
      {.desc = "s1 gets the first address",
       .op = Op::FromPool,
       .svc = "ns/s1",
       .ips = {"1.2.3.4"},
       .pool = "test"},
      {.desc = "s2 gets the next",
       .op = Op::FromPool,
       .svc = "ns/s2",
       .ips = {"1.2.3.5"},
       .pool = "test"},
      {.desc = "s3 gets the second CIDR",
       .op = Op::FromPool,
       .svc = "ns/s3",
       .ips = {"1.2.3.10"},
       .pool = "test"},
      {.desc = "s4 gets its last address",
       .op = Op::FromPool,
       .svc = "ns/s4",
       .ips = {"1.2.3.11"},
       .pool = "test"},
      {.desc = "s5 finds the pool full",
       .op = Op::FromPool,
       .svc = "ns/s5",
       .want_error = full4,
       .pool = "test"},
      {.desc = "s1 is asked again and keeps its address",
       .op = Op::FromPool,
       .svc = "ns/s1",
       .ips = {"1.2.3.4"},
       .pool = "test"},
      {.desc = "s1 releases", .op = Op::Unassign, .svc = "ns/s1"},
      {.desc = "s5 gets s1's former address",
       .op = Op::FromPool,
       .svc = "ns/s5",
       .ips = {"1.2.3.4"},
       .pool = "test"},
      {.desc = "s6 still finds it full",
       .op = Op::FromPool,
       .svc = "ns/s6",
       .want_error = full4,
       .pool = "test"},
      {.desc = "s5 releases to enable sharing", .op = Op::Unassign, .svc = "ns/s5"},
      {.desc = "s5 takes the lowest address with a sharing key",
       .op = Op::FromPool,
       .svc = "ns/s5",
       .ips = {"1.2.3.4"},
       .pool = "test",
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "s6 packs onto s5's address",
       .op = Op::FromPool,
       .svc = "ns/s6",
       .ips = {"1.2.3.4"},
       .pool = "test",
       .ports = "TCP/443",
       .sharing = "share"},
      {.desc = "s7 clashes on port 80 and the pool has no free address",
       .op = Op::FromPool,
       .svc = "ns/s7",
       .want_error = full4,
       .pool = "test",
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "s3 releases", .op = Op::Unassign, .svc = "ns/s3"},
      {.desc = "s7 gets the freed address",
       .op = Op::FromPool,
       .svc = "ns/s7",
       .ips = {"1.2.3.10"},
       .pool = "test",
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "s8 packs onto the lowest compatible address",
       .op = Op::FromPool,
       .svc = "ns/s8",
       .ips = {"1.2.3.10"},
       .pool = "test",
       .ports = "TCP/443",
       .sharing = "share"},
      {.desc = "s9 on UDP/53 packs onto the lowest shared address",
       .op = Op::FromPool,
       .svc = "ns/s9",
       .ips = {"1.2.3.4"},
       .pool = "test",
       .ports = "UDP/53",
       .sharing = "share"},
      {.desc = "an unknown pool",
       .op = Op::FromPool,
       .svc = "ns/x",
       .want_error = "unknown pool \"nonexistentpool\"",
       .pool = "nonexistentpool"},
      {.desc = "v6: s10 gets the first IPv6 address",
       .op = Op::FromPool,
       .svc = "ns/s10",
       .ips = {"1000::"},
       .pool = "test",
       .fam = v6()},
      {.desc = "v6: s11 gets the next",
       .op = Op::FromPool,
       .svc = "ns/s11",
       .ips = {"1000::1"},
       .pool = "test",
       .fam = v6()},
      {.desc = "v6: s12 gets the second CIDR",
       .op = Op::FromPool,
       .svc = "ns/s12",
       .ips = {"2000::"},
       .pool = "test",
       .fam = v6()},
      {.desc = "v6: s13 gets the last",
       .op = Op::FromPool,
       .svc = "ns/s13",
       .ips = {"2000::1"},
       .pool = "test",
       .fam = v6()},
      {.desc = "v6: s14 finds the pool full",
       .op = Op::FromPool,
       .svc = "ns/s14",
       .want_error = full6,
       .pool = "test",
       .fam = v6()},
      {.desc = "a service holding IPv4 asked for IPv6 is refused",
       .op = Op::FromPool,
       .svc = "ns/s5",
       .want_error = "IP for wrong family assigned alloc ipv4 service family ipv6",
       .pool = "test",
       .fam = v6(),
       .ports = "TCP/80",
       .sharing = "share"},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(allocate_tries_pools_in_name_order_and_skips_manual_ones) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"test2", {"1.2.3.10/31", "1000::10/127"}},
                                      {"test1", {"1.2.3.4/31", "1000::4/127"}},
                                      {"manual", {"1.2.3.100/32"}, false}}))
                    .has_value());
  const std::vector<Step> steps = {
      {.desc = "s1 gets test1's first address",
       .op = Op::Allocate,
       .svc = "ns/s1",
       .ips = {"1.2.3.4"}},
      {.desc = "s2 gets test1's second address",
       .op = Op::Allocate,
       .svc = "ns/s2",
       .ips = {"1.2.3.5"}},
      {.desc = "s3 moves on to test2", .op = Op::Allocate, .svc = "ns/s3", .ips = {"1.2.3.10"}},
      {.desc = "s4 gets test2's last address",
       .op = Op::Allocate,
       .svc = "ns/s4",
       .ips = {"1.2.3.11"}},
      {.desc = "s5 gets nothing: the manual pool is never chosen",
       .op = Op::Allocate,
       .svc = "ns/s5",
       .want_error = "no available IPs"},
      {.desc = "the manual pool serves an explicit request",
       .op = Op::FromPool,
       .svc = "ns/s5",
       .ips = {"1.2.3.100"},
       .pool = "manual"},
      {.desc = "s1 gives up its address", .op = Op::Unassign, .svc = "ns/s1"},
      {.desc = "s6 gets it with a sharing key",
       .op = Op::Allocate,
       .svc = "ns/s6",
       .ips = {"1.2.3.4"},
       .ports = "TCP/80",
       .sharing = "share"},
      {.desc = "s7 shares it",
       .op = Op::Allocate,
       .svc = "ns/s7",
       .ips = {"1.2.3.4"},
       .ports = "TCP/443",
       .sharing = "share"},
      {.desc = "s8 with another key finds nothing",
       .op = Op::Allocate,
       .svc = "ns/s8",
       .want_error = "no available IPs",
       .ports = "TCP/443",
       .sharing = "other"},
      {.desc = "v6: s8 gets test1's first IPv6 address",
       .op = Op::Allocate,
       .svc = "ns/s8",
       .ips = {"1000::4"},
       .fam = v6()},
      {.desc = "v6: s9", .op = Op::Allocate, .svc = "ns/s9", .ips = {"1000::5"}, .fam = v6()},
      {.desc = "v6: s10 moves on to test2",
       .op = Op::Allocate,
       .svc = "ns/s10",
       .ips = {"1000::10"},
       .fam = v6()},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(service_allocation_orders_pools_by_priority_namespace_and_labels) {
  const api::StringMap gold = {{"tier", "gold"}};
  Allocator a;
  BOOST_REQUIRE(
      a
          .setPools(makePools({
              {"test-ns-pool-1", {"192.168.5.0/32"}, true, false, allocationIn(20, {"test"})},
              {"test-ns-pool-2", {"192.168.10.0/32"}, true, false, allocationIn(10, {"test"})},
              {"ns-test-ip-pool", {"192.168.20.0/32"}, true, false, allocationIn(0, {"test"})},
              {"gold", {"192.168.30.0/30"}, true, false, allocationIn(5, {}, {gold})},
              {"b-tie", {"192.168.40.1/32"}, true, false, allocationIn(30, {"tie"})},
              {"a-tie", {"192.168.40.2/32"}, true, false, allocationIn(30, {"tie"})},
              {"everyone", {"192.168.50.1/32"}, true, false, allocationIn(0, {})},
              {"manual-ns", {"192.168.60.1/32"}, false, false, allocationIn(1, {"test"})},
              {"nobody",
               {"192.168.70.1/32"},
               true,
               false,
               config::ServiceAllocation{0, {}, true, {}}},
              {"general", {"10.0.0.0/30"}},
          }))
          .has_value());
  const std::vector<Step> steps = {
      {.desc = "the highest priority namespace pool first",
       .op = Op::Allocate,
       .svc = "test/s1",
       .ips = {"192.168.10.0"}},
      {.desc = "then the next priority",
       .op = Op::Allocate,
       .svc = "test/s2",
       .ips = {"192.168.5.0"}},
      {.desc = "then the unprioritised namespace pools, by name",
       .op = Op::Allocate,
       .svc = "test/s3",
       .ips = {"192.168.50.1"}},
      {.desc = "then the last namespace pool",
       .op = Op::Allocate,
       .svc = "test/s4",
       .ips = {"192.168.20.0"}},
      {.desc = "pinned pools exhausted: general pools serve",
       .op = Op::Allocate,
       .svc = "test/s5",
       .ips = {"10.0.0.0"}},
      {.desc = "a service selector with a better priority wins",
       .op = Op::Allocate,
       .svc = "test/g1",
       .ips = {"192.168.30.0"},
       .labels = gold},
      {.desc = "a selector pool serves every namespace",
       .op = Op::Allocate,
       .svc = "other/g2",
       .ips = {"192.168.30.1"},
       .labels = gold},
      {.desc = "equal priorities go by pool name",
       .op = Op::Allocate,
       .svc = "tie/t1",
       .ips = {"192.168.40.2"}},
      {.desc = "then the other pool of equal priority",
       .op = Op::Allocate,
       .svc = "tie/t2",
       .ips = {"192.168.40.1"}},
      {.desc = "a pool for another namespace is not compatible",
       .op = Op::FromPool,
       .svc = "other/x",
       .want_error = "pool manual-ns not compatible for ip assignment",
       .pool = "manual-ns"},
      {.desc = "an explicit address of an incompatible pool is refused",
       .op = Op::Assign,
       .svc = "other/x",
       .ips = {"192.168.5.0"},
       .want_error = "pool test-ns-pool-1 not compatible for ip assignment"},
      {.desc = "a namespace selector that matched nothing admits nobody",
       .op = Op::FromPool,
       .svc = "test/x",
       .want_error = "pool nobody not compatible for ip assignment",
       .pool = "nobody"},
      {.desc = "a selector pool refuses unlabelled services",
       .op = Op::FromPool,
       .svc = "test/x",
       .want_error = "pool gold not compatible for ip assignment",
       .pool = "gold"},
      {.desc = "autoAssign=false pinned pools serve explicit requests",
       .op = Op::FromPool,
       .svc = "test/m",
       .ips = {"192.168.60.1"},
       .pool = "manual-ns"},
      {.desc = "other namespaces use the general pool",
       .op = Op::Allocate,
       .svc = "other/o1",
       .ips = {"10.0.0.1"}},
  };
  runSteps(a, steps);
}

BOOST_AUTO_TEST_CASE(set_pools_rehomes_and_releases_allocations) {
  Allocator a;
  BOOST_REQUIRE(
      a.setPools(
           makePools({{"a", {"10.0.0.0/24"}}, {"b", {"10.0.1.0/24"}}, {"c", {"10.0.2.0/24"}}}))
          .has_value());
  BOOST_REQUIRE(a.assign(request("ns/s1"), {ip("10.0.0.5")}).has_value());
  BOOST_REQUIRE(a.assign(request("ns/s2"), {ip("10.0.1.5")}).has_value());
  BOOST_REQUIRE(a.assign(request("ns/s3"), {ip("10.0.2.0")}).has_value());
  BOOST_REQUIRE(a.assign(request("ns/s4"), {ip("10.0.2.7")}).has_value());

  // a is renamed to z, b disappears, c starts avoiding buggy IPs.
  auto out = a.setPools(makePools({{"z", {"10.0.0.0/24"}}, {"c", {"10.0.2.0/24"}, true, true}}));
  BOOST_REQUIRE(out.has_value());
  BOOST_REQUIRE(out->moved.size() == 1U);
  BOOST_TEST(out->moved[0].service == "ns/s1");
  BOOST_TEST(out->moved[0].from == "a");
  BOOST_TEST(out->moved[0].to == "z");
  BOOST_REQUIRE(out->released.size() == 2U);
  BOOST_TEST(out->released[0].service == "ns/s2");
  BOOST_TEST(out->released[0].pool == "b");
  BOOST_TEST(out->released[1].service == "ns/s3");
  BOOST_TEST(a.poolOf("ns/s1") == "z");
  BOOST_TEST(a.poolOf("ns/s2") == "");
  BOOST_TEST(a.poolOf("ns/s4") == "c");
  BOOST_TEST((a.counters("z")->assigned_v4 == 1));
  BOOST_TEST((a.counters("c")->assigned_v4 == 1));
  BOOST_TEST(!a.counters("a").has_value());
  // The released addresses are free again; the re-homed one is still taken.
  BOOST_TEST(a.allocateFromPool(request("ns/s5"), v4(), "z")->front().toString() == "10.0.0.0");
  BOOST_TEST(a.allocateFromPool(request("ns/s6"), v4(), "z")->front().toString() == "10.0.0.1");

  // An overlapping pool set is refused and changes nothing.
  auto bad = a.setPools(makePools({{"x", {"10.0.0.0/16"}}, {"y", {"10.0.2.0/24"}}}));
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(a.poolOf("ns/s1") == "z");
  BOOST_TEST(a.poolNames() == (std::vector<std::string>{"c", "z"}));

  // Deleting every pool releases everything.
  auto none = a.setPools({});
  BOOST_REQUIRE(none.has_value());
  BOOST_TEST(none->released.size() == 4U);
  BOOST_TEST(a.serviceKeys().empty());
}

BOOST_AUTO_TEST_CASE(huge_pools_allocate_without_scanning) {
  Allocator a;
  BOOST_REQUIRE(
      a.setPools(makePools({{"v4", {"10.0.0.0/8"}, true, true}, {"v6", {"2001:db8:1::/48"}}}))
          .has_value());
  std::string last;
  for (int i = 0; i < 1000; ++i) {
    last = a.allocate(request("ns/v4-" + std::to_string(i)), v4())->front().toString();
  }
  BOOST_TEST(last == "10.0.3.238");  // 1000 addresses, 254 per /24: .1-.254 of 0-2, then 238
  for (int i = 0; i < 1000; ++i) {
    last = a.allocate(request("ns/v6-" + std::to_string(i)), v6())->front().toString();
  }
  BOOST_TEST(last == "2001:db8:1::3e7");
  const auto c4 = *a.counters("v4");
  BOOST_TEST((c4.capacity_v4 == (U128{1} << 24) - (U128{2} << 16)));
  BOOST_TEST((c4.assigned_v4 == 1000));
  const auto c6 = *a.counters("v6");
  BOOST_TEST((c6.capacity_v6 == U128{1} << 80));
  BOOST_TEST((c6.availableV6() == (U128{1} << 80) - 1000));
  // ::/0 hands out :: first, then ::1, ...; an explicit address at the very top works too.
  Allocator all;
  BOOST_REQUIRE(all.setPools(makePools({{"all", {"::/0"}, false}})).has_value());
  BOOST_TEST(all.allocateFromPool(request("ns/all1"), v6(), "all")->front().toString() == "::");
  BOOST_TEST(all.allocateFromPool(request("ns/all2"), v6(), "all")->front().toString() == "::1");
  BOOST_TEST(
      all.assign(request("ns/all3"), {ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")}).has_value());
  // 2^128 addresses: one more than a U128 holds, counted exactly.
  BOOST_TEST(all.counters("all")->capacity_v6.toString() ==
             "340282366920938463463374607431768211456");
  BOOST_TEST((all.counters("all")->assigned_v6 == 3));
  BOOST_TEST(all.counters("all")->availableV6().toString() ==
             "340282366920938463463374607431768211453");
}

BOOST_AUTO_TEST_CASE(counters_count_distinct_addresses_and_services) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"p", {"10.0.0.0/30", "fc00::/126"}}})).has_value());
  BOOST_REQUIRE(a.assign(request("ns/a", "TCP/80", "k"), {ip("10.0.0.1")}).has_value());
  BOOST_REQUIRE(a.assign(request("ns/b", "TCP/443", "k"), {ip("10.0.0.1")}).has_value());
  BOOST_REQUIRE(a.assign(request("ns/c"), {ip("10.0.0.2"), ip("fc00::1")}).has_value());
  auto c = *a.counters("p");
  BOOST_TEST((c.assigned_v4 == 2));
  BOOST_TEST((c.assigned_v6 == 1));
  BOOST_TEST((c.availableV4() == 2));
  BOOST_TEST((c.availableV6() == 3));
  BOOST_TEST(c.services == 3U);
  a.unassign("ns/a");
  c = *a.counters("p");
  BOOST_TEST((c.assigned_v4 == 2));  // still used by ns/b
  a.unassign("ns/b");
  c = *a.counters("p");
  BOOST_TEST((c.assigned_v4 == 1));
  BOOST_TEST(c.services == 1U);
  BOOST_TEST((a.allocationKey("ns/c") == AllocationKey{}));
}

BOOST_AUTO_TEST_SUITE_END()
