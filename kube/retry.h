// SPDX-License-Identifier: Apache-2.0
// When the REST client retries a request by itself, and how long it waits (pure: the random
// source is passed in). The policy, in short: a 429 (API Priority and Fairness, max-in-flight)
// is retried for every verb, because the server rejected it before running it; a 5xx is retried
// only for reads (GET), because a write may have committed before the server failed to answer;
// a Retry-After header is honoured; at most max_retries retries and max_total_wait of waiting
// per call, so no caller is blocked without a bound. docs/kube-client.md has the rationale.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "kube/backoff.h"
#include "kube/clock.h"

namespace ingot::k8s {

/// RetryReason is why the client retried a request, for the retry counters.
enum class RetryReason {
  Throttled,    ///< HTTP 429 Too Many Requests
  ServerError,  ///< HTTP 5xx on a read
};
inline constexpr size_t kRetryReasonCount = 2;

/// retryReasonName returns the metric label value: "throttled" or "server_error".
std::string_view retryReasonName(RetryReason reason);

/// RetryPolicy bounds the client's own retries of one call.
struct RetryPolicy {
  int max_retries = 10;  ///< client-go's maxRetries; 0 disables retrying
  /// The jittered exponential backoff between attempts when the server sent no Retry-After,
  /// and the floor under a Retry-After.
  Duration initial = std::chrono::milliseconds(250);
  Duration max_backoff = std::chrono::seconds(8);
  double jitter = 0.5;  ///< up to +50% on each backoff delay, so clients do not retry in step
  Duration max_retry_after = std::chrono::seconds(15);  ///< a longer Retry-After ends retrying
  /// max_total_wait bounds the waits of one call, summed: a reconcile worker (and a daemon
  /// stopping on SIGTERM) is never held longer by retries.
  Duration max_total_wait = std::chrono::seconds(20);
};

/// parseRetryAfter reads a Retry-After header value given in seconds ("3"); nullopt when it is
/// empty, negative, not a number or an HTTP date (kube-apiserver only sends seconds, and
/// client-go reads only seconds).
std::optional<Duration> parseRetryAfter(std::string_view value);

/// retryReasonFor says whether a request that got HTTP `status` may be sent again and why:
/// 429 for every method; 500-599 only when the method is a read (`read`, i.e. GET). nullopt
/// for everything else (success, 4xx, or a 5xx on a write).
std::optional<RetryReason> retryReasonFor(bool read, int status);

/// RetryBudget is the retry state of one call: how many retries are left and how much waiting.
class RetryBudget {
 public:
  RetryBudget(const RetryPolicy& policy, Backoff::Random random);

  /// next returns how long to wait before the next attempt, or nullopt when the call must give
  /// up: max_retries retries made, a Retry-After above max_retry_after, or the wait would
  /// take the call past max_total_wait. The wait is the jittered backoff, or the Retry-After
  /// when that is longer (a Retry-After is never shortened).
  std::optional<Duration> next(std::optional<Duration> retry_after);

  /// retries returns how many retries next() allowed so far.
  int retries() const { return retries_; }

 private:
  RetryPolicy policy_;
  Backoff backoff_;
  int retries_ = 0;
  Duration waited_{0};
};

}  // namespace ingot::k8s
