// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/metrics.h"

namespace ingot::agent {
namespace {

using daemon::MetricType;
using daemon::Sample;

MetricFamily byResult(std::string name, std::string help, uint64_t ok, uint64_t failed) {
  return MetricFamily{std::move(name),
                      std::move(help),
                      MetricType::Counter,
                      {Sample{{{"result", "success"}}, static_cast<double>(ok)},
                       Sample{{{"result", "failure"}}, static_cast<double>(failed)}}};
}

constexpr std::array<std::string_view, 3> kFrrPaths = {"delta", "full_reload", "unchanged"};

}  // namespace

Metrics::Metrics(std::string node)
    : DaemonMetrics("ingot_agent", {"sync", "bgp", "configuration_state", "layer2"}),
      node_(std::move(node)) {}

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
  std::map<std::string, std::vector<std::string>> by_service;
  for (auto& a : announced) {
    by_service[a.service].push_back(std::move(a.ip));
  }
  std::lock_guard lock(mu_);
  announced_[protocol] = std::move(by_service);
}

void Metrics::setAnnouncedFor(const std::string& service,
                              std::vector<std::string> ips,
                              const std::string& protocol) {
  std::lock_guard lock(mu_);
  auto& by_service = announced_[protocol];
  if (ips.empty()) {
    by_service.erase(service);
  } else {
    by_service.insert_or_assign(service, std::move(ips));
  }
}

void Metrics::setWeight(const std::string& service, uint32_t bandwidth) {
  std::lock_guard lock(mu_);
  if (bandwidth == 0) {
    weights_.erase(service);
  } else {
    weights_.insert_or_assign(service, bandwidth);
  }
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

std::vector<MetricFamily> Metrics::announcedFamilies() const {
  std::vector<MetricFamily> out;
  MetricFamily announced{"metallb_speaker_announced",
                         "Services being announced from this node. This is desired state, it does "
                         "not guarantee that the routing protocols have converged.",
                         MetricType::Gauge,
                         {}};
  MetricFamily weight{"ingot_bgp_service_weight",
                      "The BGP link-bandwidth value this node announces for a Service with "
                      "endpoint-weighted ECMP: its ready local endpoints.",
                      MetricType::Gauge,
                      {}};
  std::vector<Collector> collectors;
  {
    std::lock_guard lock(mu_);
    for (const auto& [protocol, by_service] : announced_) {
      for (const auto& [service, ips] : by_service) {
        for (const auto& ip : ips) {
          announced.samples.push_back(Sample{
              {{"ip", ip}, {"node", node_}, {"protocol", protocol}, {"service", service}}, 1});
        }
      }
    }
    for (const auto& [id, c] : collectors_) {
      collectors.push_back(c);
    }
    for (const auto& [service, bandwidth] : weights_) {
      weight.samples.push_back(
          Sample{{{"node", node_}, {"service", service}}, static_cast<double>(bandwidth)});
    }
  }
  out.push_back(std::move(announced));
  out.push_back(std::move(weight));
  for (const auto& c : collectors) {
    for (auto& f : c()) {
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<MetricFamily> Metrics::families() const {
  std::vector<MetricFamily> out = announcedFamilies();
  for (auto& f : commonFamilies()) {
    out.push_back(std::move(f));
  }
  out.push_back(single("ingot_agent_frrconfiguration_writes_total",
                       "Creates and updates of this node's FRRConfiguration that succeeded.",
                       MetricType::Counter, static_cast<double>(frr_writes_.load())));
  out.push_back(single("ingot_agent_frrconfiguration_write_errors_total",
                       "Creates and updates of this node's FRRConfiguration that failed.",
                       MetricType::Counter, static_cast<double>(frr_write_errors_.load())));
  out.push_back(byResult("ingot_agent_frr_reloads_total",
                         "Applies of a rendered frr.conf to the node's FRR (frr mode), by result.",
                         reloads_ok_.load(), reloads_failed_.load()));
  out.push_back(labelled("ingot_agent_frr_applies_total",
                         "Applies and read-backs of the node's FRR (frr mode) that succeeded, by "
                         "path: delta (through vtysh), full_reload (frr-reload.py) or unchanged.",
                         "path", kFrrPaths, frr_paths_));
  out.push_back(single("ingot_agent_frr_drift_total",
                       "Differences found between FRR's running configuration and the applied "
                       "one (frr mode); each was corrected by a full reload.",
                       MetricType::Counter, static_cast<double>(frr_drift_.load())));
  return out;
}

}  // namespace ingot::agent
