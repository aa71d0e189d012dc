// SPDX-License-Identifier: Apache-2.0
// FrrPort is what a daemon needs of the node's FRR: the one seam between FrrEngine (engine.h) and
// FRR, for the agent's frr mode and ingot-frr alike. The production port (makeFrrPort) composes
// this library's parts: the incremental applier for the compact policy shape (a structural delta
// through a persistent vtysh, frr-reload.py as its fallback), the whole-file frr-reload.py loop,
// frr-k8s' way of applying a file with spec.raw, and the session metrics' own vtysh. Tests
// substitute a fake.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/daemon/prometheus.h"
#include "common/util/result.h"
#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frr/session_metrics.h"
#include "frrgen/compact.h"
#include "frrgen/model.h"
#include "frrgen/render.h"

namespace ingot::frr {

/// FrrPort converges FRR and reads it back. Not thread-safe, except the session collector.
class FrrPort {
 public:
  virtual ~FrrPort() = default;

  /// apply converges FRR to model in the compact shape, incrementally (IncrementalApplier::apply);
  /// render shapes the file of a full reload. On error the next apply (or verify) reloads the
  /// whole file. The default (for fakes) renders the compact file and hands it to reload().
  virtual Result<FastApplyReport> apply(const frrgen::CompactModel& model,
                                        const frrgen::RenderOptions& render);

  /// reload converges FRR to a whole file with frr-reload.py (FrrApplier: --test first, the last
  /// good file put back on error): the agent's --frr-apply reload.
  virtual Result<ApplyReport> reload(const std::string& text) = 0;

  /// applyFile converges FRR to the whole rendered file of model (frrgen::render: frr-k8s' entry
  /// numbering, the raw snippets appended last) as frr-k8s applies a configuration with spec.raw:
  /// its lines first go through vtysh (so that leaving the compact shape re-points each `network`
  /// in place instead of withdrawing it), then frr-reload.py. The incremental state is dropped, so
  /// the next apply() is a full reload. The default (for fakes) hands the file to reload().
  virtual Result<FastApplyReport> applyFile(const frrgen::Model& model,
                                            const frrgen::RenderOptions& render);

  /// verify reads FRR back and corrects drift (IncrementalApplier::verify; report.drift says what
  /// differed). Nothing happens before the first apply().
  virtual Result<FastApplyReport> verify() { return FastApplyReport{}; }

  /// runningConfig returns `show running-config` ("" for fakes).
  virtual Result<std::string> runningConfig() { return std::string(); }

  /// forget drops what the port believes FRR holds, so that the next apply converges FRR from
  /// scratch (a full reload).
  virtual void forget() {}

  /// SessionCollector returns the BGP and BFD session families (session_metrics.h) when /metrics
  /// is read, from another thread; it stays valid after the port is gone.
  using SessionCollector = std::function<std::vector<daemon::MetricFamily>()>;
  /// sessionCollector returns the collector in style, or an empty function (fakes: none).
  virtual SessionCollector sessionCollector(const SessionMetricStyle& /*style*/) { return {}; }
};

/// makeFrrPort returns the production port over FRR's own tools (the vtysh sessions use
/// options.vtysh, options.pathspace and options.workdir).
std::unique_ptr<FrrPort> makeFrrPort(FrrDriverOptions options);

}  // namespace ingot::frr
