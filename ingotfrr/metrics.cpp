// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/metrics.h"

namespace ingot::ingotfrr {
namespace {

using daemon::MetricFamily;
using daemon::MetricType;

MetricFamily single(std::string name, std::string help, MetricType type, double value) {
  return MetricFamily{std::move(name), std::move(help), type, {{{}, value}}};
}

constexpr std::array<const char*, 4> kOutcomeNames{"delta", "full_reload", "unchanged", "failed"};

}  // namespace

void Metrics::countRequest(k8s::ApiVerb /*verb*/, bool failed) {
  requests_.fetch_add(1);
  if (failed) {
    request_errors_.fetch_add(1);
  }
}

void Metrics::countRequestError(k8s::ApiVerb /*verb*/) {
  request_errors_.fetch_add(1);
}

void Metrics::countConversion(bool failed) {
  updates_.fetch_add(1);
  if (failed) {
    update_errors_.fetch_add(1);
  }
}

void Metrics::countApply(ApplyOutcome outcome) {
  applies_[static_cast<size_t>(outcome)].fetch_add(1);
}

void Metrics::setCollector(Collector c) {
  std::lock_guard lock(mu_);
  collector_ = std::move(c);
}

std::vector<MetricFamily> Metrics::families() const {
  std::vector<MetricFamily> out{
      single("frrk8s_k8s_client_updates_total", "Number of FRRConfiguration conversions processed.",
             MetricType::Counter, static_cast<double>(updates_.load())),
      single("frrk8s_k8s_client_update_errors_total",
             "Number of FRRConfiguration conversions that failed (conflicts, unsupported fields, "
             "undecodable objects, missing Secrets).",
             MetricType::Counter, static_cast<double>(update_errors_.load())),
      single("frrk8s_k8s_client_config_loaded_bool",
             "1 if a configuration was converted and applied at least once.", MetricType::Gauge,
             loaded_.load() ? 1 : 0),
      single("frrk8s_k8s_client_config_stale_bool",
             "1 if FRR runs an older configuration because the latest one failed to convert or "
             "apply.",
             MetricType::Gauge, stale_.load() ? 1 : 0),
      single("ingot_frr_api_requests_total", "API requests made.", MetricType::Counter,
             static_cast<double>(requests_.load())),
      single("ingot_frr_api_request_errors_total", "API requests that failed.", MetricType::Counter,
             static_cast<double>(request_errors_.load())),
      single("ingot_frr_drift_total",
             "Differences found between FRR's running configuration and the applied one "
             "(corrected).",
             MetricType::Counter, static_cast<double>(drift_.load()))};
  MetricFamily applies{"ingot_frr_applies_total",
                       "Applies and read-backs of FRR by outcome: delta, full_reload, unchanged, "
                       "failed.",
                       MetricType::Counter,
                       {}};
  for (size_t i = 0; i < kOutcomeNames.size(); ++i) {
    applies.samples.push_back({{{"path", kOutcomeNames[i]}}, static_cast<double>(applies_[i])});
  }
  out.push_back(std::move(applies));
  Collector c;
  {
    std::lock_guard lock(mu_);
    c = collector_;
  }
  if (c) {
    for (auto& f : c()) {
      out.push_back(std::move(f));
    }
  }
  out.push_back(daemon::buildInfoFamily());
  return out;
}

}  // namespace ingot::ingotfrr
