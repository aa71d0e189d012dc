// SPDX-License-Identifier: Apache-2.0
#include "agent/core/predicates.h"

#include <string>

namespace ingot::agent {

bool sliceOfService(const api::EndpointSlice& slice, const api::Service& service) {
  if (slice.metadata.namespace_ != service.metadata.namespace_) {
    return false;
  }
  auto it = slice.metadata.labels.find(std::string(kServiceNameLabel));
  return it != slice.metadata.labels.end() && it->second == service.metadata.name;
}

bool nodeNetworkUnavailable(const api::Node* node) {
  if (node == nullptr) {
    return false;
  }
  for (const auto& c : node->conditions) {
    if (c.type == "NetworkUnavailable") {
      return c.status == "True";
    }
  }
  return false;
}

bool nodeExcludedFromBalancers(const api::Node* node) {
  return node != nullptr &&
         node->metadata.labels.contains("node.kubernetes.io/exclude-from-external-load-balancers");
}

}  // namespace ingot::agent
