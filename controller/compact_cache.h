// SPDX-License-Identifier: Apache-2.0
// Compact records of the agents' reports the controller caches by the thousand for the
// unannounced check: one ServiceL2Status or ServiceBGPStatus per Service and announcing node.
// The check reads of each only the node and the Service it names, so the informers keep those
// (names of bounded sets interned, kube/compact_cache.h) instead of decoded objects; its
// EndpointSlices are kube's PackedSlice. k8s::StoreView gives the reader the projected objects
// back.
#pragma once

#include <string>

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

}  // namespace ingot::controller
