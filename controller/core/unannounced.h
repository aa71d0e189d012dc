// SPDX-License-Identifier: Apache-2.0
// The "loud no-announcer" decision: does any node announce a Service's addresses, and if none
// does, why not on each node — in one line for a Warning Event and the Service's condition. It
// compares what the agents report (the nodes holding a ServiceL2Status or ServiceBGPStatus for
// the Service) with what the agents' own decisions say (agent::serviceVerdicts), and reports only
// when both agree that nobody announces and that has lasted a grace period. Pure: time is an
// input.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/core/verdicts.h"
#include "api/types.h"

namespace ingot::controller {

/// kAnnouncedCondition is the Service condition type the controller owns.
inline constexpr const char* kAnnouncedCondition = "ingot.dev/Announced";
/// kNotAnnouncedReason is the condition's reason while nobody announces.
inline constexpr const char* kNotAnnouncedReason = "NoAnnouncingNode";

/// AnnounceTruth is what the agents report for one Service: the nodes that hold a
/// ServiceL2Status and those that hold a ServiceBGPStatus for it.
struct AnnounceTruth {
  std::set<std::string> l2;
  std::set<std::string> bgp;
  bool empty() const { return l2.empty() && bgp.empty(); }
};

/// AnnounceState classifies one Service.
enum class AnnounceState {
  NoAddress,    ///< not a LoadBalancer with addresses of ours: nothing to say
  Announced,    ///< some agent reports announcing it
  Expected,     ///< nobody reports yet, but the decisions say `expected` nodes announce
  Unannounced,  ///< nobody reports and the decisions agree: `message` says why per node
};

/// AnnounceFinding is the decision for one Service at one moment.
struct AnnounceFinding {
  AnnounceState state = AnnounceState::NoAddress;
  std::vector<std::string> expected;  ///< for Expected: the nodes that should announce
  /// message: "no node announces 192.0.2.10: node1: agent not alive; node2: ..." (Unannounced)
  std::string message;
};

/// kMaxListedNodes bounds the nodes a message names one by one; the rest are counted.
inline constexpr size_t kMaxListedNodes = 10;

/// nodeReasonText is one node's reason in words ("no local endpoint (ETP Local)"), combining
/// the Layer 2 and BGP verdicts when the pool has both kinds of advertisement.
std::string nodeReasonText(const agent::ServiceVerdicts& verdicts, const agent::NodeVerdict& node);

/// findUnannounced classifies svc. verdicts are agent::serviceVerdicts for svc; truth is what
/// the agents report. A Service without ingress addresses, one the gate withdraws as not ours
/// (class, type), and one whose pool no advertisement names (address management only: another
/// system may announce it) are NoAddress; a Service whose addresses no pool admits is
/// Unannounced.
AnnounceFinding findUnannounced(const api::Service& svc,
                                const agent::ServiceVerdicts& verdicts,
                                const AnnounceTruth& truth);

/// sliceServiceKey indexes the EndpointSlice cache of the check: "namespace/name" of the
/// Service the slice belongs to (its kubernetes.io/service-name label), "" for a slice without
/// the label. A Service's slices are then found without a scan of every slice.
std::string sliceServiceKey(const api::EndpointSlice& slice);

/// l2StatusServiceKey and bgpStatusServiceKey index the caches of what the agents report:
/// "namespace/name" of the Service the status object names in its status, "" when it names none.
std::string l2StatusServiceKey(const api::ServiceL2Status& status);
/// bgpStatusServiceKey: see l2StatusServiceKey.
std::string bgpStatusServiceKey(const api::ServiceBGPStatus& status);

/// announcedCondition returns the Service's condition of type kAnnouncedCondition, or null.
const api::Condition* announcedCondition(const api::Service& svc);

/// conditionsWith returns the Service's conditions with ours replaced by `ours` (removed when
/// nullopt), other writers' conditions kept in place. The lastTransitionTime of ours is kept
/// when its status does not change.
std::vector<api::Condition> conditionsWith(const std::vector<api::Condition>& current,
                                           std::optional<api::Condition> ours);

/// UnannouncedTracker holds each Service's "unannounced since" and applies the grace period:
/// a Service is reported only once the Unannounced finding has held, for the same addresses,
/// for `grace`. Any other finding forgets it.
class UnannouncedTracker {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  explicit UnannouncedTracker(Duration grace) : grace_(grace) {}

  /// Step is what to do with one Service now: report (write the condition, warn) or not, and
  /// when to look again if the grace period is still running.
  struct Step {
    bool report = false;
    std::optional<Duration> recheck_after;
  };

  /// observe records the finding for key (addresses: the ingress IPs joined) at now.
  /// already_reported says the Service still carries the report from an earlier run (a
  /// controller restart): a new entry then starts with its grace period already over.
  Step observe(const std::string& key,
               const AnnounceFinding& finding,
               const std::string& addresses,
               TimePoint now,
               bool already_reported = false);

  /// forget drops key (the Service is gone).
  void forget(const std::string& key) { entries_.erase(key); }

  /// reported counts the Services currently reported (the ingot_services_unannounced gauge).
  size_t reported() const;

 private:
  struct Entry {
    std::string addresses;
    TimePoint since;
    bool reported = false;
  };
  Duration grace_;
  std::map<std::string, Entry> entries_;
};

}  // namespace ingot::controller
