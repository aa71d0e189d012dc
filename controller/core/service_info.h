// SPDX-License-Identifier: Apache-2.0
// What the controller reads from a Service: MetalLB's annotations (metallb.io/ with the legacy
// metallb.universe.tf/ prefix still honoured, new prefix first), the requested addresses, the
// sharing and backend keys, ports, and the address family of its clusterIPs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "common/net/ip.h"
#include "common/util/result.h"
#include "controller/core/allocator.h"

namespace ingot::controller {

inline constexpr const char* kAnnotationAddressPool = "metallb.io/address-pool";
inline constexpr const char* kAnnotationLoadBalancerIps = "metallb.io/loadBalancerIPs";
inline constexpr const char* kAnnotationAllowSharedIp = "metallb.io/allow-shared-ip";
inline constexpr const char* kAnnotationAllocatedFromPool = "metallb.io/ip-allocated-from-pool";
inline constexpr const char* kLegacyPrefix = "metallb.universe.tf";
inline constexpr const char* kLegacyAnnotationAddressPool = "metallb.universe.tf/address-pool";
inline constexpr const char* kLegacyAnnotationLoadBalancerIps =
    "metallb.universe.tf/loadBalancerIPs";
inline constexpr const char* kLegacyAnnotationAllowSharedIp = "metallb.universe.tf/allow-shared-ip";
inline constexpr const char* kLegacyAnnotationAllocatedFromPool =
    "metallb.universe.tf/ip-allocated-from-pool";

/// serviceKey returns "namespace/name", the allocator's and the events' name for a service.
std::string serviceKey(const api::Service& svc);

/// annotationValue returns the new-prefix annotation if present (even empty), else the legacy
/// one, else "" (MetalLB's valueForAnnotation).
std::string annotationValue(const api::StringMap& annotations,
                            const char* key,
                            const char* legacy_key);

/// selectorString renders a pod selector as Kubernetes' labels.Set.String(): "k=v" pairs sorted
/// by key, joined by ",".
std::string selectorString(const api::StringMap& selector);

/// backendKey is the selector string for externalTrafficPolicy Local, "" otherwise: services
/// with Local traffic may only share an address if they select the same pods.
std::string backendKey(const api::Service& svc);

/// servicePorts lists the (protocol, port) pairs of spec.ports.
std::vector<Port> servicePorts(const api::Service& svc);

/// makeRequest builds what the allocator needs to know about svc.
ServiceRequest makeRequest(const api::Service& svc);

/// familyPolicy reads spec.ipFamilyPolicy (unset = SingleStack).
FamilyPolicy familyPolicy(const api::Service& svc);

/// familyOfAddresses is MetalLB's ipfamily.ForAddresses: one address gives its family; two of
/// different families give Dual; anything else is an error with MetalLB's message.
Result<ServiceFamily> familyOfAddresses(const std::vector<std::string>& addresses);

/// clusterFamily is the family of spec.clusterIPs (or spec.clusterIP when clusterIPs is empty).
Result<ServiceFamily> clusterFamily(const api::Service& svc);

/// makeFamilyRequest combines the clusterIP family, the policy and spec.ipFamilies[0].
FamilyRequest makeFamilyRequest(const api::Service& svc, ServiceFamily family);

/// RequestedIps are the addresses a service asks for (loadBalancerIPs annotation or
/// spec.loadBalancerIP) and their family; empty when it asks for none.
struct RequestedIps {
  std::vector<net::IpAddress> ips;
  ServiceFamily family = ServiceFamily::V4;
};

/// requestedIps parses the requested addresses with MetalLB's rules and error texts (both
/// sources set, unparsable address, two of one family, more than two).
Result<RequestedIps> requestedIps(const api::Service& svc);

/// statusIps returns the non-empty status.loadBalancer.ingress[].ip values, in order.
std::vector<std::string> statusIps(const api::Service& svc);

}  // namespace ingot::controller
