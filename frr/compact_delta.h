// SPDX-License-Identifier: Apache-2.0
// compact_delta: what FRR must be told to go from one compact model (frrgen/compact.h) to the
// next, as ordered vtysh configuration commands. Pure: no I/O.
//
// Only the parts that change with Services are sent as a delta: advertisement route-maps,
// outbound route-map entries and `network` lines. Anything else (a session, BFD, an inbound
// selector, a VRF, raw configuration) is rare and is left to a full reload, which the result asks
// for. The commands are ordered so that a route is never sent without its policy: new
// route-maps, then new outbound entries, then `network` lines (withdrawn first, then added or
// re-pointed), then the entries and route-maps nothing uses any more. An entry whose number and
// content are unchanged is never touched.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frrgen/compact.h"

namespace ingot::frr {

/// CompactDelta is the ordered command list, or the reason a full reload is needed instead.
struct CompactDelta {
  std::string reload_reason;          ///< non-empty: send nothing, reload the whole file
  std::vector<std::string> commands;  ///< configuration mode lines, each context re-entered
  size_t networks_added = 0;
  size_t networks_removed = 0;
  size_t networks_changed = 0;  ///< re-pointed at another advertisement route-map
  size_t maps_changed = 0;      ///< route-map entries added or removed
  bool needsReload() const { return !reload_reason.empty(); }
  bool empty() const { return !needsReload() && commands.empty(); }
};

/// computeDelta returns the commands that turn FRR's state for from into to. A reload is asked
/// for when anything but classes, outbound entries and networks differs, or when a class keeps
/// its tag but changes its attributes.
CompactDelta computeDelta(const frrgen::CompactModel& from, const frrgen::CompactModel& to);

/// PolicyProjection is the part of a configuration the delta manages, normalised so that the
/// rendered text and FRR's `show running-config` compare equal: every `network` line with its
/// context, and every managed route-map entry with its lines sorted.
struct PolicyProjection {
  std::set<std::string> networks;              ///< "router bgp A[ vrf V]|ipv4|network …"
  std::map<std::string, std::string> entries;  ///< "route-map N permit S" → sorted body lines
  friend bool operator==(const PolicyProjection&, const PolicyProjection&) = default;
};

/// projectPolicy parses frr.conf-style text. Route-maps are kept when their name starts with
/// "ingot-adv-" or is in out_maps; `network` lines are kept in every router.
PolicyProjection projectPolicy(std::string_view text, const std::set<std::string>& out_maps);

/// outMapNames returns the outbound route-map names of the model's neighbors.
std::set<std::string> outMapNames(const frrgen::CompactModel& model);

/// describeDrift lists, for messages, up to limit differences: "-" only in expected, "+" only in
/// actual.
std::string describeDrift(const PolicyProjection& expected,
                          const PolicyProjection& actual,
                          size_t limit = 10);

}  // namespace ingot::frr
