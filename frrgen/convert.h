// SPDX-License-Identifier: Apache-2.0
// convert: one FRRConfiguration → typed routers and BFD profiles, with frr-k8s' per-object
// conversion checks (its api_to_config.go). Merging across objects lives in merge.h.
#pragma once

#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen {

/// Converted is one FRRConfiguration after conversion: its routers in spec order (a router's
/// neighbors in spec order, not yet merged) and its BFD profiles.
struct Converted {
  std::vector<Router> routers;
  std::vector<BfdProfile> bfd_profiles;
};

/// convert validates and converts one FRRConfiguration. secrets are the Secrets of the frr-k8s
/// namespace; a neighbor's passwordSecret is looked up by name among them (its namespace field is
/// ignored, as frr-k8s does). Checks: router ASN 1-4294967295, router id an IPv4 address, VRF,
/// interface and profile names single words; prefixes parse (kept in canonical text); imported
/// VRFs are routers of the same object; per neighbor exactly one of address/interface and of
/// asn/dynamicASN, dynamicASN internal|external, port 0-16384, hold/keepalive both or neither
/// with hold 0 or ≥3 s and keepalive ≤ hold, connectTime whole seconds 1-65535, localASN not on an
/// iBGP session, password xor passwordSecret, password a single word of at most 80 bytes (TCP-MD5),
/// secret of type kubernetes.io/basic-auth with key `password`, BFD profile defined in the same
/// object, advertised prefixes within the router's (and imported VRFs') prefixes and of the
/// neighbor's family, communities and local prefs only on advertised prefixes, no prefix with two
/// local prefs, no community or local pref listed twice per family, toReceive le/ge ordered
/// (mask ≤ ge ≤ le). Errors name the object ("FRRConfiguration ns/name"), the router and neighbor,
/// and the reason; a missing Secret is ErrorCode::Transient.
Result<Converted> convert(const api::FRRConfiguration& config,
                          const std::vector<api::Secret>& secrets);

/// neighborFamilyName returns "ipv4", "ipv6" or "dual" (frr-k8s' spelling).
std::string neighborFamilyName(NeighborFamily f);

}  // namespace ingot::frrgen
