// SPDX-License-Identifier: Apache-2.0
// The resource types Ingot reads and writes, as ResourceRefs (group, version, plural, namespaced).
#pragma once

#include "kube/api_client.h"

namespace ingot::k8s::resources {

inline const ResourceRef kServices{"", "v1", "services", true};
inline const ResourceRef kNamespaces{"", "v1", "namespaces", false};
inline const ResourceRef kNodes{"", "v1", "nodes", false};
inline const ResourceRef kEvents{"", "v1", "events", true};
inline const ResourceRef kSecrets{"", "v1", "secrets", true};
inline const ResourceRef kConfigMaps{"", "v1", "configmaps", true};
inline const ResourceRef kPods{"", "v1", "pods", true};
inline const ResourceRef kDeployments{"apps", "v1", "deployments", true};
inline const ResourceRef kEndpointSlices{"discovery.k8s.io", "v1", "endpointslices", true};

inline const ResourceRef kIpAddressPools{"metallb.io", "v1beta1", "ipaddresspools", true};
inline const ResourceRef kL2Advertisements{"metallb.io", "v1beta1", "l2advertisements", true};
inline const ResourceRef kBgpAdvertisements{"metallb.io", "v1beta1", "bgpadvertisements", true};
inline const ResourceRef kBgpPeers{"metallb.io", "v1beta2", "bgppeers", true};
inline const ResourceRef kBfdProfiles{"metallb.io", "v1beta1", "bfdprofiles", true};
inline const ResourceRef kCommunities{"metallb.io", "v1beta1", "communities", true};
inline const ResourceRef kServiceL2Statuses{"metallb.io", "v1beta1", "servicel2statuses", true};
inline const ResourceRef kServiceBgpStatuses{"metallb.io", "v1beta1", "servicebgpstatuses", true};
inline const ResourceRef kConfigurationStates{"metallb.io", "v1beta1", "configurationstates", true};

inline const ResourceRef kFrrConfigurations{"frrk8s.metallb.io", "v1beta1", "frrconfigurations",
                                            true};

}  // namespace ingot::k8s::resources
