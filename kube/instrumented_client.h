// SPDX-License-Identifier: Apache-2.0
// InstrumentedClient decorates an ApiClient with request counters, so the benchmark and
// operators can see how many requests a daemon makes (ingot_controller_api_requests_total{verb},
// ingot_agent_api_requests_total{verb}). The daemon's metrics implement RequestCounter.
#pragma once

#include <cstddef>
#include <string_view>

#include "kube/api_client.h"
#include "kube/retry.h"

namespace ingot::k8s {

/// ApiVerb is the kind of a Kubernetes API request, for the request counters.
enum class ApiVerb {
  Get,
  List,
  Watch,
  Create,
  Update,
  Patch,
  UpdateStatus,
  PatchStatus,
  Delete,
};
inline constexpr size_t kApiVerbCount = 9;

/// apiVerbName returns the label value: "get", "list", ..., "patch_status", "delete".
std::string_view apiVerbName(ApiVerb verb);

/// RequestCounter receives one count per API request. Implementations must be thread-safe when
/// the client they count is used from several threads.
class RequestCounter {
 public:
  virtual ~RequestCounter() = default;
  /// countRequest counts one API request and whether it failed.
  virtual void countRequest(ApiVerb verb, bool failed) = 0;
  /// countRequestError counts a failure of a request counted earlier (a watch that ended badly).
  virtual void countRequestError(ApiVerb verb) = 0;
  /// countRetry counts one retry the REST client made by itself (RestOptions::on_retry); the
  /// request is counted once, however often it was retried. Default: not counted.
  virtual void countRetry(RetryReason /*reason*/) {}
};

/// InstrumentedClient forwards every call to `inner` and counts it in `counter`: once when the
/// call returns, failed when its Result holds an error. A watch is counted when it starts and
/// once more as an error when it ends WatchEnd::Failed. Both must outlive it. Thread-safe when
/// inner and counter are.
class InstrumentedClient final : public ApiClient {
 public:
  InstrumentedClient(ApiClient& inner, RequestCounter& counter)
      : inner_(inner), counter_(counter) {}

  // ingot::k8s::ApiClient
  Result<std::string> get(const ResourceRef& ref,
                          std::string_view ns,
                          std::string_view name) override;
  Result<ListPage> list(const ResourceRef& ref,
                        std::string_view ns,
                        const ListOptions& options) override;
  WatchOutcome watch(const ResourceRef& ref,
                     std::string_view ns,
                     const WatchOptions& options,
                     const WatchHandler& handler,
                     std::stop_token stop) override;
  Result<std::string> create(const ResourceRef& ref,
                             std::string_view ns,
                             std::string_view body) override;
  Result<std::string> update(const ResourceRef& ref,
                             std::string_view ns,
                             std::string_view name,
                             std::string_view body) override;
  Result<std::string> patch(const ResourceRef& ref,
                            std::string_view ns,
                            std::string_view name,
                            PatchType type,
                            std::string_view body) override;
  Result<std::string> updateStatus(const ResourceRef& ref,
                                   std::string_view ns,
                                   std::string_view name,
                                   std::string_view body) override;
  Result<std::string> patchStatus(const ResourceRef& ref,
                                  std::string_view ns,
                                  std::string_view name,
                                  PatchType type,
                                  std::string_view body) override;
  Result<void> remove(const ResourceRef& ref, std::string_view ns, std::string_view name) override;

 private:
  template <typename R>
  R counted(ApiVerb verb, R result) {
    counter_.countRequest(verb, !result.has_value());
    return result;
  }

  ApiClient& inner_;
  RequestCounter& counter_;
};

}  // namespace ingot::k8s
