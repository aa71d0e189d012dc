// SPDX-License-Identifier: Apache-2.0
#include "controller/core/projections.h"

#include <string_view>
#include <utility>

namespace ingot::controller {
namespace {

constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";

bool metallbAnnotation(std::string_view key) {
  return key.starts_with("metallb.io/") || key.starts_with("metallb.universe.tf/");
}

/// identity moves out the fields every projection keeps; labels only when asked.
api::ObjectMeta identity(api::ObjectMeta& m, bool labels) {
  api::ObjectMeta out;
  out.name = std::move(m.name);
  out.namespace_ = std::move(m.namespace_);
  out.uid = std::move(m.uid);
  out.resource_version = std::move(m.resource_version);
  if (labels) {
    out.labels = std::move(m.labels);
  }
  return out;
}

/// nameOnly moves out the name and the namespace: the key of an object nothing else of whose
/// metadata is read (the cache's entry keeps the resourceVersion the informer reads).
api::ObjectMeta nameOnly(api::ObjectMeta& m) {
  api::ObjectMeta out;
  out.name = std::move(m.name);
  out.namespace_ = std::move(m.namespace_);
  return out;
}

}  // namespace

void projectService(api::Service& svc) {
  api::ObjectMeta meta = identity(svc.metadata, true);
  meta.generation = svc.metadata.generation;  // observedGeneration of the Announced condition
  for (auto& [k, v] : svc.metadata.annotations) {
    if (metallbAnnotation(k)) {
      meta.annotations.emplace(k, std::move(v));
    }
  }
  svc.metadata = std::move(meta);
  api::ServiceSpec& spec = svc.spec;
  if (spec.external_traffic_policy != "Local") {
    spec.selector.clear();
  }
  for (auto& p : spec.ports) {
    p.name.clear();
    p.target_port.clear();
    p.node_port = 0;
  }
}

bool sameProjectedService(const api::Service& a, const api::Service& b) {
  const api::ObjectMeta& x = a.metadata;
  const api::ObjectMeta& y = b.metadata;
  return x.name == y.name && x.namespace_ == y.namespace_ && x.uid == y.uid &&
         x.generation == y.generation && x.labels == y.labels && x.annotations == y.annotations &&
         a.spec == b.spec && a.status == b.status;
}

void projectEndpointSlice(api::EndpointSlice& slice) {
  api::ObjectMeta meta = nameOnly(slice.metadata);
  if (auto it = slice.metadata.labels.find(std::string(kServiceNameLabel));
      it != slice.metadata.labels.end()) {
    meta.labels.emplace(it->first, std::move(it->second));
  }
  slice.metadata = std::move(meta);
  slice.ports.clear();
  for (auto& e : slice.endpoints) {
    if (e.addresses.size() > 1) {
      e.addresses.resize(1);
    }
  }
}

void projectNode(api::Node& node) {
  node.metadata = identity(node.metadata, true);
  node.addresses.clear();
  for (auto& c : node.conditions) {
    c.reason.clear();  // reason and message change with every heartbeat; nothing reads them
    c.message.clear();
  }
}

void projectPod(api::Pod& pod) {
  std::optional<std::string> deleting = std::move(pod.metadata.deletion_timestamp);
  pod.metadata = identity(pod.metadata, false);
  pod.metadata.deletion_timestamp = std::move(deleting);
  pod.phase.clear();
  pod.pod_ip.clear();
  pod.pod_ips.clear();
}

void projectNamespace(api::Namespace& ns) {
  ns.metadata = identity(ns.metadata, true);
}

void projectServiceBGPStatus(api::ServiceBGPStatus& status) {
  status.metadata = nameOnly(status.metadata);
  status.status.peers.clear();
}

void projectServiceL2Status(api::ServiceL2Status& status) {
  status.metadata = nameOnly(status.metadata);
  status.status.interfaces.clear();
}

}  // namespace ingot::controller
