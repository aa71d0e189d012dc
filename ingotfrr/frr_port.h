// SPDX-License-Identifier: Apache-2.0
// FrrPort: what ingot-frr needs of the node's FRR. The production port is frr/'s incremental
// engine (IncrementalApplier over a persistent vtysh, frr-reload.py as the fallback), the same one
// Ingot's agent uses in frr mode. Tests substitute a fake.
#pragma once

#include <memory>
#include <string>

#include "common/util/result.h"
#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frrgen/compact.h"
#include "frrgen/model.h"

namespace ingot::ingotfrr {

/// FrrPort converges FRR to a compact model and reads it back. Not thread-safe.
class FrrPort {
 public:
  virtual ~FrrPort() = default;
  /// apply converges FRR to model (see IncrementalApplier::apply).
  virtual Result<agent::bgp::FastApplyReport> apply(const frrgen::CompactModel& model) = 0;
  /// applyFile converges FRR to the whole rendered file of model (frrgen::render: frr-k8s' entry
  /// numbering, the raw snippets appended last) through frr-reload.py, as frr-k8s applies a
  /// configuration with spec.raw (its lines first go through vtysh, so that leaving the compact
  /// shape re-points each `network` in place instead of withdrawing it); the incremental state is
  /// dropped, so the next apply() is a full reload.
  virtual Result<agent::bgp::FastApplyReport> applyFile(const frrgen::Model& model) = 0;
  /// verify reads FRR back and corrects drift (see IncrementalApplier::verify).
  virtual Result<agent::bgp::FastApplyReport> verify() = 0;
  /// runningConfig returns `show running-config`.
  virtual Result<std::string> runningConfig() = 0;
  /// forget drops what the port believes FRR holds, so that the next apply converges FRR from
  /// scratch (a full reload). Called after a failure: FRR may have restarted meanwhile.
  virtual void forget() = 0;
  /// show runs one show command (for the session metrics).
  virtual Result<std::string> show(const std::string& command) = 0;
};

/// makeFrrPort returns the production port; hostname goes into the rendered file of a full
/// reload (frr-k8s writes the node's hostname there).
std::unique_ptr<FrrPort> makeFrrPort(agent::bgp::FrrDriverOptions options, std::string hostname);

}  // namespace ingot::ingotfrr
