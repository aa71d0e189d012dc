// SPDX-License-Identifier: Apache-2.0
// ConfigurationState status helpers shared by the daemons that publish one (the controller's
// `controller` object, the agent's `speaker-<node>`): the object to create, the comparison of two
// statuses and the status-subresource patch. Pure functions of their inputs.
#pragma once

#include <string>

#include "api/types.h"

namespace ingot::api {

/// kComponentTypeLabel names the daemon a ConfigurationState belongs to ("controller",
/// "speaker"), as MetalLB labels it.
inline constexpr const char* kComponentTypeLabel = "metallb.io/component-type";

/// configurationStateObject renders the create body of a daemon's ConfigurationState: its name
/// and namespace, the component-type label plus `labels`, and `owner` when it has a uid.
std::string configurationStateObject(const std::string& ns,
                                     const std::string& name,
                                     const std::string& component,
                                     const StringMap& labels,
                                     const OwnerReference& owner);

/// sameConfigurationState compares two statuses ignoring lastTransitionTime (and
/// observedGeneration): true when writing b over a would change nothing a reader acts on.
bool sameConfigurationState(const ConfigurationStateStatus& a, const ConfigurationStateStatus& b);

/// configurationStatePatch renders {"status": {...}} for configurationstates/status as a JSON
/// merge patch: every condition with type, status, reason, message and lastTransitionTime, and
/// result and errorSummary always present (an empty errorSummary clears an earlier one).
std::string configurationStatePatch(const ConfigurationStateStatus& status);

}  // namespace ingot::api
