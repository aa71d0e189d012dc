// SPDX-License-Identifier: Apache-2.0
// The agent's Prometheus metrics: MetalLB speaker names (metallb_speaker_announced, the
// metallb_k8s_client_* family) plus Ingot's request, reconcile, FRRConfiguration-write and FRR
// reload counters, rendered in the Prometheus text exposition format 0.0.4.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/daemon/prometheus.h"
#include "kube/instrumented_client.h"

namespace ingot::agent {

using daemon::MetricFamily;
using k8s::ApiVerb;
using k8s::kApiVerbCount;

/// ReconcileKind labels the reconcile counters.
enum class ReconcileKind { Sync, Bgp, ConfigurationState, Layer2 };
inline constexpr size_t kReconcileKindCount = 4;

/// reconcileKindName returns "sync", "bgp", "configuration_state" or "layer2".
std::string_view reconcileKindName(ReconcileKind kind);

/// AnnouncedIp is one sample of metallb_speaker_announced.
struct AnnouncedIp {
  std::string service;  ///< "ns/name"
  std::string ip;
  friend bool operator==(const AnnouncedIp&, const AnnouncedIp&) = default;
};

/// Metrics holds every value /metrics exposes. Thread-safe.
class Metrics final : public k8s::RequestCounter {
 public:
  explicit Metrics(std::string node) : node_(std::move(node)) {}

  // ingot::k8s::RequestCounter
  void countRequest(ApiVerb verb, bool failed) override;
  void countRequestError(ApiVerb verb) override;
  void countReconcile(ReconcileKind kind, bool failed);
  void countUpdate() { updates_.fetch_add(1, std::memory_order_relaxed); }
  void countUpdateError() { update_errors_.fetch_add(1, std::memory_order_relaxed); }
  void setConfigLoaded(bool loaded) { config_loaded_.store(loaded); }
  void setConfigStale(bool stale) { config_stale_.store(stale); }
  void setQueueDepth(uint64_t depth) { queue_depth_.store(depth); }
  /// countFrrConfigurationWrite counts one create/update of FRRConfiguration metallb-<node>.
  void countFrrConfigurationWrite(bool failed);
  /// countReload counts one FRR apply in frr mode.
  void countReload(bool failed);
  /// setAnnounced replaces the metallb_speaker_announced samples of protocol ("bgp", "layer2").
  void setAnnounced(std::vector<AnnouncedIp> announced, const std::string& protocol = "bgp");

  /// Collector returns families computed when /metrics is read (from another thread).
  using Collector = std::function<std::vector<MetricFamily>()>;
  /// addCollector adds families to every render; the id is for removeCollector.
  int addCollector(Collector collector);
  /// removeCollector stops calling the collector with that id.
  void removeCollector(int id);

  uint64_t frrConfigurationWrites() const { return frr_writes_.load(); }
  uint64_t requests(ApiVerb verb) const { return requests_[static_cast<size_t>(verb)].load(); }

  /// families returns everything as families, MetalLB's first, in a fixed order.
  std::vector<MetricFamily> families() const;

  /// render is renderPrometheus(families()).
  std::string render() const { return daemon::renderPrometheus(families()); }

 private:
  std::string node_;
  std::array<std::atomic<uint64_t>, kApiVerbCount> requests_{};
  std::array<std::atomic<uint64_t>, kApiVerbCount> request_errors_{};
  std::array<std::atomic<uint64_t>, kReconcileKindCount> reconciles_{};
  std::array<std::atomic<uint64_t>, kReconcileKindCount> reconcile_errors_{};
  std::atomic<uint64_t> updates_{0};
  std::atomic<uint64_t> update_errors_{0};
  std::atomic<bool> config_loaded_{false};
  std::atomic<bool> config_stale_{false};
  std::atomic<uint64_t> queue_depth_{0};
  std::atomic<uint64_t> frr_writes_{0};
  std::atomic<uint64_t> frr_write_errors_{0};
  std::atomic<uint64_t> reloads_ok_{0};
  std::atomic<uint64_t> reloads_failed_{0};
  mutable std::mutex mu_;
  std::map<std::string, std::vector<AnnouncedIp>> announced_;  ///< by protocol
  std::map<int, Collector> collectors_;
  int next_collector_ = 0;
};

}  // namespace ingot::agent
