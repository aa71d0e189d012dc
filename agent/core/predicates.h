// SPDX-License-Identifier: Apache-2.0
// Small predicates on Kubernetes objects shared by the agent's decisions: which EndpointSlices
// belong to a Service, and the two Node properties that remove a node from announcing.
#pragma once

#include <string_view>

#include "api/types.h"

namespace ingot::agent {

/// kServiceNameLabel is the EndpointSlice label naming the owning Service.
inline constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";

/// sliceOfService reports whether slice belongs to service: same namespace and the label
/// kubernetes.io/service-name equal to the Service's name.
bool sliceOfService(const api::EndpointSlice& slice, const api::Service& service);

/// nodeNetworkUnavailable reports whether node's first NetworkUnavailable condition has status
/// "True". A null node (not seen by the agent) is not unavailable, as in MetalLB.
bool nodeNetworkUnavailable(const api::Node* node);

/// nodeExcludedFromBalancers reports whether node carries the label
/// node.kubernetes.io/exclude-from-external-load-balancers (any value). A null node is not.
bool nodeExcludedFromBalancers(const api::Node* node);

}  // namespace ingot::agent
