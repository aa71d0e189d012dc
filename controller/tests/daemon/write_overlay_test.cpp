// SPDX-License-Identifier: Apache-2.0
#include "controller/write_overlay.h"

#include <boost/test/unit_test.hpp>

using namespace ingot::controller;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(write_overlay)

BOOST_AUTO_TEST_CASE(written_value_hides_the_cache_until_it_catches_up) {
  // Each step looks up "k" with the cache at cached_rv, after `elapsed` since the write.
  struct Step {
    std::string desc;
    std::string cached_rv;
    ingot::k8s::Duration elapsed;
    bool visible;
  };
  struct Case {
    std::string desc;
    std::string written_rv;
    std::vector<Step> steps;
  };
  const std::vector<Case> cases = {
      {"cache behind, then caught up",
       "7",
       {{"still at the version written over", "5", 0s, true},
        {"at an intermediate version", "6", 1s, true},
        {"at the written version: forgotten", "7", 2s, false},
        {"stays forgotten", "5", 3s, false}}},
      {"unknown written version lives until the ttl",
       "",
       {{"before the ttl", "5", 9s, true}, {"after the ttl", "5", 10s, false}}},
      {"a relist that skipped the written version is bounded by the ttl",
       "7",
       {{"newer version", "9", 1s, true}, {"ttl over", "9", 11s, false}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      WriteOverlay<int> overlay(10s);
      const ingot::k8s::TimePoint t0{std::chrono::hours(1)};
      overlay.record("k", 42, c.written_rv, t0);
      for (const auto& s : c.steps) {
        BOOST_TEST_CONTEXT(s.desc) {
          const int* v = overlay.lookup("k", s.cached_rv, t0 + s.elapsed);
          BOOST_TEST((v != nullptr) == s.visible);
          if (v != nullptr) BOOST_TEST(*v == 42);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(erase_and_other_keys) {
  WriteOverlay<int> overlay(10s);
  const ingot::k8s::TimePoint t0{};
  overlay.record("a", 1, "3", t0);
  BOOST_TEST(overlay.lookup("b", "1", t0) == nullptr);
  BOOST_TEST(overlay.size() == 1u);
  overlay.erase("a");
  BOOST_TEST(overlay.lookup("a", "1", t0) == nullptr);
  BOOST_TEST(overlay.size() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
