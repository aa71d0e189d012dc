// SPDX-License-Identifier: Apache-2.0
#include "agent/reconcile/writes.h"

#include <algorithm>

#include "agent/core/election.h"
#include "api/codec.h"
#include "api/configuration_state.h"
#include "common/json/json.h"
#include "common/json/value.h"

namespace ingot::agent {

std::string stateName(const std::string& node) {
  return "speaker-" + node;
}

std::string statusObjectName(const std::string& prefix,
                             const std::string& node,
                             const std::string& service_namespace,
                             const std::string& service_name) {
  static constexpr char kHex[] = "0123456789abcdef";
  constexpr size_t kDigits = 20;
  L2Hasher hasher;  // sha256(a + "#" + b)
  const L2Digest digest = hasher.digest(node, service_namespace + "/" + service_name);
  std::string name = prefix;
  for (size_t i = 0; i < kDigits / 2; ++i) {
    name += kHex[digest[i] >> 4];
    name += kHex[digest[i] & 0xF];
  }
  return name;
}

api::ServiceBGPStatusStatus bgpStatus(const std::string& node,
                                      const std::string& service_namespace,
                                      const std::string& service_name,
                                      std::vector<std::string> peers) {
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return api::ServiceBGPStatusStatus{node, service_name, service_namespace, std::move(peers)};
}

std::string bgpStatusObject(const std::string& ns,
                            const api::ServiceBGPStatusStatus& status,
                            const api::OwnerReference& owner) {
  api::ServiceBGPStatus obj;
  obj.metadata.name =
      statusObjectName("bgp-", status.node, status.service_namespace, status.service_name);
  obj.metadata.namespace_ = ns;
  obj.metadata.labels[kNodeLabel] = status.node;
  obj.metadata.labels[kServiceNameLabel] = status.service_name;
  obj.metadata.labels[kServiceNamespaceLabel] = status.service_namespace;
  if (!owner.uid.empty()) obj.metadata.owner_references.push_back(owner);
  obj.status = status;
  return api::encodeJson(obj);
}

std::string bgpStatusPatch(const api::ServiceBGPStatusStatus& status) {
  json::Value s = json::Value::object();
  s.set("node", json::Value::string(status.node));
  s.set("serviceName", json::Value::string(status.service_name));
  s.set("serviceNamespace", json::Value::string(status.service_namespace));
  json::Value peers = json::Value::array();
  for (const auto& p : status.peers) peers.push(json::Value::string(p));
  s.set("peers", std::move(peers));
  json::Value root = json::Value::object();
  root.set("status", std::move(s));
  return json::write(root);
}

api::ServiceL2StatusStatus l2Status(const std::string& node,
                                    const std::string& service_namespace,
                                    const std::string& service_name,
                                    std::vector<std::string> interfaces) {
  std::sort(interfaces.begin(), interfaces.end());
  interfaces.erase(std::unique(interfaces.begin(), interfaces.end()), interfaces.end());
  return api::ServiceL2StatusStatus{node, service_name, service_namespace, std::move(interfaces)};
}

std::string l2StatusObject(const std::string& ns,
                           const api::ServiceL2StatusStatus& status,
                           const api::OwnerReference& owner) {
  api::ServiceL2Status obj;
  obj.metadata.name =
      statusObjectName("l2-", status.node, status.service_namespace, status.service_name);
  obj.metadata.namespace_ = ns;
  obj.metadata.labels[kNodeLabel] = status.node;
  obj.metadata.labels[kServiceNameLabel] = status.service_name;
  obj.metadata.labels[kServiceNamespaceLabel] = status.service_namespace;
  if (!owner.uid.empty()) {
    obj.metadata.owner_references.push_back(owner);
  }
  obj.status = status;
  return api::encodeJson(obj);
}

std::string l2StatusPatch(const api::ServiceL2StatusStatus& status) {
  json::Value s = json::Value::object();
  s.set("node", json::Value::string(status.node));
  s.set("serviceName", json::Value::string(status.service_name));
  s.set("serviceNamespace", json::Value::string(status.service_namespace));
  if (status.interfaces.empty()) {
    s.set("interfaces", json::Value::null());
  } else {
    json::Value list = json::Value::array();
    for (const auto& name : status.interfaces) {
      json::Value e = json::Value::object();
      e.set("name", json::Value::string(name));
      list.push(std::move(e));
    }
    s.set("interfaces", std::move(list));
  }
  json::Value root = json::Value::object();
  root.set("status", std::move(s));
  return json::write(root);
}

api::ConfigurationStateStatus configurationStateStatus(const StateInputs& inputs,
                                                       const std::string& now) {
  api::ConfigurationStateStatus status;
  api::Condition c{kConfigConditionType, "True", "Reconciled", "", now, 0};
  if (!inputs.config_errors.empty()) {
    std::string joined;
    for (const auto& e : inputs.config_errors) {
      joined += (joined.empty() ? "" : "\n") + config::formatConfigError(e);
    }
    c.status = "False";
    c.reason = "ConfigurationError";
    c.message = "configuration error: " + joined;
    status.error_summary = c.message;
  }
  status.result = inputs.config_errors.empty() ? "Valid" : "Invalid";
  status.conditions.push_back(std::move(c));
  if (inputs.frr_error) {
    const bool ok = inputs.frr_error->empty();
    const bool refused = !ok && inputs.frr_config_error;
    status.conditions.push_back(
        api::Condition{kFrrConditionType, ok ? "True" : "False",
                       ok ? "Reconciled" : (refused ? "ConfigurationError" : "UnknownError"),
                       *inputs.frr_error, now, 0});
    if (!ok) {
      status.error_summary += (status.error_summary.empty() ? "" : "\n") + *inputs.frr_error;
    }
    if (refused) {
      status.result = "Invalid";
    }
  }
  if (inputs.layer2_error) {
    const bool ok = inputs.layer2_error->empty();
    status.conditions.push_back(api::Condition{kLayer2ConditionType, ok ? "True" : "False",
                                               ok ? "Reconciled" : "ResponderUnavailable",
                                               *inputs.layer2_error, now, 0});
  }
  if (inputs.bgp_error) {
    status.conditions.push_back(
        api::Condition{kBgpConditionType, "False", "BGPNotAvailable", *inputs.bgp_error, now, 0});
  }
  if (inputs.draining) {
    status.conditions.push_back(api::Condition{kDrainConditionType, "True", inputs.draining->second,
                                               inputs.draining->first, now, 0});
  }
  return status;
}

std::string configurationStateObject(const std::string& ns,
                                     const std::string& node,
                                     const api::OwnerReference& owner) {
  return api::configurationStateObject(ns, stateName(node), "speaker", {{kNodeNameLabel, node}},
                                       owner);
}

std::string frrConfigurationUpdate(api::FRRConfiguration current,
                                   const api::FRRConfiguration& desired) {
  current.spec = desired.spec;
  return api::encodeJson(current);
}

}  // namespace ingot::agent
