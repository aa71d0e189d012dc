// SPDX-License-Identifier: Apache-2.0
#include "controller/metrics.h"

#include <cmath>
#include <cstdio>

namespace ingot::controller {
namespace {

MetricFamily counterFamily(std::string name, std::string help, double value) {
  return MetricFamily{std::move(name), std::move(help), MetricType::Counter, {Sample{{}, value}}};
}

MetricFamily gaugeFamily(std::string name, std::string help, double value) {
  return MetricFamily{std::move(name), std::move(help), MetricType::Gauge, {Sample{{}, value}}};
}

template <size_t N, typename Enum, typename NameFn>
MetricFamily labelledCounter(std::string name,
                             std::string help,
                             std::string label,
                             const std::array<std::atomic<uint64_t>, N>& values,
                             NameFn name_of) {
  MetricFamily f{std::move(name), std::move(help), MetricType::Counter, {}};
  for (size_t i = 0; i < N; ++i) {
    f.samples.push_back(Sample{{{label, std::string(name_of(static_cast<Enum>(i)))}},
                               static_cast<double>(values[i].load())});
  }
  return f;
}

}  // namespace

std::vector<MetricFamily> groupMetrics(const std::vector<Metric>& metrics) {
  std::vector<MetricFamily> out;
  for (const Metric& m : metrics) {
    if (out.empty() || out.back().name != m.name) {
      out.push_back(MetricFamily{m.name, m.help, MetricType::Gauge, {}});
    }
    out.back().samples.push_back(Sample{m.labels, m.value});
  }
  return out;
}

std::string_view reconcileKindName(ReconcileKind kind) {
  static constexpr std::array<std::string_view, kReconcileKindCount> kNames = {
      "config", "full_pass", "service", "pool_status", "configuration_state"};
  return kNames[static_cast<size_t>(kind)];
}

void Metrics::countRequest(ApiVerb verb, bool failed) {
  requests_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
  if (failed) request_errors_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countRequestError(ApiVerb verb) {
  request_errors_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countReconcile(ReconcileKind kind, bool failed) {
  reconciles_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  if (failed) reconcile_errors_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::setAllocator(std::vector<Metric> metrics) {
  std::lock_guard lock(mu_);
  allocator_ = std::move(metrics);
}

uint64_t Metrics::requests(ApiVerb verb) const {
  return requests_[static_cast<size_t>(verb)].load();
}

uint64_t Metrics::totalRequests() const {
  uint64_t total = 0;
  for (const auto& r : requests_) total += r.load();
  return total;
}

std::vector<MetricFamily> Metrics::families() const {
  std::vector<MetricFamily> out;
  {
    std::lock_guard lock(mu_);
    out = groupMetrics(allocator_);
  }
  out.push_back(counterFamily("metallb_k8s_client_updates_total",
                              "Number of k8s object updates that have been processed.",
                              static_cast<double>(updates_.load())));
  out.push_back(counterFamily("metallb_k8s_client_update_errors_total",
                              "Number of k8s object updates that failed for some reason.",
                              static_cast<double>(update_errors_.load())));
  out.push_back(gaugeFamily("metallb_k8s_client_config_loaded_bool",
                            "1 if the MetalLB configuration was successfully loaded at least once.",
                            config_loaded_.load() ? 1 : 0));
  out.push_back(gaugeFamily(
      "metallb_k8s_client_config_stale_bool",
      "1 if running on a stale configuration, because the latest config failed to load.",
      config_stale_.load() ? 1 : 0));
  out.push_back(labelledCounter<kApiVerbCount, ApiVerb>("ingot_controller_api_requests_total",
                                                        "Kubernetes API requests made, by verb.",
                                                        "verb", requests_, k8s::apiVerbName));
  out.push_back(labelledCounter<kApiVerbCount, ApiVerb>(
      "ingot_controller_api_request_errors_total", "Kubernetes API requests that failed, by verb.",
      "verb", request_errors_, k8s::apiVerbName));
  out.push_back(labelledCounter<kReconcileKindCount, ReconcileKind>(
      "ingot_controller_reconciles_total", "Reconciles run, by kind.", "kind", reconciles_,
      reconcileKindName));
  out.push_back(labelledCounter<kReconcileKindCount, ReconcileKind>(
      "ingot_controller_reconcile_errors_total", "Reconciles that failed, by kind.", "kind",
      reconcile_errors_, reconcileKindName));
  out.push_back(gaugeFamily("ingot_controller_workqueue_depth",
                            "Keys waiting in the work queue or being reconciled.",
                            static_cast<double>(queue_depth_.load())));
  out.push_back(daemon::buildInfoFamily());
  return out;
}

}  // namespace ingot::controller
