// SPDX-License-Identifier: Apache-2.0
// The REST client against the test API server's overload faults (e2e/kubeapi/kubeapi/faults.py):
// 429 with Retry-After is retried for every verb after the time the server asked for, 5xx only
// for reads, and never more than the policy allows; a write answered 504 after it committed is
// not sent again. Waits are recorded, not slept: the server counts its faults, it does not time
// them.
#include <mutex>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/resources.h"
#include "kube/rest_client.h"
#include "kube/tests/integration/api_server.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using namespace ingot::k8s::testing;
using namespace std::chrono_literals;
using ingot::ErrorCode;

namespace {

/// Retries records what the client's retry hooks saw.
struct Retries {
  std::mutex mu;
  std::vector<Duration> waits;
  std::vector<RetryReason> reasons;

  size_t count() {
    std::lock_guard lock(mu);
    return waits.size();
  }
};

ApiClientPtr recordingClient(const TestApiServer& server, Retries& r, RetryPolicy policy = {}) {
  RestOptions o;
  o.qps = 0;
  o.retry = policy;
  o.retry_sleep = [&r](Duration d) {
    std::lock_guard lock(r.mu);
    r.waits.push_back(d);
  };
  o.on_retry = [&r](RetryReason reason) {
    std::lock_guard lock(r.mu);
    r.reasons.push_back(reason);
  };
  auto c = makeRestClient(server.config(), o);
  BOOST_REQUIRE_MESSAGE(c.has_value(), why(c));
  return std::move(*c);
}

/// serverCounter reads one of the server's fault counters ("throttled", "timedOut").
int64_t serverCounter(ApiClient& api, const char* name) {
  auto faults = api.getPath("/ingot-test/faults");
  BOOST_REQUIRE_MESSAGE(faults.has_value(), why(faults));
  auto value = json::intAt(*faults, {"counters", name});
  BOOST_REQUIRE(value.has_value());
  return *value;
}

const char* const kGenerated =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-",)"
    R"("namespace":"default"},"data":{"k":"v"}})";

}  // namespace

BOOST_AUTO_TEST_SUITE(rest_client_faults)

BOOST_AUTO_TEST_CASE(a_429_is_retried_after_its_retry_after_and_counted) {
  TestApiServer server(ApiServerOptions{{"--throttle-next", "3", "--retry-after", "2"}});
  Retries r;
  auto api = recordingClient(server, r);
  auto page = api->list(resources::kConfigMaps, "default", {});
  BOOST_REQUIRE_MESSAGE(page.has_value(), why(page) + "\n" + server.log());
  BOOST_REQUIRE_EQUAL(r.count(), 3u);
  for (size_t i = 0; i < r.waits.size(); ++i) {
    BOOST_TEST_CONTEXT("retry " << i + 1) {
      BOOST_TEST(r.waits[i] >= Duration(2s));  // never sooner than the server asked
      BOOST_TEST((r.reasons[i] == RetryReason::Throttled));
    }
  }
  BOOST_TEST(serverCounter(*api, "throttled") == 3);
}

// A 429 means the request did not run (APF rejects before the handler), so a create is sent
// again too, and makes exactly one object.
BOOST_AUTO_TEST_CASE(a_throttled_create_is_sent_again_and_makes_one_object) {
  TestApiServer server(ApiServerOptions{{"--throttle-next", "2", "--throttle-verbs", "create"}});
  Retries r;
  auto api = recordingClient(server, r);
  auto created = api->create(resources::kConfigMaps, "default", kGenerated);
  BOOST_REQUIRE_MESSAGE(created.has_value(), why(created));
  BOOST_TEST(r.count() == 2u);
  auto page = api->list(resources::kConfigMaps, "default", {});
  BOOST_REQUIRE(page.has_value());
  BOOST_TEST(page->items.size() == 1u);
}

BOOST_AUTO_TEST_CASE(retries_are_bounded_and_the_error_says_how_many_were_made) {
  TestApiServer server(ApiServerOptions{{"--throttle-next", "1000", "--retry-after", "1"}});
  Retries r;
  RetryPolicy policy;
  policy.max_retries = 4;
  auto api = recordingClient(server, r, policy);
  auto page = api->list(resources::kConfigMaps, "default", {});
  BOOST_REQUIRE(!page.has_value());
  BOOST_TEST((page.error().code == ErrorCode::Unavailable));
  BOOST_TEST(page.error().message.find("HTTP 429") != std::string::npos, page.error().message);
  BOOST_TEST(page.error().message.find("after 4 retries") != std::string::npos,
             page.error().message);
  BOOST_TEST(r.count() == 4u);
  BOOST_TEST(serverCounter(*api, "throttled") == 5);  // the first attempt and 4 retries
}

BOOST_AUTO_TEST_CASE(a_retry_after_beyond_the_policy_is_not_waited_for) {
  TestApiServer server(ApiServerOptions{{"--throttle-next", "1000", "--retry-after", "120"}});
  Retries r;
  auto api = recordingClient(server, r);  // max_retry_after 15 s
  auto got = api->get(resources::kConfigMaps, "default", "x");
  BOOST_REQUIRE(!got.has_value());
  BOOST_TEST(got.error().message.find("HTTP 429") != std::string::npos, got.error().message);
  BOOST_TEST(r.count() == 0u);
  BOOST_TEST(serverCounter(*api, "throttled") == 1);
}

// A read answered 5xx is retried: a list ahead of the store gets kube-apiserver's "Too large
// resource version" 504 with Retry-After 1 until the store catches up (here it never does).
BOOST_AUTO_TEST_CASE(a_read_answered_5xx_is_retried_with_its_retry_after) {
  TestApiServer server;
  Retries r;
  RetryPolicy policy;
  policy.max_retries = 2;
  auto api = recordingClient(server, r, policy);
  ListOptions ahead;
  ahead.resource_version = "999999";
  auto page = api->list(resources::kConfigMaps, "default", ahead);
  BOOST_REQUIRE(!page.has_value());
  BOOST_TEST(page.error().message.find("HTTP 504") != std::string::npos, page.error().message);
  BOOST_REQUIRE_EQUAL(r.count(), 2u);
  for (size_t i = 0; i < r.waits.size(); ++i) {
    BOOST_TEST(r.waits[i] >= Duration(1s));
    BOOST_TEST((r.reasons[i] == RetryReason::ServerError));
  }
}

// The hazard the client must not create: a create that committed but was answered 504. Sent again
// blindly, a generateName create would make a second object; the client returns the error and
// leaves the decision to the caller (which uses names that make a repeat idempotent).
BOOST_AUTO_TEST_CASE(a_create_answered_504_after_it_committed_is_not_sent_again) {
  TestApiServer server(ApiServerOptions{{"--timeout-next", "1"}});
  Retries r;
  auto api = recordingClient(server, r);
  auto created = api->create(resources::kConfigMaps, "default", kGenerated);
  BOOST_REQUIRE(!created.has_value());
  BOOST_TEST((created.error().code == ErrorCode::Unavailable));
  BOOST_TEST(created.error().message.find("HTTP 504 Timeout") != std::string::npos,
             created.error().message);
  BOOST_TEST(r.count() == 0u);
  auto page = api->list(resources::kConfigMaps, "default", {});
  BOOST_REQUIRE(page.has_value());
  BOOST_TEST(page->items.size() == 1u);  // it did commit, once
  BOOST_TEST(serverCounter(*api, "timedOut") == 1);
}

// What makes a repeated create safe: a name that follows from the object's identity. The repeat
// meets AlreadyExists, and there is still one object.
BOOST_AUTO_TEST_CASE(a_named_create_repeated_after_a_504_meets_already_exists) {
  TestApiServer server(ApiServerOptions{{"--timeout-next", "1"}});
  auto api = server.client();
  const std::string cm = configMap("default", "status-node1-web", "v");
  auto first = api->create(resources::kConfigMaps, "default", cm);
  BOOST_REQUIRE(!first.has_value());
  auto again = api->create(resources::kConfigMaps, "default", cm);
  BOOST_REQUIRE(!again.has_value());
  BOOST_TEST((again.error().code == ErrorCode::AlreadyExists), again.error().message);
  auto page = api->list(resources::kConfigMaps, "default", {});
  BOOST_REQUIRE(page.has_value());
  BOOST_TEST(page->items.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
