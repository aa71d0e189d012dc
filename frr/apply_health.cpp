// SPDX-License-Identifier: Apache-2.0
#include "frr/apply_health.h"

#include <algorithm>
#include <limits>

namespace ingot::frr {

namespace {

constexpr std::array<FailureReason, kFailureReasons> kReasons = {
    FailureReason::FrrMissing, FailureReason::DaemonDown, FailureReason::Timeout,
    FailureReason::Rejected,   FailureReason::TooLarge,   FailureReason::Other};

bool mentions(const std::string& text, std::string_view marker) {
  return text.find(marker) != std::string::npos;
}

}  // namespace

const char* failureReasonName(FailureReason reason) {
  switch (reason) {
    case FailureReason::FrrMissing:
      return "frr_missing";
    case FailureReason::DaemonDown:
      return "daemon_down";
    case FailureReason::Timeout:
      return "timeout";
    case FailureReason::Rejected:
      return "rejected";
    case FailureReason::TooLarge:
      return "too_large";
    case FailureReason::Other:
      break;
  }
  return "other";
}

FailureReason classifyFailure(const Error& error) {
  switch (error.code) {
    case ErrorCode::NotFound:
      return FailureReason::FrrMissing;
    case ErrorCode::InvalidArgument:
      return FailureReason::Rejected;
    case ErrorCode::Exhausted:
      return FailureReason::TooLarge;
    case ErrorCode::Unavailable:
      for (std::string_view m : kTimeoutMarkers) {
        if (mentions(error.message, m)) {
          return FailureReason::Timeout;
        }
      }
      if (mentions(error.message, kNotRunningMarker)) {
        return FailureReason::DaemonDown;
      }
      break;
    default:
      break;
  }
  return FailureReason::Other;
}

Result<void> checkSize(const std::string& node, size_t prefixes) {
  if (prefixes <= kMaxPrefixes) {
    return {};
  }
  return Error{ErrorCode::Exhausted,
               "node " + node + ": the BGP configuration announces " + std::to_string(prefixes) +
                   " prefixes, more than the " + std::to_string(kMaxPrefixes) +
                   " the frr mode applies; nothing was sent to FRR, which keeps the last "
                   "configuration that applied"};
}

std::chrono::milliseconds retryDelay(int consecutive_failures) {
  using std::chrono::milliseconds;
  constexpr milliseconds kFirst{1000};
  constexpr milliseconds kCap{60'000};
  if (consecutive_failures <= 0) {
    return milliseconds{0};
  }
  // 1 s << 6 = 64 s already exceeds the cap, so larger counts cannot overflow.
  const int shift = std::min(consecutive_failures - 1, 6);
  return std::min(kFirst * (1 << shift), kCap);
}

std::chrono::milliseconds ApplyHealth::failed(FailureReason reason) {
  std::lock_guard lock(mu_);
  ++by_reason_[static_cast<size_t>(reason)];
  if (consecutive_ < std::numeric_limits<int>::max()) {
    ++consecutive_;
  }
  return retryDelay(consecutive_);
}

void ApplyHealth::succeeded(double wall_seconds) {
  std::lock_guard lock(mu_);
  consecutive_ = 0;
  last_success_ = wall_seconds;
}

int ApplyHealth::consecutiveFailures() const {
  std::lock_guard lock(mu_);
  return consecutive_;
}

uint64_t ApplyHealth::failures(FailureReason reason) const {
  std::lock_guard lock(mu_);
  return by_reason_[static_cast<size_t>(reason)];
}

double ApplyHealth::lastSuccess() const {
  std::lock_guard lock(mu_);
  return last_success_;
}

std::vector<daemon::MetricFamily> ApplyHealth::families() const {
  std::lock_guard lock(mu_);
  daemon::MetricFamily failures{
      "ingot_agent_frr_apply_failures_total",
      "Applies to the node's FRR (frr mode) that failed, by reason: frr_missing, daemon_down, "
      "timeout, rejected, too_large, other. Each is retried with exponential backoff.",
      daemon::MetricType::Counter,
      {}};
  for (FailureReason r : kReasons) {
    failures.samples.push_back({{{"reason", failureReasonName(r)}},
                                static_cast<double>(by_reason_[static_cast<size_t>(r)])});
  }
  return {std::move(failures),
          {"ingot_agent_frr_apply_consecutive_failures",
           "Failed applies to the node's FRR since the last success (0 = FRR holds the desired "
           "configuration).",
           daemon::MetricType::Gauge,
           {{{}, static_cast<double>(consecutive_)}}},
          {"ingot_agent_frr_last_success_timestamp_seconds",
           "When FRR last took the desired configuration (an apply or a read-back that found it "
           "in place), seconds since the Unix epoch; 0 before the first.",
           daemon::MetricType::Gauge,
           {{{}, last_success_}}}};
}

}  // namespace ingot::frr
