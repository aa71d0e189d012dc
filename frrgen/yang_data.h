// SPDX-License-Identifier: Apache-2.0
// The YANG-modelled parts of the rendered configuration as RFC 7951 JSON instance data for FRR's
// own modules: prefix-lists (frr-filter), route-maps (frr-route-map + frr-bgp-route-map) and BFD
// profiles (frr-bfdd, intervals in microseconds). Pure text; yang_validate.h checks it with
// libyang. bgpd 8.4 itself is configured by CLI text, so this is a schema check, not an interface.
#pragma once

#include <string>
#include <vector>

#include "frrgen/model.h"
#include "frrgen/policy.h"

namespace ingot::frrgen {

/// yangInstanceJson returns one JSON document with "frr-filter:lib", "frr-route-map:lib" and
/// "frr-bfdd:bfdd" (each only when non-empty), listing exactly the prefix-lists, route-maps and
/// BFD profiles render() writes. Values are written as they are, so an out-of-range one (a
/// multiplier of 300, an `le` of 33 on an IPv4 prefix) reaches the validator unchanged.
std::string yangInstanceJson(const std::vector<NeighborPolicy>& policy,
                             const std::vector<BfdProfile>& bfd_profiles);

}  // namespace ingot::frrgen
