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
  static constexpr auto fields() {
    return std::tuple(field("prefix", &FrrPrefixSelector::prefix, Emit::Always),
                      field("le", &FrrPrefixSelector::le), field("ge", &FrrPrefixSelector::ge));
  }
  friend bool operator==(const FrrPrefixSelector&, const FrrPrefixSelector&) = default;
};

struct FrrLocalPrefPrefixes {
  uint32_t local_pref = 0;  ///< "localPref"
  std::vector<std::string> prefixes;
  static constexpr auto fields() {
    return std::tuple(field("localPref", &FrrLocalPrefPrefixes::local_pref, Emit::Always),
                      field("prefixes", &FrrLocalPrefPrefixes::prefixes));
  }
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
  static constexpr auto fields() {
    return std::tuple(field("community", &FrrCommunityPrefixes::community, Emit::Always),
                      field("prefixes", &FrrCommunityPrefixes::prefixes));
  }
  friend bool operator==(const FrrCommunityPrefixes&, const FrrCommunityPrefixes&) = default;
};

/// FrrAdvertise is neighbor.toAdvertise.
struct FrrAdvertise {
  std::string allowed_mode;                   ///< "allowed.mode": "", "filtered" or "all"
  std::vector<std::string> allowed_prefixes;  ///< "allowed.prefixes"
  std::vector<FrrLocalPrefPrefixes> with_local_pref;
  std::vector<FrrCommunityPrefixes> with_community;
  std::vector<FrrBandwidthPrefixes> with_bandwidth;  ///< Ingot only, not serialised
  static constexpr auto fields() {
    return std::tuple(group("allowed", Emit::OmitEmpty, field("mode", &FrrAdvertise::allowed_mode),
                            field("prefixes", &FrrAdvertise::allowed_prefixes)),
                      field("withLocalPref", &FrrAdvertise::with_local_pref),
                      field("withCommunity", &FrrAdvertise::with_community));
  }
  friend bool operator==(const FrrAdvertise&, const FrrAdvertise&) = default;
};

/// FrrReceive is neighbor.toReceive.
struct FrrReceive {
  std::string allowed_mode;                         ///< "allowed.mode"
  std::vector<FrrPrefixSelector> allowed_prefixes;  ///< "allowed.prefixes"
  static constexpr auto fields() {
    return std::tuple(group("allowed", Emit::OmitEmpty, field("mode", &FrrReceive::allowed_mode),
                            field("prefixes", &FrrReceive::allowed_prefixes)));
  }
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
  static constexpr auto fields() {
    return std::tuple(
        field("asn", &FrrNeighbor::asn), field("dynamicASN", &FrrNeighbor::dynamic_asn),
        field("address", &FrrNeighbor::address), field("interface", &FrrNeighbor::interface),
        field("sourceaddress", &FrrNeighbor::source_address), field("port", &FrrNeighbor::port),
        field("password", &FrrNeighbor::password),
        field("passwordSecret", &FrrNeighbor::password_secret),
        field("holdTime", &FrrNeighbor::hold_time),
        field("keepaliveTime", &FrrNeighbor::keepalive_time),
        field("connectTime", &FrrNeighbor::connect_time),
        field("ebgpMultiHop", &FrrNeighbor::ebgp_multi_hop),
        field("bfdProfile", &FrrNeighbor::bfd_profile),
        field("enableGracefulRestart", &FrrNeighbor::enable_graceful_restart),
        field("localASN", &FrrNeighbor::local_asn),
        field("toAdvertise", &FrrNeighbor::to_advertise),
        field("toReceive", &FrrNeighbor::to_receive), field("disableMP", &FrrNeighbor::disable_mp),
        field("dualStackAddressFamily", &FrrNeighbor::dual_stack_address_family));
  }
  friend bool operator==(const FrrNeighbor&, const FrrNeighbor&) = default;
};

struct FrrRouter {
  uint32_t asn = 0;
  std::string id;
  std::string vrf;
  std::vector<FrrNeighbor> neighbors;
  std::vector<std::string> prefixes;
  std::vector<std::string> imports;  ///< encoded as [{vrf: X}]
  static constexpr auto fields() {
    return std::tuple(field("asn", &FrrRouter::asn, Emit::Always), field("id", &FrrRouter::id),
                      field("vrf", &FrrRouter::vrf), field("neighbors", &FrrRouter::neighbors),
                      field("prefixes", &FrrRouter::prefixes),
                      wrapped("imports", &FrrRouter::imports, "vrf", Emit::OmitEmpty));
  }
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
  static constexpr auto fields() {
    return std::tuple(field("name", &FrrBfdProfile::name, Emit::Always),
                      field("receiveInterval", &FrrBfdProfile::receive_interval),
                      field("transmitInterval", &FrrBfdProfile::transmit_interval),
                      field("detectMultiplier", &FrrBfdProfile::detect_multiplier),
                      field("echoInterval", &FrrBfdProfile::echo_interval),
                      field("echoMode", &FrrBfdProfile::echo_mode),
                      field("passiveMode", &FrrBfdProfile::passive_mode),
                      field("minimumTtl", &FrrBfdProfile::minimum_ttl));
  }
  friend bool operator==(const FrrBfdProfile&, const FrrBfdProfile&) = default;
};

struct FrrRawConfig {
  int32_t priority = 0;
  std::string raw_config;  ///< "rawConfig"
  static constexpr auto fields() {
    return std::tuple(field("priority", &FrrRawConfig::priority),
                      field("rawConfig", &FrrRawConfig::raw_config));
  }
  friend bool operator==(const FrrRawConfig&, const FrrRawConfig&) = default;
};

struct FRRConfigurationSpec {
  std::vector<FrrRouter> routers;           ///< "bgp.routers"
  std::vector<FrrBfdProfile> bfd_profiles;  ///< "bgp.bfdProfiles"
  std::optional<FrrRawConfig> raw;
  LabelSelector node_selector;  ///< "nodeSelector"
  static constexpr auto fields() {
    return std::tuple(
        group("bgp", Emit::OmitEmpty, field("routers", &FRRConfigurationSpec::routers),
              field("bfdProfiles", &FRRConfigurationSpec::bfd_profiles)),
        field("raw", &FRRConfigurationSpec::raw),
        field("nodeSelector", &FRRConfigurationSpec::node_selector));
  }
  friend bool operator==(const FRRConfigurationSpec&, const FRRConfigurationSpec&) = default;
};

struct FRRConfiguration {
  ObjectMeta metadata;
  FRRConfigurationSpec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &FRRConfiguration::metadata, Emit::Always),
                      field("spec", &FRRConfiguration::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const FRRConfiguration&, const FRRConfiguration&) = default;
};

}  // namespace ingot::api
