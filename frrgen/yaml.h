// SPDX-License-Identifier: Apache-2.0
// A deterministic YAML rendering of FRRConfiguration, for `ingotctl render` and golden files. It
// prints what `kubectl get -o yaml` would show for the object the agent writes: keys in alphabetic
// order, unset and empty fields left out (the API's omitempty), except echoMode/passiveMode, which
// MetalLB always sets.
#pragma once

#include <string>

#include "api/frrk8s.h"

namespace ingot::frrgen {

/// toYaml renders the object as a YAML document (apiVersion, kind, metadata name/namespace/labels,
/// spec). Strings that a YAML 1.1 or 1.2 reader could take for something else (numbers, booleans,
/// "64512:100" sexagesimals, leading or special characters) are double-quoted.
std::string toYaml(const api::FRRConfiguration& config);

}  // namespace ingot::frrgen
