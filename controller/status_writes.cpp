// SPDX-License-Identifier: Apache-2.0
#include "controller/status_writes.h"

#include "api/codec.h"
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

json::Value conditionValue(const api::Condition& c) {
  json::Value v = json::Value::object();
  v.set("type", json::Value::string(c.type));
  v.set("status", json::Value::string(c.status));
  v.set("reason", json::Value::string(c.reason));
  v.set("message", json::Value::string(c.message));
  v.set("lastTransitionTime", json::Value::string(c.last_transition_time));
  return v;
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
  root.set("status", std::move(status));
  return json::write(root);
}

api::Service applyOutcome(api::Service svc, const ServiceOutcome& outcome) {
  svc.status = outcome.status;
  for (const auto& [k, v] : outcome.set_annotations) svc.metadata.annotations[k] = v;
  for (const auto& k : outcome.remove_annotations) svc.metadata.annotations.erase(k);
  return svc;
}

std::string poolStatusPatch(const api::IPAddressPoolStatus& status) {
  return json::write(wrapStatus(statusValue(status)));
}

std::string formatConfigError(const config::ConfigError& error) {
  std::string out = error.kind;
  if (!error.name.empty()) {
    out += (out.empty() ? "" : " ") +
           (error.namespace_.empty() ? error.name : error.namespace_ + "/" + error.name);
  }
  if (!error.field.empty()) out += (out.empty() ? "" : " ") + error.field;
  return out.empty() ? error.message : out + ": " + error.message;
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
    for (const auto& e : errors) joined += (joined.empty() ? "" : "\n") + formatConfigError(e);
    c.status = "False";
    c.reason = "ConfigurationError";
    c.message = "configuration error: " + joined;
    status.result = "Invalid";
    status.error_summary = c.message;
  }
  status.conditions.push_back(std::move(c));
  return status;
}

bool sameConfigurationState(const api::ConfigurationStateStatus& a,
                            const api::ConfigurationStateStatus& b) {
  if (a.result != b.result || a.error_summary != b.error_summary ||
      a.conditions.size() != b.conditions.size()) {
    return false;
  }
  for (size_t i = 0; i < a.conditions.size(); ++i) {
    const auto& x = a.conditions[i];
    const auto& y = b.conditions[i];
    if (x.type != y.type || x.status != y.status || x.reason != y.reason ||
        x.message != y.message) {
      return false;
    }
  }
  return true;
}

std::string configurationStateObject(const std::string& ns, const api::OwnerReference& owner) {
  api::ConfigurationState state;
  state.metadata.name = kConfigurationStateName;
  state.metadata.namespace_ = ns;
  state.metadata.labels[kComponentTypeLabel] = kComponentType;
  if (!owner.uid.empty()) state.metadata.owner_references.push_back(owner);
  return api::encodeJson(state);
}

std::string configurationStatePatch(const api::ConfigurationStateStatus& status) {
  json::Value s = json::Value::object();
  json::Value conditions = json::Value::array();
  for (const auto& c : status.conditions) conditions.push(conditionValue(c));
  s.set("conditions", std::move(conditions));
  s.set("result", json::Value::string(status.result));
  s.set("errorSummary", json::Value::string(status.error_summary));
  return json::write(wrapStatus(std::move(s)));
}

}  // namespace ingot::controller
