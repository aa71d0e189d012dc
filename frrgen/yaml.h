// SPDX-License-Identifier: Apache-2.0
// A deterministic YAML rendering of FRRConfiguration, for `ingotctl render` and golden files: keys
// in alphabetic order, unset and empty fields left out (the API's omitempty), except
// echoMode/passiveMode, which MetalLB always sets. YamlOptions::served shows the object as the API
// server returns it.
#pragma once

#include <string>

#include "api/frrk8s.h"

namespace ingot::frrgen {

/// YamlOptions choose the view.
struct YamlOptions {
  /// served prints the spec as the API server stores it (frrgen/served.h): the empty structs
  /// MetalLB's types always serialise (`raw: {}`, `passwordSecret: {}`), the CRD defaults
  /// (`allowed.mode: filtered`, `disableMP: false`, `dualStackAddressFamily: false`), so the
  /// output diffs clean against `kubectl get -o yaml` (server-set metadata aside).
  bool served = false;
};

/// toYaml renders the object as a YAML document (apiVersion, kind, metadata name/namespace/labels,
/// spec). Strings that a YAML 1.1 or 1.2 reader could take for something else (numbers, booleans,
/// "64512:100" sexagesimals, leading or special characters) are double-quoted. Set optional
/// structs (raw, passwordSecret) are printed even when empty (`{}`), as Go serialises them.
std::string toYaml(const api::FRRConfiguration& config, const YamlOptions& options = {});

}  // namespace ingot::frrgen
