// SPDX-License-Identifier: Apache-2.0
// render_parts: single stanzas of render.h's frr.conf, for renderers of other policy shapes
// (compact.h) that share the header, BFD block, session lines and policy text with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/ip.h"
#include "frrgen/model.h"
#include "frrgen/policy.h"
#include "frrgen/render.h"

namespace ingot::frrgen {

/// renderHeaderText returns the global lines (logging, forwarding, NHT, delay timer) and "!".
std::string renderHeaderText(const RenderOptions& options);

/// renderBfdText returns the `bfd` block with every profile, or "" when there is none.
std::string renderBfdText(const std::vector<BfdProfile>& profiles);

/// renderSessionText returns the neighbor's session lines under `router bgp` (one-space indent).
std::string renderSessionText(const Neighbor& neighbor, uint32_t router_asn);

/// renderPrefixListText returns one line per entry of the list.
std::string renderPrefixListText(const PrefixList& list);

/// renderRouteMapText returns every entry of the map, each closed by `exit` and "!".
std::string renderRouteMapText(const RouteMap& map);

/// neighborCarries reports whether the session carries routes of family.
bool neighborCarries(const Neighbor& neighbor, net::Family family);

}  // namespace ingot::frrgen
