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
#include "kube/daemon_metrics.h"

namespace ingot::agent {

using daemon::MetricFamily;
using k8s::ApiVerb;

/// ReconcileKind labels the reconcile counters ("sync", "bgp", "configuration_state", "layer2").
enum class ReconcileKind { Sync, Bgp, ConfigurationState, Layer2 };

/// AnnouncedIp is one sample of metallb_speaker_announced.
struct AnnouncedIp {
  std::string service;  ///< "ns/name"
  std::string ip;
  friend bool operator==(const AnnouncedIp&, const AnnouncedIp&) = default;
};

/// Metrics holds every value /metrics exposes: metallb_speaker_announced and the families of
/// collectors first, then the shared daemon families (k8s::DaemonMetrics, ingot_agent_...), then
/// the FRR ones. Thread-safe.
class Metrics final : public k8s::DaemonMetrics {
 public:
  explicit Metrics(std::string node);

  /// countReconcile counts one reconcile and whether it failed.
  void countReconcile(ReconcileKind kind, bool failed) {
    countReconcileKind(static_cast<size_t>(kind), failed);
  }
  /// countFrrConfigurationWrite counts one create/update of FRRConfiguration metallb-<node>.
  void countFrrConfigurationWrite(bool failed);
  /// countReload counts one FRR apply in frr mode.
  void countReload(bool failed);
  /// countFrrApply counts one apply or read-back of FRR in frr mode by how it went: "delta",
  /// "full_reload" or "unchanged".
  void countFrrApply(std::string_view path);
  /// countFrrDrift counts one difference found between FRR and the applied configuration.
  void countFrrDrift() { frr_drift_.fetch_add(1, std::memory_order_relaxed); }
  /// setWeight sets ingot_bgp_service_weight of service (ns/name): the link-bandwidth this node
  /// announces for it (docs/weighted-ecmp.md); 0 removes the sample.
  void setWeight(const std::string& service, uint32_t bandwidth);
  /// setAnnounced replaces the metallb_speaker_announced samples of protocol ("bgp", "layer2").
  void setAnnounced(std::vector<AnnouncedIp> announced, const std::string& protocol = "bgp");
  /// setAnnouncedFor replaces the samples of one Service ("ns/name") for protocol; no ips removes
  /// them. The cost is that Service's, not every announced Service's.
  void setAnnouncedFor(const std::string& service,
                       std::vector<std::string> ips,
                       const std::string& protocol = "bgp");

  /// Collector returns families computed when /metrics is read (from another thread).
  using Collector = std::function<std::vector<MetricFamily>()>;
  /// addCollector adds families to every render; the id is for removeCollector.
  int addCollector(Collector collector);
  /// removeCollector stops calling the collector with that id.
  void removeCollector(int id);

  uint64_t frrConfigurationWrites() const { return frr_writes_.load(); }

  std::vector<MetricFamily> families() const override;

 private:
  /// announcedFamilies returns metallb_speaker_announced and the collectors' families.
  std::vector<MetricFamily> announcedFamilies() const;

  std::string node_;
  std::atomic<uint64_t> frr_writes_{0};
  std::atomic<uint64_t> frr_write_errors_{0};
  std::atomic<uint64_t> reloads_ok_{0};
  std::atomic<uint64_t> reloads_failed_{0};
  std::array<std::atomic<uint64_t>, 3> frr_paths_{};  ///< delta, full_reload, unchanged
  std::atomic<uint64_t> frr_drift_{0};
  mutable std::mutex mu_;
  std::map<std::string, uint32_t> weights_;  ///< service → announced link-bandwidth
  /// protocol → service → announced ips
  std::map<std::string, std::map<std::string, std::vector<std::string>>> announced_;
  std::map<int, Collector> collectors_;
  int next_collector_ = 0;
};

}  // namespace ingot::agent
