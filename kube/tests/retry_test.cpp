// SPDX-License-Identifier: Apache-2.0
#include "kube/retry.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using namespace ingot::k8s;
using namespace std::chrono_literals;

namespace {

std::optional<Duration> none() {
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(retry)

BOOST_AUTO_TEST_CASE(retry_after_is_read_in_seconds_only) {
  struct Case {
    std::string value;
    std::optional<Duration> want;
  };
  const std::vector<Case> cases = {
      {"1", Duration(1s)},
      {"0", Duration(0s)},
      {" 12 ", Duration(12s)},
      {"", std::nullopt},
      {"-1", std::nullopt},
      {"1.5", std::nullopt},
      {"soon", std::nullopt},
      {"Wed, 21 Oct 2015 07:28:00 GMT", std::nullopt},  // an HTTP date: not sent by Kubernetes
      {"99999999999999999999", std::nullopt},           // out of range
      {"5000000000", Duration(1'000'000'000s)},         // clamped, refused by the policy later
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("Retry-After '" << c.value << "'") {
      const auto got = parseRetryAfter(c.value);
      BOOST_TEST(got.has_value() == c.want.has_value());
      if (got && c.want) BOOST_TEST(got->count() == c.want->count());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_429_is_retried_for_every_verb_and_a_5xx_only_for_reads) {
  struct Case {
    bool read;
    int status;
    std::optional<RetryReason> want;
  };
  const std::vector<Case> cases = {
      {true, 429, RetryReason::Throttled},
      {false, 429, RetryReason::Throttled},
      {true, 500, RetryReason::ServerError},
      {true, 503, RetryReason::ServerError},
      {true, 504, RetryReason::ServerError},
      {false, 500, std::nullopt},
      {false, 503, std::nullopt},
      {false, 504, std::nullopt},  // may have committed
      {true, 200, std::nullopt},
      {true, 404, std::nullopt},
      {true, 409, std::nullopt},
      {true, 410, std::nullopt},
      {false, 409, std::nullopt},
      {true, 600, std::nullopt},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT((c.read ? "read " : "write ") << c.status) {
      const auto got = retryReasonFor(c.read, c.status);
      BOOST_TEST(got.has_value() == c.want.has_value());
      if (got && c.want) BOOST_TEST(static_cast<int>(*got) == static_cast<int>(*c.want));
    }
  }
  BOOST_TEST(retryReasonName(RetryReason::Throttled) == "throttled");
  BOOST_TEST(retryReasonName(RetryReason::ServerError) == "server_error");
}

// Each row is one failed attempt: the Retry-After it carried and the wait the budget grants
// (nullopt: give up). The random source returns 0.5, so each backoff delay gets +25% jitter.
BOOST_AUTO_TEST_CASE(retry_budget_honours_retry_after_and_stops_at_its_bounds) {
  struct Step {
    std::optional<Duration> retry_after;
    std::optional<Duration> want;
  };
  struct Case {
    std::string desc;
    RetryPolicy policy;
    std::vector<Step> steps;
  };
  RetryPolicy small;
  small.initial = 100ms;
  small.max_backoff = 400ms;
  small.max_retries = 3;
  small.max_total_wait = 10s;
  RetryPolicy tight = small;
  tight.max_total_wait = 1500ms;
  tight.max_retries = 10;
  RetryPolicy off = small;
  off.max_retries = 0;
  const std::vector<Case> cases = {
      {"jittered exponential backoff without Retry-After, then max_retries",
       small,
       {{none(), Duration(125ms)},
        {none(), Duration(250ms)},
        {none(), Duration(500ms)},
        {none(), none()}}},
      {"a Retry-After longer than the backoff is waited in full, never shortened",
       small,
       {{Duration(1s), Duration(1s)}, {Duration(2s), Duration(2s)}, {none(), Duration(500ms)}}},
      {"a Retry-After shorter than the backoff waits the backoff",
       small,
       {{Duration(0s), Duration(125ms)}, {Duration(100ms), Duration(250ms)}}},
      {"a Retry-After above max_retry_after gives up at once", small, {{Duration(31s), none()}}},
      {"the total wait of one call is bounded",
       tight,
       {{Duration(1s), Duration(1s)}, {Duration(1s), none()}}},
      {"max_retries 0 turns retrying off", off, {{Duration(1s), none()}, {none(), none()}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      RetryBudget budget(c.policy, [] { return 0.5; });
      int granted = 0;
      for (size_t i = 0; i < c.steps.size(); ++i) {
        BOOST_TEST_CONTEXT("attempt " << i + 1) {
          const auto got = budget.next(c.steps[i].retry_after);
          BOOST_TEST(got.has_value() == c.steps[i].want.has_value());
          if (got && c.steps[i].want) BOOST_TEST(got->count() == c.steps[i].want->count());
          if (got) ++granted;
        }
      }
      BOOST_TEST(budget.retries() == granted);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
