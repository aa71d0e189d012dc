// SPDX-License-Identifier: Apache-2.0
// The full reprocess (MetalLB's reprocess-all): every Service converged against one
// Config, in an order that never moves an address that a Service already holds. The controller
// runs it on start, on every pool change and when a convergence asks for it; `ingotctl plan`
// runs exactly the same function on manifests.
#pragma once

#include <vector>

#include "api/types.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/allocator.h"
#include "controller/core/service.h"

namespace ingot::controller {

/// PlanResult is the outcome of a full pass.
struct PlanResult {
  /// services has one outcome per input Service (including ignored and non-LoadBalancer ones,
  /// flagged), sorted by namespace then name.
  std::vector<ServiceOutcome> services;
  /// pools has every pool's usage after the pass, by name.
  std::vector<PoolCounters> pools;
  /// reprocess_all is set when some convergence freed room or changed sharing, so another
  /// pass may place services that failed in this one (the controller runs it).
  bool reprocess_all = false;
};

/// reprocessAll rebuilds `allocator` from scratch for config (as after a restart) and converges
/// every service. Services whose status holds addresses go first, in namespace/name order, and
/// all their addresses are claimed before any service allocates, so neither a pending Service nor
/// a PreferDualStack upgrade can take an address another Service holds; pending services follow,
/// in namespace/name order (the order a Kubernetes list returns). Fails only if the pools
/// overlap (config::parse rejects that already).
Result<PlanResult> reprocessAll(Allocator& allocator,
                                const config::Config& config,
                                const std::vector<api::Service>& services,
                                const Options& options);

}  // namespace ingot::controller
