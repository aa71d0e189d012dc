// SPDX-License-Identifier: Apache-2.0
#include "kube/retry.h"

#include <algorithm>
#include <charconv>

namespace ingot::k8s {

std::string_view retryReasonName(RetryReason reason) {
  static constexpr std::array<std::string_view, kRetryReasonCount> kNames = {"throttled",
                                                                             "server_error"};
  return kNames[static_cast<size_t>(reason)];
}

std::optional<Duration> parseRetryAfter(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  // Bounded well below what a Duration holds; anything longer is refused by the policy anyway.
  constexpr long long kMaxSeconds = 1'000'000'000;
  long long seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  return toDuration(std::chrono::seconds(std::min(seconds, kMaxSeconds)));
}

std::optional<RetryReason> retryReasonFor(bool read, int status) {
  if (status == 429) return RetryReason::Throttled;
  if (read && status >= 500 && status <= 599) return RetryReason::ServerError;
  return std::nullopt;
}

RetryBudget::RetryBudget(const RetryPolicy& policy, Backoff::Random random)
    : policy_(policy),
      backoff_(BackoffOptions{policy.initial, policy.max_backoff, 2.0, policy.jitter},
               std::move(random)) {}

std::optional<Duration> RetryBudget::next(std::optional<Duration> retry_after) {
  if (retries_ >= policy_.max_retries) return std::nullopt;
  if (retry_after && *retry_after > policy_.max_retry_after) return std::nullopt;
  Duration wait = backoff_.next();
  if (retry_after && *retry_after > wait) wait = *retry_after;
  if (waited_ + wait > policy_.max_total_wait) return std::nullopt;
  waited_ += wait;
  ++retries_;
  return wait;
}

}  // namespace ingot::k8s
