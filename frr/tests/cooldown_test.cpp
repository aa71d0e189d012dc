// SPDX-License-Identifier: Apache-2.0
// Cooldown: when a change to the BGP configuration is applied, on an injected time line.
#include "frr/cooldown.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace ingot::frr {
namespace {

using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;

/// Step is one event at `at` ms on the time line: a change (want = the delay it must get) or
/// the end of an apply that cost `cost` ms.
struct Step {
  enum Kind { Change, Applied } kind;
  long at;
  long value;  ///< Change: the wanted delay (ms); Applied: the apply's cost (ms)
};

Step change(long at, long want) {
  return {Step::Change, at, want};
}
Step applied(long at, long cost) {
  return {Step::Applied, at, cost};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cooldown)

BOOST_AUTO_TEST_CASE(cooldown_is_factor_times_cost_between_floor_and_max) {
  struct Case {
    CooldownOptions options;
    Ms cost;
    Ms want;
  };
  const std::vector<Case> cases = {
      {{200ms, 20ms, 3}, 0ms, 20ms},      // floor
      {{200ms, 20ms, 3}, 5ms, 20ms},      // 15 ms is under the floor
      {{200ms, 20ms, 3}, 10ms, 30ms},     // a cheap delta
      {{200ms, 20ms, 3}, 60ms, 180ms},    // a 10k-prefix rebuild
      {{200ms, 20ms, 3}, 67ms, 200ms},    // capped by the debounce
      {{200ms, 20ms, 3}, 5000ms, 200ms},  // a slow full reload
      {{3000ms, 20ms, 3}, 2s, 3000ms},    // MetalLB's default debounce
      {{0ms, 20ms, 3}, 50ms, 0ms},        // --bgp-debounce-timeout=0: never wait
      {{10ms, 20ms, 3}, 1ms, 10ms},       // a debounce under the floor wins
      {{200ms, 20ms, 1}, 40ms, 40ms},     // another factor
      {{200ms, 20ms, 3}, -5ms, 20ms},     // a clock that went back counts as free
      {{200ms, 20ms, 3},
       Ms(std::chrono::duration_cast<Ms>(std::chrono::nanoseconds::max())),
       200ms},  // no overflow
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("max " << Ms(std::chrono::duration_cast<Ms>(c.options.max)).count()
                              << " factor " << c.options.factor << " cost " << c.cost.count()) {
      const Cooldown cd(c.options);
      BOOST_TEST(std::chrono::duration_cast<Ms>(cd.cooldownFor(c.cost)).count() == c.want.count());
    }
  }
}

BOOST_AUTO_TEST_CASE(changes_go_at_once_after_the_cooldown_and_coalesce_within_it) {
  struct Case {
    std::string name;
    std::vector<Step> steps;
  };
  const std::vector<Case> cases = {
      {"the first change goes at once", {change(0, 0)}},
      {"a lone change after a cheap apply does not wait the debounce",
       {change(0, 0), applied(10, 10), change(160, 0)}},
      {"a change inside the cool-down waits for its end (30 ms after a 10 ms apply)",
       {change(0, 0), applied(10, 10), change(15, 25), change(39, 1), change(40, 0)}},
      {"a burst coalesces: every change waits for the same end",
       {change(0, 0), applied(10, 10), change(11, 29), change(12, 28), change(30, 10),
        applied(45, 5), change(46, 19), change(65, 0)}},
      {"the cool-down counts from the apply's end, not from the change",
       {change(0, 0), applied(100, 10), change(110, 20), change(130, 0)}},
      {"the floor applies to a free apply",
       {applied(0, 0), change(1, 19), change(19, 1), change(20, 0)}},
      {"expensive applies stretch the cool-down up to the debounce",
       {applied(60, 60), change(61, 179), change(240, 0), applied(300, 60), change(301, 179),
        applied(1000, 500), change(1001, 199), change(1199, 1), change(1200, 0)}},
      {"each apply replaces the cool-down of the one before",
       {applied(100, 60), applied(110, 1), change(111, 19), change(130, 0)}},
  };
  const Cooldown::Clock::time_point t0{std::chrono::hours(1)};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Cooldown cd(CooldownOptions{200ms, 20ms, 3});
      for (const auto& s : c.steps) {
        const auto at = t0 + Ms(s.at);
        if (s.kind == Step::Applied) {
          cd.applied(Ms(s.value), at);
          continue;
        }
        BOOST_TEST_CONTEXT("change at " << s.at << " ms") {
          BOOST_TEST(std::chrono::duration_cast<Ms>(cd.delay(at)).count() == s.value);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
