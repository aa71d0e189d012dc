// SPDX-License-Identifier: Apache-2.0
// weights: endpoint-weighted ECMP (docs/weighted-ecmp.md). Whether a Service opts in, and the
// link-bandwidth value a node attaches to its prefixes: its count of ready local endpoints. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"

namespace ingot::agent {

/// kWeightedEcmpAnnotation opts one Service in ("true") or out ("false"), over the agent flag.
inline constexpr std::string_view kWeightedEcmpAnnotation = "ingot.dev/weighted-ecmp";

/// kMaxBandwidth is the largest value FRR's `set extcommunity bandwidth` takes (Mbps).
inline constexpr uint32_t kMaxBandwidth = 25600;

/// WeightOptIn is how a Service's annotation resolves against the cluster-wide default.
enum class WeightOptIn {
  Off,            ///< not weighted
  On,             ///< weighted
  BadAnnotation,  ///< the annotation is neither "true" nor "false": the default applies
};

/// weightOptIn returns whether service is weighted: its kWeightedEcmpAnnotation when "true" or
/// "false", else cluster_default (BadAnnotation when the annotation is present but neither; the
/// caller then uses cluster_default, see weightedEcmp).
WeightOptIn weightOptIn(const api::Service& service, bool cluster_default);

/// weightedEcmp reports whether service is weighted (weightOptIn, a bad annotation falling back to
/// cluster_default).
bool weightedEcmp(const api::Service& service, bool cluster_default);

/// readyLocalEndpoints counts the endpoints of slices on node that have an address and can serve
/// (endpointCanServe): the rule the BGP announce decision uses for externalTrafficPolicy Local.
/// An address listed by several serving endpoints (a slice reshuffle) counts once. The caller
/// passes only the Service's own slices.
uint32_t readyLocalEndpoints(const std::vector<api::EndpointSlice>& slices,
                             const std::string& node);

/// endpointBandwidth returns the link-bandwidth value node announces for service: 0 (no
/// community) unless the Service is weighted (weightedEcmp) and its externalTrafficPolicy is
/// Local; then readyLocalEndpoints capped at kMaxBandwidth (0 when there is none, in which case
/// the node does not announce anyway). ExternalTrafficPolicy Cluster is never weighted: every node
/// forwards to the whole cluster, so all paths get an equal share.
uint32_t endpointBandwidth(const api::Service& service,
                           const std::vector<api::EndpointSlice>& slices,
                           const std::string& node,
                           bool cluster_default);

}  // namespace ingot::agent
