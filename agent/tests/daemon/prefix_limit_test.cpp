// SPDX-License-Identifier: Apache-2.0
#include "agent/core/prefix_limit.h"

#include <boost/test/unit_test.hpp>

namespace ingot::agent {
namespace {

Announcement ann(const std::string& prefix, const std::string& service = "s") {
  Announcement a;
  a.prefix = *net::Cidr::parse(prefix);
  a.service = service;
  return a;
}

struct Case {
  std::string desc;
  std::vector<std::string> desired;  ///< announcement prefixes in order (may repeat)
  std::set<std::string> applied;
  size_t max_new;
  std::vector<std::string> step;  ///< expected announcement prefixes, in order
  size_t deferred;
};

BOOST_AUTO_TEST_CASE(new_prefixes_are_admitted_in_limited_steps) {
  const std::vector<Case> cases = {
      {"everything_fits", {"10.0.0.1/32", "10.0.0.2/32"}, {}, 5, {"10.0.0.1/32", "10.0.0.2/32"}, 0},
      {"only_the_first_new_ones_in_prefix_order",
       {"10.0.0.3/32", "10.0.0.1/32", "10.0.0.2/32"},
       {},
       2,
       {"10.0.0.1/32", "10.0.0.2/32"},
       1},
      {"applied_prefixes_never_count",
       {"10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32"},
       {"10.0.0.1/32", "10.0.0.2/32"},
       1,
       {"10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32"},
       0},
      {"withdrawals_are_not_limited",
       {"10.0.0.9/32"},
       {"10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32"},
       1,
       {"10.0.0.9/32"},
       0},
      {"one_prefix_of_several_announcements_counts_once",
       {"10.0.0.0/24", "10.0.0.0/24", "10.0.1.0/24"},
       {},
       1,
       {"10.0.0.0/24", "10.0.0.0/24"},
       1},
      {"zero_limit_still_makes_progress",
       {"10.0.0.1/32", "10.0.0.2/32"},
       {},
       0,
       {"10.0.0.1/32"},
       1},
      {"nothing_desired_nothing_applied", {}, {}, 3, {}, 0},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      std::vector<Announcement> desired;
      for (const auto& p : c.desired) desired.push_back(ann(p));
      const PrefixStep step = limitNewPrefixes(desired, c.applied, c.max_new);
      std::vector<std::string> got;
      for (const auto& a : step.announcements) got.push_back(a.prefix.toString());
      BOOST_TEST(got == c.step, boost::test_tools::per_element());
      BOOST_TEST(step.deferred == c.deferred);
      BOOST_TEST(step.complete() == (c.deferred == 0));
      BOOST_TEST(step.prefixes == std::set<std::string>(c.step.begin(), c.step.end()),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(repeated_steps_converge_to_the_desired_set) {
  std::vector<Announcement> desired;
  for (int i = 0; i < 25; ++i) desired.push_back(ann("10.1.0." + std::to_string(i) + "/32"));
  std::set<std::string> applied{"10.9.9.9/32"};  // withdrawn in the first step
  int steps = 0;
  for (;;) {
    const PrefixStep step = limitNewPrefixes(desired, applied, 10);
    BOOST_TEST(step.prefixes.size() - std::min(step.prefixes.size(), applied.size()) <= 10u);
    applied = step.prefixes;
    ++steps;
    if (step.complete()) break;
    BOOST_REQUIRE(steps < 10);
  }
  BOOST_TEST(steps == 3);
  BOOST_TEST(applied.size() == 25u);
  BOOST_TEST(!applied.contains("10.9.9.9/32"));
}

}  // namespace
}  // namespace ingot::agent
