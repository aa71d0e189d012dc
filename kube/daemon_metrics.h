// SPDX-License-Identifier: Apache-2.0
// The metrics both daemons expose: MetalLB's metallb_k8s_client_* family and Ingot's API-request,
// reconcile and work-queue counters, named <prefix>_... (ingot_controller_..., ingot_agent_...).
// Each daemon's Metrics derives from DaemonMetrics and adds its own families around these.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/daemon/prometheus.h"
#include "kube/instrumented_client.h"

namespace ingot::k8s {

/// DaemonMetrics counts API requests (as the RequestCounter of the daemon's clients), reconciles
/// by kind, processed updates, the configuration's state and the work-queue depth. Counters are
/// lock-free. Thread-safe.
class DaemonMetrics : public RequestCounter {
 public:
  /// prefix names Ingot's families ("ingot_agent"); reconcile_kinds are the `kind` label values,
  /// indexed by the daemon's ReconcileKind.
  DaemonMetrics(std::string prefix, std::vector<std::string_view> reconcile_kinds);

  // ingot::k8s::RequestCounter
  void countRequest(ApiVerb verb, bool failed) override;
  void countRequestError(ApiVerb verb) override;
  void countRetry(RetryReason reason) override;

  /// countUpdate / countUpdateError feed metallb_k8s_client_updates_total and
  /// metallb_k8s_client_update_errors_total: one per processed change, and per failed one.
  void countUpdate() { updates_.fetch_add(1, std::memory_order_relaxed); }
  void countUpdateError() { update_errors_.fetch_add(1, std::memory_order_relaxed); }

  void setConfigLoaded(bool loaded) { config_loaded_.store(loaded); }
  void setConfigStale(bool stale) { config_stale_.store(stale); }
  void setQueueDepth(uint64_t depth) { queue_depth_.store(depth); }

  /// requests returns the number of API requests of verb so far.
  uint64_t requests(ApiVerb verb) const { return requests_[static_cast<size_t>(verb)].load(); }
  /// retries returns how many times the REST clients retried a request for reason.
  uint64_t retries(RetryReason reason) const {
    return retries_[static_cast<size_t>(reason)].load();
  }
  /// totalRequests returns the number of API requests of every verb.
  uint64_t totalRequests() const;

  /// families returns everything the daemon exposes, in a fixed order.
  virtual std::vector<daemon::MetricFamily> families() const = 0;

  /// render is renderPrometheus(families()).
  std::string render() const { return daemon::renderPrometheus(families()); }

 protected:
  /// countReconcileKind counts one reconcile of kind (an index into reconcile_kinds).
  void countReconcileKind(size_t kind, bool failed);

  /// commonFamilies returns MetalLB's metallb_k8s_client_* families, then Ingot's request,
  /// reconcile and work-queue families.
  std::vector<daemon::MetricFamily> commonFamilies() const;

  /// prefixed returns "<prefix>_<name>".
  std::string prefixed(std::string_view name) const { return prefix_ + "_" + std::string(name); }

  /// single returns a family of one unlabelled sample.
  static daemon::MetricFamily single(std::string name,
                                     std::string help,
                                     daemon::MetricType type,
                                     double value);

  /// labelled returns a counter family with one sample per value, labelled label=names[i].
  static daemon::MetricFamily labelled(std::string name,
                                       std::string help,
                                       const std::string& label,
                                       std::span<const std::string_view> names,
                                       std::span<const std::atomic<uint64_t>> values);

 private:
  std::string prefix_;
  std::vector<std::string_view> reconcile_kinds_;
  std::array<std::string_view, kApiVerbCount> verbs_{};
  std::array<std::atomic<uint64_t>, kApiVerbCount> requests_{};
  std::array<std::atomic<uint64_t>, kApiVerbCount> request_errors_{};
  std::array<std::string_view, kRetryReasonCount> retry_reasons_{};
  std::array<std::atomic<uint64_t>, kRetryReasonCount> retries_{};
  std::vector<std::atomic<uint64_t>> reconciles_;
  std::vector<std::atomic<uint64_t>> reconcile_errors_;
  std::atomic<uint64_t> updates_{0};
  std::atomic<uint64_t> update_errors_{0};
  std::atomic<bool> config_loaded_{false};
  std::atomic<bool> config_stale_{false};
  std::atomic<uint64_t> queue_depth_{0};
};

}  // namespace ingot::k8s
