// SPDX-License-Identifier: Apache-2.0
// What the controller's informers keep of each object they cache (client-go's transform
// functions, kube's Informer::Handlers::transform): the fields the allocation, the Service status
// writes, the Events and the unannounced check read. Everything else is dropped before the object
// is cached, so the caches of 10,000 Services and their EndpointSlices stay small.
#pragma once

#include "api/types.h"

namespace ingot::controller {

/// projectService keeps the identity (name, namespace, uid, resourceVersion, generation), the
/// labels (pool and advertisement serviceSelectors), the MetalLB annotations (metallb.io/ and
/// the legacy metallb.universe.tf/), the spec fields convergence reads (type, loadBalancerClass,
/// loadBalancerIP, clusterIP(s), ipFamilies, ipFamilyPolicy, externalTrafficPolicy, port
/// protocols and numbers, the selector of a Local Service: its sharing key) and the whole status,
/// which the status write sends back whole (status.loadBalancer.ingress and status.conditions).
void projectService(api::Service& svc);

/// sameProjectedService is true when two projected versions of a Service differ in nothing but
/// their resourceVersion: the update changed only fields the projection dropped, and the
/// controller, which reads nothing else, has nothing to reconcile.
bool sameProjectedService(const api::Service& a, const api::Service& b);

/// projectEndpointSlice keeps the name, the namespace, the kubernetes.io/service-name label, the
/// address type and, per endpoint, its conditions, its node and its first address: what
/// k8s::PackedSlice holds (kube/compact_cache.h), which the informer caches instead.
void projectEndpointSlice(api::EndpointSlice& slice);

/// projectNode keeps the name, the labels and the type and status of each condition.
void projectNode(api::Node& node);

/// projectPod keeps what agent liveness reads: the node, readiness and the deletion mark.
void projectPod(api::Pod& pod);

/// projectNamespace keeps the name and the labels (pool namespaceSelectors).
void projectNamespace(api::Namespace& ns);

/// projectServiceBGPStatus and projectServiceL2Status keep the name, the namespace, the node and
/// the Service named: what PackedReport holds (controller/compact_cache.h).
void projectServiceBGPStatus(api::ServiceBGPStatus& status);
void projectServiceL2Status(api::ServiceL2Status& status);

}  // namespace ingot::controller
