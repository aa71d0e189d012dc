// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/prometheus.h"

#include <cmath>
#include <cstdio>

#include "common/util/quote.h"
#include "common/version/version.h"

namespace ingot::daemon {
namespace {

std::string escapeHelp(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[40];
  if (std::fabs(v) < 9.007199254740992e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  return buf;
}

}  // namespace

std::string renderPrometheus(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& f : families) {
    out += "# HELP " + f.name + " " + escapeHelp(f.help) + "\n";
    out += "# TYPE " + f.name + (f.type == MetricType::Counter ? " counter\n" : " gauge\n");
    for (const Sample& s : f.samples) {
      out += f.name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          out += (i == 0 ? "" : ",") + s.labels[i].first + "=\"" +
                 prometheusLabelValue(s.labels[i].second) + "\"";
        }
        out += '}';
      }
      out += " " + formatValue(s.value) + "\n";
    }
  }
  return out;
}

MetricFamily buildInfoFamily() {
  const version::BuildInfo info = version::buildInfo();
  return {
      "ingot_build_info",
      "Always 1; the labels name the version and git revision this binary was built from.",
      MetricType::Gauge,
      {{{{"version", std::string(info.version)}, {"revision", std::string(info.revision)}}, 1}}};
}

}  // namespace ingot::daemon
