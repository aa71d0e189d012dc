// SPDX-License-Identifier: Apache-2.0
#include "agent/core/weights.h"

#include <algorithm>
#include <set>

#include "agent/core/announce.h"

namespace ingot::agent {

WeightOptIn weightOptIn(const api::Service& service, bool cluster_default) {
  const auto& annotations = service.metadata.annotations;
  auto it = annotations.find(std::string(kWeightedEcmpAnnotation));
  if (it == annotations.end()) {
    return cluster_default ? WeightOptIn::On : WeightOptIn::Off;
  }
  if (it->second == "true") {
    return WeightOptIn::On;
  }
  if (it->second == "false") {
    return WeightOptIn::Off;
  }
  return WeightOptIn::BadAnnotation;
}

bool weightedEcmp(const api::Service& service, bool cluster_default) {
  const WeightOptIn w = weightOptIn(service, cluster_default);
  return w == WeightOptIn::On || (w == WeightOptIn::BadAnnotation && cluster_default);
}

uint32_t readyLocalEndpoints(const std::vector<api::EndpointSlice>& slices,
                             const std::string& node) {
  std::set<std::string> addresses;
  for (const auto& slice : slices) {
    for (const auto& ep : slice.endpoints) {
      if (ep.node_name == node && !ep.addresses.empty() && endpointCanServe(ep.conditions)) {
        addresses.insert(ep.addresses.front());
      }
    }
  }
  return static_cast<uint32_t>(addresses.size());
}

uint32_t endpointBandwidth(const api::Service& service,
                           const std::vector<api::EndpointSlice>& slices,
                           const std::string& node,
                           bool cluster_default) {
  if (service.spec.external_traffic_policy != "Local" || !weightedEcmp(service, cluster_default)) {
    return 0;
  }
  return std::min(readyLocalEndpoints(slices, node), kMaxBandwidth);
}

}  // namespace ingot::agent
