// SPDX-License-Identifier: Apache-2.0
// The event recorder against the test API server: a hot loop becomes one Event with a count.
#include "kube/events.h"

#include <map>
#include <string>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/resources.h"
#include "kube/tests/integration/api_server.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using namespace ingot::k8s::testing;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(events)

BOOST_AUTO_TEST_CASE(a_hot_loop_is_aggregated_into_one_event_per_message) {
  TestApiServer server;
  auto api = server.client();
  const std::string svc = R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web",)"
                          R"("namespace":"default"},"spec":{"type":"LoadBalancer",)"
                          R"("ports":[{"port":80}]}})";
  auto created = api->create(resources::kServices, "default", svc);
  BOOST_REQUIRE(created.has_value());
  const ObjectReference ref{"v1",
                            "Service",
                            "default",
                            "web",
                            fieldOf(*created, {"metadata", "uid"}),
                            fieldOf(*created, {"metadata", "resourceVersion"})};

  EventRecorder recorder(*api, EventSource{"ingot-controller", "test-node"});
  for (int i = 0; i < 500; ++i) {
    recorder.record(ref, EventType::Warning, "AllocationFailed", "no available IPs in pool");
  }
  recorder.record(ref, EventType::Normal, "IPAllocated", "Assigned IP [\"192.0.2.1\"]");
  BOOST_REQUIRE(recorder.flush(20s));
  const auto stats = recorder.stats();
  BOOST_TEST(stats.failed == 0u);
  BOOST_TEST(stats.created == 1u);  // the burst of 25 is spent by the hot loop
  BOOST_TEST(stats.patched == 24u);
  BOOST_TEST(stats.rate_limited == 476u);

  auto list = api->list(resources::kEvents, "default", {});
  BOOST_REQUIRE(list.has_value());
  std::map<std::string, std::string> by_reason;
  for (const auto& e : list->items) {
    if (fieldOf(e, {"involvedObject", "name"}) != "web") continue;
    by_reason[fieldOf(e, {"reason"})] = e;
  }
  BOOST_REQUIRE(by_reason.size() == 1u);
  const std::string& event = by_reason["AllocationFailed"];
  BOOST_TEST(*json::intAt(event, {"count"}) == 25);
  BOOST_TEST(fieldOf(event, {"type"}) == "Warning");
  BOOST_TEST(fieldOf(event, {"message"}) == "no available IPs in pool");
  BOOST_TEST(fieldOf(event, {"involvedObject", "uid"}) == ref.uid);
  BOOST_TEST(fieldOf(event, {"source", "component"}) == "ingot-controller");
}

BOOST_AUTO_TEST_CASE(a_deleted_event_is_recreated_with_its_count) {
  TestApiServer server;
  auto api = server.client();
  const ObjectReference pool{
      "metallb.io/v1beta1", "IPAddressPool", "metallb-system", "p1", "u1", ""};
  EventRecorder recorder(*api, EventSource{"ingot-controller", ""});
  recorder.record(pool, EventType::Normal, "Synced", "ok");
  BOOST_REQUIRE(recorder.flush(10s));
  auto list = api->list(resources::kEvents, "metallb-system", {});
  BOOST_REQUIRE(list.has_value());
  BOOST_REQUIRE(list->items.size() == 1u);
  const std::string name = fieldOf(list->items[0], {"metadata", "name"});
  BOOST_TEST(name.rfind("p1.", 0) == 0);
  BOOST_REQUIRE(api->remove(resources::kEvents, "metallb-system", name).has_value());

  recorder.record(pool, EventType::Normal, "Synced", "ok");  // PATCH 404 -> create
  BOOST_REQUIRE(recorder.flush(10s));
  BOOST_TEST(recorder.stats().failed == 0u);
  auto again = api->get(resources::kEvents, "metallb-system", name);
  BOOST_REQUIRE(again.has_value());
  BOOST_TEST(*json::intAt(*again, {"count"}) == 2);
}

// kube-apiserver deletes Events --event-ttl after their last write (1 h by default); the
// recorder's next PATCH of a repeated Event then gets 404 and creates the Event again, keeping
// the count it had reached. The server here expires them after 1 s.
BOOST_AUTO_TEST_CASE(an_expired_event_is_recreated_with_its_count) {
  TestApiServer server(ApiServerOptions{{"--event-ttl", "1"}});
  auto api = server.client();
  const ObjectReference pool{
      "metallb.io/v1beta1", "IPAddressPool", "metallb-system", "p1", "u1", ""};
  EventRecorder recorder(*api, EventSource{"ingot-controller", ""});
  recorder.record(pool, EventType::Warning, "AllocationFailed", "no addresses left");
  recorder.record(pool, EventType::Warning, "AllocationFailed", "no addresses left");
  BOOST_REQUIRE(recorder.flush(10s));
  auto list = api->list(resources::kEvents, "metallb-system", {});
  BOOST_REQUIRE(list.has_value());
  BOOST_REQUIRE(list->items.size() == 1u);
  const std::string name = fieldOf(list->items[0], {"metadata", "name"});
  BOOST_TEST(*json::intAt(list->items[0], {"count"}) == 2);

  // Expired: gone from the server, still known to the recorder.
  bool expired = false;
  for (int i = 0; i < 200 && !expired; ++i) {
    auto got = api->get(resources::kEvents, "metallb-system", name);
    expired = !got.has_value() && got.error().code == ingot::ErrorCode::NotFound;
    if (!expired) std::this_thread::sleep_for(50ms);
  }
  BOOST_REQUIRE_MESSAGE(expired, "the Event never expired:\n" + server.log());

  recorder.record(pool, EventType::Warning, "AllocationFailed", "no addresses left");
  BOOST_REQUIRE(recorder.flush(10s));
  const auto stats = recorder.stats();
  BOOST_TEST(stats.failed == 0u);
  BOOST_TEST(stats.created == 1u);  // the first; the recreation is a patch that fell back
  BOOST_TEST(stats.patched == 2u);
  auto again = api->get(resources::kEvents, "metallb-system", name);
  BOOST_REQUIRE_MESSAGE(again.has_value(), why(again));
  BOOST_TEST(*json::intAt(*again, {"count"}) == 3);
  BOOST_TEST(fieldOf(*again, {"message"}) == "no addresses left");
}

BOOST_AUTO_TEST_SUITE_END()
