// SPDX-License-Identifier: Apache-2.0
#include "controller/core/interval_set.h"

#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

using ingot::controller::IntervalSet;
using ingot::net::U128;

namespace {
constexpr U128 kMax = ~U128{0};
}

BOOST_AUTO_TEST_SUITE(interval_set)

BOOST_AUTO_TEST_CASE(runs_merge_and_split_as_values_come_and_go) {
  struct Step {
    std::string desc;
    bool insert;
    U128 value;
    bool want_changed;
    std::size_t want_runs;
    U128 want_first_absent_from_zero;
  };
  const std::vector<Step> steps = {
      {"insert 0 makes one run", true, 0, true, 1, 1},
      {"insert 2 makes a second run", true, 2, true, 2, 1},
      {"insert 1 bridges both runs", true, 1, true, 1, 3},
      {"insert 1 again is a no-op", true, 1, false, 1, 3},
      {"insert 4 leaves a hole at 3", true, 4, true, 2, 3},
      {"insert 3 merges into 0..4", true, 3, true, 1, 5},
      {"erase 2 splits the run", false, 2, true, 2, 2},
      {"erase 2 again is a no-op", false, 2, false, 2, 2},
      {"erase 0 shrinks the first run", false, 0, true, 2, 0},
      {"erase 4 shrinks the last run", false, 4, true, 2, 0},
      {"erase 1 removes a single-value run", false, 1, true, 1, 0},
      {"erase 3 empties the set", false, 3, true, 0, 0},
  };
  IntervalSet set;
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT(s.desc) {
      const bool changed = s.insert ? set.insert(s.value) : set.erase(s.value);
      BOOST_TEST(changed == s.want_changed);
      BOOST_TEST(set.runCount() == s.want_runs);
      BOOST_TEST((*set.firstAbsentAtOrAfter(0) == s.want_first_absent_from_zero));
    }
  }
}

BOOST_AUTO_TEST_CASE(extremes_of_the_128_bit_range_do_not_overflow) {
  IntervalSet set;
  BOOST_TEST(set.insert(kMax));
  BOOST_TEST(set.insert(kMax - 1));
  BOOST_TEST(set.runCount() == 1U);
  BOOST_TEST(!set.firstAbsentAtOrAfter(kMax - 1).has_value());
  BOOST_TEST((*set.firstAbsentAtOrAfter(kMax - 5) == kMax - 5));
  BOOST_TEST(set.insert(0));
  BOOST_TEST(set.runCount() == 2U);
  BOOST_TEST((*set.firstAbsentAtOrAfter(0) == 1));
  BOOST_TEST(set.erase(kMax));
  BOOST_TEST((*set.firstAbsentAtOrAfter(kMax - 1) == kMax));
  BOOST_TEST((set.size() == 2));
}

BOOST_AUTO_TEST_CASE(a_million_sequential_values_stay_one_run) {
  IntervalSet set;
  const U128 base = U128{0x20010db8} << 96;
  for (U128 i = 0; i < 1000000; ++i) {
    set.insert(base + i);
  }
  BOOST_TEST(set.runCount() == 1U);
  BOOST_TEST((set.size() == 1000000));
  BOOST_TEST((*set.firstAbsentAtOrAfter(base) == base + 1000000));
}

BOOST_AUTO_TEST_CASE(random_operations_agree_with_a_plain_set) {
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> value(0, 199);
  std::uniform_int_distribution<int> coin(0, 2);
  IntervalSet set;
  std::set<U128> model;
  for (int i = 0; i < 20000; ++i) {
    const U128 v = static_cast<U128>(value(rng));
    if (coin(rng) == 0) {
      BOOST_REQUIRE(set.erase(v) == (model.erase(v) == 1));
    } else {
      BOOST_REQUIRE(set.insert(v) == model.insert(v).second);
    }
    const U128 probe = static_cast<U128>(value(rng));
    U128 want = probe;
    while (model.count(want) != 0) {
      ++want;
    }
    BOOST_REQUIRE((*set.firstAbsentAtOrAfter(probe) == want));
    BOOST_REQUIRE(set.contains(probe) == (model.count(probe) == 1));
    BOOST_REQUIRE((set.size() == model.size()));
  }
}

BOOST_AUTO_TEST_SUITE_END()
