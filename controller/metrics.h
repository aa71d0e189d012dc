// SPDX-License-Identifier: Apache-2.0
// The controller's Prometheus metrics: MetalLB's names plus Ingot's own
// request and reconcile counters, rendered in the Prometheus text exposition format 0.0.4.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/daemon/prometheus.h"
#include "controller/core/pool_status.h"
#include "kube/daemon_metrics.h"

namespace ingot::controller {

using daemon::MetricFamily;
using daemon::MetricType;
using daemon::renderPrometheus;
using daemon::Sample;
using k8s::ApiVerb;

/// groupMetrics turns core's flat gauge list (grouped by name already) into families.
std::vector<MetricFamily> groupMetrics(const std::vector<Metric>& metrics);

/// ReconcileKind labels the reconcile counters ("config", "full_pass", "service", "pool_status",
/// "configuration_state").
enum class ReconcileKind { Config, FullPass, Service, PoolStatus, ConfigurationState };

/// Metrics holds every value the endpoint exposes: the allocator's gauges, then the shared daemon
/// families (k8s::DaemonMetrics, ingot_controller_...). The allocator snapshot is replaced
/// wholesale by the reconcile worker. Thread-safe.
class Metrics final : public k8s::DaemonMetrics {
 public:
  Metrics();

  /// countReconcile counts one reconcile and whether it failed (will be retried or reported).
  void countReconcile(ReconcileKind kind, bool failed) {
    countReconcileKind(static_cast<size_t>(kind), failed);
  }

  /// setAllocator replaces the allocator gauges (from allocatorMetrics()).
  void setAllocator(std::vector<Metric> metrics);

  /// setUnannounced sets ingot_services_unannounced: Services with an address that no node
  /// announces, past the grace period (docs/diagnostics.md). Only exported when enabled.
  void setUnannounced(size_t count);

  std::vector<MetricFamily> families() const override;

 private:
  mutable std::mutex mu_;
  std::vector<Metric> allocator_;
  std::optional<size_t> unannounced_;
};

}  // namespace ingot::controller
