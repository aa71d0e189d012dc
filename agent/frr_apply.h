// SPDX-License-Identifier: Apache-2.0
// FrrApply is the seam between the agent's frr-mode loop and the node's FRR. Production wraps
// frr/: applyModel() keeps FRR on the compact policy shape (frrgen/compact.h) with the
// incremental engine (a structural delta through a persistent vtysh, read back once changes go
// quiet, frr-reload.py only as the fallback); apply() is the older whole-file path (keep the last
// good config, frr-reload.py --test then --reload). Unit tests substitute a fake.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/daemon/prometheus.h"
#include "common/util/result.h"
#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frrgen/model.h"
#include "frrgen/render.h"

namespace ingot::agent {

/// FrrApply converges the node's FRR to a rendered frr.conf or to a merged model.
class FrrApply {
 public:
  virtual ~FrrApply() = default;
  /// apply converges FRR to text; on error FRR keeps (or is put back on) the last good text.
  virtual Result<bgp::ApplyReport> apply(const std::string& text) = 0;

  /// applyModel converges FRR to the merged model in the compact shape, incrementally. On error
  /// the next call (or verify) reloads the whole file; the caller retries with backoff. The
  /// default (for fakes) renders the compact file and hands it to apply().
  virtual Result<bgp::FastApplyReport> applyModel(const frrgen::Model& model,
                                                  const frrgen::RenderOptions& render);

  /// verify reads FRR's state back and corrects drift (report.drift says what differed). Call it
  /// periodically in frr mode. The default does nothing.
  virtual Result<bgp::FastApplyReport> verify() { return bgp::FastApplyReport{}; }

  /// SessionCollector returns the BGP and BFD session families (bgp/session_metrics.h) when
  /// /metrics is read, from another thread; it must stay valid after the FrrApply is gone.
  using SessionCollector = std::function<std::vector<daemon::MetricFamily>()>;
  /// sessionCollector returns the collector, or an empty function (fakes: no session metrics).
  virtual SessionCollector sessionCollector() { return {}; }
};

/// makeFrrApply returns the production implementation over frr/ with options (the vtysh
/// session uses options.vtysh, options.pathspace and options.workdir).
std::unique_ptr<FrrApply> makeFrrApply(bgp::FrrDriverOptions options);

}  // namespace ingot::agent
