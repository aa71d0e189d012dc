// SPDX-License-Identifier: Apache-2.0
// The typed FRR configuration for one node: what frr-k8s' internal model holds after the
// FRRConfigurations selecting the node are converted and merged (its internal/frr/config.go), and
// what the renderer turns into frr.conf. Values are validated and normalised: prefixes in canonical
// text, lists sorted as frr-k8s sorts them (string order), no duplicates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ingot::frrgen {

/// kBgpDefaultPort is BGP's port, FRR's default for a neighbor.
inline constexpr uint16_t kBgpDefaultPort = 179;

/// NeighborFamily is the address family a session carries: the peer address' family, or Dual for
/// unnumbered (interface) sessions and dualStackAddressFamily.
enum class NeighborFamily { V4, V6, Dual };

/// OutgoingPrefix is one prefix advertised to a neighbor with the attributes it is sent with.
struct OutgoingPrefix {
  std::string prefix;                          ///< canonical CIDR text
  uint32_t local_pref = 0;                     ///< 0 = not set
  std::vector<std::string> communities;        ///< "A:B", sorted, unique
  std::vector<std::string> large_communities;  ///< "A:B:C", sorted, unique
  friend bool operator==(const OutgoingPrefix&, const OutgoingPrefix&) = default;
};

/// IncomingFilter is one toReceive selector: accept prefix, optionally longer ones (ge/le).
struct IncomingFilter {
  std::string prefix;  ///< canonical CIDR text
  std::optional<uint32_t> le;
  std::optional<uint32_t> ge;
  friend bool operator==(const IncomingFilter&, const IncomingFilter&) = default;
};

/// Neighbor is one BGP session. Timers are whole seconds.
struct Neighbor {
  std::string address;    ///< canonical IP text; empty for an unnumbered session
  std::string interface;  ///< set for an unnumbered session
  std::string remote_as;  ///< decimal ASN, "internal" or "external"
  NeighborFamily family = NeighborFamily::V4;
  std::string vrf;  ///< the router's VRF ("" = default)
  std::string source_address;
  std::optional<uint16_t> port;  ///< unset = kBgpDefaultPort
  std::optional<uint32_t>
      hold_time;  ///< set iff keepalive_time is set (before clearFrrK8sDefaults)
  std::optional<uint32_t>
      keepalive_time;  ///< set iff hold_time is set (before clearFrrK8sDefaults)
  std::optional<uint32_t> connect_time;
  std::string password;
  std::string bfd_profile;
  bool graceful_restart = false;
  bool ebgp_multi_hop = false;
  std::optional<uint32_t> local_asn;
  std::vector<OutgoingPrefix> outgoing_v4;  ///< sorted by prefix text; only if family has v4
  std::vector<OutgoingPrefix> outgoing_v6;  ///< sorted by prefix text; only if family has v6
  bool receive_all = false;                 ///< toReceive mode all
  std::vector<IncomingFilter> incoming_v4;  ///< sorted (prefix, le, ge), empty when receive_all
  std::vector<IncomingFilter> incoming_v6;

  /// peer is what follows "neighbor" in FRR: the address, or the interface name.
  const std::string& peer() const { return interface.empty() ? address : interface; }
  /// id is frr-k8s' neighbor identity: peer(), plus "-<vrf>" in a VRF. It keys merges and names
  /// the neighbor's prefix-lists and route-maps.
  std::string id() const { return vrf.empty() ? peer() : peer() + "-" + vrf; }
  friend bool operator==(const Neighbor&, const Neighbor&) = default;
};

/// Router is one `router bgp` instance (one per VRF).
struct Router {
  uint32_t asn = 0;
  std::string router_id;                 ///< dotted quad or empty
  std::string vrf;                       ///< "" = default VRF
  std::vector<Neighbor> neighbors;       ///< sorted by id()
  std::vector<std::string> prefixes_v4;  ///< originated (`network`), sorted
  std::vector<std::string> prefixes_v6;  ///< originated (`network`), sorted
  std::vector<std::string> import_vrfs;  ///< sorted; "default" = the default VRF
  friend bool operator==(const Router&, const Router&) = default;
};

/// BfdProfile is a `bfd` / `profile` block. Intervals in milliseconds as in the API.
struct BfdProfile {
  std::string name;
  std::optional<uint32_t> receive_interval;
  std::optional<uint32_t> transmit_interval;
  std::optional<uint32_t> detect_multiplier;
  std::optional<uint32_t> echo_interval;
  bool echo_mode = false;
  bool passive_mode = false;
  std::optional<uint32_t> minimum_ttl;
  friend bool operator==(const BfdProfile&, const BfdProfile&) = default;
};

/// Model is the whole configuration of one node.
struct Model {
  std::vector<Router> routers;           ///< sorted by VRF, default VRF first
  std::vector<BfdProfile> bfd_profiles;  ///< sorted by name
  std::string raw_config;  ///< raw snippets by (priority, config name), each newline-terminated
  friend bool operator==(const Model&, const Model&) = default;
};

}  // namespace ingot::frrgen
