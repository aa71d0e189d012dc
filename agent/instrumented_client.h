// SPDX-License-Identifier: Apache-2.0
// InstrumentedClient decorates an ApiClient with request counters (ingot_agent_api_requests
// _total{verb}), so operators can see how many requests the agent makes.
#pragma once

#include "agent/metrics.h"
#include "kube/api_client.h"

namespace ingot::agent {

/// InstrumentedClient forwards every call to `inner` and counts it in `metrics`. Both must
/// outlive it. Thread-safe when inner is.
class InstrumentedClient final : public k8s::ApiClient {
 public:
  InstrumentedClient(k8s::ApiClient& inner, Metrics& metrics) : inner_(inner), metrics_(metrics) {}

  // ingot::k8s::ApiClient
  Result<std::string> get(const k8s::ResourceRef& ref,
                          std::string_view ns,
                          std::string_view name) override;
  Result<k8s::ListPage> list(const k8s::ResourceRef& ref,
                             std::string_view ns,
                             const k8s::ListOptions& options) override;
  k8s::WatchOutcome watch(const k8s::ResourceRef& ref,
                          std::string_view ns,
                          const k8s::WatchOptions& options,
                          const k8s::WatchHandler& handler,
                          std::stop_token stop) override;
  Result<std::string> create(const k8s::ResourceRef& ref,
                             std::string_view ns,
                             std::string_view body) override;
  Result<std::string> update(const k8s::ResourceRef& ref,
                             std::string_view ns,
                             std::string_view name,
                             std::string_view body) override;
  Result<std::string> patch(const k8s::ResourceRef& ref,
                            std::string_view ns,
                            std::string_view name,
                            k8s::PatchType type,
                            std::string_view body) override;
  Result<std::string> updateStatus(const k8s::ResourceRef& ref,
                                   std::string_view ns,
                                   std::string_view name,
                                   std::string_view body) override;
  Result<std::string> patchStatus(const k8s::ResourceRef& ref,
                                  std::string_view ns,
                                  std::string_view name,
                                  k8s::PatchType type,
                                  std::string_view body) override;
  Result<void> remove(const k8s::ResourceRef& ref,
                      std::string_view ns,
                      std::string_view name) override;

 private:
  template <typename R>
  R counted(ApiVerb verb, R result) {
    metrics_.countRequest(verb, !result.has_value());
    return result;
  }

  k8s::ApiClient& inner_;
  Metrics& metrics_;
};

}  // namespace ingot::agent
