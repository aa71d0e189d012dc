// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/compact_cache.h"

#include "agent/reconcile/writes.h"

namespace ingot::agent {
PackedBgpStatus packBgpStatus(const api::ServiceBGPStatus& status) {
  const api::StringMap& labels = status.metadata.labels;
  PackedBgpStatus out;
  out.name = status.metadata.name;
  out.namespace_ = intern(status.metadata.namespace_);
  out.resource_version = status.metadata.resource_version;
  out.node_label = internOrNull(labelOf(labels, kNodeLabel));
  out.service_name_label = labelOf(labels, kServiceNameLabel);
  out.service_namespace_label = internOrNull(labelOf(labels, kServiceNamespaceLabel));
  out.node = intern(status.status.node);
  out.service_name = status.status.service_name;
  out.service_namespace = intern(status.status.service_namespace);
  out.peers.reserve(status.status.peers.size());
  for (const auto& p : status.status.peers) {
    out.peers.push_back(intern(p));
  }
  return out;
}

api::ServiceBGPStatus unpackBgpStatus(const PackedBgpStatus& packed) {
  api::ServiceBGPStatus out;
  out.metadata.name = packed.name;
  out.metadata.namespace_ = *packed.namespace_;
  out.metadata.resource_version = packed.resource_version;
  if (packed.node_label != nullptr) {
    out.metadata.labels.emplace(kNodeLabel, *packed.node_label);
  }
  if (packed.service_name_label) {
    out.metadata.labels.emplace(kServiceNameLabel, *packed.service_name_label);
  }
  if (packed.service_namespace_label != nullptr) {
    out.metadata.labels.emplace(kServiceNamespaceLabel, *packed.service_namespace_label);
  }
  out.status.node = *packed.node;
  out.status.service_name = packed.service_name;
  out.status.service_namespace = *packed.service_namespace;
  out.status.peers.reserve(packed.peers.size());
  for (const std::string* p : packed.peers) {
    out.status.peers.push_back(*p);
  }
  return out;
}

std::string packedStatusService(const PackedBgpStatus& packed) {
  const std::string name = packed.service_name_label.value_or("");
  const std::string ns =
      packed.service_namespace_label != nullptr ? *packed.service_namespace_label : "";
  return name.empty() && ns.empty() ? std::string() : ns + "/" + name;
}

}  // namespace ingot::agent
