// SPDX-License-Identifier: Apache-2.0
// served: an FRRConfiguration spec as the API server stores it and `kubectl get -o yaml` shows it.
// Two things make the live object differ from the one written: MetalLB's Go types serialise some
// empty structs whatever their content (`raw: {}`, a neighbor's `passwordSecret: {}` and
// `toReceive: {allowed: {}}`), and the frr-k8s CRD (v0.0.25) defaults every neighbor's
// `toAdvertise.allowed.mode` and `toReceive.allowed.mode` to `filtered` and `disableMP` and
// `dualStackAddressFamily` to false. Comparing specs through servedSpec makes a spec and its
// stored copy equal, so a writer does not rewrite the object for what the server filled in.
#pragma once

#include "api/frrk8s.h"

namespace ingot::frrgen {

/// kAllowedModeDefault is the frr-k8s CRD default of toAdvertise/toReceive `allowed.mode`.
inline constexpr const char* kAllowedModeDefault = "filtered";

/// servedSpec returns spec with those empty structs present and those defaults filled in: an
/// unset raw becomes an empty one, an unset passwordSecret an empty reference, an empty
/// allowed.mode "filtered"; Ingot's in-process withBandwidth, which is never serialised, is
/// dropped. Idempotent; everything else is kept as is.
api::FRRConfigurationSpec servedSpec(api::FRRConfigurationSpec spec);

/// sameServedSpec reports whether a and b are the same object once stored (servedSpec of each
/// compared), e.g. the spec a writer wants and the live one the server returned.
bool sameServedSpec(const api::FRRConfigurationSpec& a, const api::FRRConfigurationSpec& b);

/// hasSessionsOrProfiles reports whether the spec configures anything: a router or a BFD
/// profile. MetalLB writes no FRRConfiguration for a node without either (and deletes one that
/// exists), so neither does Ingot.
bool hasSessionsOrProfiles(const api::FRRConfigurationSpec& spec);

}  // namespace ingot::frrgen
