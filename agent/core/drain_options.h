// SPDX-License-Identifier: Apache-2.0
// The agent flags of drain-awareness (agent/core/drain.h), apart so that AnnounceOptions can
// carry them without the decisions depending on the drain state machine.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace ingot::agent {

/// DrainTrigger is one condition that makes a node drain (--drain-triggers).
enum class DrainTrigger {
  Cordon,           ///< "cordon": spec.unschedulable or the node.kubernetes.io/unschedulable taint
  Taint,            ///< "taint": the taint named by --drain-taint (any value and effect)
  KubeletShutdown,  ///< "shutdown": kubelet's graceful node shutdown has started
  Sigterm,          ///< "sigterm": the agent received SIGTERM while its Node is cordoned
};

/// DrainOptions are the agent flags of drain-awareness. No trigger = off (MetalLB's behaviour).
struct DrainOptions {
  std::set<DrainTrigger> triggers;  ///< --drain-triggers
  std::string taint_key;            ///< --drain-taint ("" = the taint trigger never fires)
  int64_t delay_ms = 30000;         ///< --drain-delay: graceful shutdown → withdrawal
  bool enabled() const { return !triggers.empty(); }
};

}  // namespace ingot::agent
