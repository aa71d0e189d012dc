// SPDX-License-Identifier: Apache-2.0
#include "agent/core/drain.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "agent/core/predicates.h"

namespace ingot::agent {
namespace {

constexpr std::string_view kShutdownMessage = "node is shutting down";

bool on(const DrainOptions& options, DrainTrigger t) {
  return options.triggers.contains(t);
}

bool hasTaint(const api::Node& node, std::string_view key) {
  return std::any_of(node.taints.begin(), node.taints.end(),
                     [key](const api::NodeTaint& t) { return t.key == key; });
}

// withGracefulShutdown adds the GRACEFUL_SHUTDOWN community, keeping the list sorted and unique.
void withGracefulShutdown(Announcement& a) {
  auto it =
      std::lower_bound(a.communities.begin(), a.communities.end(), kGracefulShutdownCommunity);
  if (it == a.communities.end() || *it != kGracefulShutdownCommunity) {
    a.communities.insert(it, kGracefulShutdownCommunity);
  }
}

// gracefulShutdown returns a's replacements: a with the community for its eBGP peers and, when
// some of its peers are iBGP sessions, a copy for those with the lowered LOCAL_PREF.
std::vector<Announcement> gracefulShutdown(const config::Config& config, Announcement a) {
  withGracefulShutdown(a);
  Announcement internal = a;
  internal.peers.clear();
  std::erase_if(a.peers, [&](const std::string& name) {
    auto it = config.peers.find(name);
    if (it == config.peers.end() || !peerIsIbgp(it->second)) return false;
    internal.peers.push_back(name);
    return true;
  });
  std::vector<Announcement> out;
  if (!a.peers.empty()) out.push_back(std::move(a));
  if (!internal.peers.empty()) {
    internal.local_pref = kGracefulShutdownLocalPref;
    out.push_back(std::move(internal));
  }
  return out;
}

}  // namespace

Result<std::set<DrainTrigger>> parseDrainTriggers(std::string_view text) {
  std::set<DrainTrigger> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (name == "cordon") {
      out.insert(DrainTrigger::Cordon);
    } else if (name == "taint") {
      out.insert(DrainTrigger::Taint);
    } else if (name == "shutdown") {
      out.insert(DrainTrigger::KubeletShutdown);
    } else if (name == "sigterm") {
      out.insert(DrainTrigger::Sigterm);
    } else if (!name.empty()) {
      return invalidArgument("unknown drain trigger \"" + std::string(name) +
                             "\" (expected cordon, taint, shutdown or sigterm)");
    }
  }
  return out;
}

std::string_view drainPhaseName(DrainPhase phase) {
  switch (phase) {
    case DrainPhase::Serving:
      return "serving";
    case DrainPhase::GracefulShutdown:
      return "gracefulShutdown";
    case DrainPhase::Withdrawn:
      return "withdrawn";
  }
  return "unknown";
}

std::string_view drainReasonName(DrainReason reason) {
  switch (reason) {
    case DrainReason::None:
      return "";
    case DrainReason::Cordoned:
      return "cordoned";
    case DrainReason::Tainted:
      return "tainted";
    case DrainReason::KubeletShutdown:
      return "kubeletShutdown";
    case DrainReason::SigtermWhileCordoned:
      return "sigtermWhileCordoned";
    case DrainReason::ExcludeLabel:
      return "excludeLabel";
  }
  return "unknown";
}

bool nodeCordoned(const api::Node& node) {
  return node.unschedulable || hasTaint(node, kUnschedulableTaint);
}

bool nodeShuttingDown(const api::Node& node) {
  for (const auto& c : node.conditions) {
    if (c.type == "Ready") {
      return c.status != "True" && c.message.find(kShutdownMessage) != std::string::npos;
    }
  }
  return false;
}

DrainReason nodeDrainReason(const api::Node* node, const DrainOptions& options) {
  if (node == nullptr) return DrainReason::None;
  if (on(options, DrainTrigger::Cordon) && nodeCordoned(*node)) return DrainReason::Cordoned;
  if (on(options, DrainTrigger::Taint) && !options.taint_key.empty() &&
      hasTaint(*node, options.taint_key)) {
    return DrainReason::Tainted;
  }
  if (on(options, DrainTrigger::KubeletShutdown) && nodeShuttingDown(*node)) {
    return DrainReason::KubeletShutdown;
  }
  return DrainReason::None;
}

DrainState nextDrainState(const DrainState& prev,
                          const DrainInputs& in,
                          const DrainOptions& options) {
  DrainState next;
  if (!in.ignore_exclude_lb && nodeExcludedFromBalancers(in.node)) {
    next.phase = DrainPhase::Withdrawn;
    next.reason = DrainReason::ExcludeLabel;
    return next;
  }
  next.reason = nodeDrainReason(in.node, options);
  if (next.reason == DrainReason::None && in.sigterm && on(options, DrainTrigger::Sigterm) &&
      in.node != nullptr && nodeCordoned(*in.node)) {
    next.reason = DrainReason::SigtermWhileCordoned;
  }
  if (next.reason == DrainReason::None) return next;
  next.since_ms = prev.since_ms.value_or(in.now_ms);
  const int64_t end = *next.since_ms + options.delay_ms;
  if (in.now_ms >= end) {
    next.phase = DrainPhase::Withdrawn;
  } else {
    next.phase = DrainPhase::GracefulShutdown;
    next.next_change_ms = end;
  }
  return next;
}

std::string_view handOffEndName(HandOffEnd end) {
  switch (end) {
    case HandOffEnd::Waiting:
      return "waiting";
    case HandOffEnd::NewOwnerAnnounced:
      return "newOwnerAnnounced";
    case HandOffEnd::TimedOut:
      return "timedOut";
  }
  return "unknown";
}

bool newOwnerReported(std::string_view self, const L2HandOffView& view) {
  return view.new_owner && *view.new_owner != self &&
         std::find(view.status_nodes.begin(), view.status_nodes.end(), *view.new_owner) !=
             view.status_nodes.end();
}

HandOffEnd l2HandOffEnd(const L2HandOffView& view, int64_t now_ms, int64_t until_ms) {
  if (view.reported_ms && now_ms >= *view.reported_ms + kL2HandOffSettleMs) {
    return HandOffEnd::NewOwnerAnnounced;
  }
  return now_ms >= until_ms ? HandOffEnd::TimedOut : HandOffEnd::Waiting;
}

bool peerIsIbgp(const config::Peer& peer) {
  if (peer.dynamic_asn != config::DynamicAsn::None) {
    return peer.dynamic_asn == config::DynamicAsn::Internal;
  }
  return peer.peer_asn == peer.local_asn.value_or(peer.my_asn);
}

void drainBgpDecision(DrainPhase phase, const config::Config& config, BgpDecision& decision) {
  if (phase == DrainPhase::Serving || !decision.announced()) return;
  if (phase == DrainPhase::Withdrawn) {
    decision.skip = BgpSkip::NodeDraining;
    decision.announcements.clear();
    decision.peers.clear();
    return;
  }
  std::vector<Announcement> out;
  for (auto& a : decision.announcements) {
    for (auto& r : gracefulShutdown(config, std::move(a))) out.push_back(std::move(r));
  }
  decision.announcements = std::move(out);
}

}  // namespace ingot::agent
