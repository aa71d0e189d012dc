// SPDX-License-Identifier: Apache-2.0
// Manifests the agent's integration tests share: the BGP examples as one, and the L2 pool.
#pragma once

#include <cstdlib>
#include <string>

#include "testing/process.h"

namespace ingot::agent::testing {

/// bgpExamplesYaml joins examples/bgp/{service,advertisement,endpoints,peering}.yaml and
/// examples/cluster/nodes.yaml; service.yaml first: it creates the namespace the EndpointSlice
/// lives in.
inline std::string bgpExamplesYaml() {
  std::string out;
  for (const char* f : {"bgp/service.yaml", "bgp/advertisement.yaml", "bgp/endpoints.yaml",
                        "bgp/peering.yaml", "cluster/nodes.yaml"}) {
    out += ingot::testing::readWholeFile(std::string(std::getenv("INGOT_SOURCE_DIR")) +
                                         "/examples/" + f) +
           "\n---\n";
  }
  return out;
}

/// kL2PoolYaml is the Layer 2 tests' pool (192.0.2.100-110) and its L2Advertisement on interface
/// n0, the veth end the tests give the agent; no leading or trailing document separator.
inline constexpr const char* kL2PoolYaml = R"(apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: l2-pool, namespace: metallb-system}
spec:
  addresses: [192.0.2.100-192.0.2.110]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: l2-adv, namespace: metallb-system}
spec:
  ipAddressPools: [l2-pool]
  interfaces: [n0]
)";

}  // namespace ingot::agent::testing
