// SPDX-License-Identifier: Apache-2.0
// The typed FRR configuration for one node: what frr-k8s' internal model holds after the
// FRRConfigurations selecting the node are converted and merged (its internal/frr/config.go), and
// what the renderer turns into frr.conf. Values are validated and normalised: prefixes in canonical
// text, lists sorted as frr-k8s sorts them (string order), no duplicates.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"

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
  uint32_t bandwidth = 0;  ///< link-bandwidth extended community (Mbps), 0 = not set
  friend bool operator==(const OutgoingPrefix&, const OutgoingPrefix&) = default;
};

/// OutgoingList is a neighbor's advertised prefixes of one family, read and written like a vector.
/// Neighbors that advertise the same list share one copy (convert shares the lists of a router's
/// neighbors with the same toAdvertise: 10,000 prefixes sent to 50 neighbors are held once); a
/// write through any non-const member first makes the list this neighbor's own. Do not copy the
/// list while holding an iterator or reference obtained for writing.
class OutgoingList {
 public:
  using value_type = OutgoingPrefix;
  using iterator = std::vector<OutgoingPrefix>::iterator;
  using const_iterator = std::vector<OutgoingPrefix>::const_iterator;

  OutgoingList() = default;
  /// OutgoingList takes items (an empty list holds no storage).
  explicit OutgoingList(std::vector<OutgoingPrefix> items) {
    if (!items.empty()) {
      items_ = std::make_shared<std::vector<OutgoingPrefix>>(std::move(items));
    }
  }
  OutgoingList(std::initializer_list<OutgoingPrefix> items)
      : OutgoingList(std::vector<OutgoingPrefix>(items)) {}

  size_t size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  const OutgoingPrefix& operator[](size_t i) const { return items()[i]; }
  iterator begin() { return own().begin(); }
  iterator end() { return own().end(); }
  OutgoingPrefix& operator[](size_t i) { return own()[i]; }
  /// append adds o at the end.
  void append(OutgoingPrefix o) { own().push_back(std::move(o)); }
  iterator insert(const_iterator pos, OutgoingPrefix o) { return own().insert(pos, std::move(o)); }
  void clear() { items_.reset(); }
  /// sameStorage reports whether both lists share one copy (a cheap "equal" for the common case).
  bool sameStorage(const OutgoingList& other) const { return items_ == other.items_; }
  friend bool operator==(const OutgoingList& a, const OutgoingList& b) {
    return a.sameStorage(b) || a.items() == b.items();
  }

 private:
  const std::vector<OutgoingPrefix>& items() const {
    static const std::vector<OutgoingPrefix> kNone;
    return items_ ? *items_ : kNone;
  }
  std::vector<OutgoingPrefix>& own() {
    if (!items_) {
      items_ = std::make_shared<std::vector<OutgoingPrefix>>();
    } else if (items_.use_count() > 1) {
      items_ = std::make_shared<std::vector<OutgoingPrefix>>(*items_);
    }
    return *items_;
  }
  std::shared_ptr<std::vector<OutgoingPrefix>> items_;
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
  OutgoingList outgoing_v4;                 ///< sorted by prefix text; only if family has v4
  OutgoingList outgoing_v6;                 ///< sorted by prefix text; only if family has v6
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

/// BfdProfile is a `bfd` / `profile` block: the parsed profile of config/config.h (name, intervals
/// in milliseconds as in the API, echo and passive mode resolved to false when unset). One type for
/// both layers: a profile renders exactly as it was parsed.
using BfdProfile = config::BfdProfile;

/// Model is the whole configuration of one node.
struct Model {
  std::vector<Router> routers;           ///< sorted by VRF, default VRF first
  std::vector<BfdProfile> bfd_profiles;  ///< sorted by name
  std::string raw_config;  ///< raw snippets by (priority, config name), each newline-terminated
  friend bool operator==(const Model&, const Model&) = default;
};

}  // namespace ingot::frrgen
