// SPDX-License-Identifier: Apache-2.0
#include "controller/compact_cache.h"

#include "controller/core/unannounced.h"
#include "kube/compact_cache.h"

namespace ingot::controller {
namespace {

template <typename T>
PackedReport pack(const T& status) {
  PackedReport out;
  out.name = status.metadata.name;
  out.namespace_ = k8s::intern(status.metadata.namespace_);
  out.node = k8s::intern(status.status.node);
  out.service_name = status.status.service_name;
  out.service_namespace = k8s::intern(status.status.service_namespace);
  return out;
}

template <typename T>
T unpack(const PackedReport& packed) {
  T out;
  out.metadata.name = packed.name;
  out.metadata.namespace_ = *packed.namespace_;
  out.status.node = *packed.node;
  out.status.service_name = packed.service_name;
  out.status.service_namespace = *packed.service_namespace;
  return out;
}

}  // namespace

PackedReport packBgpReport(const api::ServiceBGPStatus& status) {
  return pack(status);
}

api::ServiceBGPStatus unpackBgpReport(const PackedReport& packed) {
  return unpack<api::ServiceBGPStatus>(packed);
}

PackedReport packL2Report(const api::ServiceL2Status& status) {
  return pack(status);
}

api::ServiceL2Status unpackL2Report(const PackedReport& packed) {
  return unpack<api::ServiceL2Status>(packed);
}

std::string reportServiceKey(const PackedReport& packed) {
  api::ServiceBGPStatus status;
  status.status.service_name = packed.service_name;
  status.status.service_namespace = *packed.service_namespace;
  return bgpStatusServiceKey(status);
}

}  // namespace ingot::controller
