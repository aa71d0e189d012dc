// SPDX-License-Identifier: Apache-2.0
// frrk8s.metallb.io/v1beta1 FRRConfiguration: the per-node BGP configuration the agent writes for
// frr-k8s (frr-k8s' api/v1beta1). JSON field names are given where they are not camelCase of the
// C++ name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace ingot::api {

struct FrrPrefixSelector {
  std::string prefix;
  std::optional<uint32_t> le;
  std::optional<uint32_t> ge;
  friend bool operator==(const FrrPrefixSelector&, const FrrPrefixSelector&) = default;
};

struct FrrLocalPrefPrefixes {
  uint32_t local_pref = 0;  ///< "localPref"
  std::vector<std::string> prefixes;
  friend bool operator==(const FrrLocalPrefPrefixes&, const FrrLocalPrefPrefixes&) = default;
};

/// FrrBandwidthPrefixes is Ingot's in-process extension for endpoint-weighted ECMP
/// (docs/weighted-ecmp.md): the prefixes sent with the BGP link-bandwidth extended community of
/// this value (FRR's Mbps). frr-k8s has no such field: it is never serialised, only the local FRR
/// mode renders it.
struct FrrBandwidthPrefixes {
  uint32_t bandwidth = 0;
  std::vector<std::string> prefixes;
  friend bool operator==(const FrrBandwidthPrefixes&, const FrrBandwidthPrefixes&) = default;
};

struct FrrCommunityPrefixes {
  std::string community;
  std::vector<std::string> prefixes;
  friend bool operator==(const FrrCommunityPrefixes&, const FrrCommunityPrefixes&) = default;
};

/// FrrAdvertise is neighbor.toAdvertise.
struct FrrAdvertise {
  std::string allowed_mode;                   ///< "allowed.mode": "", "filtered" or "all"
  std::vector<std::string> allowed_prefixes;  ///< "allowed.prefixes"
  std::vector<FrrLocalPrefPrefixes> with_local_pref;
  std::vector<FrrCommunityPrefixes> with_community;
  std::vector<FrrBandwidthPrefixes> with_bandwidth;  ///< Ingot only, not serialised
  friend bool operator==(const FrrAdvertise&, const FrrAdvertise&) = default;
};

/// FrrReceive is neighbor.toReceive.
struct FrrReceive {
  std::string allowed_mode;                         ///< "allowed.mode"
  std::vector<FrrPrefixSelector> allowed_prefixes;  ///< "allowed.prefixes"
  friend bool operator==(const FrrReceive&, const FrrReceive&) = default;
};

struct FrrNeighbor {
  std::optional<uint32_t> asn;
  std::string dynamic_asn;  ///< "dynamicASN"
  std::string address;
  std::string interface;
  std::string source_address;  ///< JSON key "sourceaddress" (lower case, as frr-k8s spells it)
  std::optional<uint16_t> port;
  std::string password;
  std::optional<SecretReference> password_secret;
  std::optional<Duration> hold_time;
  std::optional<Duration> keepalive_time;
  std::optional<Duration> connect_time;
  bool ebgp_multi_hop = false;
  std::string bfd_profile;
  bool enable_graceful_restart = false;
  std::optional<uint32_t> local_asn;  ///< "localASN"
  FrrAdvertise to_advertise;
  FrrReceive to_receive;
  bool disable_mp = false;                 ///< "disableMP"
  bool dual_stack_address_family = false;  ///< "dualStackAddressFamily"
  friend bool operator==(const FrrNeighbor&, const FrrNeighbor&) = default;
};

struct FrrRouter {
  uint32_t asn = 0;
  std::string id;
  std::string vrf;
  std::vector<FrrNeighbor> neighbors;
  std::vector<std::string> prefixes;
  std::vector<std::string> imports;  ///< encoded as [{vrf: X}]
  friend bool operator==(const FrrRouter&, const FrrRouter&) = default;
};

struct FrrBfdProfile {
  std::string name;
  std::optional<uint32_t> receive_interval;
  std::optional<uint32_t> transmit_interval;
  std::optional<uint32_t> detect_multiplier;
  std::optional<uint32_t> echo_interval;
  std::optional<bool> echo_mode;
  std::optional<bool> passive_mode;
  std::optional<uint32_t> minimum_ttl;
  friend bool operator==(const FrrBfdProfile&, const FrrBfdProfile&) = default;
};

struct FrrRawConfig {
  int32_t priority = 0;
  std::string raw_config;  ///< "rawConfig"
  friend bool operator==(const FrrRawConfig&, const FrrRawConfig&) = default;
};

struct FRRConfigurationSpec {
  std::vector<FrrRouter> routers;           ///< "bgp.routers"
  std::vector<FrrBfdProfile> bfd_profiles;  ///< "bgp.bfdProfiles"
  std::optional<FrrRawConfig> raw;
  LabelSelector node_selector;  ///< "nodeSelector"
  friend bool operator==(const FRRConfigurationSpec&, const FRRConfigurationSpec&) = default;
};

struct FRRConfiguration {
  ObjectMeta metadata;
  FRRConfigurationSpec spec;
  friend bool operator==(const FRRConfiguration&, const FRRConfiguration&) = default;
};

}  // namespace ingot::api
