// SPDX-License-Identifier: Apache-2.0
// Compact records of what the controller caches by the thousand: every Service (PackedService)
// and, for the unannounced check, the agents' reports (one ServiceL2Status or ServiceBGPStatus
// per Service and announcing node, PackedReport); its EndpointSlices are kube's PackedSlice.
// The informers keep these records instead of decoded objects (names of bounded sets interned,
// kube/compact_cache.h), and k8s::StoreView gives the readers the projected objects back.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace ingot::controller {

/// PackedReport is what the controller keeps of a ServiceL2Status or ServiceBGPStatus: exactly
/// projectServiceL2Status's and projectServiceBGPStatus's result (the name, the namespace and,
/// of the status, the node and the Service named).
struct PackedReport {
  std::string name;
  const std::string* namespace_ = nullptr;  ///< interned
  const std::string* node = nullptr;        ///< status.node, interned
  std::string service_name;
  const std::string* service_namespace = nullptr;  ///< interned
};

/// packBgpReport and packL2Report pack what the projections keep; unpackBgpReport and
/// unpackL2Report return that projection: unpack(pack(s)) == s projected.
PackedReport packBgpReport(const api::ServiceBGPStatus& status);
api::ServiceBGPStatus unpackBgpReport(const PackedReport& packed);
PackedReport packL2Report(const api::ServiceL2Status& status);
api::ServiceL2Status unpackL2Report(const PackedReport& packed);

/// reportServiceKey is the stores' index of a packed report: bgpStatusServiceKey (and
/// l2StatusServiceKey, the same) of its projection.
std::string reportServiceKey(const PackedReport& packed);

/// PackedService is what the controller keeps of a Service: exactly projectService's result.
/// Names of bounded sets (the namespace, the type, label and annotation keys, port names and
/// protocols) are interned; maps become vectors of pairs; the object has no empty fields of
/// what the projection dropped (api::Service is 760 bytes before any of its strings).
struct PackedService {
  using Pairs = std::vector<std::pair<const std::string*, std::string>>;  ///< interned keys
  /// Port is a ServicePort as the projection keeps it (name, targetPort and nodePort dropped).
  struct Port {
    const std::string* protocol = nullptr;  ///< interned
    int32_t port = 0;
    bool operator==(const Port&) const = default;
  };
  std::string name;
  const std::string* namespace_ = nullptr;  ///< interned
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  Pairs labels;
  Pairs annotations;
  const std::string* type = nullptr;  ///< interned
  std::string cluster_ip;
  std::vector<std::string> cluster_ips;
  std::vector<const std::string*> ip_families;    ///< interned
  const std::string* ip_family_policy = nullptr;  ///< interned; null when unset
  std::string load_balancer_ip;
  const std::string* load_balancer_class = nullptr;      ///< interned; null when unset
  const std::string* external_traffic_policy = nullptr;  ///< interned
  Pairs selector;
  std::vector<Port> ports;
  std::vector<api::LoadBalancerIngress> ingress;
  std::vector<api::Condition> conditions;
};

/// packService packs projectService's result of svc; unpackService returns that projection:
/// unpackService(packService(s)) == s projected.
PackedService packService(const api::Service& svc);
api::Service unpackService(const PackedService& packed);

/// samePackedService answers as sameProjectedService over the unpacked Services (the informer's
/// update filter: equal but for the resourceVersion), without unpacking them.
bool samePackedService(const PackedService& a, const PackedService& b);

}  // namespace ingot::controller
