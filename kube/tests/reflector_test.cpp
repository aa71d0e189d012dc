// SPDX-License-Identifier: Apache-2.0
#include "kube/reflector.h"

#include <algorithm>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/controller.h"
#include "kube/informer.h"
#include "kube/tests/fake_api_client.h"
#include "kube/tests/fake_clock.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using namespace std::chrono_literals;
using ingot::Error;
using ingot::ErrorCode;
using ingot::Result;
using ingot::k8s::testing::bookmarkJson;
using ingot::k8s::testing::FakeApiClient;
using ingot::k8s::testing::FakeClock;
using ingot::k8s::testing::objectJson;
using ingot::k8s::testing::WatchStep;

namespace {

const ResourceRef kThings{"example.com", "v1", "things", true};

ListPage page(std::vector<std::string> items, std::string rv, std::string cont = "") {
  return ListPage{std::move(items), std::move(rv), std::move(cont)};
}

WatchEvent event(WatchEventType t,
                 std::string_view name,
                 std::string_view rv,
                 std::string_view value = "") {
  return WatchEvent{t, objectJson("ns", name, rv, value)};
}

WatchOutcome ended(WatchEnd end) {
  return {end,
          end == WatchEnd::Failed ? Error{ErrorCode::Unavailable, "connection reset"} : Error{}};
}

/// RecordingSink logs what the reflector delivers.
struct RecordingSink final : ReflectorSink {
  std::vector<std::string> log;
  void replace(std::vector<RawObject> objects) override {
    std::string line = "replace";
    for (const auto& o : objects) line += " " + o.key + "@" + o.resource_version;
    log.push_back(line);
  }
  void apply(WatchEventType type, RawObject o) override {
    log.push_back(std::string(watchEventTypeName(type)) + " " + o.key + "@" + o.resource_version);
  }
};

/// Harness runs one Reflector synchronously against a scripted fake until the script ends.
struct Harness {
  FakeApiClient api;
  FakeClock clock;
  RecordingSink sink;
  std::stop_source stop;
  std::vector<Duration> slept;
  std::vector<std::string> errors;

  ReflectorOptions options() {
    ReflectorOptions o;
    o.clock = &clock;
    o.random = [] { return 0.0; };
    o.sleep = [this](Duration d, std::stop_token st) {
      slept.push_back(d);
      return !st.stop_requested();
    };
    o.on_error = [this](const Error& e) { errors.push_back(e.message); };
    return o;
  }

  std::unique_ptr<Reflector> reflector;

  /// run plays the script to its end; the fake clock does not move, so every watch lasts 0 s.
  Reflector& run(ReflectorOptions o) {
    api.stop_when_exhausted = &stop;
    reflector = std::make_unique<Reflector>(api, kThings, "ns", std::move(o), sink);
    reflector->run(stop.get_token());
    return *reflector;
  }
};

std::vector<std::string> watchVersions(const FakeApiClient& api) {
  std::vector<std::string> out;
  for (const auto& w : api.watchCalls()) out.push_back(w.resource_version);
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_SUITE(reflector)

BOOST_AUTO_TEST_CASE(raw_object_meta_reads_name_namespace_and_version) {
  struct Case {
    std::string desc;
    std::string json;
    bool ok;
    RawMeta want;
  };
  const std::vector<Case> cases = {
      {"namespaced", objectJson("ns", "a", "5"), true, {"a", "ns", "5"}},
      {"cluster scoped", objectJson("", "node", "9"), true, {"node", "", "9"}},
      {"bookmark", bookmarkJson("77"), true, {"", "", "77"}},
      {"null namespace", R"({"metadata":{"name":"a","namespace":null}})", true, {"a", "", ""}},
      {"no metadata", R"({"kind":"X"})", false, {}},
      {"metadata not an object", R"({"metadata":"x"})", false, {}},
      {"name not a string", R"({"metadata":{"name":3}})", false, {}},
      {"not JSON", "{", false, {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto got = rawObjectMeta(c.json);
      BOOST_REQUIRE(got.has_value() == c.ok);
      if (c.ok) {
        BOOST_TEST(got->name == c.want.name);
        BOOST_TEST(got->namespace_ == c.want.namespace_);
        BOOST_TEST(got->resource_version == c.want.resource_version);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(lists_every_page_then_watches_from_the_list_version) {
  Harness h;
  h.api.lists = {page({objectJson("ns", "a", "1"), objectJson("ns", "b", "2")}, "", "tok"),
                 page({objectJson("ns", "c", "3")}, "100")};
  h.api.watches = {WatchStep{
      {event(WatchEventType::Added, "d", "101"), event(WatchEventType::Modified, "a", "102"),
       WatchEvent{WatchEventType::Bookmark, bookmarkJson("105")},
       event(WatchEventType::Deleted, "b", "106")},
      ended(WatchEnd::Closed)}};
  auto o = h.options();
  o.page_size = 2;
  o.short_watch = Duration::zero();  // the fake clock never moves; no watch counts as quick
  Reflector& r = h.run(o);
  BOOST_TEST((h.sink.log == Lines{"replace ns/a@1 ns/b@2 ns/c@3", "ADDED ns/d@101",
                                  "MODIFIED ns/a@102", "DELETED ns/b@106"}));
  const auto lists = h.api.listCalls();
  BOOST_REQUIRE(lists.size() == 2u);
  BOOST_TEST(lists[0].limit == 2);
  BOOST_TEST(lists[0].continue_token == "");
  BOOST_TEST(lists[1].continue_token == "tok");
  BOOST_TEST((watchVersions(h.api) == Lines{"100", "106"}));  // resumed after the close
  BOOST_TEST(h.api.watchCalls()[0].allow_bookmarks);
  BOOST_TEST(r.hasSynced());
  BOOST_TEST(r.resourceVersion() == "106");
  BOOST_TEST(h.slept.empty());
  BOOST_TEST(r.stats().lists == 1u);
  BOOST_TEST(r.stats().watches == 2u);
}

BOOST_AUTO_TEST_CASE(bookmarks_move_the_resume_version_without_events) {
  Harness h;
  h.api.lists = {page({}, "10")};
  h.api.watches = {WatchStep{{WatchEvent{WatchEventType::Bookmark, bookmarkJson("15")}},
                             ended(WatchEnd::Closed)}};
  auto o = h.options();
  o.short_watch = Duration::zero();
  h.run(o);
  BOOST_TEST((h.sink.log == Lines{"replace"}));
  BOOST_TEST((watchVersions(h.api) == Lines{"10", "15"}));
}

BOOST_AUTO_TEST_CASE(gone_relists_and_resumes_from_the_new_list) {
  Harness h;
  h.api.lists = {page({objectJson("ns", "a", "1")}, "10"),
                 page({objectJson("ns", "a", "40")}, "50")};
  h.api.watches = {WatchStep{{}, ended(WatchEnd::Gone)}};
  Reflector& r = h.run(h.options());
  BOOST_TEST((h.sink.log == Lines{"replace ns/a@1", "replace ns/a@40"}));
  BOOST_TEST((watchVersions(h.api) == Lines{"10", "50"}));
  BOOST_TEST(r.stats().gone_relists == 1u);
  BOOST_TEST(h.slept.empty());  // a single 410 relists at once
}

BOOST_AUTO_TEST_CASE(repeated_gone_without_progress_backs_off) {
  Harness h;
  h.api.lists = {page({}, "1"), page({}, "2"), page({}, "3")};
  h.api.watches = {WatchStep{{}, ended(WatchEnd::Gone)}, WatchStep{{}, ended(WatchEnd::Gone)}};
  h.run(h.options());
  BOOST_TEST(h.slept.size() == 1u);
  BOOST_TEST(h.api.listCalls().size() == 3u);
}

BOOST_AUTO_TEST_CASE(failed_watches_back_off_and_resume_without_relisting) {
  Harness h;
  h.api.lists = {page({}, "10")};
  h.api.watches = {WatchStep{{}, ended(WatchEnd::Failed)}, WatchStep{{}, ended(WatchEnd::Failed)},
                   WatchStep{{event(WatchEventType::Added, "a", "11")}, ended(WatchEnd::Failed)},
                   WatchStep{{}, ended(WatchEnd::Failed)}};
  Reflector& r = h.run(h.options());
  BOOST_TEST(h.api.listCalls().size() == 1u);
  BOOST_TEST((watchVersions(h.api) == Lines{"10", "10", "10", "11", "11"}));
  // 800 ms doubling; reset after a watch that delivered events.
  BOOST_REQUIRE(h.slept.size() == 4u);
  BOOST_TEST(h.slept[0].count() == Duration(800ms).count());
  BOOST_TEST(h.slept[1].count() == Duration(1600ms).count());
  BOOST_TEST(h.slept[2].count() == Duration(800ms).count());
  BOOST_TEST(h.slept[3].count() == Duration(1600ms).count());
  BOOST_TEST(h.errors.size() == 4u);
  BOOST_TEST(r.stats().failures == 4u);
}

BOOST_AUTO_TEST_CASE(watches_that_close_at_once_with_nothing_back_off) {
  Harness h;
  h.api.lists = {page({}, "10")};
  h.api.watches = {WatchStep{{}, ended(WatchEnd::Closed)}, WatchStep{{}, ended(WatchEnd::Closed)},
                   WatchStep{{}, ended(WatchEnd::Closed)}};
  h.run(h.options());  // the fake clock does not move: every watch lasted 0 s
  BOOST_REQUIRE(h.slept.size() == 3u);
  BOOST_TEST(h.slept[2].count() == Duration(3200ms).count());
}

BOOST_AUTO_TEST_CASE(list_failures_back_off_until_a_list_succeeds) {
  Harness h;
  h.api.lists = {Error{ErrorCode::Unavailable, "down"}, Error{ErrorCode::Forbidden, "rbac"},
                 page({objectJson("ns", "a", "1")}, "5")};
  Reflector& r = h.run(h.options());
  BOOST_TEST(h.slept.size() == 2u);
  BOOST_TEST((h.errors == Lines{"down", "rbac"}));
  BOOST_TEST(r.hasSynced());
  BOOST_TEST((h.sink.log == Lines{"replace ns/a@1"}));
}

BOOST_AUTO_TEST_CASE(an_expired_continue_token_falls_back_to_one_full_list) {
  Harness h;
  h.api.lists = {page({objectJson("ns", "a", "1")}, "", "tok"),
                 Error{ErrorCode::Gone, "continue token expired"},
                 page({objectJson("ns", "a", "1"), objectJson("ns", "b", "9")}, "20")};
  h.run(h.options());
  const auto lists = h.api.listCalls();
  BOOST_REQUIRE(lists.size() == 3u);
  BOOST_TEST(lists[1].continue_token == "tok");
  BOOST_TEST(lists[2].limit == 0);
  BOOST_TEST(lists[2].continue_token == "");
  BOOST_TEST((h.sink.log == Lines{"replace ns/a@1 ns/b@9"}));
}

BOOST_AUTO_TEST_CASE(malformed_objects_are_reported_and_skipped) {
  Harness h;
  h.api.lists = {page({objectJson("ns", "a", "1"), R"({"kind":"NoMeta"})"}, "10")};
  h.api.watches = {WatchStep{{WatchEvent{WatchEventType::Added, R"({"metadata":[]})"},
                              event(WatchEventType::Added, "b", "11")},
                             ended(WatchEnd::Closed)}};
  auto o = h.options();
  o.short_watch = Duration::zero();
  h.run(o);
  BOOST_TEST((h.sink.log == Lines{"replace ns/a@1", "ADDED ns/b@11"}));
  BOOST_TEST(h.errors.size() == 2u);
}

BOOST_AUTO_TEST_CASE(watch_requests_carry_selectors_and_a_spread_timeout) {
  for (double random : {0.0, 0.5}) {
    BOOST_TEST_CONTEXT("random " << random) {
      Harness h;
      h.api.lists = {page({}, "1")};
      auto o = h.options();
      o.random = [random] { return random; };
      o.label_selector = "app=x";
      o.field_selector = "metadata.name=y";
      h.run(o);
      BOOST_REQUIRE(h.api.watchCalls().size() == 1u);
      const auto& w = h.api.watchCalls()[0];
      BOOST_TEST(w.timeout_seconds == (random == 0.0 ? 300 : 450));
      BOOST_TEST(w.label_selector == "app=x");
      BOOST_TEST(w.field_selector == "metadata.name=y");
      BOOST_TEST(h.api.listCalls()[0].label_selector == "app=x");
      BOOST_TEST(h.api.listCalls()[0].field_selector == "metadata.name=y");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------------------------

namespace {

struct Thing {
  std::string key;
  std::string value;
};

Result<Thing> decodeThing(std::string_view json) {
  auto meta = rawObjectMeta(json);
  if (!meta) return meta.error();
  auto value = ingot::json::stringAt(json, {"spec", "value"});
  if (!value) return value.error();
  if (*value == "bad") return ingot::invalidArgument("spec.value: bad is not allowed");
  return Thing{objectKey(meta->namespace_, meta->name), *value};
}

/// Recorder collects handler calls (from the informer thread).
struct Recorder {
  std::mutex mu;
  std::vector<std::string> log;
  std::vector<std::string> errors;
  Informer<Thing>::Handlers handlers() {
    using Ptr = Informer<Thing>::Ptr;
    return {[this](const Ptr& t) { add("add " + t->key + "=" + t->value); },
            [this](const Ptr& o, const Ptr& n) {
              add("update " + o->key + " " + o->value + "->" + n->value);
            },
            [this](const Ptr& t) { add("delete " + t->key + "=" + t->value); },
            [this](const Error& e) {
              std::lock_guard lock(mu);
              errors.push_back(e.message);
            }};
  }
  void add(std::string line) {
    std::lock_guard lock(mu);
    log.push_back(std::move(line));
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mu);
    return log;
  }
};

InformerOptions fastOptions() {
  InformerOptions o;
  o.reflector.sleep = [](Duration, std::stop_token st) { return !st.stop_requested(); };
  o.reflector.random = [] { return 0.0; };
  o.reflector.short_watch = Duration::zero();
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(informer)

BOOST_AUTO_TEST_CASE(fills_the_store_and_calls_handlers_in_order) {
  FakeApiClient api;
  api.lists = {page({objectJson("ns", "a", "1", "v1"), objectJson("ns", "b", "2", "v1")}, "10")};
  api.watches = {WatchStep{{event(WatchEventType::Added, "c", "11", "v1"),
                            event(WatchEventType::Modified, "a", "12", "v2"),
                            event(WatchEventType::Deleted, "b", "13", "v1"),
                            event(WatchEventType::Added, "a", "14", "v3")},  // a replayed ADDED
                           ended(WatchEnd::Closed)}};
  Recorder rec;
  Informer<Thing> inf(api, kThings, "ns", decodeThing, rec.handlers(), fastOptions());
  BOOST_TEST(!inf.hasSynced());
  inf.start();
  BOOST_REQUIRE(inf.waitForSync(5s));
  BOOST_REQUIRE(api.waitIdle(5s));
  inf.stop();
  BOOST_TEST((rec.lines() == Lines{"add ns/a=v1", "add ns/b=v1", "add ns/c=v1",
                                   "update ns/a v1->v2", "delete ns/b=v1", "update ns/a v2->v3"}));
  BOOST_TEST((inf.store().keys() == Lines{"ns/a", "ns/c"}));
  BOOST_TEST(inf.store().get("ns/a")->value == "v3");
  BOOST_TEST(inf.store().get("ns/b") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_relist_after_gone_diffs_against_the_cache) {
  FakeApiClient api;
  api.lists = {page({objectJson("ns", "a", "1", "v1"), objectJson("ns", "b", "2", "v1"),
                     objectJson("ns", "same", "3", "v1")},
                    "10"),
               page({objectJson("ns", "a", "12", "v2"), objectJson("ns", "c", "13", "v1"),
                     objectJson("ns", "same", "3", "v1")},
                    "20")};
  api.watches = {WatchStep{{}, ended(WatchEnd::Gone)}};
  Recorder rec;
  Informer<Thing> inf(api, kThings, "ns", decodeThing, rec.handlers(), fastOptions());
  inf.start();
  BOOST_REQUIRE(api.waitIdle(5s));
  inf.stop();
  BOOST_TEST((rec.lines() == Lines{"add ns/a=v1", "add ns/b=v1", "add ns/same=v1",
                                   "update ns/a v1->v2", "add ns/c=v1", "delete ns/b=v1"}));
  BOOST_TEST((inf.store().keys() == Lines{"ns/a", "ns/c", "ns/same"}));
  BOOST_TEST(inf.stats().gone_relists == 1u);
}

BOOST_AUTO_TEST_CASE(undecodable_objects_are_reported_and_keep_the_last_good_version) {
  FakeApiClient api;
  api.lists = {page({objectJson("ns", "a", "1", "v1"), objectJson("ns", "x", "2", "bad")}, "10")};
  api.watches = {WatchStep{{event(WatchEventType::Modified, "a", "11", "bad"),
                            event(WatchEventType::Deleted, "a", "12", "bad")},
                           ended(WatchEnd::Closed)}};
  Recorder rec;
  Informer<Thing> inf(api, kThings, "ns", decodeThing, rec.handlers(), fastOptions());
  inf.start();
  BOOST_REQUIRE(api.waitIdle(5s));
  inf.stop();
  // The bad MODIFIED leaves v1 cached; the DELETED still removes the key (with the cached v1).
  BOOST_TEST((rec.lines() == Lines{"add ns/a=v1", "delete ns/a=v1"}));
  BOOST_TEST(inf.store().size() == 0u);
  std::lock_guard lock(rec.mu);
  BOOST_REQUIRE(rec.errors.size() == 3u);
  BOOST_TEST(rec.errors[0] == "decode ns/x: spec.value: bad is not allowed");
}

BOOST_AUTO_TEST_CASE(resync_redelivers_every_cached_object) {
  FakeApiClient api;
  api.lists = {page({objectJson("ns", "a", "1", "v1")}, "10")};
  Recorder rec;
  auto o = fastOptions();
  o.resync_period = 10ms;
  Informer<Thing> inf(api, kThings, "ns", decodeThing, rec.handlers(), o);
  inf.start();
  bool resynced = false;
  for (int i = 0; i < 500 && !resynced; ++i) {
    std::this_thread::sleep_for(2ms);
    auto lines = rec.lines();
    resynced = std::count(lines.begin(), lines.end(), "update ns/a v1->v1") >= 2;
  }
  inf.stop();
  BOOST_TEST(resynced);
}

BOOST_AUTO_TEST_CASE(stop_interrupts_a_quiet_watch) {
  FakeApiClient api;
  api.lists = {page({}, "1")};
  Informer<Thing> inf(api, kThings, "ns", decodeThing, {}, fastOptions());
  inf.start();
  BOOST_REQUIRE(api.waitIdle(5s));
  // The fake's watch never ends on its own: stop() returns only if it cancels the watch. The
  // bound is a generous limit on a hang, not a speed requirement.
  auto stopped = std::async(std::launch::async, [&inf] { inf.stop(); });
  BOOST_TEST((stopped.wait_for(30s) == std::future_status::ready));
}

// An informer outside the sync gate (its CRD is not installed) is started and keeps trying, but
// only the gating informers hold back the set's sync.
BOOST_AUTO_TEST_CASE(an_informer_outside_the_sync_gate_runs_without_holding_it_back) {
  FakeApiClient served;
  served.lists = {page({objectJson("ns", "a", "1", "v1")}, "10")};
  FakeApiClient missing;
  missing.lists = {Error{ErrorCode::NotFound, "the server could not find the requested resource"}};
  Recorder gating;
  Recorder optional;
  InformerOptions paced = fastOptions();
  paced.reflector.sleep = [](Duration, std::stop_token st) {
    std::this_thread::sleep_for(5ms);
    return !st.stop_requested();
  };
  InformerSet set;
  const auto& things = set.add<Thing>("served", served, kThings, "ns", decodeThing,
                                      gating.handlers(), fastOptions());
  set.add<Thing>("missing", missing, kThings, "ns", decodeThing, optional.handlers(), paced, true,
                 false);
  BOOST_TEST(set.unsynced() == " served");
  set.start();
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  auto reported = [&optional] {
    std::lock_guard lock(optional.mu);
    return !optional.errors.empty();
  };
  while ((!set.unsynced().empty() || !reported()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  set.stop();
  BOOST_TEST(set.unsynced().empty());
  BOOST_TEST(things.get("ns/a") != nullptr);
  BOOST_REQUIRE(reported());
  BOOST_TEST(optional.errors.front().find("could not find") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
