// SPDX-License-Identifier: Apache-2.0
// `ingotctl frr-k8s`: what frr-k8s would configure on one node's FRR, from FRRConfiguration
// objects in manifest files. The e2e lab's frr-k8s shim uses it to apply the FRRConfigurations
// ingot-agent writes in frr-k8s mode (e2e/netlab/frrk8s_shim.py).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ingot::cli {

/// runFrrK8s: `frr-k8s --node NODE [--frrk8s-namespace NS] [--log-level LEVEL] -f PATH...`.
/// Reads FRRConfigurations, the Node named NODE (its labels drive nodeSelectors) and Secrets;
/// selects the configurations of NS (default frr-k8s-system) for the node, merges them
/// (frrgen::merge, passwords from the Secrets of NS) and prints the frr.conf (frrgen::render).
/// Exit 0 with the text on stdout, 1 when the manifests or the merge are invalid (each problem
/// on stdout / the error on stderr, naming the object), 2 on a usage error.
int runFrrK8s(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

}  // namespace ingot::cli
