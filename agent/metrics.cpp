// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics.h"

namespace ingot::agent {
namespace {

using daemon::MetricType;
using daemon::Sample;

MetricFamily single(std::string name, std::string help, MetricType type, double value) {
  return MetricFamily{std::move(name), std::move(help), type, {Sample{{}, value}}};
}

template <size_t N, typename Enum, typename NameFn>
MetricFamily labelled(std::string name,
                      std::string help,
                      const std::string& label,
                      const std::array<std::atomic<uint64_t>, N>& values,
                      NameFn name_of) {
  MetricFamily f{std::move(name), std::move(help), MetricType::Counter, {}};
  for (size_t i = 0; i < N; ++i) {
    f.samples.push_back(Sample{{{label, std::string(name_of(static_cast<Enum>(i)))}},
                               static_cast<double>(values[i].load())});
  }
  return f;
}

MetricFamily byResult(std::string name, std::string help, uint64_t ok, uint64_t failed) {
  return MetricFamily{std::move(name),
                      std::move(help),
                      MetricType::Counter,
                      {Sample{{{"result", "success"}}, static_cast<double>(ok)},
                       Sample{{{"result", "failure"}}, static_cast<double>(failed)}}};
}

constexpr std::array<std::string_view, 3> kFrrPaths = {"delta", "full_reload", "unchanged"};

std::string_view frrPathName(size_t i) {
  return kFrrPaths[i];
}

}  // namespace

std::string_view reconcileKindName(ReconcileKind kind) {
  static constexpr std::array<std::string_view, kReconcileKindCount> kNames = {
      "sync", "bgp", "configuration_state", "layer2"};
  return kNames[static_cast<size_t>(kind)];
}

void Metrics::countRequest(ApiVerb verb, bool failed) {
  requests_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
  if (failed) countRequestError(verb);
}

void Metrics::countRequestError(ApiVerb verb) {
  request_errors_[static_cast<size_t>(verb)].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countReconcile(ReconcileKind kind, bool failed) {
  reconciles_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  if (failed) reconcile_errors_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countFrrConfigurationWrite(bool failed) {
  (failed ? frr_write_errors_ : frr_writes_).fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countReload(bool failed) {
  (failed ? reloads_failed_ : reloads_ok_).fetch_add(1, std::memory_order_relaxed);
}

void Metrics::countFrrApply(std::string_view path) {
  for (size_t i = 0; i < kFrrPaths.size(); ++i) {
    if (kFrrPaths[i] == path) {
      frr_paths_[i].fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void Metrics::setAnnounced(std::vector<AnnouncedIp> announced, const std::string& protocol) {
  std::lock_guard lock(mu_);
  announced_[protocol] = std::move(announced);
}

int Metrics::addCollector(Collector collector) {
  std::lock_guard lock(mu_);
  collectors_.emplace(next_collector_, std::move(collector));
  return next_collector_++;
}

void Metrics::removeCollector(int id) {
  std::lock_guard lock(mu_);
  collectors_.erase(id);
}

std::vector<MetricFamily> Metrics::families() const {
  std::vector<MetricFamily> out;
  MetricFamily announced{"metallb_speaker_announced",
                         "Services being announced from this node. This is desired state, it does "
                         "not guarantee that the routing protocols have converged.",
                         MetricType::Gauge,
                         {}};
  std::vector<Collector> collectors;
  {
    std::lock_guard lock(mu_);
    for (const auto& [protocol, samples] : announced_) {
      for (const auto& a : samples) {
        announced.samples.push_back(Sample{
            {{"ip", a.ip}, {"node", node_}, {"protocol", protocol}, {"service", a.service}}, 1});
      }
    }
    for (const auto& [id, c] : collectors_) {
      collectors.push_back(c);
    }
  }
  out.push_back(std::move(announced));
  for (const auto& c : collectors) {
    for (auto& f : c()) {
      out.push_back(std::move(f));
    }
  }
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
  out.push_back(labelled<kApiVerbCount, ApiVerb>("ingot_agent_api_requests_total",
                                                 "Kubernetes API requests made, by verb.", "verb",
                                                 requests_, k8s::apiVerbName));
  out.push_back(labelled<kApiVerbCount, ApiVerb>("ingot_agent_api_request_errors_total",
                                                 "Kubernetes API requests that failed, by verb.",
                                                 "verb", request_errors_, k8s::apiVerbName));
  out.push_back(labelled<kReconcileKindCount, ReconcileKind>("ingot_agent_reconciles_total",
                                                             "Reconciles run, by kind.", "kind",
                                                             reconciles_, reconcileKindName));
  out.push_back(labelled<kReconcileKindCount, ReconcileKind>(
      "ingot_agent_reconcile_errors_total", "Reconciles that failed, by kind.", "kind",
      reconcile_errors_, reconcileKindName));
  out.push_back(single("ingot_agent_frrconfiguration_writes_total",
                       "Creates and updates of this node's FRRConfiguration that succeeded.",
                       MetricType::Counter, static_cast<double>(frr_writes_.load())));
  out.push_back(single("ingot_agent_frrconfiguration_write_errors_total",
                       "Creates and updates of this node's FRRConfiguration that failed.",
                       MetricType::Counter, static_cast<double>(frr_write_errors_.load())));
  out.push_back(byResult("ingot_agent_frr_reloads_total",
                         "Applies of a rendered frr.conf to the node's FRR (frr mode), by result.",
                         reloads_ok_.load(), reloads_failed_.load()));
  out.push_back(labelled<kFrrPaths.size(), size_t>(
      "ingot_agent_frr_applies_total",
      "Applies and read-backs of the node's FRR (frr mode) that succeeded, by path: delta "
      "(through vtysh), full_reload (frr-reload.py) or unchanged.",
      "path", frr_paths_, frrPathName));
  out.push_back(single("ingot_agent_frr_drift_total",
                       "Differences found between FRR's running configuration and the applied "
                       "one (frr mode); each was corrected by a full reload.",
                       MetricType::Counter, static_cast<double>(frr_drift_.load())));
  out.push_back(single("ingot_agent_workqueue_depth",
                       "Keys waiting in the work queue or being reconciled.", MetricType::Gauge,
                       static_cast<double>(queue_depth_.load())));
  out.push_back(daemon::buildInfoFamily());
  return out;
}

}  // namespace ingot::agent
