// SPDX-License-Identifier: Apache-2.0
// The informers of the unannounced check (docs/diagnostics.md): what the agents' decisions read
// (Nodes, EndpointSlices, BGPPeers, BGPAdvertisements, L2Advertisements), what the agents report
// (ServiceL2Status, ServiceBGPStatus) and the agent Pods (their readiness is the agents'
// liveness). Each change enqueues the Services it can affect: "ann:<ns>/<name>" for one, the
// singleton keys::kAnnounceAll for a change that can affect any.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "controller/reconciler.h"
#include "kube/api_client.h"
#include "kube/controller.h"

namespace ingot::controller {

/// addAnnounceInformers adds the informers to set (MetalLB-namespaced kinds and the agent Pods
/// in ns, selected by agent_labels; the rest cluster-wide) and returns their stores.
std::unique_ptr<AnnounceCaches> addAnnounceInformers(k8s::InformerSet& set,
                                                     k8s::ApiClient& api,
                                                     k8s::WorkQueue& queue,
                                                     const std::string& ns,
                                                     const std::string& agent_labels,
                                                     const k8s::InformerOptions& options,
                                                     const std::function<void(const Error&)>& err);

}  // namespace ingot::controller
