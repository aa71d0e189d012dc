// SPDX-License-Identifier: Apache-2.0
// The production ApiClient, on cpprestsdk. Only rest_client.cpp includes cpprest headers (they
// cost ~8 s per translation unit); this header does not.
#pragma once

#include <functional>
#include <string>

#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/client_config.h"
#include "kube/clock.h"
#include "kube/rate_limiter.h"
#include "kube/retry.h"
#include "kube/watch_decoder.h"

namespace ingot::k8s {

/// RestOptions tune the REST client. QPS/burst default to controller-runtime's (20/30).
struct RestOptions {
  Duration request_timeout = std::chrono::seconds(30);  ///< inactivity limit of one request
  /// watch_idle_timeout closes a watch stream that delivered nothing for this long; it must exceed
  /// the watch's timeoutSeconds, after which the server closes the stream itself.
  Duration watch_idle_timeout = std::chrono::minutes(15);
  double qps = 20;  ///< client-side limit on requests per second; <= 0 disables it
  int burst = 30;
  std::string user_agent = "ingot";
  Duration token_refresh = std::chrono::minutes(1);  ///< re-read period of a token file
  size_t max_watch_event_bytes = WatchDecoder::kDefaultMaxEventBytes;
  /// io_threads sizes cpprestsdk's I/O thread pool, shared by every client of the process; the
  /// first client created decides. The pool only completes socket operations.
  int io_threads = 2;
  Clock* clock = nullptr;    ///< for the rate limiter and token refresh; nullptr = steadyClock()
  RateLimiter::Sleep sleep;  ///< for the rate limiter; empty = real sleep
  /// retry bounds the client's own retries of 429s (every verb) and of 5xx on reads
  /// (kube/retry.h); retry.max_retries = 0 turns them off.
  RetryPolicy retry;
  RateLimiter::Sleep retry_sleep;  ///< waits between retries; empty = real sleep
  Backoff::Random retry_random;    ///< jitter source; empty = defaultRandom()
  /// on_retry is called once per retry, before its wait (the daemons count it); optional,
  /// called from the calling thread, must be thread-safe.
  std::function<void(RetryReason)> on_retry;
};

/// makeRestClient builds a client for config. TLS verification is on unless the config says
/// insecure_skip_tls_verify; with a CA (file or data) only that CA is trusted, otherwise the
/// system roots. CA, client certificate and key are read and checked here, so a bad file fails
/// now with an error naming it rather than on the first request. The bearer token is sent on
/// every request, re-read from token_file when it rotates (and at once after a 401), and never
/// logged or put into an error message. The client is thread-safe and must outlive every call in
/// progress (stop informers and recorders before destroying it).
Result<ApiClientPtr> makeRestClient(const ClientConfig& config, const RestOptions& options = {});

}  // namespace ingot::k8s
