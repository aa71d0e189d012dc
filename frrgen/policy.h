// SPDX-License-Identifier: Apache-2.0
// policy: the prefix-lists and route-maps each neighbor needs (names and shapes of frr-k8s'
// filters.tmpl), with sequence numbers that stay put when the set of prefixes changes.
//
// Why not frr-k8s' numbering: frr-k8s numbers a list's entries 1, 2, 3 … in sorted order, so adding
// or removing an early prefix renumbers every later entry; frr-reload.py then deletes and re-adds
// them all and the ToR drops to zero routes during the reload (measured on FRR 8.4).
// Here an entry's sequence number is a hash of what it matches (FNV-1a 64 of the entry text), so
// it does not depend on the other entries: adding or removing one prefix changes exactly one line.
// Two entries of one list that hash alike are resolved by probing upwards in sorted entry order,
// which only moves the later of the colliding entries. Within our lists the order of entries has
// no meaning (every entry is an exact-match permit, or a lone "deny any"), so hash order is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/ip.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen {

/// kDenyAnySeq is the sequence number of the "deny any" entry of an empty list. It is outside the
/// hashed range, so a permit can never be written over it (FRR 8.4 keeps "le 32" of `any` in
/// that case).
inline constexpr uint32_t kDenyAnySeq = 4294967295u;
/// Prefix-list entries hash into [1, kPrefixSeqMax].
inline constexpr uint32_t kPrefixSeqMax = 4294967294u;
/// Route-map entries that set attributes hash into [1, kSetEntrySeqMax]; the allowed-prefix
/// entries come after them at fixed numbers, so `on-match next` always reaches them.
inline constexpr uint32_t kSetEntrySeqMax = 65000;
inline constexpr uint32_t kAllowedV4Seq = 65534;
inline constexpr uint32_t kAllowedV6Seq = 65535;
/// The inbound route-map has two fixed entries.
inline constexpr uint32_t kInboundV4Seq = 1;
inline constexpr uint32_t kInboundV6Seq = 2;

enum class Action { Permit, Deny };

/// PrefixListEntry matches prefix (exactly, or ge/le) or, with prefix empty, any prefix.
struct PrefixListEntry {
  uint32_t seq = 0;
  Action action = Action::Permit;
  std::string prefix;  ///< empty = any
  std::optional<uint32_t> ge;
  std::optional<uint32_t> le;
  friend bool operator==(const PrefixListEntry&, const PrefixListEntry&) = default;
};

/// PrefixList is `ip prefix-list` (V4) or `ipv6 prefix-list` (V6); entries sorted by seq.
struct PrefixList {
  net::Family family = net::Family::V4;
  std::string name;
  std::vector<PrefixListEntry> entries;
  friend bool operator==(const PrefixList&, const PrefixList&) = default;
};

/// SetKind is the attribute an entry sets. Bandwidth is the link-bandwidth extended community of
/// endpoint-weighted ECMP (an Ingot extension: docs/weighted-ecmp.md).
enum class SetKind { None, LocalPreference, Community, LargeCommunity, Bandwidth };

/// RouteMapEntry matches one prefix-list and optionally sets one attribute.
struct RouteMapEntry {
  uint32_t seq = 0;
  Action action = Action::Permit;
  net::Family match_family = net::Family::V4;
  std::string match_list;
  SetKind set = SetKind::None;
  std::string set_value;  ///< "200", "64512:100", "1:2:3", bandwidth "3"
  bool on_match_next = false;
  friend bool operator==(const RouteMapEntry&, const RouteMapEntry&) = default;
};

/// RouteMap: entries sorted by seq.
struct RouteMap {
  std::string name;
  std::vector<RouteMapEntry> entries;
  friend bool operator==(const RouteMap&, const RouteMap&) = default;
};

/// NeighborPolicy is what one neighbor needs, in the order frr-k8s writes it: attribute lists
/// (sorted by name), allowed lists (ip, ipv6), inbound lists (ip, ipv6); out and in route-maps.
struct NeighborPolicy {
  std::string id;  ///< Neighbor::id()
  std::vector<PrefixList> prefix_lists;
  RouteMap out;  ///< "<id>-out"
  RouteMap in;   ///< "<id>-in"
  friend bool operator==(const NeighborPolicy&, const NeighborPolicy&) = default;
};

/// frrCommunityText returns a standard community ("A:B") as FRR 8.4 shows it in its running
/// configuration: well-known values by name ("65535:65281" → "no-export", "0:0" → "internet", …),
/// others unchanged. frr-reload.py compares text, so `set community` must use FRR's spelling or a
/// reload never converges.
std::string frrCommunityText(const std::string& value);

/// fnv1a64 is the 64-bit FNV-1a hash of text (stable across platforms and releases).
uint64_t fnv1a64(std::string_view text);

/// assignSeqs gives each key (distinct, any order) a sequence number in [1, max]: hash of the key
/// modulo max, plus one, probing upwards (wrapping) on collision in sorted key order. Returns the
/// numbers in the order of keys. Error if there are more keys than numbers.
Result<std::vector<uint32_t>> assignSeqs(const std::vector<std::string>& keys, uint32_t max);

/// Numbering is how route-map entries are numbered. Stable: the hashed numbers above (Ingot's own
/// files). FrrK8s: frr-k8s' own, one counter per neighbor from 1 shared by "<id>-out" and "<id>-in"
/// (attribute entries in list-name order, allowed ip, allowed ipv6, then the two inbound entries).
/// A file that carries raw FRR text uses FrrK8s: raw snippets are written against frr-k8s' file
/// (spec.raw, docs/weighted-ecmp.md), so their entry numbers must mean what they mean there.
enum class Numbering { Stable, FrrK8s };

/// AllowedSeqs are the numbers of the two allowed-prefix entries of a neighbor's outbound map.
struct AllowedSeqs {
  uint32_t v4 = 0;
  uint32_t v6 = 0;
};

/// frrk8sAllowedSeqs returns the numbers frr-k8s gives n's allowed-prefix entries: one and two
/// after its local-pref and community entries (a link-bandwidth list is not frr-k8s' and does
/// not count).
AllowedSeqs frrk8sAllowedSeqs(const Neighbor& n);

/// planNeighbor builds one neighbor's lists and route-maps (frr-k8s' naming).
Result<NeighborPolicy> planNeighbor(const Neighbor& n, Numbering numbering = Numbering::Stable);

/// planInbound plans only the inbound side of a neighbor: its "-inpl-" lists and "<id>-in" map
/// (the outbound map is left empty).
Result<NeighborPolicy> planInbound(const Neighbor& n);

/// planPolicy plans every neighbor of every router, routers and neighbors in model order.
Result<std::vector<NeighborPolicy>> planPolicy(const Model& model,
                                               Numbering numbering = Numbering::Stable);

}  // namespace ingot::frrgen
