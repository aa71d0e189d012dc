// SPDX-License-Identifier: Apache-2.0
#include "kube/write_overlay.h"

#include <boost/test/unit_test.hpp>

using ingot::k8s::CacheView;
using ingot::k8s::Duration;
using ingot::k8s::TimePoint;
using ingot::k8s::WriteOverlay;
using namespace std::chrono_literals;

namespace {

const TimePoint kWrittenAt{std::chrono::hours(1)};

/// Cached is a test row's view of the cache: absent, or present at rv with value.
struct Cached {
  bool present;
  std::string rv;
  std::optional<int> value;  ///< passed to lookup when set
};

/// Written is what a row expects lookup to answer: nothing, a deletion, or a value.
enum class Seen { Cache, Deleted, Value };

}  // namespace

BOOST_AUTO_TEST_SUITE(write_overlay)

BOOST_AUTO_TEST_CASE(a_write_hides_the_cache_until_it_catches_up) {
  // Each step looks up "k" with the cache as `cached`, `elapsed` after the write (ttl 10 s).
  struct Step {
    std::string desc;
    Cached cached;
    Duration elapsed;
    Seen seen;
  };
  struct Case {
    std::string desc;
    std::optional<int> written;  ///< nullopt: a deletion
    std::string written_rv;
    std::vector<Step> steps;
  };
  const std::vector<Case> cases = {
      {"cache behind, then caught up",
       42,
       "7",
       {{"still at the version written over", {true, "5", {}}, 0s, Seen::Value},
        {"at an intermediate version", {true, "6", {}}, 1s, Seen::Value},
        {"at the written version: forgotten", {true, "7", {}}, 2s, Seen::Cache},
        {"stays forgotten", {true, "5", {}}, 3s, Seen::Cache}}},
      {"unknown written version lives until the ttl",
       42,
       "",
       {{"before the ttl", {true, "5", {}}, 9s, Seen::Value},
        {"after the ttl", {true, "5", {}}, 10s, Seen::Cache}}},
      {"a relist that skipped the written version is bounded by the ttl",
       42,
       "7",
       {{"newer version", {true, "9", {}}, 1s, Seen::Value},
        {"ttl over", {true, "9", {}}, 11s, Seen::Cache}}},
      {"a cache without the written object has not caught up (the create is not delivered yet)",
       42,
       "7",
       {{"absent", {false, "", {}}, 1s, Seen::Value},
        {"present at the written version", {true, "7", {}}, 2s, Seen::Cache}}},
      {"a cached value equal to the written one catches up, whatever its version",
       42,
       "7",
       {{"other value", {true, "6", 41}, 1s, Seen::Value},
        {"equal value", {true, "6", 42}, 2s, Seen::Cache}}},
      {"an unknown written version is caught up by an equal value",
       42,
       "",
       {{"equal value", {true, "6", 42}, 1s, Seen::Cache}}},
      {"a deletion hides the object until the cache drops it",
       std::nullopt,
       "",
       {{"still cached", {true, "5", 42}, 1s, Seen::Deleted},
        {"gone from the cache: forgotten", {false, "", {}}, 2s, Seen::Cache},
        {"back in the cache (created again)", {true, "8", 42}, 3s, Seen::Cache}}},
      {"a deletion the cache never drops is bounded by the ttl",
       std::nullopt,
       "",
       {{"before the ttl", {true, "5", {}}, 9s, Seen::Deleted},
        {"after the ttl", {true, "5", {}}, 10s, Seen::Cache}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      WriteOverlay<int> overlay(10s);
      if (c.written) {
        overlay.record("k", *c.written, c.written_rv, kWrittenAt);
      } else {
        overlay.recordDeleted("k", kWrittenAt);
      }
      for (const auto& s : c.steps) {
        BOOST_TEST_CONTEXT(s.desc) {
          const int* value = s.cached.value ? &*s.cached.value : nullptr;
          const auto* w = overlay.lookup("k", CacheView<int>{s.cached.present, s.cached.rv, value},
                                         kWrittenAt + s.elapsed);
          const Seen seen = w == nullptr ? Seen::Cache : (w->value ? Seen::Value : Seen::Deleted);
          BOOST_TEST(static_cast<int>(seen) == static_cast<int>(s.seen));
          if (seen == Seen::Value) BOOST_TEST(*w->value == *c.written);
          BOOST_TEST(overlay.size() == (seen == Seen::Cache ? 0u : 1u));
        }
      }
    }
  }
}

// written() is lookup() for a cache that holds the object at a version ("" = not at all).
BOOST_AUTO_TEST_CASE(written_answers_the_value_over_a_cached_version) {
  WriteOverlay<int> overlay(10s);
  overlay.record("k", 42, "7", kWrittenAt);
  BOOST_TEST(overlay.written("other", "7", kWrittenAt) == nullptr);
  BOOST_TEST(*overlay.written("k", "", kWrittenAt) == 42);
  BOOST_TEST(*overlay.written("k", "6", kWrittenAt) == 42);
  BOOST_TEST(overlay.written("k", "7", kWrittenAt) == nullptr);
  overlay.recordDeleted("d", kWrittenAt);
  BOOST_TEST(overlay.written("d", "3", kWrittenAt) == nullptr);  // a deletion has no value
}

// A value type without operator== is caught up by resourceVersion and ttl alone.
BOOST_AUTO_TEST_CASE(values_without_equality_are_caught_up_by_version) {
  struct Opaque {
    int n;
  };
  WriteOverlay<Opaque> overlay(10s);
  overlay.record("k", Opaque{1}, "7", kWrittenAt);
  const Opaque cached{1};
  BOOST_TEST(overlay.lookup("k", CacheView<Opaque>{true, "6", &cached}, kWrittenAt) != nullptr);
  BOOST_TEST(overlay.lookup("k", CacheView<Opaque>{true, "7", &cached}, kWrittenAt) == nullptr);
}

// A new write replaces the entry (and its group); erase forgets it.
BOOST_AUTO_TEST_CASE(the_last_write_wins_and_groups_follow_it) {
  WriteOverlay<int> overlay(10s);
  overlay.record("a", 1, "3", kWrittenAt, "svc1");
  overlay.record("b", 2, "4", kWrittenAt, "svc1");
  overlay.record("c", 3, "5", kWrittenAt, "svc2");
  BOOST_TEST(overlay.keysIn("svc1") == (std::vector<std::string>{"a", "b"}),
             boost::test_tools::per_element());
  overlay.recordDeleted("b", kWrittenAt, "svc2");  // b now reports on svc2
  BOOST_TEST(overlay.keysIn("svc1") == (std::vector<std::string>{"a"}),
             boost::test_tools::per_element());
  BOOST_TEST(overlay.keysIn("svc2") == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      !overlay.lookup("b", CacheView<int>{true, "4", nullptr}, kWrittenAt)->value.has_value());
  overlay.erase("a");
  BOOST_TEST(overlay.keysIn("svc1").empty());
  BOOST_TEST(overlay.keys() == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());
  // Caught up: forgotten from its group too.
  BOOST_TEST(overlay.lookup("c", CacheView<int>{true, "5", nullptr}, kWrittenAt) == nullptr);
  BOOST_TEST(overlay.keysIn("svc2") == (std::vector<std::string>{"b"}),
             boost::test_tools::per_element());
}

// overlay() lays the writes over one pass's snapshot, deciding from that snapshot.
BOOST_AUTO_TEST_CASE(overlay_lays_writes_over_a_snapshot) {
  struct Listed {
    int value;
    std::string rv;
  };
  WriteOverlay<int> overlay(10s);
  overlay.record("written", 2, "9", kWrittenAt);        // cache at rv 8: shown as written
  overlay.record("caught-up", 3, "5", kWrittenAt);      // cache at rv 5: forgotten
  overlay.record("not-listed", 4, "6", kWrittenAt);     // created, not in the cache yet: added
  overlay.recordDeleted("deleted", kWrittenAt);         // still cached: removed
  overlay.recordDeleted("gone", kWrittenAt);            // not cached: forgotten
  overlay.record("expired", 5, "7", kWrittenAt - 11s);  // expired: forgotten, the cache stands
  std::map<std::string, Listed> snapshot = {
      {"written", {1, "8"}}, {"caught-up", {3, "5"}}, {"deleted", {1, "2"}},
      {"expired", {1, "3"}}, {"untouched", {7, "1"}},
  };
  overlay.overlay(
      snapshot, overlay.keys(), kWrittenAt,
      [](const Listed& l) {
        return CacheView<int>{true, l.rv, &l.value};
      },
      [](const std::string&, const auto& w) {
        return Listed{*w.value, w.resource_version};
      });
  std::map<std::string, int> got;
  for (const auto& [k, l] : snapshot) got[k] = l.value;
  const std::map<std::string, int> want = {
      {"written", 2}, {"caught-up", 3}, {"not-listed", 4}, {"expired", 1}, {"untouched", 7}};
  BOOST_TEST((got == want));
  BOOST_TEST(overlay.keys() == (std::vector<std::string>{"deleted", "not-listed", "written"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
