// SPDX-License-Identifier: Apache-2.0
// Config is the one immutable snapshot every decision reads: the metallb.io objects parsed and
// cross-validated (MetalLB's internal/config/config.go), with selectors resolved against the nodes
// and namespaces that existed at parse time. Nothing downstream sees a raw CRD (MetalLB's
// config.For).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "common/net/ip.h"

namespace ingot::config {

/// Backend is the BGP implementation the configuration is validated for (METALLB_BGP_TYPE).
enum class Backend { FrrK8s, Frr, Native };

/// ServiceAllocation is a pool's resolved serviceAllocation.
struct ServiceAllocation {
  int32_t priority = 0;              ///< 0 = unprioritised (used after every priority > 0)
  std::set<std::string> namespaces;  ///< `namespaces` ∪ namespaces matched by namespaceSelectors
  bool has_namespace_constraint = false;  ///< namespaces or namespaceSelectors were given
  std::vector<api::LabelSelector> service_selectors;  ///< OR; empty = any service
  friend bool operator==(const ServiceAllocation&, const ServiceAllocation&) = default;
};

/// Pool is one IPAddressPool. cidrs keeps the order of spec.addresses, each entry summarised.
struct Pool {
  std::string name;
  api::StringMap labels;
  std::vector<net::Cidr> cidrs;
  /// entries[i] are the CIDRs of spec.addresses[i] (for the aggregation-length check).
  std::vector<std::vector<net::Cidr>> entries;
  bool auto_assign = true;
  bool avoid_buggy_ips = false;
  std::optional<ServiceAllocation> allocation;  ///< unset = no serviceAllocation
  friend bool operator==(const Pool&, const Pool&) = default;
};

/// PreferredNodes is one resolved L2 preferredNodeSelector: the nodes it matches and its weight.
struct PreferredNodes {
  int32_t weight = 0;
  std::set<std::string> nodes;
  friend bool operator==(const PreferredNodes&, const PreferredNodes&) = default;
};

struct L2Advertisement {
  std::string name;
  std::set<std::string> pools;  ///< resolved pool names (all pools when none were named/selected)
  std::set<std::string> nodes;  ///< resolved node names (all known nodes when no nodeSelectors)
  std::vector<std::string> interfaces;                ///< empty = all eligible interfaces
  std::vector<api::LabelSelector> service_selectors;  ///< OR; empty = every service
  std::vector<PreferredNodes> preferred_nodes;
  friend bool operator==(const L2Advertisement&, const L2Advertisement&) = default;
};

/// BgpCommunity is a resolved community: standard (A:B, two 16-bit) or large (three 32-bit).
struct BgpCommunity {
  bool large = false;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
  /// toString renders "A:B" or "large:A:B:C" (frr-k8s' withCommunity spelling).
  std::string toString() const;
  friend auto operator<=>(const BgpCommunity&, const BgpCommunity&) = default;
};

struct BgpAdvertisement {
  std::string name;
  int aggregation_length = 32;
  int aggregation_length_v6 = 128;
  uint32_t local_pref = 0;                ///< 0 = not set
  std::vector<BgpCommunity> communities;  ///< sorted, aliases resolved
  std::set<std::string> pools;
  std::set<std::string> nodes;
  std::vector<std::string> peers;  ///< BGPPeer names; empty = all peers
  std::vector<api::LabelSelector> service_selectors;
  friend bool operator==(const BgpAdvertisement&, const BgpAdvertisement&) = default;
};

enum class DynamicAsn { None, Internal, External };

struct Peer {
  std::string name;
  uint32_t my_asn = 0;
  uint32_t peer_asn = 0;  ///< 0 when dynamic_asn is set
  DynamicAsn dynamic_asn = DynamicAsn::None;
  std::optional<uint32_t> local_asn;
  std::optional<net::IpAddress> address;  ///< unset when interface is set
  std::string interface;
  std::optional<net::IpAddress> source_address;
  uint16_t port = 179;
  /// hold_time and keepalive_time are both set or both unset (MetalLB's derivation applied).
  std::optional<std::chrono::nanoseconds> hold_time;
  std::optional<std::chrono::nanoseconds> keepalive_time;
  std::optional<std::chrono::nanoseconds> connect_time;
  std::optional<net::IpAddress> router_id;
  std::set<std::string> nodes;  ///< resolved node names (all known nodes when no nodeSelectors)
  std::string password;
  std::optional<api::SecretReference> password_secret;
  /// secret_password is the password read from password_secret, when that Secret was given.
  std::string secret_password;
  std::string bfd_profile;
  bool enable_graceful_restart = false;
  bool ebgp_multi_hop = false;
  std::string vrf;
  bool disable_mp = false;
  bool dual_stack_address_family = false;
  friend bool operator==(const Peer&, const Peer&) = default;
};

/// BfdProfile is a BFDProfile after validation, with echo and passive mode resolved (unset =
/// false). frrgen renders this same type (frrgen/model.h).
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

/// Config is the parsed snapshot. Maps are keyed by object name; vectors are sorted by name, so
/// iteration order is deterministic.
struct Config {
  std::map<std::string, Pool> pools;
  std::map<std::string, Peer> peers;
  std::map<std::string, BfdProfile> bfd_profiles;
  std::vector<L2Advertisement> l2_advertisements;
  std::vector<BgpAdvertisement> bgp_advertisements;
  std::map<std::string, BgpCommunity> community_aliases;
  friend bool operator==(const Config&, const Config&) = default;
};

using ConfigSharedPtr = std::shared_ptr<const Config>;

/// Inputs is every object the parser reads. Only objects in the MetalLB namespace are passed in
/// by callers; nodes/namespaces are cluster objects used to resolve selectors.
struct Inputs {
  std::vector<api::IPAddressPool> pools;
  std::vector<api::L2Advertisement> l2_advertisements;
  std::vector<api::BGPAdvertisement> bgp_advertisements;
  std::vector<api::BGPPeer> peers;
  std::vector<api::BFDProfile> bfd_profiles;
  std::vector<api::Community> communities;
  std::vector<api::Node> nodes;
  std::vector<api::Namespace> namespaces;
  std::vector<api::Secret> secrets;
};

/// ConfigError names the object and field a problem was found in.
struct ConfigError {
  std::string kind;  ///< e.g. "IPAddressPool"
  std::string namespace_;
  std::string name;
  std::string field;  ///< JSON path, e.g. "spec.addresses[1]"
  std::string message;
  bool transient = false;  ///< a referenced object (BFDProfile, Secret, Community) may appear
  friend bool operator==(const ConfigError&, const ConfigError&) = default;
};

/// formatConfigError renders one parse error: "<Kind> <ns>/<name> <field>: <message>" (parts that
/// are empty are left out).
std::string formatConfigError(const ConfigError& error);

/// ParseOutcome: config is set iff errors is empty.
struct ParseOutcome {
  ConfigSharedPtr config;
  std::vector<ConfigError> errors;
};

struct ParseOptions {
  Backend backend = Backend::FrrK8s;
  std::string metallb_namespace = "metallb-system";
};

/// compatibleLocalPref reports whether two BGPAdvertisements of pool may give its prefixes
/// different LOCAL_PREFs: equal localPref, an aggregation length that differs for every address
/// family the pool holds (for a dual-stack pool both must differ), non-empty peers lists with no
/// common peer, or no common node (MetalLB's BGPAdvertisementsHaveCompatibleLocalPref). The parser
/// applies it to advertisements without serviceSelectors; the announce decision applies it, for
/// the same pool, to the advertisements that select one Service on one node.
bool compatibleLocalPref(const BgpAdvertisement& a, const BgpAdvertisement& b, const Pool& pool);

/// parse builds a Config from inputs, applying every rule of MetalLB's parser for the backend.
/// It collects all problems instead of stopping at the first. Pure: no I/O.
ParseOutcome parse(const Inputs& inputs, const ParseOptions& options);

}  // namespace ingot::config
