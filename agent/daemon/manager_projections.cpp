// SPDX-License-Identifier: Apache-2.0
// What the agent's informers keep of the kinds it caches by the thousand: the fields the
// decisions, the status writes and the Events read, nothing else.
#include <optional>
#include <string>

#include "agent/core/drain.h"
#include "agent/core/weights.h"
#include "agent/daemon/manager.h"
#include "agent/reconcile/writes.h"

namespace ingot::agent {
namespace {

/// release empties a string or vector and frees its buffer (clear() keeps the capacity, so the
/// cached object would still hold the bytes of what the projection dropped).
template <typename C>
void release(C& c) {
  C().swap(c);
}

/// slimMeta keeps the identity (name, namespace, uid, resourceVersion) and the labels.
void slimMeta(api::ObjectMeta& m) {
  release(m.generate_name);
  m.generation = 0;
  release(m.creation_timestamp);
  m.deletion_timestamp.reset();
  m.annotations.clear();
  release(m.owner_references);
  release(m.finalizers);
}

}  // namespace

void projectService(api::Service& svc) {
  // Read: the weighted-ECMP opt-in annotation (agent/core/weights.h), the only one kept.
  std::optional<std::string> weighted;
  if (auto it = svc.metadata.annotations.find(std::string(kWeightedEcmpAnnotation));
      it != svc.metadata.annotations.end()) {
    weighted = std::move(it->second);
  }
  slimMeta(svc.metadata);
  if (weighted) {
    svc.metadata.annotations.emplace(std::string(kWeightedEcmpAnnotation), std::move(*weighted));
  }
  // Read: type, loadBalancerClass, externalTrafficPolicy (the announcement gate).
  api::ServiceSpec& spec = svc.spec;
  release(spec.cluster_ip);
  release(spec.cluster_ips);
  release(spec.ip_families);
  spec.ip_family_policy.reset();
  release(spec.load_balancer_ip);
  spec.selector.clear();
  release(spec.ports);
  for (auto& i : svc.status.ingress) {
    release(i.hostname);
    i.ip_mode.reset();
  }
}

void projectEndpointSlice(api::EndpointSlice& slice) {
  slimMeta(slice.metadata);
  release(slice.metadata.uid);  // the cache's entry keeps the resourceVersion the informer reads
  release(slice.metadata.resource_version);
  std::erase_if(slice.metadata.labels,
                [](const auto& l) { return l.first != "kubernetes.io/service-name"; });
  release(slice.ports);
  for (auto& e : slice.endpoints) {
    // Read: whether the endpoint has an address, its conditions and its node.
    if (e.addresses.size() > 1) {
      e.addresses.resize(1);
    }
  }
}

void projectNode(api::Node& node) {
  slimMeta(node.metadata);
  release(node.addresses);
  const bool shutting_down = nodeShuttingDown(node);
  for (auto& c : node.conditions) {
    // Read: type and status (NetworkUnavailable); the text changes with every heartbeat. Only
    // the graceful node shutdown's message is kept (drain-awareness reads it).
    c.reason.clear();
    c.message = shutting_down && c.type == "Ready" ? "node is shutting down" : "";
  }
}

void projectBgpStatus(api::ServiceBGPStatus& status) {
  // Read: the name, the resourceVersion (a pending write landed), the node and Service labels
  // and the status.
  slimMeta(status.metadata);
  release(status.metadata.uid);
  std::erase_if(status.metadata.labels, [](const auto& l) {
    return l.first != kNodeLabel && l.first != kServiceNameLabel &&
           l.first != kServiceNamespaceLabel;
  });
}

void projectPod(api::Pod& pod) {
  slimMeta(pod.metadata);
}

}  // namespace ingot::agent
