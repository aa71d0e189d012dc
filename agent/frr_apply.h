// SPDX-License-Identifier: Apache-2.0
// FrrApply is the seam between the agent's frr-mode loop and the node's FRR: production wraps
// agent/bgp's FrrDriver + FrrApplier (keep the last good config, frr-reload.py --test then
// --reload); unit tests substitute a fake.
#pragma once

#include <memory>
#include <string>

#include "agent/bgp/frr_driver.h"
#include "common/util/result.h"

namespace ingot::agent {

/// FrrApply converges the node's FRR to a rendered frr.conf.
class FrrApply {
 public:
  virtual ~FrrApply() = default;
  /// apply converges FRR to text; on error FRR keeps (or is put back on) the last good text.
  virtual Result<bgp::ApplyReport> apply(const std::string& text) = 0;
};

/// makeFrrApply returns the production implementation over agent/bgp with options.
std::unique_ptr<FrrApply> makeFrrApply(bgp::FrrDriverOptions options);

}  // namespace ingot::agent
