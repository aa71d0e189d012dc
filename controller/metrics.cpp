// SPDX-License-Identifier: Apache-2.0
#include "controller/metrics.h"

namespace ingot::controller {

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

Metrics::Metrics()
    : DaemonMetrics("ingot_controller",
                    {"config", "full_pass", "service", "pool_status", "configuration_state"}) {}

void Metrics::setAllocator(std::vector<Metric> metrics) {
  std::lock_guard lock(mu_);
  allocator_ = std::move(metrics);
}

void Metrics::setUnannounced(size_t count) {
  std::lock_guard lock(mu_);
  unannounced_ = count;
}

std::vector<MetricFamily> Metrics::families() const {
  std::vector<MetricFamily> out;
  {
    std::lock_guard lock(mu_);
    out = groupMetrics(allocator_);
    if (unannounced_) {
      out.push_back(MetricFamily{
          "ingot_services_unannounced",
          "Services with an address that no node announces over any protocol, past the grace "
          "period",
          MetricType::Gauge,
          {Sample{{}, static_cast<double>(*unannounced_)}}});
    }
  }
  for (auto& f : commonFamilies()) {
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ingot::controller
