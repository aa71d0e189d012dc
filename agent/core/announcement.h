// SPDX-License-Identifier: Apache-2.0
// Announcement: one prefix a node advertises over BGP. The agent's announce decision
// (agent/core/announce.h) produces it; frrgen::build renders it into the node's FRR configuration,
// so frrgen links ingot_agent_core (never the other way round).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/ip.h"
#include "config/config.h"

namespace ingot::agent {

/// Announcement is one LB IP masked to a BGPAdvertisement's aggregation length, with that
/// advertisement's attributes (MetalLB's bgp.Advertisement).
struct Announcement {
  net::Cidr prefix;
  uint32_t local_pref = 0;                        ///< 0 = not set
  std::vector<config::BgpCommunity> communities;  ///< sorted, unique, aliases already resolved
  /// peers are the BGPPeer names, among the sessions this node runs, that receive the prefix
  /// (the advertisement's `peers` list resolved; MetalLB's adsForPeer). Empty = no session.
  std::vector<std::string> peers;
  std::string advertisement;  ///< the BGPAdvertisement it came from (diagnostics only)
  std::string service;        ///< "namespace/name" of the Service (diagnostics only)
  /// bandwidth is the BGP link-bandwidth value (FRR's Mbps, 1..25600) sent with the prefix for
  /// endpoint-weighted ECMP: this node's ready local endpoints (agent/core/weights.h). 0 = none.
  uint32_t bandwidth = 0;
  friend bool operator==(const Announcement&, const Announcement&) = default;
};

}  // namespace ingot::agent
