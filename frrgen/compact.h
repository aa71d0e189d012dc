// SPDX-License-Identifier: Apache-2.0
// compact: the FRR policy shape for Ingot's own FRR mode, where the cost of one announced prefix is
// one line. Every prefix is originated by `network P route-map ingot-adv-<tag>`; that route-map
// marks the route with `set tag <tag>` (a route tag is local to the router: it is never sent in an
// UPDATE, so there is nothing to strip) and, when every session that gets the prefix gets it with
// the same attributes, also sets its communities and local preference. Each neighbor's outbound
// route-map "<id>-out" has one `match tag` entry per class of prefixes the neighbor receives, and
// sets that neighbor's attributes when they differ between sessions or include a well-known
// community that restricts where this router sends the route (no-export, no-advertise, local-AS,
// no-peer): bgpd checks those before the outbound route-map, so set at origination they would
// keep the route from the very peers it is meant for. Then `deny 65535`.
//
// A class is the exact set of (session, attributes) a prefix is sent to, so per-peer targeting
// stays exact whatever the advertisements overlap. Tags and entry numbers are hashes of the
// class's content (policy.h's assignSeqs), so one prefix more or less never renumbers anything;
// the number of classes, and so the size of the policy, does not grow with the number of prefixes.
// Inbound policy, sessions, BFD, VRFs and imports are the same as in render.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "frrgen/model.h"
#include "frrgen/policy.h"
#include "frrgen/render.h"

namespace ingot::frrgen {

/// kAdvMapPrefix names the per-class route-maps: "ingot-adv-<tag>".
inline constexpr const char* kAdvMapPrefix = "ingot-adv-";
/// kOutDenySeq is the last entry of every outbound map: it keeps the map defined when no class
/// targets the neighbor (a missing map would be a different state in FRR's running config).
inline constexpr uint32_t kOutDenySeq = 65535;
/// kAdvEntrySeq is the only entry of an advertisement route-map.
inline constexpr uint32_t kAdvEntrySeq = 1;

/// Attributes are what a route is sent with. Communities in FRR's order (numeric by value), so
/// that they read back from FRR's running config as rendered.
struct Attributes {
  uint32_t local_pref = 0;                     ///< 0 = not set
  std::vector<std::string> communities;        ///< "A:B"
  std::vector<std::string> large_communities;  ///< "A:B:C"
  uint32_t bandwidth = 0;                      ///< link-bandwidth (Mbps), 0 = not set
  bool empty() const {
    return local_pref == 0 && communities.empty() && large_communities.empty() && bandwidth == 0;
  }
  friend auto operator<=>(const Attributes&, const Attributes&) = default;
};

/// AdvertClass is one route-map "ingot-adv-<tag>": the tag, plus the attributes when uniform.
struct AdvertClass {
  uint32_t tag = 0;
  Attributes attributes;
  std::string mapName() const { return kAdvMapPrefix + std::to_string(tag); }
  friend bool operator==(const AdvertClass&, const AdvertClass&) = default;
};

/// OutEntry is one entry of a neighbor's outbound map: permit routes tagged tag, setting
/// attributes (empty when the class sets them at origination).
struct OutEntry {
  uint32_t seq = 0;
  uint32_t tag = 0;
  Attributes attributes;
  friend bool operator==(const OutEntry&, const OutEntry&) = default;
};

/// CompactNeighbor is a session (outgoing prefix lists left empty) with its policy.
struct CompactNeighbor {
  Neighbor session;
  std::vector<OutEntry> out;  ///< sorted by seq, all below kOutDenySeq
  NeighborPolicy inbound;     ///< planInbound(session)
  std::string outMapName() const { return session.id() + "-out"; }
  friend bool operator==(const CompactNeighbor&, const CompactNeighbor&) = default;
};

/// CompactRouter is one `router bgp`; networks map each originated prefix to its class tag.
struct CompactRouter {
  uint32_t asn = 0;
  std::string router_id;
  std::string vrf;
  std::vector<std::string> import_vrfs;
  std::vector<CompactNeighbor> neighbors;       ///< model order
  std::map<std::string, uint32_t> networks_v4;  ///< prefix → tag
  std::map<std::string, uint32_t> networks_v6;
  friend bool operator==(const CompactRouter&, const CompactRouter&) = default;
};

/// CompactModel is the whole node configuration in the compact shape.
struct CompactModel {
  std::vector<AdvertClass> classes;  ///< sorted by tag
  std::vector<CompactRouter> routers;
  std::vector<BfdProfile> bfd_profiles;
  std::string raw_config;
  friend bool operator==(const CompactModel&, const CompactModel&) = default;
};

/// compact converts a merged model. Each router's prefix is sent to exactly the neighbors whose
/// outgoing lists hold it, with the attributes given there; a prefix no neighbor lists is still
/// originated but matches no outbound entry. Deterministic: equal models give equal results, and
/// a class keeps its tag as long as its content exists. Errors: more classes than tags, a
/// neighbor in more classes than outbound entry numbers, a bad inbound selector.
Result<CompactModel> compact(const Model& model);

/// renderCompact returns the frr.conf of the compact model, in FRR's running-config layout.
/// Errors: a delay timer outside 0-600.
Result<std::string> renderCompact(const CompactModel& model, const RenderOptions& options);

/// advMapText returns the configuration lines of a class's route-map (entry, sets, "exit").
std::string advMapText(const AdvertClass& c);

/// outEntryText returns the lines of one outbound map entry (entry, match, sets, "exit").
std::string outEntryText(const std::string& map_name, const OutEntry& e);

/// outDenyText returns the closing `deny 65535` entry of an outbound map.
std::string outDenyText(const std::string& map_name);

/// networkLine returns "network P route-map ingot-adv-<tag>".
std::string networkLine(const std::string& prefix, uint32_t tag);

/// routerLine returns "router bgp ASN[ vrf V]".
std::string routerLine(const CompactRouter& r);

}  // namespace ingot::frrgen
