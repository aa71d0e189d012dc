// SPDX-License-Identifier: Apache-2.0
// ApplyHealth, classifyFailure, checkSize and retryDelay: the frr mode's failure bookkeeping.
#include "frr/apply_health.h"

#include <boost/test/unit_test.hpp>

#include "common/daemon/prometheus.h"

namespace ingot::frr {
namespace {

using namespace std::chrono_literals;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(apply_health)

BOOST_AUTO_TEST_CASE(retry_delay_doubles_from_one_second_up_to_a_minute) {
  struct Case {
    int failures;
    std::chrono::milliseconds want;
  };
  const std::vector<Case> cases = {
      {-1, 0ms}, {0, 0ms}, {1, 1s},  {2, 2s},  {3, 4s},     {4, 8s},
      {5, 16s},  {6, 32s}, {7, 60s}, {8, 60s}, {1000, 60s}, {2147483647, 60s},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("failures " << c.failures) {
      BOOST_TEST(retryDelay(c.failures).count() == c.want.count());
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_are_classified_by_code_and_marker) {
  struct Case {
    ErrorCode code;
    std::string message;
    FailureReason want;
  };
  const std::vector<Case> cases = {
      {ErrorCode::NotFound, "vtysh /usr/bin/vtysh: No such file or directory",
       FailureReason::FrrMissing},
      {ErrorCode::InvalidArgument, "FRR rejected 1 command(s): network 10.1.1.300/32",
       FailureReason::Rejected},
      {ErrorCode::Exhausted, "announces 200000 prefixes", FailureReason::TooLarge},
      {ErrorCode::Unavailable, "vtysh did not answer within 30000 ms (session ended)",
       FailureReason::Timeout},
      {ErrorCode::Unavailable, "`frr-reload.py --test` timed out after 600000 ms",
       FailureReason::Timeout},
      {ErrorCode::Unavailable, "FRR: bgpd is not running (vtysh sent its lines nowhere)",
       FailureReason::DaemonDown},
      {ErrorCode::Unavailable, "frr.conf: FRR did not converge after 3 reload pass(es)",
       FailureReason::Other},
      {ErrorCode::Transient, "FRR: bgpd restarted", FailureReason::Other},
      {ErrorCode::Internal, "did not answer within", FailureReason::Other},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.message) {
      BOOST_TEST(failureReasonName(classifyFailure(Error{c.code, c.message})) ==
                 std::string(failureReasonName(c.want)));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_configuration_above_the_limit_is_refused_with_the_counts) {
  BOOST_TEST(checkSize("node1", 0).has_value());
  BOOST_TEST(checkSize("node1", kMaxPrefixes).has_value());
  auto r = checkSize("node1", kMaxPrefixes + 1);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::Exhausted));
  BOOST_TEST(has(r.error().message, "node node1"), r.error().message);
  BOOST_TEST(has(r.error().message, std::to_string(kMaxPrefixes + 1) + " prefixes"));
  BOOST_TEST(has(r.error().message, "than the " + std::to_string(kMaxPrefixes)));
}

BOOST_AUTO_TEST_CASE(failures_back_off_and_a_success_starts_over) {
  // Each step: a failure (with its reason) or a success; the delay the step returns and the
  // consecutive count after it.
  struct Step {
    bool ok;
    FailureReason reason;
    std::chrono::milliseconds delay;
    int consecutive;
  };
  const std::vector<Step> steps = {
      {false, FailureReason::DaemonDown, 1s, 1}, {false, FailureReason::DaemonDown, 2s, 2},
      {false, FailureReason::Timeout, 4s, 3},    {true, FailureReason::Other, 0s, 0},
      {false, FailureReason::Rejected, 1s, 1},   {false, FailureReason::Rejected, 2s, 2},
      {false, FailureReason::Rejected, 4s, 3},   {false, FailureReason::Rejected, 8s, 4},
      {false, FailureReason::Rejected, 16s, 5},  {false, FailureReason::Rejected, 32s, 6},
      {false, FailureReason::Rejected, 60s, 7},  {false, FailureReason::Rejected, 60s, 8},
  };
  ApplyHealth h;
  BOOST_TEST(h.lastSuccess() == 0.0);
  for (size_t i = 0; i < steps.size(); ++i) {
    BOOST_TEST_CONTEXT("step " << i) {
      const auto& s = steps[i];
      std::chrono::milliseconds delay{0};
      if (s.ok) {
        h.succeeded(1000.0 + static_cast<double>(i));
      } else {
        delay = h.failed(s.reason);
      }
      BOOST_TEST(delay.count() == s.delay.count());
      BOOST_TEST(h.consecutiveFailures() == s.consecutive);
    }
  }
  BOOST_TEST(h.failures(FailureReason::DaemonDown) == 2u);
  BOOST_TEST(h.failures(FailureReason::Timeout) == 1u);
  BOOST_TEST(h.failures(FailureReason::Rejected) == 8u);
  BOOST_TEST(h.failures(FailureReason::FrrMissing) == 0u);
  BOOST_TEST(h.lastSuccess() == 1003.0);
}

BOOST_AUTO_TEST_CASE(families_render_every_reason_and_the_last_success) {
  ApplyHealth h;
  h.failed(FailureReason::TooLarge);
  h.succeeded(1700000000.0);
  h.failed(FailureReason::FrrMissing);
  const std::string text = daemon::renderPrometheus(h.families());
  for (const char* line : {"ingot_agent_frr_apply_failures_total{reason=\"frr_missing\"} 1",
                           "ingot_agent_frr_apply_failures_total{reason=\"daemon_down\"} 0",
                           "ingot_agent_frr_apply_failures_total{reason=\"timeout\"} 0",
                           "ingot_agent_frr_apply_failures_total{reason=\"rejected\"} 0",
                           "ingot_agent_frr_apply_failures_total{reason=\"too_large\"} 1",
                           "ingot_agent_frr_apply_failures_total{reason=\"other\"} 0",
                           "ingot_agent_frr_apply_consecutive_failures 1",
                           "ingot_agent_frr_last_success_timestamp_seconds 1700000000"}) {
    BOOST_TEST(has(text, line), line << " missing in:\n" << text);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
