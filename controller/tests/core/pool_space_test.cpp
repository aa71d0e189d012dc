// SPDX-License-Identifier: Apache-2.0
#include "controller/core/pool_space.h"

#include <boost/test/unit_test.hpp>

#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;
using ingot::net::U128;

BOOST_AUTO_TEST_SUITE(pool_space)

BOOST_AUTO_TEST_CASE(capacity_is_exact_and_avoid_buggy_adjusted) {
  struct Case {
    std::string desc;
    std::string cidr;
    bool avoid;
    net::Count want;
  };
  const U128 two64 = U128{1} << 64;
  const std::vector<Case> cases = {
      {"a /24 holds 256", "192.168.1.0/24", false, 256},
      {"avoidBuggyIPs takes .0 and .255 off a /24", "192.168.1.0/24", true, 254},
      {"avoidBuggyIPs takes 2 per /24 off a /16", "10.1.0.0/16", true, 65536 - 512},
      {"a /8 with avoidBuggyIPs", "10.0.0.0/8", true, (U128{1} << 24) - (U128{2} << 16)},
      {"a /25 at .0 loses one", "192.168.1.0/25", true, 127},
      {"a /25 at .128 loses the .255", "192.168.1.128/25", true, 127},
      {"a /26 in the middle loses none", "192.168.1.64/26", true, 64},
      {"a /32 on .0 has nothing usable", "192.168.1.0/32", true, 0},
      {"a /32 on .255 has nothing usable", "192.168.1.255/32", true, 0},
      {"a /32 elsewhere is one address", "192.168.1.7/32", true, 1},
      {"a /31 on .0 keeps .1", "192.168.1.0/31", true, 1},
      {"IPv6 ignores avoidBuggyIPs", "fc00::/120", true, 256},
      {"an IPv6 /64 is exactly 2^64", "fc00::/64", false, two64},
      {"an IPv6 /48 is exactly 2^80", "fc00::/48", false, U128{1} << 80},
      {"::/0 is 2^128, one more than the U128 maximum", "::/0", false,
       net::Count(~U128{0}) + net::Count(1)},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto cidr = ingot::net::Cidr::parse(c.cidr);
      BOOST_REQUIRE(cidr.has_value());
      BOOST_TEST((cidrCapacity(*cidr, c.avoid) == c.want));
    }
  }
}

BOOST_AUTO_TEST_CASE(pool_capacity_sums_entries_per_family) {
  PoolSpace space(makePool({"p", {"192.168.1.0/24", "192.168.2.10-192.168.2.20", "fc00::/64"}}));
  BOOST_TEST((space.capacity(ingot::net::Family::V4) == 256 + 11));
  BOOST_TEST((space.capacity(ingot::net::Family::V6) == U128{1} << 64));
  BOOST_TEST(space.hasFamily(ingot::net::Family::V6));
}

BOOST_AUTO_TEST_CASE(first_free_skips_used_and_buggy_addresses) {
  struct Step {
    std::string desc;
    std::string mark;  // address to mark used ("" = none)
    std::string cidr;
    std::string want;  // "" = none free
  };
  PoolSpace space(makePool(PoolSpec{"p", {"10.0.0.0/23", "10.0.5.250/31"}, true, true}));
  const std::vector<Step> steps = {
      {"the lowest usable address of a /23 is .1", "", "10.0.0.0/23", "10.0.0.1"},
      {"used .1 moves on to .2", "10.0.0.1", "10.0.0.0/23", "10.0.0.2"},
      {"a /31 ending before .255 starts at .250", "", "10.0.5.250/31", "10.0.5.250"},
      {"a used .250 leaves .251", "10.0.5.250", "10.0.5.250/31", "10.0.5.251"},
      {"the /31 is full", "10.0.5.251", "10.0.5.250/31", ""},
  };
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT(s.desc) {
      if (!s.mark.empty()) {
        space.markUsed(ip(s.mark));
      }
      auto got = space.firstFreeIn(*ingot::net::Cidr::parse(s.cidr));
      BOOST_TEST((got ? got->toString() : "") == s.want);
    }
  }
  // Fill .1-.254 of the first /24: the next free address jumps over .255 and .0 in one step.
  for (int i = 2; i <= 254; ++i) {
    space.markUsed(ip("10.0.0." + std::to_string(i)));
  }
  BOOST_TEST(space.firstFreeIn(*ingot::net::Cidr::parse("10.0.0.0/23"))->toString() == "10.0.1.1");
  BOOST_TEST((space.used(ingot::net::Family::V4) == 256));
  BOOST_TEST(!space.usable(ip("10.0.1.0")));
  BOOST_TEST(!space.usable(ip("10.0.0.255")));
  BOOST_TEST(space.usable(ip("10.0.1.254")));
  BOOST_TEST(!space.usable(ip("10.0.2.1")));
  space.markFree(ip("10.0.0.200"));
  BOOST_TEST(space.firstFreeIn(*ingot::net::Cidr::parse("10.0.0.0/23"))->toString() ==
             "10.0.0.200");
}

BOOST_AUTO_TEST_CASE(huge_ipv6_pools_find_free_addresses_without_scanning) {
  PoolSpace space(makePool({"p", {"::/0"}}));
  const auto all = *ingot::net::Cidr::parse("::/0");
  BOOST_TEST(space.firstFreeIn(all)->toString() == "::");
  space.markUsed(ip("::"));
  space.markUsed(ip("::1"));
  BOOST_TEST(space.firstFreeIn(all)->toString() == "::2");
  PoolSpace top(makePool({"top", {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"}}));
  const auto last2 = *ingot::net::Cidr::parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
  top.markUsed(ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"));
  top.markUsed(ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
  BOOST_TEST(!top.firstFreeIn(last2).has_value());
}

BOOST_AUTO_TEST_CASE(pool_index_finds_owners_and_rejects_overlaps) {
  std::vector<PoolSpace> ok;
  ok.emplace_back(makePool({"a", {"10.0.0.0/24", "fc00::/64"}}));
  ok.emplace_back(makePool({"b", {"10.0.1.0/24", "10.0.3.0-10.0.3.10"}}));
  auto index = PoolIndex::build(ok);
  BOOST_REQUIRE(index.has_value());
  BOOST_TEST(*index->find(ip("10.0.0.255")) == 0U);
  BOOST_TEST(*index->find(ip("10.0.1.0")) == 1U);
  BOOST_TEST(*index->find(ip("10.0.3.10")) == 1U);
  BOOST_TEST(!index->find(ip("10.0.3.11")).has_value());
  BOOST_TEST(*index->find(ip("fc00::ffff")) == 0U);
  BOOST_TEST(!index->find(ip("fc01::")).has_value());

  struct Case {
    std::string desc;
    std::vector<std::string> a;
    std::vector<std::string> b;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"a CIDR inside another pool's",
       {"10.0.0.0/16"},
       {"10.0.5.0/24"},
       "CIDR \"10.0.5.0/24\" in pool \"b\" overlaps with addresses from \"10.0.0.0\" to "
       "\"10.0.255.255\" in pool \"a\""},
      {"the same CIDR twice",
       {"fc00::/64"},
       {"fc00::/64"},
       "CIDR \"fc00::/64\" in pool \"b\" overlaps with addresses from \"fc00::\" to "
       "\"fc00::ffff:ffff:ffff:ffff\" in pool \"a\""},
      {"a CIDR containing the next one",
       {"10.0.5.0/24"},
       {"10.0.0.0/16"},
       "CIDR \"10.0.0.0/16\" in pool \"b\" overlaps with addresses from \"10.0.5.0\" to "
       "\"10.0.5.255\" in pool \"a\""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      std::vector<PoolSpace> spaces;
      spaces.emplace_back(makePool({"a", c.a}));
      spaces.emplace_back(makePool({"b", c.b}));
      auto built = PoolIndex::build(spaces);
      BOOST_REQUIRE(!built.has_value());
      BOOST_TEST(built.error().message == c.want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
