// SPDX-License-Identifier: Apache-2.0
// AnyObject: one decoded Kubernetes object of any kind Ingot reads, and the apiVersion/kind that
// identify each C++ type on the wire.
#pragma once

#include <string_view>
#include <variant>

#include "api/frrk8s.h"
#include "api/types.h"

namespace ingot::api {

using AnyObject = std::variant<IPAddressPool,
                               L2Advertisement,
                               BGPAdvertisement,
                               BGPPeer,
                               BGPPeerV1beta1,
                               BFDProfile,
                               Community,
                               ServiceL2Status,
                               ServiceBGPStatus,
                               ConfigurationState,
                               FRRConfiguration,
                               Service,
                               EndpointSlice,
                               Node,
                               Namespace,
                               Secret>;

/// KindOf<T> names the wire identity of T: apiVersion and kind.
template <typename T>
struct KindOf;

#define INGOT_API_KIND(Type, ApiVersion, Kind)                  \
  template <>                                                   \
  struct KindOf<Type> {                                         \
    static constexpr std::string_view kApiVersion = ApiVersion; \
    static constexpr std::string_view kKind = Kind;             \
  }

INGOT_API_KIND(IPAddressPool, "metallb.io/v1beta1", "IPAddressPool");
INGOT_API_KIND(L2Advertisement, "metallb.io/v1beta1", "L2Advertisement");
INGOT_API_KIND(BGPAdvertisement, "metallb.io/v1beta1", "BGPAdvertisement");
INGOT_API_KIND(BGPPeer, "metallb.io/v1beta2", "BGPPeer");
INGOT_API_KIND(BGPPeerV1beta1, "metallb.io/v1beta1", "BGPPeer");
INGOT_API_KIND(BFDProfile, "metallb.io/v1beta1", "BFDProfile");
INGOT_API_KIND(Community, "metallb.io/v1beta1", "Community");
INGOT_API_KIND(ServiceL2Status, "metallb.io/v1beta1", "ServiceL2Status");
INGOT_API_KIND(ServiceBGPStatus, "metallb.io/v1beta1", "ServiceBGPStatus");
INGOT_API_KIND(ConfigurationState, "metallb.io/v1beta1", "ConfigurationState");
INGOT_API_KIND(FRRConfiguration, "frrk8s.metallb.io/v1beta1", "FRRConfiguration");
INGOT_API_KIND(Service, "v1", "Service");
INGOT_API_KIND(EndpointSlice, "discovery.k8s.io/v1", "EndpointSlice");
INGOT_API_KIND(Node, "v1", "Node");
INGOT_API_KIND(Namespace, "v1", "Namespace");
INGOT_API_KIND(Secret, "v1", "Secret");
INGOT_API_KIND(Pod, "v1", "Pod");

#undef INGOT_API_KIND

/// kindOf / apiVersionOf return the wire identity of the object held by an AnyObject.
std::string_view kindOf(const AnyObject& object);
std::string_view apiVersionOf(const AnyObject& object);

/// metaOf returns the metadata of the object held by an AnyObject.
const ObjectMeta& metaOf(const AnyObject& object);
ObjectMeta& metaOf(AnyObject& object);

/// isStrictGroup reports whether apiVersion belongs to a group whose objects Ingot models fully
/// (metallb.io, frrk8s.metallb.io): unknown fields there are errors. Core kinds carry many fields
/// Ingot does not model, so their unknown fields are ignored.
bool isStrictGroup(std::string_view api_version);

}  // namespace ingot::api
