// SPDX-License-Identifier: Apache-2.0
// ApplyHealth is the frr mode's record of how applying to the node's FRR goes: why the last
// applies failed (FRR missing, a daemon down, vtysh or FRR not answering, a configuration FRR
// rejects, one too large to apply), how long to wait before the next attempt (exponential backoff,
// never a tight loop and never giving up), and when FRR last took a configuration. The agent
// reports it on /metrics, in the log, as Events and in its ConfigurationState. Pure: no I/O and no
// clock of its own; thread-safe, because /metrics reads it from another thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/daemon/prometheus.h"
#include "common/util/result.h"

namespace ingot::frr {

/// FailureReason is why one apply failed, as the metric label spells it (failureReasonName).
enum class FailureReason {
  FrrMissing,  ///< vtysh or frr-reload.py not installed where the agent looks for them
  DaemonDown,  ///< zebra, bgpd or bfdd not running (or restarting)
  Timeout,     ///< vtysh or frr-reload.py did not finish in time (a hung daemon); killed
  Rejected,    ///< FRR refused the configuration (or a line of a delta)
  TooLarge,    ///< the configuration exceeds what the agent applies (kMaxPrefixes)
  Other,       ///< anything else (I/O errors, FRR not converging)
};

inline constexpr size_t kFailureReasons = 6;

/// failureReasonName: "frr_missing", "daemon_down", "timeout", "rejected", "too_large", "other".
const char* failureReasonName(FailureReason reason);

/// Markers the producers of errors put in messages and classifyFailure looks for.
inline constexpr std::string_view kNotRunningMarker = " is not running";
inline constexpr std::string_view kTimeoutMarkers[] = {"did not answer within", "timed out after"};

/// classifyFailure maps an apply error to its reason: NotFound → FrrMissing, InvalidArgument →
/// Rejected, Exhausted → TooLarge; Unavailable with a timeout marker → Timeout, with the
/// not-running marker → DaemonDown; the rest → Other.
FailureReason classifyFailure(const Error& error);

/// kMaxPrefixes bounds the prefixes one node's FRR configuration may announce in frr mode.
inline constexpr size_t kMaxPrefixes = 100'000;

/// checkSize returns an Exhausted error naming the count and the limit when prefixes exceeds
/// kMaxPrefixes (node names whose configuration it is).
Result<void> checkSize(const std::string& node, size_t prefixes);

/// retryDelay is the wait before the next attempt after consecutive failures: 0 for none, then
/// 1 s doubling per failure, capped at 60 s.
std::chrono::milliseconds retryDelay(int consecutive_failures);

/// ApplyHealth counts failures by reason and keeps the backoff state.
class ApplyHealth {
 public:
  /// failed records one failure and returns the delay before the next attempt.
  std::chrono::milliseconds failed(FailureReason reason);
  /// succeeded records an apply (or read-back) that left FRR on the desired configuration at
  /// wall_seconds (seconds since the Unix epoch); the backoff starts over.
  void succeeded(double wall_seconds);

  int consecutiveFailures() const;
  uint64_t failures(FailureReason reason) const;
  /// lastSuccess is wall_seconds of the last success, 0 before the first.
  double lastSuccess() const;

  /// families: ingot_agent_frr_apply_failures_total{reason},
  /// ingot_agent_frr_apply_consecutive_failures and
  /// ingot_agent_frr_last_success_timestamp_seconds.
  std::vector<daemon::MetricFamily> families() const;

 private:
  mutable std::mutex mu_;
  std::array<uint64_t, kFailureReasons> by_reason_{};
  int consecutive_ = 0;
  double last_success_ = 0;
};

}  // namespace ingot::frr
