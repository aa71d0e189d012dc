// SPDX-License-Identifier: Apache-2.0
// The repository's BGP examples as one manifest, for the agent's integration tests.
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

}  // namespace ingot::agent::testing
