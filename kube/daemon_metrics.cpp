// SPDX-License-Identifier: Apache-2.0
#include "kube/daemon_metrics.h"

#include <utility>

namespace ingot::k8s {

using daemon::MetricFamily;
using daemon::MetricType;
using daemon::Sample;

DaemonMetrics::DaemonMetrics(std::string prefix, std::vector<std::string_view> reconcile_kinds)
    : prefix_(std::move(prefix)),
      reconcile_kinds_(std::move(reconcile_kinds)),
      reconciles_(reconcile_kinds_.size()),
      reconcile_errors_(reconcile_kinds_.size()) {
  for (size_t i = 0; i < kApiVerbCount; ++i) {
    verbs_[i] = apiVerbName(static_cast<ApiVerb>(i));
  }
  for (size_t i = 0; i < kRetryReasonCount; ++i) {
    retry_reasons_[i] = retryReasonName(static_cast<RetryReason>(i));
  }
}

void DaemonMetrics::countRetry(RetryReason reason) {
  retries_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
}

void DaemonMetrics::countRequest(ApiVerb verb, bool failed) {
  requests_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
  if (failed) {
    countRequestError(verb);
  }
}

void DaemonMetrics::countRequestError(ApiVerb verb) {
  request_errors_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
}

void DaemonMetrics::countReconcileKind(size_t kind, bool failed) {
  reconciles_[kind].fetch_add(1, std::memory_order_relaxed);
  if (failed) {
    reconcile_errors_[kind].fetch_add(1, std::memory_order_relaxed);
  }
}

uint64_t DaemonMetrics::totalRequests() const {
  uint64_t total = 0;
  for (const auto& r : requests_) {
    total += r.load();
  }
  return total;
}

MetricFamily DaemonMetrics::single(std::string name,
                                   std::string help,
                                   MetricType type,
                                   double value) {
  return MetricFamily{std::move(name), std::move(help), type, {Sample{{}, value}}};
}

MetricFamily DaemonMetrics::labelled(std::string name,
                                     std::string help,
                                     const std::string& label,
                                     std::span<const std::string_view> names,
                                     std::span<const std::atomic<uint64_t>> values) {
  MetricFamily f{std::move(name), std::move(help), MetricType::Counter, {}};
  for (size_t i = 0; i < values.size(); ++i) {
    f.samples.push_back(
        Sample{{{label, std::string(names[i])}}, static_cast<double>(values[i].load())});
  }
  return f;
}

std::vector<MetricFamily> DaemonMetrics::commonFamilies() const {
  std::vector<MetricFamily> out;
  out.push_back(single("metallb_k8s_client_updates_total",
                       "Number of k8s object updates that have been processed.",
                       MetricType::Counter, static_cast<double>(updates_.load())));
  out.push_back(single("metallb_k8s_client_update_errors_total",
                       "Number of k8s object updates that failed for some reason.",
                       MetricType::Counter, static_cast<double>(update_errors_.load())));
  out.push_back(single("metallb_k8s_client_config_loaded_bool",
                       "1 if the MetalLB configuration was successfully loaded at least once.",
                       MetricType::Gauge, config_loaded_.load() ? 1 : 0));
  out.push_back(
      single("metallb_k8s_client_config_stale_bool",
             "1 if running on a stale configuration, because the latest config failed to load.",
             MetricType::Gauge, config_stale_.load() ? 1 : 0));
  out.push_back(labelled(prefixed("api_requests_total"), "Kubernetes API requests made, by verb.",
                         "verb", verbs_, requests_));
  out.push_back(labelled(prefixed("api_request_errors_total"),
                         "Kubernetes API requests that failed, by verb.", "verb", verbs_,
                         request_errors_));
  out.push_back(labelled(prefixed("api_retries_total"),
                         "Kubernetes API requests the client sent again by itself (429 "
                         "Too Many Requests, or 5xx on a read), by reason.",
                         "reason", retry_reasons_, retries_));
  out.push_back(labelled(prefixed("reconciles_total"), "Reconciles run, by kind.", "kind",
                         reconcile_kinds_, reconciles_));
  out.push_back(labelled(prefixed("reconcile_errors_total"), "Reconciles that failed, by kind.",
                         "kind", reconcile_kinds_, reconcile_errors_));
  out.push_back(single(prefixed("workqueue_depth"),
                       "Keys waiting in the work queue or being reconciled.", MetricType::Gauge,
                       static_cast<double>(queue_depth_.load())));
  out.push_back(daemon::buildInfoFamily());
  return out;
}

}  // namespace ingot::k8s
