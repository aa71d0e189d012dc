// SPDX-License-Identifier: Apache-2.0
#include "kube/instrumented_client.h"

#include <array>
#include <functional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/resources.h"
#include "kube/tests/fake_api_client.h"

using namespace ingot;
using namespace ingot::k8s;
using ingot::k8s::testing::FakeApiClient;
using ingot::k8s::testing::WatchStep;

namespace {

/// RecordingCounter keeps one request and one error count per verb.
class RecordingCounter final : public RequestCounter {
 public:
  void countRequest(ApiVerb verb, bool failed) override {
    ++requests[static_cast<size_t>(verb)];
    if (failed) ++errors[static_cast<size_t>(verb)];
  }
  void countRequestError(ApiVerb verb) override { ++errors[static_cast<size_t>(verb)]; }

  std::array<int, kApiVerbCount> requests{};
  std::array<int, kApiVerbCount> errors{};
};

const Error kRefused{ErrorCode::Unavailable, "connection refused"};

}  // namespace

BOOST_AUTO_TEST_SUITE(instrumented_client)

BOOST_AUTO_TEST_CASE(api_verb_names_are_the_metric_label_values) {
  const std::vector<std::pair<ApiVerb, std::string>> cases = {
      {ApiVerb::Get, "get"},
      {ApiVerb::List, "list"},
      {ApiVerb::Watch, "watch"},
      {ApiVerb::Create, "create"},
      {ApiVerb::Update, "update"},
      {ApiVerb::Patch, "patch"},
      {ApiVerb::UpdateStatus, "update_status"},
      {ApiVerb::PatchStatus, "patch_status"},
      {ApiVerb::Delete, "delete"},
  };
  BOOST_TEST(cases.size() == kApiVerbCount);
  for (const auto& [verb, name] : cases) BOOST_TEST(apiVerbName(verb) == name);
}

BOOST_AUTO_TEST_CASE(every_call_is_forwarded_and_counted_under_its_verb_failed_or_not) {
  struct Case {
    std::string desc;
    ApiVerb verb;
    std::function<bool(ApiClient&)> call;  ///< returns whether the call succeeded
    std::string write;                     ///< the fake's record of a forwarded write, if any
  };
  const auto& r = resources::kServices;
  const std::vector<Case> cases = {
      {"get", ApiVerb::Get, [&](ApiClient& c) { return c.get(r, "ns", "a").has_value(); }, ""},
      {"list", ApiVerb::List, [&](ApiClient& c) { return c.list(r, "ns", {}).has_value(); }, ""},
      {"create", ApiVerb::Create, [&](ApiClient& c) { return c.create(r, "ns", "{}").has_value(); },
       "create"},
      {"update", ApiVerb::Update,
       [&](ApiClient& c) { return c.update(r, "ns", "a", "{}").has_value(); }, "update"},
      {"patch", ApiVerb::Patch,
       [&](ApiClient& c) { return c.patch(r, "ns", "a", PatchType::Merge, "{}").has_value(); },
       "patch"},
      {"update status", ApiVerb::UpdateStatus,
       [&](ApiClient& c) { return c.updateStatus(r, "ns", "a", "{}").has_value(); },
       "updateStatus"},
      {"patch status", ApiVerb::PatchStatus,
       [&](ApiClient& c) {
         return c.patchStatus(r, "ns", "a", PatchType::Merge, "{}").has_value();
       },
       "patchStatus"},
      {"delete", ApiVerb::Delete, [&](ApiClient& c) { return c.remove(r, "ns", "a").has_value(); },
       "remove"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeApiClient fake;
      RecordingCounter counter;
      InstrumentedClient client(fake, counter);
      fake.gets = {std::string("{}"), kRefused};
      fake.lists = {ListPage{}, kRefused};
      fake.write_results = {std::string("{}"), kRefused};
      BOOST_TEST(c.call(client));
      BOOST_TEST(!c.call(client));
      const auto v = static_cast<size_t>(c.verb);
      BOOST_TEST(counter.requests[v] == 2);
      BOOST_TEST(counter.errors[v] == 1);
      int total = 0;
      for (int n : counter.requests) total += n;
      BOOST_TEST(total == 2);
      if (!c.write.empty()) {
        BOOST_REQUIRE(fake.writes().size() == 2u);
        BOOST_TEST(fake.writes()[0].verb == c.write);
        BOOST_TEST(fake.writes()[0].ns == "ns");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_watch_is_counted_when_it_starts_and_as_an_error_only_when_it_fails) {
  struct Case {
    std::string desc;
    WatchEnd end;
    int errors;
  };
  const std::vector<Case> cases = {
      {"closed by the server", WatchEnd::Closed, 0},
      {"gone", WatchEnd::Gone, 0},
      {"failed", WatchEnd::Failed, 1},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeApiClient fake;
      RecordingCounter counter;
      InstrumentedClient client(fake, counter);
      WatchStep step;
      step.events = {WatchEvent{WatchEventType::Added, "{}"}};
      step.outcome = WatchOutcome{c.end, {}};
      fake.watches.push_back(step);
      int events = 0;
      const WatchOutcome out = client.watch(resources::kServices, "ns", {},
                                            [&](const WatchEvent&) {
                                              ++events;
                                              return true;
                                            },
                                            {});
      BOOST_TEST((out.end == c.end));
      BOOST_TEST(events == 1);
      BOOST_TEST(counter.requests[static_cast<size_t>(ApiVerb::Watch)] == 1);
      BOOST_TEST(counter.errors[static_cast<size_t>(ApiVerb::Watch)] == c.errors);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
