// SPDX-License-Identifier: Apache-2.0
// Announcement: one prefix a node advertises over BGP, with the attributes of the
// BGPAdvertisement it came from. The agent's announce decision (agent/core/announce.h) produces
// it and frrgen::build renders it into the node's FRR configuration; it lives here, below both,
// so that frrgen depends only on the parsed config and never on the agent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/ip.h"
#include "config/config.h"

namespace ingot::config {

/// Announcement is one LB IP masked to a BGPAdvertisement's aggregation length, with that
/// advertisement's attributes (MetalLB's bgp.Advertisement).
struct Announcement {
  net::Cidr prefix;
  uint32_t local_pref = 0;                ///< 0 = not set
  std::vector<BgpCommunity> communities;  ///< sorted, unique, aliases already resolved
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

/// ServiceAnnouncements are the announcements of one Service ("namespace/name") after a change
/// of its decision, each with that `service`; empty when it announces nothing any more.
struct ServiceAnnouncements {
  std::string service;
  std::vector<Announcement> announcements;
};

}  // namespace ingot::config
