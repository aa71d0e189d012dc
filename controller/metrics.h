// SPDX-License-Identifier: Apache-2.0
// The controller's Prometheus metrics: MetalLB's names plus Ingot's own
// request and reconcile counters, rendered in the Prometheus text exposition format 0.0.4.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/daemon/prometheus.h"
#include "controller/core/pool_status.h"
#include "kube/instrumented_client.h"

namespace ingot::controller {

using daemon::MetricFamily;
using daemon::MetricType;
using daemon::renderPrometheus;
using daemon::Sample;
using k8s::ApiVerb;
using k8s::kApiVerbCount;

/// groupMetrics turns core's flat gauge list (grouped by name already) into families.
std::vector<MetricFamily> groupMetrics(const std::vector<Metric>& metrics);

/// ReconcileKind labels the reconcile counters.
enum class ReconcileKind { Config, FullPass, Service, PoolStatus, ConfigurationState };
inline constexpr size_t kReconcileKindCount = 5;

std::string_view reconcileKindName(ReconcileKind kind);

/// Metrics holds every value the endpoint exposes. Counters are lock-free; the allocator
/// snapshot is replaced wholesale by the reconcile worker. Thread-safe.
class Metrics final : public k8s::RequestCounter {
 public:
  // ingot::k8s::RequestCounter
  void countRequest(ApiVerb verb, bool failed) override;
  void countRequestError(ApiVerb verb) override;

  /// countReconcile counts one reconcile and whether it failed (will be retried or reported).
  void countReconcile(ReconcileKind kind, bool failed);

  /// countUpdate / countUpdateError feed metallb_k8s_client_updates_total and
  /// metallb_k8s_client_update_errors_total: one per processed change, and per failed one.
  void countUpdate() { updates_.fetch_add(1, std::memory_order_relaxed); }
  void countUpdateError() { update_errors_.fetch_add(1, std::memory_order_relaxed); }

  void setConfigLoaded(bool loaded) { config_loaded_.store(loaded); }
  void setConfigStale(bool stale) { config_stale_.store(stale); }
  void setQueueDepth(uint64_t depth) { queue_depth_.store(depth); }

  /// setAllocator replaces the allocator gauges (from allocatorMetrics()).
  void setAllocator(std::vector<Metric> metrics);

  /// requests returns the number of API requests of verb so far.
  uint64_t requests(ApiVerb verb) const;
  /// totalRequests returns the number of API requests of every verb.
  uint64_t totalRequests() const;

  /// families returns everything as families, MetalLB's first, in a fixed order.
  std::vector<MetricFamily> families() const;

  /// render is renderPrometheus(families()).
  std::string render() const { return renderPrometheus(families()); }

 private:
  std::array<std::atomic<uint64_t>, kApiVerbCount> requests_{};
  std::array<std::atomic<uint64_t>, kApiVerbCount> request_errors_{};
  std::array<std::atomic<uint64_t>, kReconcileKindCount> reconciles_{};
  std::array<std::atomic<uint64_t>, kReconcileKindCount> reconcile_errors_{};
  std::atomic<uint64_t> updates_{0};
  std::atomic<uint64_t> update_errors_{0};
  std::atomic<bool> config_loaded_{false};
  std::atomic<bool> config_stale_{false};
  std::atomic<uint64_t> queue_depth_{0};
  mutable std::mutex mu_;
  std::vector<Metric> allocator_;
};

}  // namespace ingot::controller
