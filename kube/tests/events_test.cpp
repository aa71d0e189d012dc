// SPDX-License-Identifier: Apache-2.0
#include "kube/events.h"

#include <future>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/event_message.h"
#include "kube/tests/fake_api_client.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
using namespace std::chrono_literals;
using ingot::ErrorCode;
namespace json = ingot::json;
using ingot::k8s::testing::FakeApiClient;

namespace {

const SystemTime kT0 = SystemTime(std::chrono::seconds(1714564800));  // 2024-05-01T12:00:00Z
const EventSource kSource{"ingot-controller", "node-1"};
const ObjectReference kSvc{"v1", "Service", "default", "web", "uid-1", "42"};
const ObjectReference kOther{"v1", "Service", "default", "db", "uid-2", "7"};

/// Tally counts the actions of a sequence of decisions.
struct Tally {
  int create = 0;
  int patch = 0;
  int drop = 0;
  void add(const EventDecision& d) {
    if (d.action == EventAction::Create) ++create;
    if (d.action == EventAction::Patch) ++patch;
    if (d.action == EventAction::Drop) ++drop;
  }
};

std::string field(const std::string& text, std::initializer_list<std::string_view> path) {
  auto s = json::stringAt(text, path);
  BOOST_REQUIRE_MESSAGE(s.has_value(), ingot::k8s::testing::why(s));
  return *s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(events)

BOOST_AUTO_TEST_CASE(identical_events_bump_the_count_of_one_event_object) {
  EventCorrelator c(kSource);
  auto first = c.observe(kSvc, EventType::Warning, "AllocationFailed", "no pool", kT0);
  BOOST_TEST((first.action == EventAction::Create));
  BOOST_TEST(first.record.name == "web.17cb5b99f8638000");
  BOOST_TEST(first.record.namespace_ == "default");
  BOOST_TEST(first.record.count == 1);
  BOOST_TEST((first.record.first_timestamp == kT0 && first.record.last_timestamp == kT0));

  for (int i = 2; i <= 4; ++i) {
    BOOST_TEST_CONTEXT("occurrence " << i) {
      const SystemTime now = kT0 + std::chrono::seconds(i);
      auto d = c.observe(kSvc, EventType::Warning, "AllocationFailed", "no pool", now);
      BOOST_TEST((d.action == EventAction::Patch));
      BOOST_TEST(d.record.name == first.record.name);
      BOOST_TEST(d.record.count == i);
      BOOST_TEST((d.record.first_timestamp == kT0));
      BOOST_TEST((d.record.last_timestamp == now));
    }
  }
}

BOOST_AUTO_TEST_CASE(events_differing_in_any_key_field_are_separate_objects) {
  struct Case {
    std::string desc;
    ObjectReference object;
    EventType type;
    std::string reason;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"other message", kSvc, EventType::Warning, "AllocationFailed", "pool exhausted"},
      {"other reason", kSvc, EventType::Warning, "IPAllocated", "no pool"},
      {"other type", kSvc, EventType::Normal, "AllocationFailed", "no pool"},
      {"other object", kOther, EventType::Warning, "AllocationFailed", "no pool"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      EventCorrelator corr(kSource);
      BOOST_TEST(
          (corr.observe(kSvc, EventType::Warning, "AllocationFailed", "no pool", kT0).action ==
           EventAction::Create));
      auto d = corr.observe(c.object, c.type, c.reason, c.message, kT0 + 1s);
      BOOST_TEST((d.action == EventAction::Create));
      BOOST_TEST(d.record.count == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(cluster_scoped_objects_get_events_in_default) {
  EventCorrelator c(kSource);
  const ObjectReference node{"v1", "Node", "", "node-a", "u", ""};
  BOOST_TEST(c.observe(node, EventType::Normal, "R", "m", kT0).record.namespace_ == "default");
}

BOOST_AUTO_TEST_CASE(spam_filter_allows_a_burst_then_one_event_per_refill) {
  EventCorrelator c(kSource);  // burst 25, one per 300 s
  Tally t;
  for (int i = 0; i < 30; ++i) {
    t.add(c.observe(kSvc, EventType::Warning, "R", "m" + std::to_string(i % 3), kT0));
  }
  BOOST_TEST(t.create + t.patch == 25);
  BOOST_TEST(t.drop == 5);
  BOOST_TEST(
      (c.observe(kSvc, EventType::Warning, "R", "m0", kT0 + 299s).action == EventAction::Drop));
  BOOST_TEST(
      (c.observe(kSvc, EventType::Warning, "R", "m0", kT0 + 300s).action == EventAction::Patch));
  BOOST_TEST(
      (c.observe(kSvc, EventType::Warning, "R", "m0", kT0 + 300s).action == EventAction::Drop));
  // Another object has its own bucket.
  BOOST_TEST((c.observe(kOther, EventType::Warning, "R", "m0", kT0).action == EventAction::Create));
}

BOOST_AUTO_TEST_CASE(a_hot_loop_of_24000_events_in_ten_minutes_makes_26_writes) {
  // MetalLB #2387: a failing reconcile emitted 24,000 events in ten minutes.
  EventCorrelator c(kSource);
  Tally t;
  for (int i = 0; i < 24000; ++i) {
    t.add(c.observe(kSvc, EventType::Warning, "AllocationFailed", "failed to allocate",
                    kT0 + std::chrono::milliseconds(25 * i)));
  }
  BOOST_TEST(t.create == 1);
  BOOST_TEST(t.patch == 25);  // 24 more from the burst of 25, then one at 300 s
  BOOST_TEST(t.drop == 24000 - 26);
}

BOOST_AUTO_TEST_CASE(many_distinct_messages_are_combined_into_one_event) {
  EventCorrelatorOptions o;
  o.spam_burst = 1000;  // isolate aggregation from the spam filter
  EventCorrelator c(kSource, o);
  Tally t;
  for (int i = 1; i <= 9; ++i) {
    auto d = c.observe(kSvc, EventType::Warning, "R", "msg" + std::to_string(i), kT0 + 1s * i);
    BOOST_TEST(d.record.message == "msg" + std::to_string(i));
    t.add(d);
  }
  BOOST_TEST(t.create == 9);
  auto tenth = c.observe(kSvc, EventType::Warning, "R", "msg10", kT0 + 10s);
  BOOST_TEST((tenth.action == EventAction::Create));
  BOOST_TEST(tenth.record.message == "(combined from similar events): msg10");
  auto eleventh = c.observe(kSvc, EventType::Warning, "R", "msg11", kT0 + 11s);
  BOOST_TEST((eleventh.action == EventAction::Patch));
  BOOST_TEST(eleventh.record.name == tenth.record.name);
  BOOST_TEST(eleventh.record.count == 2);
  BOOST_TEST(eleventh.record.message == "(combined from similar events): msg11");
  // After ten quiet minutes the similarity count starts over.
  auto later = c.observe(kSvc, EventType::Warning, "R", "msg12", kT0 + 11s + 601s);
  BOOST_TEST((later.action == EventAction::Create));
  BOOST_TEST(later.record.message == "msg12");
}

BOOST_AUTO_TEST_CASE(messages_are_bounded_to_1024_bytes_at_a_character_boundary) {
  const std::string fits(1024, 'a');
  const std::string two_byte = "\xc3\xa9";  // U+00E9, 2 bytes in UTF-8
  struct Case {
    std::string desc;
    std::string message;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"empty", "", ""},
      {"short", "no pool", "no pool"},
      {"exactly the bound", fits, fits},
      {"one byte over", fits + "b", std::string(1020, 'a') + " ..."},
      // byte 1020 would split the character that starts at 1019: cut before it
      {"a character across the cut", std::string(1019, 'a') + two_byte + std::string(100, 'c'),
       std::string(1019, 'a') + " ..."},
      {"a character ending at the cut", std::string(1018, 'a') + two_byte + std::string(100, 'c'),
       std::string(1018, 'a') + two_byte + " ..."},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const std::string got = boundEventMessage(c.message);
      BOOST_TEST(got == c.want);
      BOOST_TEST(got.size() <= kMaxEventMessageBytes);
    }
  }
}

// An AllocationFailed for a 5,000-address annotation used to make a 75 KB Event: every Event,
// including a combined one, and the JSON and patch written for it carry at most 1024 bytes.
BOOST_AUTO_TEST_CASE(every_recorded_event_carries_a_bounded_message) {
  std::string addresses;
  for (int i = 0; i < 5000; ++i) {
    addresses += (i ? "," : "") + std::string("10.") + std::to_string(i / 250) + "." +
                 std::to_string(i % 250) + ".1";
  }
  const std::string huge = "failed to allocate [" + addresses + "]: not in any pool";
  BOOST_REQUIRE(huge.size() > 50000u);
  EventCorrelatorOptions o;
  o.spam_burst = 1000;
  EventCorrelator c(kSource, o);
  for (int i = 0; i < 12; ++i) {
    BOOST_TEST_CONTEXT("occurrence " << i) {
      auto d = c.observe(kSvc, EventType::Warning, "AllocationFailed",
                         std::to_string(i) + ": " + huge, kT0 + 1s * i);
      BOOST_TEST(d.record.message.size() <= kMaxEventMessageBytes);
      BOOST_TEST(d.record.message.starts_with("(combined from similar events): ") == (i >= 9));
      BOOST_TEST(d.record.message.ends_with(" ..."));
      BOOST_TEST(field(eventJson(d.record, kSource), {"message"}) == d.record.message);
      BOOST_TEST(eventPatchJson(d.record).size() < 2 * kMaxEventMessageBytes);
    }
  }
  // Past the similarity threshold every further message lands on the combined Event.
  auto again = c.observe(kSvc, EventType::Warning, "AllocationFailed", "x: " + huge, kT0 + 20s);
  BOOST_TEST((again.action == EventAction::Patch));
}

BOOST_AUTO_TEST_CASE(caches_are_bounded_and_evict_the_least_recent) {
  EventCorrelatorOptions o;
  o.max_entries = 2;
  EventCorrelator c(kSource, o);
  const ObjectReference third{"v1", "Service", "default", "third", "uid-3", ""};
  BOOST_TEST((c.observe(kSvc, EventType::Normal, "R", "m", kT0).action == EventAction::Create));
  BOOST_TEST((c.observe(kOther, EventType::Normal, "R", "m", kT0).action == EventAction::Create));
  BOOST_TEST((c.observe(kOther, EventType::Normal, "R", "m", kT0).action == EventAction::Patch));
  BOOST_TEST((c.observe(third, EventType::Normal, "R", "m", kT0).action == EventAction::Create));
  // kSvc was least recently used and is forgotten: a new Event object.
  BOOST_TEST((c.observe(kSvc, EventType::Normal, "R", "m", kT0).action == EventAction::Create));
}

BOOST_AUTO_TEST_CASE(event_json_is_a_complete_core_v1_event) {
  EventCorrelator c(kSource);
  auto d = c.observe(kSvc, EventType::Warning, "AllocationFailed", "quote \" and\nnewline", kT0);
  const std::string j = eventJson(d.record, kSource);
  BOOST_REQUIRE(json::validate(j).has_value());
  BOOST_TEST(field(j, {"kind"}) == "Event");
  BOOST_TEST(field(j, {"apiVersion"}) == "v1");
  BOOST_TEST(field(j, {"metadata", "name"}) == d.record.name);
  BOOST_TEST(field(j, {"metadata", "namespace"}) == "default");
  BOOST_TEST(field(j, {"involvedObject", "kind"}) == "Service");
  BOOST_TEST(field(j, {"involvedObject", "name"}) == "web");
  BOOST_TEST(field(j, {"involvedObject", "namespace"}) == "default");
  BOOST_TEST(field(j, {"involvedObject", "uid"}) == "uid-1");
  BOOST_TEST(field(j, {"involvedObject", "resourceVersion"}) == "42");
  BOOST_TEST(field(j, {"type"}) == "Warning");
  BOOST_TEST(field(j, {"reason"}) == "AllocationFailed");
  BOOST_TEST(field(j, {"message"}) == "quote \" and\nnewline");
  BOOST_TEST(field(j, {"source", "component"}) == "ingot-controller");
  BOOST_TEST(field(j, {"source", "host"}) == "node-1");
  BOOST_TEST(field(j, {"firstTimestamp"}) == "2024-05-01T12:00:00Z");
  BOOST_TEST(field(j, {"lastTimestamp"}) == "2024-05-01T12:00:00Z");
  BOOST_TEST(*json::intAt(j, {"count"}) == 1);
  BOOST_TEST(field(j, {"reportingComponent"}) == "ingot-controller");

  auto p =
      c.observe(kSvc, EventType::Warning, "AllocationFailed", "quote \" and\nnewline", kT0 + 61s);
  const std::string patch = eventPatchJson(p.record);
  BOOST_REQUIRE(json::validate(patch).has_value());
  BOOST_TEST(*json::intAt(patch, {"count"}) == 2);
  BOOST_TEST(field(patch, {"lastTimestamp"}) == "2024-05-01T12:01:01Z");
  BOOST_TEST(field(patch, {"message"}) == "quote \" and\nnewline");
}

BOOST_AUTO_TEST_CASE(write_event_creates_patches_and_recreates_expired_events) {
  EventCorrelator c(kSource);
  const EventDecision create = c.observe(kSvc, EventType::Normal, "R", "m", kT0);
  const EventDecision patch = c.observe(kSvc, EventType::Normal, "R", "m", kT0 + 1s);
  struct Case {
    std::string desc;
    EventDecision decision;
    std::vector<ingot::Result<std::string>> results;
    std::vector<std::string> want_verbs;
    bool ok;
  };
  const ingot::Error not_found{ErrorCode::NotFound, "gone"};
  const ingot::Error exists{ErrorCode::AlreadyExists, "exists"};
  const ingot::Error down{ErrorCode::Unavailable, "down"};
  const std::vector<Case> cases = {
      {"create", create, {}, {"create"}, true},
      {"patch", patch, {}, {"patch"}, true},
      {"patch of an expired event recreates it", patch, {not_found}, {"patch", "create"}, true},
      {"create racing a duplicate is fine", create, {exists}, {"create"}, true},
      {"create failure is reported", create, {down}, {"create"}, false},
      {"patch failure is reported", patch, {down}, {"patch"}, false},
      {"drop writes nothing", EventDecision{}, {}, {}, true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeApiClient api;
      for (const auto& r : c.results) api.write_results.push_back(r);
      BOOST_TEST(writeEvent(api, c.decision, kSource).has_value() == c.ok);
      std::vector<std::string> verbs;
      for (const auto& w : api.writes()) {
        verbs.push_back(w.verb);
        BOOST_TEST(w.ns == "default");
      }
      BOOST_TEST(verbs == c.want_verbs);
      if (c.want_verbs.size() == 2) {
        // The recreated event carries the current count.
        BOOST_TEST(*json::intAt(api.writes()[1].body, {"count"}) == 2);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(recorder_sends_aggregated_events_in_the_background) {
  FakeApiClient api;
  EventRecorderOptions o;
  o.now = [] { return kT0; };
  EventRecorder r(api, kSource, o);
  for (int i = 0; i < 100; ++i) r.record(kSvc, EventType::Warning, "AllocationFailed", "no pool");
  BOOST_REQUIRE(r.flush(5s));
  const auto s = r.stats();
  BOOST_TEST(s.created == 1u);
  BOOST_TEST(s.patched == 24u);
  BOOST_TEST(s.rate_limited == 75u);
  BOOST_TEST(s.failed == 0u);
  BOOST_TEST(api.writes().size() == 25u);
}

BOOST_AUTO_TEST_CASE(recorder_drops_events_when_its_queue_is_full) {
  FakeApiClient api;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> entered;
  bool first = true;
  api.on_write = [&] {
    if (first) {
      first = false;
      entered.set_value();
      released.wait();
    }
  };
  EventRecorderOptions o;
  o.queue_capacity = 1;
  std::vector<ingot::Error> errors;
  EventRecorder r(api, kSource, o);
  r.record(kSvc, EventType::Normal, "R", "one");
  entered.get_future().wait();                      // the worker is busy with "one"
  r.record(kSvc, EventType::Normal, "R", "two");    // queued
  r.record(kSvc, EventType::Normal, "R", "three");  // queue full
  release.set_value();
  BOOST_REQUIRE(r.flush(5s));
  BOOST_TEST(r.stats().queue_full == 1u);
  BOOST_TEST(r.stats().created == 2u);
}

BOOST_AUTO_TEST_CASE(timestamps_are_rfc3339_utc_seconds) {
  BOOST_TEST(formatTimestamp(kT0) == "2024-05-01T12:00:00Z");
  BOOST_TEST(formatTimestamp(SystemTime{}) == "1970-01-01T00:00:00Z");
  BOOST_TEST(formatTimestamp(kT0 + 999ms) == "2024-05-01T12:00:00Z");
}

BOOST_AUTO_TEST_SUITE_END()
