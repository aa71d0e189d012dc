// SPDX-License-Identifier: Apache-2.0
#include "controller/core/pool_status.h"

#include <cstdint>
#include <limits>

#include <boost/test/unit_test.hpp>

#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;
using net::U128;

BOOST_AUTO_TEST_SUITE(pool_status)

BOOST_AUTO_TEST_CASE(int64_fields_saturate_instead_of_overflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  struct Case {
    std::string desc;
    U128 value;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"zero", 0, 0},
      {"a /24", 256, 256},
      {"exactly INT64_MAX", static_cast<U128>(kMax), kMax},
      {"INT64_MAX + 1", static_cast<U128>(kMax) + 1, kMax},
      {"an IPv6 /64", U128{1} << 64, kMax},
      {"the U128 maximum", ~U128{0}, kMax},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(saturateToInt64(c.value) == c.want);
    }
  }
  BOOST_TEST(u128ToDouble(U128{1} << 64) == 18446744073709551616.0);
  BOOST_TEST(u128ToDouble(12345) == 12345.0);
}

BOOST_AUTO_TEST_CASE(pool_status_reports_assigned_and_available_per_family) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"small", {"192.168.1.0/24"}, true, true},
                                      {"huge", {"192.168.2.0/30", "fd00::/64"}}}))
                    .has_value());
  BOOST_REQUIRE(a.allocate(request("ns/a"), v4()).has_value());
  BOOST_REQUIRE(a.allocateFromPool(request("ns/b"), dual(FamilyPolicy::RequireDualStack), "huge")
                    .has_value());
  const auto small = poolStatus(*a.counters("small"));
  BOOST_TEST(small.assigned_ipv4 == 0);  // "huge" sorts first: ns/a went there
  BOOST_TEST(small.available_ipv4 == 254);
  BOOST_TEST(small.available_ipv6 == 0);
  const auto huge = poolStatus(*a.counters("huge"));
  BOOST_TEST(huge.assigned_ipv4 == 2);
  BOOST_TEST(huge.assigned_ipv6 == 1);
  BOOST_TEST(huge.available_ipv4 == 2);
  BOOST_TEST(huge.available_ipv6 == std::numeric_limits<int64_t>::max());
  const auto all = allPoolCounters(a);
  BOOST_REQUIRE(all.size() == 2U);
  BOOST_TEST(all[0].pool == "huge");
  BOOST_TEST((all[0].availableV6() == (U128{1} << 64) - 1));
}

BOOST_AUTO_TEST_CASE(metrics_are_metallbs_gauges_per_pool) {
  Allocator a;
  BOOST_REQUIRE(a.setPools(makePools({{"p", {"192.168.1.0/24", "fc00::/64"}, true, true},
                                      {"q", {"10.0.0.0/30"}}}))
                    .has_value());
  BOOST_REQUIRE(a.assign(request("ns/a", "TCP/80", "k"), {ip("192.168.1.1")}).has_value());
  BOOST_REQUIRE(
      a.assign(request("ns/b", "TCP/443", "k"), {ip("192.168.1.1"), ip("fc00::1")}).has_value());
  const auto metrics = allocatorMetrics(a);
  struct Want {
    std::string name;
    std::string pool;
    double value;
  };
  const std::vector<Want> want = {
      {"metallb_allocator_addresses_total", "p", 254.0 + 18446744073709551616.0},
      {"metallb_allocator_addresses_total", "q", 4},
      {"metallb_allocator_ipv4_addresses_total", "p", 254},
      {"metallb_allocator_ipv4_addresses_total", "q", 4},
      {"metallb_allocator_ipv6_addresses_total", "p", 18446744073709551616.0},
      {"metallb_allocator_ipv6_addresses_total", "q", 0},
      {"metallb_allocator_addresses_in_use_total", "p", 2},
      {"metallb_allocator_addresses_in_use_total", "q", 0},
      {"metallb_allocator_ipv4_addresses_in_use_total", "p", 1},
      {"metallb_allocator_ipv4_addresses_in_use_total", "q", 0},
      {"metallb_allocator_ipv6_addresses_in_use_total", "p", 1},
      {"metallb_allocator_ipv6_addresses_in_use_total", "q", 0},
      {"metallb_allocator_services_allocated_total", "p", 2},
      {"metallb_allocator_services_allocated_total", "q", 0},
  };
  BOOST_REQUIRE(metrics.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST_CONTEXT(want[i].name << "{pool=" << want[i].pool << "}") {
      BOOST_TEST(metrics[i].name == want[i].name);
      BOOST_REQUIRE(metrics[i].labels.size() == 1U);
      BOOST_TEST(metrics[i].labels[0].first == "pool");
      BOOST_TEST(metrics[i].labels[0].second == want[i].pool);
      BOOST_TEST(metrics[i].value == want[i].value);
      BOOST_TEST(!metrics[i].help.empty());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
