// SPDX-License-Identifier: Apache-2.0
// What the agent's informers keep of the kinds it caches by the thousand: the fields the
// decisions, the status writes and the Events read, nothing else.
#include <optional>
#include <string>

#include "agent/core/drain.h"
#include "agent/core/weights.h"
#include "agent/manager.h"
#include "agent/writes.h"

namespace ingot::agent {
namespace {

/// slimMeta keeps the identity (name, namespace, uid, resourceVersion) and the labels.
void slimMeta(api::ObjectMeta& m) {
  m.generate_name.clear();
  m.generation = 0;
  m.creation_timestamp.clear();
  m.deletion_timestamp.reset();
  m.annotations.clear();
  m.owner_references.clear();
  m.finalizers.clear();
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
  spec.cluster_ip.clear();
  spec.cluster_ips.clear();
  spec.ip_families.clear();
  spec.ip_family_policy.reset();
  spec.load_balancer_ip.clear();
  spec.selector.clear();
  spec.ports.clear();
  for (auto& i : svc.status.ingress) {
    i.hostname.clear();
    i.ip_mode.reset();
  }
}

void projectEndpointSlice(api::EndpointSlice& slice) {
  slimMeta(slice.metadata);
  slice.metadata.uid.clear();  // the cache's entry keeps the resourceVersion the informer reads
  slice.metadata.resource_version.clear();
  std::erase_if(slice.metadata.labels,
                [](const auto& l) { return l.first != "kubernetes.io/service-name"; });
  slice.ports.clear();
  for (auto& e : slice.endpoints) {
    // Read: whether the endpoint has an address, its conditions and its node.
    if (e.addresses.size() > 1) {
      e.addresses.resize(1);
    }
  }
}

void projectNode(api::Node& node) {
  slimMeta(node.metadata);
  node.addresses.clear();
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
  status.metadata.uid.clear();
  std::erase_if(status.metadata.labels, [](const auto& l) {
    return l.first != kNodeLabel && l.first != kServiceNameLabel &&
           l.first != kServiceNamespaceLabel;
  });
}

void projectPod(api::Pod& pod) {
  slimMeta(pod.metadata);
}

}  // namespace ingot::agent
