// SPDX-License-Identifier: Apache-2.0
// Compact records of what the agent caches by the thousand besides the Services: the
// EndpointSlices (one or more per Service, kube/compact_cache.h) and this node's
// ServiceBGPStatus objects (one per announced Service). The informers keep these records instead
// of decoded objects: names of bounded sets (namespaces, nodes, peers) interned once for the
// process. CacheView gives the readers the objects back (the projection, field for field) when
// they ask, so the decisions, the status writes and the tests read the same api types as before.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "kube/compact_cache.h"
#include "kube/store.h"

namespace ingot::agent {

// The EndpointSlice records, intern and the view are kube's (kube/compact_cache.h), shared with
// the controller.
using k8s::intern;
using k8s::internOrNull;
using k8s::labelOf;
using k8s::packedDecoder;
using k8s::PackedEndpoint;
using k8s::PackedSlice;
using k8s::packedSliceService;
using k8s::packSlice;
using k8s::unpackSlice;
/// CacheView is how the reconciler reads a cache of T (k8s::StoreView).
template <typename T>
using CacheView = k8s::StoreView<T>;

/// PackedBgpStatus is what the agent keeps of one of its ServiceBGPStatus objects: exactly
/// projectBgpStatus's result (name, namespace, resourceVersion, the node and Service labels,
/// the status).
struct PackedBgpStatus {
  std::string name;
  const std::string* namespace_ = nullptr;  ///< interned
  std::string resource_version;
  const std::string* node_label = nullptr;  ///< interned; null when absent
  std::optional<std::string> service_name_label;
  const std::string* service_namespace_label = nullptr;  ///< interned; null when absent
  const std::string* node = nullptr;                     ///< status.node, interned
  std::string service_name;
  const std::string* service_namespace = nullptr;  ///< interned
  std::vector<const std::string*> peers;           ///< interned BGPPeer names
};

/// packBgpStatus packs what projectBgpStatus keeps of status; unpackBgpStatus returns that
/// projection.
PackedBgpStatus packBgpStatus(const api::ServiceBGPStatus& status);
api::ServiceBGPStatus unpackBgpStatus(const PackedBgpStatus& packed);

/// packedStatusService is statusService over a packed status (the store's index).
std::string packedStatusService(const PackedBgpStatus& packed);

}  // namespace ingot::agent
