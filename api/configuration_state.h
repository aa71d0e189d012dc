// SPDX-License-Identifier: Apache-2.0
// ConfigurationState status helpers shared by the daemons that publish one (the controller's
// `controller` object, the agent's `speaker-<node>`): compare two statuses and render the
// status-subresource patch. Pure functions of their inputs.
#pragma once

#include <string>

#include "api/types.h"

namespace ingot::api {

/// sameConfigurationState compares two statuses ignoring lastTransitionTime (and
/// observedGeneration): true when writing b over a would change nothing a reader acts on.
bool sameConfigurationState(const ConfigurationStateStatus& a, const ConfigurationStateStatus& b);

/// configurationStatePatch renders {"status": {...}} for configurationstates/status as a JSON
/// merge patch: every condition with type, status, reason, message and lastTransitionTime, and
/// result and errorSummary always present (an empty errorSummary clears an earlier one).
std::string configurationStatePatch(const ConfigurationStateStatus& status);

}  // namespace ingot::api
