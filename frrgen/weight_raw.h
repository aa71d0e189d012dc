// SPDX-License-Identifier: Apache-2.0
// weight_raw: endpoint-weighted ECMP in frr-k8s mode (docs/weighted-ecmp.md). frr-k8s' typed
// FRRConfiguration has no extended communities; its spec.raw text is appended to the end of the
// frr.conf it renders. The text here extends each neighbor's outbound route-map "<id>-out" that
// frr-k8s writes, so that the prefixes with a link-bandwidth (Ingot's in-process withBandwidth)
// leave toward exactly that neighbor with `set extcommunity bandwidth N`:
//
//   route-map <id>-out permit K        frr-k8s' allowed-prefix entries (ip K, ipv6 K+1) get
//    on-match next                     `on-match next`: the allowed prefixes go on past them
//   route-map <id>-out permit 60000+i  one entry per (family, value): match the neighbor's
//    match ip address prefix-list …    "<id>-<N>-ip-bandwidth-prefixes", set the community,
//    set extcommunity bandwidth N      permit
//   route-map <id>-out permit 65534    then the allowed prefixes again (ip 65534, ipv6 65535),
//    match ip address prefix-list <id>-allowed-ipv4   so that every allowed prefix is permitted
//
// K is frr-k8s' own number for the allowed entries (policy.h's frrk8sAllowedSeqs): its counter
// over this object's local-pref and community lists. Another FRRConfiguration adding local-pref or
// community lists toward the same neighbor can only push K later: the `on-match next` then lands
// on one of frr-k8s' attribute entries, which already carry it, and the prefixes leave unweighted
// (never withdrawn, never sent where they were not allowed). A weight change moves a prefix from
// one bandwidth list to another: FRR re-sends it with the new value, no withdrawal, no session
// reset. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen {

/// kWeightRawPriority is spec.raw.priority of the agent's FRRConfiguration.
inline constexpr int32_t kWeightRawPriority = 0;
/// kWeightSeqFirst is the number of the first bandwidth entry of an outbound map.
inline constexpr uint32_t kWeightSeqFirst = 60000;

/// weightRawConfig returns the raw text that carries config's withBandwidth through frr-k8s (see
/// above), neighbors in spec order; "" when no neighbor has one. Errors: config does not convert
/// (convert.h, passwords aside), or a neighbor has more (family, value) pairs than entry numbers
/// between kWeightSeqFirst and the closing entries.
Result<std::string> weightRawConfig(const api::FRRConfiguration& config);

/// weightRawText returns the raw text for routers already converted (their neighbors' outgoing
/// lists carry the bandwidths), neighbors in the given order. Errors: as weightRawConfig.
Result<std::string> weightRawText(const std::vector<Router>& routers);

/// hasBandwidth reports whether a neighbor of config sends a prefix with a link-bandwidth (only
/// then does forFrrK8s change config).
bool hasBandwidth(const api::FRRConfiguration& config);

/// forFrrK8s returns config as written for frr-k8s: withBandwidth (never serialised) moved into
/// spec.raw (kWeightRawPriority); config unchanged when it has none. Errors: weightRawConfig's.
Result<api::FRRConfiguration> forFrrK8s(api::FRRConfiguration config);

}  // namespace ingot::frrgen
