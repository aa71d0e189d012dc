// SPDX-License-Identifier: Apache-2.0
// build_keys: the ordering keys and the family filter frrgen::build lays the FRRConfiguration out
// by, shared with the incremental builder (frrgen/incremental.h) so both place a session and a
// prefix at the same spot. Internal to frrgen.
#pragma once

#include <cstddef>
#include <string>

#include "common/net/ip.h"
#include "config/config.h"

namespace ingot::frrgen::detail {

/// kMaxCommunities is the most communities one announcement may carry (MetalLB's limit for the
/// FRR backends).
inline constexpr size_t kMaxCommunities = 63;

/// carries reports whether the session receives prefix: its own address family, both when it is
/// an interface or dual-stack session (or has no address).
bool carries(const config::Peer& peer, const net::Cidr& prefix);

/// routerKey is MetalLB's frr.RouterName, "myASN@routerID@vrf", which orders the routers.
std::string routerKey(const config::Peer& p);

/// sessionKey is MetalLB's sessionName, which orders the neighbors of a router.
std::string sessionKey(const config::Peer& p);

}  // namespace ingot::frrgen::detail
