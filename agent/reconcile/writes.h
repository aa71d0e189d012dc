// SPDX-License-Identifier: Apache-2.0
// The bodies of everything the agent writes: ServiceBGPStatus, the
// ConfigurationState `speaker-<node>` and the update of FRRConfiguration metallb-<node>.
// Pure functions of their inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/frrk8s.h"
#include "api/types.h"
#include "config/config.h"

namespace ingot::agent {

inline constexpr const char* kNodeLabel = "metallb.io/node";
inline constexpr const char* kServiceNameLabel = "metallb.io/service-name";
inline constexpr const char* kServiceNamespaceLabel = "metallb.io/service-namespace";
inline constexpr const char* kNodeNameLabel = "metallb.io/node-name";
/// kConfigConditionType is the condition of the configuration parse (MetalLB's).
inline constexpr const char* kConfigConditionType = "configReconcilerValid";
/// kFrrConditionType is Ingot's condition for applying frr.conf to the node's FRR (frr mode).
inline constexpr const char* kFrrConditionType = "frrReloadValid";
/// kLayer2ConditionType is Ingot's condition for the ARP/NDP responder (it needs CAP_NET_RAW).
inline constexpr const char* kLayer2ConditionType = "layer2ResponderValid";
/// kBgpConditionType is Ingot's condition for BGPPeers this node cannot serve: the agent runs
/// Layer 2 only (--bgp-mode=none) or frr-k8s is not installed.
inline constexpr const char* kBgpConditionType = "bgpBackendValid";
/// kDrainConditionType is Ingot's condition of a draining node (drain-awareness).
inline constexpr const char* kDrainConditionType = "draining";

/// stateName returns the agent's ConfigurationState name: "speaker-<node>".
std::string stateName(const std::string& node);

/// statusObjectName returns the name of this node's status object for a Service: prefix ("bgp-"
/// or "l2-", MetalLB's generateName prefixes) and 20 hex digits of
/// sha256(node + "#" + service_namespace + "/" + service_name). MetalLB lets the server pick a
/// random suffix; a name that follows from the labels makes the create idempotent: a create
/// repeated after an ambiguous failure (a 504 on a write that did commit) gets AlreadyExists
/// instead of making a second object. Other agents find the objects by their labels, as before.
std::string statusObjectName(const std::string& prefix,
                             const std::string& node,
                             const std::string& service_namespace,
                             const std::string& service_name);

/// bgpStatusObject renders the ServiceBGPStatus to create for (service, node): named by
/// statusObjectName("bgp-", ...), the three labels, an ownerReference to owner when its uid is
/// set, and the status (which the server ignores on create; bgpStatusPatch writes it).
std::string bgpStatusObject(const std::string& ns,
                            const api::ServiceBGPStatusStatus& status,
                            const api::OwnerReference& owner);

/// bgpStatus builds the desired status: node, service name and namespace, peers sorted.
api::ServiceBGPStatusStatus bgpStatus(const std::string& node,
                                      const std::string& service_namespace,
                                      const std::string& service_name,
                                      std::vector<std::string> peers);

/// bgpStatusPatch renders {"status": {...}} for servicebgpstatuses/status.
std::string bgpStatusPatch(const api::ServiceBGPStatusStatus& status);

/// l2Status builds the desired ServiceL2Status status: node, service name and namespace, and the
/// interface names sorted (empty: every interface, and MetalLB then writes no list).
api::ServiceL2StatusStatus l2Status(const std::string& node,
                                    const std::string& service_namespace,
                                    const std::string& service_name,
                                    std::vector<std::string> interfaces);

/// l2StatusObject renders the ServiceL2Status to create: named by statusObjectName("l2-", ...),
/// the labels
/// metallb.io/node, metallb.io/service-name and metallb.io/service-namespace, an ownerReference
/// to owner when its uid is set, and the status (which l2StatusPatch writes).
std::string l2StatusObject(const std::string& ns,
                           const api::ServiceL2StatusStatus& status,
                           const api::OwnerReference& owner);

/// l2StatusPatch renders {"status": {...}} for servicel2statuses/status as a JSON merge patch
/// (interfaces null when empty, which removes an earlier list).
std::string l2StatusPatch(const api::ServiceL2StatusStatus& status);

/// StateInputs are the agent's reconcilers' outcomes for ConfigurationState.
struct StateInputs {
  std::vector<config::ConfigError> config_errors;
  /// frr_error: frr mode only; nullopt = no apply attempted yet (no condition), "" = applied.
  std::optional<std::string> frr_error;
  /// layer2_error: nullopt = the responder was never needed, "" = it runs, else why not.
  std::optional<std::string> layer2_error;
  /// bgp_error: which BGPPeers of this node are not served and why (nullopt: none is left so).
  std::optional<std::string> bgp_error = std::nullopt;
  /// frr_config_error: frr_error describes configuration FRR refused (not FRR unreachable).
  bool frr_config_error = false;
  /// draining: this node drains (drainMessage) and the phase's condition reason
  /// ("GracefulShutdown" or "Withdrawn"); nullopt when it serves.
  std::optional<std::pair<std::string, std::string>> draining = std::nullopt;
};

/// configurationStateStatus builds speaker-<node>'s status: condition configReconcilerValid
/// True/Reconciled, or False/ConfigurationError "configuration error: <errors joined by \n>";
/// in frr mode also frrReloadValid True/Reconciled or False with <message>, reason
/// ConfigurationError when FRR refused part of the configuration (frr_config_error), else
/// UnknownError; once the Layer 2 responder was needed also layer2ResponderValid
/// True/Reconciled or False/ResponderUnavailable <message>; while BGPPeers are not served,
/// bgpBackendValid False/BGPNotAvailable <message> (not a configuration error). result is Invalid
/// when any condition is False with ConfigurationError, else Valid; errorSummary is the messages
/// of the False configReconcilerValid and frrReloadValid conditions joined by "\n" (an FRR apply
/// failure is shown where `kubectl get configurationstates` shows it). While the node drains,
/// a condition draining True with the phase as reason and the drain message (not an error). now
/// is the lastTransitionTime.
api::ConfigurationStateStatus configurationStateStatus(const StateInputs& inputs,
                                                       const std::string& now);

/// configurationStateObject renders the object to create: name speaker-<node> in ns, labels
/// metallb.io/component-type=speaker and metallb.io/node-name=<node>, ownerReference to owner
/// when its uid is set.
std::string configurationStateObject(const std::string& ns,
                                     const std::string& node,
                                     const api::OwnerReference& owner);

/// frrConfigurationUpdate renders the PUT body that gives `current` (as read, with its
/// resourceVersion, labels and annotations) the spec of `desired`.
std::string frrConfigurationUpdate(api::FRRConfiguration current,
                                   const api::FRRConfiguration& desired);

}  // namespace ingot::agent
