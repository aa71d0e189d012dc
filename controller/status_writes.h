// SPDX-License-Identifier: Apache-2.0
// The bodies of everything the controller writes: the Service status merge patch (ingress list
// and ip-allocated-from-pool annotation in one status-subresource write), IPAddressPool status,
// and the ConfigurationState `controller` object and status (its comparison and patch body are
// api/configuration_state.h). Pure functions of their inputs.
#pragma once

#include <string>
#include <vector>

#include "api/types.h"
#include "config/config.h"
#include "controller/core/service.h"

namespace ingot::controller {

/// kConfigurationStateName is the controller's ConfigurationState (MetalLB's name).
inline constexpr const char* kConfigurationStateName = "controller";
/// kComponentType is its api::kComponentTypeLabel.
inline constexpr const char* kComponentType = "controller";
/// kPoolConditionType is the condition the pool reconciler owns.
inline constexpr const char* kPoolConditionType = "poolReconcilerValid";

/// servicePatch renders the JSON merge patch for services/status that makes the Service match
/// outcome: status.loadBalancer.ingress replaced by the desired list (null when empty, which
/// leaves `loadBalancer: {}`), changed annotations set and removed ones set to null. The
/// status subresource of Services applies metadata from the patched object, so the annotation
/// and the status land in one write, as MetalLB's UpdateStatus does.
std::string servicePatch(const ServiceOutcome& outcome);

/// applyOutcome returns svc as it is after servicePatch(outcome) was applied.
api::Service applyOutcome(api::Service svc, const ServiceOutcome& outcome);

/// conditionsPatch renders the merge patch for services/status that sets status.conditions to
/// conditions (null when empty): a merge patch replaces the list whole, so conditions must hold
/// every other writer's conditions as the cache shows them (controller/core/unannounced.h's
/// conditionsWith).
std::string conditionsPatch(const std::vector<api::Condition>& conditions);

/// poolStatusPatch renders {"status": {...}} for ipaddresspools/status.
std::string poolStatusPatch(const api::IPAddressPoolStatus& status);

/// configurationStateStatus builds the controller's ConfigurationState status for a parse
/// result: Valid with condition True/Reconciled when errors is empty; otherwise Invalid with
/// condition False/ConfigurationError, message "configuration error: " + the errors joined by
/// "\n", and errorSummary = that message. now is the RFC 3339 lastTransitionTime.
api::ConfigurationStateStatus configurationStateStatus(
    const std::vector<config::ConfigError>& errors, const std::string& now);

/// configurationStateObject renders the object to create: name `controller` in ns, label
/// metallb.io/component-type=controller, and an ownerReference to owner when its uid is set.
std::string configurationStateObject(const std::string& ns, const api::OwnerReference& owner);

}  // namespace ingot::controller
