// SPDX-License-Identifier: Apache-2.0
// Prometheus text exposition format 0.0.4: metric families rendered for a /metrics endpoint.
// Shared by ingot-controller and ingot-agent.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ingot::daemon {

/// MetricType is the TYPE line of a family.
enum class MetricType { Counter, Gauge };

/// Sample is one line of a family: labels and value.
struct Sample {
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
};

/// MetricFamily is one metric name with its HELP, TYPE and samples.
struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::Gauge;
  std::vector<Sample> samples;
};

/// renderPrometheus renders families in order: "# HELP", "# TYPE", then one line per sample.
/// Label values and HELP text are escaped as the format requires (backslash, quote, newline);
/// integral values are written without a fraction, others with 17 significant digits.
std::string renderPrometheus(const std::vector<MetricFamily>& families);

/// buildInfoFamily returns ingot_build_info: a gauge of 1 whose labels `version` and `revision`
/// name this binary's build (the convention of Prometheus' own *_build_info metrics).
MetricFamily buildInfoFamily();

}  // namespace ingot::daemon
