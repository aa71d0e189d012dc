// SPDX-License-Identifier: Apache-2.0
// ingot-frr's Prometheus metrics: frr-k8s' controller names (frrk8s_k8s_client_updates_total,
// _update_errors_total, _config_loaded_bool, _config_stale_bool), Ingot's apply counters, and the
// BGP/BFD session families a collector (frr/session_metrics.h) adds when /metrics is read.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/daemon/prometheus.h"
#include "kube/instrumented_client.h"

namespace ingot::ingotfrr {

/// ApplyOutcome labels ingot_frr_applies_total{path}.
enum class ApplyOutcome { Delta, FullReload, Unchanged, Failed };

/// Metrics holds every value /metrics exposes. Thread-safe.
class Metrics final : public k8s::RequestCounter {
 public:
  // ingot::k8s::RequestCounter
  void countRequest(k8s::ApiVerb verb, bool failed) override;
  void countRequestError(k8s::ApiVerb verb) override;

  /// countConversion counts one conversion of the FRRConfigurations (frr-k8s' updates_total and,
  /// when it failed, update_errors_total; config_stale follows the last result).
  void countConversion(bool failed);
  /// countApply counts one apply or read-back of FRR by its outcome.
  void countApply(ApplyOutcome outcome);
  void countDrift() { drift_.fetch_add(1); }
  void setLoaded() { loaded_.store(true); }
  void setStale(bool stale) { stale_.store(stale); }

  /// Collector returns families computed when /metrics is read.
  using Collector = std::function<std::vector<daemon::MetricFamily>()>;
  /// setCollector sets the collector (at most one; before serving).
  void setCollector(Collector c);

  uint64_t conversionFailures() const { return update_errors_.load(); }

  std::vector<daemon::MetricFamily> families() const;
  std::string render() const { return daemon::renderPrometheus(families()); }

 private:
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> request_errors_{0};
  std::atomic<uint64_t> updates_{0};
  std::atomic<uint64_t> update_errors_{0};
  std::atomic<bool> loaded_{false};
  std::atomic<bool> stale_{false};
  std::array<std::atomic<uint64_t>, 4> applies_{};
  std::atomic<uint64_t> drift_{0};
  mutable std::mutex mu_;
  Collector collector_;
};

}  // namespace ingot::ingotfrr
