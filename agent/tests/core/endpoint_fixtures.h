// SPDX-License-Identifier: Apache-2.0
// Builders for a Service's EndpointSlices, shared by the BGP announce and the weights tests.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace ingot::agent::testing {

/// endpointOn builds an endpoint with address addr ("" = none) on node ("" = no nodeName) and
/// the given ready and serving conditions (nullopt = unset).
inline api::Endpoint endpointOn(const std::string& addr,
                                const std::string& node,
                                std::optional<bool> ready,
                                std::optional<bool> serving = std::nullopt) {
  api::Endpoint e;
  if (!addr.empty()) {
    e.addresses = {addr};
  }
  e.node_name = node;
  e.conditions.ready = ready;
  e.conditions.serving = serving;
  return e;
}

/// serviceSlice builds the IPv4 EndpointSlice "<service>-<suffix>" of Service default/<service>.
inline api::EndpointSlice serviceSlice(const std::string& service,
                                       std::vector<api::Endpoint> eps,
                                       const std::string& suffix = "abc") {
  api::EndpointSlice s;
  s.metadata.name = service + "-" + suffix;
  s.metadata.namespace_ = "default";
  s.metadata.labels = {{"kubernetes.io/service-name", service}};
  s.address_type = "IPv4";
  s.endpoints = std::move(eps);
  return s;
}

}  // namespace ingot::agent::testing
