// SPDX-License-Identifier: Apache-2.0
#include "controller/status_writes.h"

#include "api/codec.h"
#include "api/configuration_state.h"
#include "common/json/json.h"
#include "common/json/value.h"

namespace ingot::controller {
namespace {

json::Value ingressValue(const api::LoadBalancerIngress& ingress) {
  json::Value v = json::Value::object();
  if (!ingress.ip.empty()) v.set("ip", json::Value::string(ingress.ip));
  if (!ingress.hostname.empty()) v.set("hostname", json::Value::string(ingress.hostname));
  if (ingress.ip_mode) v.set("ipMode", json::Value::string(*ingress.ip_mode));
  return v;
}

json::Value statusValue(const api::IPAddressPoolStatus& s) {
  json::Value v = json::Value::object();
  v.set("assignedIPv4", json::Value::number(static_cast<int64_t>(s.assigned_ipv4)));
  v.set("assignedIPv6", json::Value::number(static_cast<int64_t>(s.assigned_ipv6)));
  v.set("availableIPv4", json::Value::number(static_cast<int64_t>(s.available_ipv4)));
  v.set("availableIPv6", json::Value::number(static_cast<int64_t>(s.available_ipv6)));
  return v;
}

/// conditionsValue renders metav1.Conditions (null for none, which removes the field).
json::Value conditionsValue(const std::vector<api::Condition>& conditions) {
  if (conditions.empty()) return json::Value::null();
  json::Value list = json::Value::array();
  for (const auto& c : conditions) {
    json::Value v = json::Value::object();
    v.set("type", json::Value::string(c.type));
    v.set("status", json::Value::string(c.status));
    if (c.observed_generation != 0) {
      v.set("observedGeneration", json::Value::number(c.observed_generation));
    }
    v.set("lastTransitionTime", json::Value::string(c.last_transition_time));
    v.set("reason", json::Value::string(c.reason));
    v.set("message", json::Value::string(c.message));
    list.push(std::move(v));
  }
  return list;
}

json::Value wrapStatus(json::Value status) {
  json::Value root = json::Value::object();
  root.set("status", std::move(status));
  return root;
}

}  // namespace

std::string servicePatch(const ServiceOutcome& outcome) {
  json::Value root = json::Value::object();
  if (!outcome.set_annotations.empty() || !outcome.remove_annotations.empty()) {
    json::Value annotations = json::Value::object();
    for (const auto& [k, v] : outcome.set_annotations) annotations.set(k, json::Value::string(v));
    for (const auto& k : outcome.remove_annotations) annotations.set(k, json::Value::null());
    json::Value meta = json::Value::object();
    meta.set("annotations", std::move(annotations));
    root.set("metadata", std::move(meta));
  }
  json::Value ingress = json::Value::null();
  if (!outcome.status.ingress.empty()) {
    ingress = json::Value::array();
    for (const auto& i : outcome.status.ingress) ingress.push(ingressValue(i));
  }
  json::Value lb = json::Value::object();
  lb.set("ingress", std::move(ingress));
  json::Value status = json::Value::object();
  status.set("loadBalancer", std::move(lb));
  if (outcome.write_conditions) {
    status.set("conditions", conditionsValue(outcome.status.conditions));
  }
  root.set("status", std::move(status));
  return json::write(root);
}

api::Service applyOutcome(api::Service svc, const ServiceOutcome& outcome) {
  svc.status = outcome.status;
  for (const auto& [k, v] : outcome.set_annotations) svc.metadata.annotations[k] = v;
  for (const auto& k : outcome.remove_annotations) svc.metadata.annotations.erase(k);
  return svc;
}

std::string conditionsPatch(const std::vector<api::Condition>& conditions) {
  json::Value status = json::Value::object();
  status.set("conditions", conditionsValue(conditions));
  return json::write(wrapStatus(std::move(status)));
}

std::string poolStatusPatch(const api::IPAddressPoolStatus& status) {
  return json::write(wrapStatus(statusValue(status)));
}

api::ConfigurationStateStatus configurationStateStatus(
    const std::vector<config::ConfigError>& errors, const std::string& now) {
  api::ConfigurationStateStatus status;
  api::Condition c;
  c.type = kPoolConditionType;
  c.last_transition_time = now;
  if (errors.empty()) {
    c.status = "True";
    c.reason = "Reconciled";
    status.result = "Valid";
  } else {
    std::string joined;
    for (const auto& e : errors) {
      joined += (joined.empty() ? "" : "\n") + config::formatConfigError(e);
    }
    c.status = "False";
    c.reason = "ConfigurationError";
    c.message = "configuration error: " + joined;
    status.result = "Invalid";
    status.error_summary = c.message;
  }
  status.conditions.push_back(std::move(c));
  return status;
}

std::string configurationStateObject(const std::string& ns, const api::OwnerReference& owner) {
  return api::configurationStateObject(ns, kConfigurationStateName, kComponentType, {}, owner);
}

}  // namespace ingot::controller
