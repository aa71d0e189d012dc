// SPDX-License-Identifier: Apache-2.0
#include "api/configuration_state.h"

#include "api/codec.h"
#include "common/json/json.h"
#include "common/json/value.h"

namespace ingot::api {
namespace {

json::Value conditionValue(const Condition& c) {
  json::Value v = json::Value::object();
  v.set("type", json::Value::string(c.type));
  v.set("status", json::Value::string(c.status));
  v.set("reason", json::Value::string(c.reason));
  v.set("message", json::Value::string(c.message));
  v.set("lastTransitionTime", json::Value::string(c.last_transition_time));
  return v;
}

}  // namespace

bool sameConfigurationState(const ConfigurationStateStatus& a, const ConfigurationStateStatus& b) {
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

std::string configurationStatePatch(const ConfigurationStateStatus& status) {
  json::Value s = json::Value::object();
  json::Value conditions = json::Value::array();
  for (const auto& c : status.conditions) conditions.push(conditionValue(c));
  s.set("conditions", std::move(conditions));
  s.set("result", json::Value::string(status.result));
  s.set("errorSummary", json::Value::string(status.error_summary));
  json::Value root = json::Value::object();
  root.set("status", std::move(s));
  return json::write(root);
}

std::string configurationStateObject(const std::string& ns,
                                     const std::string& name,
                                     const std::string& component,
                                     const StringMap& labels,
                                     const OwnerReference& owner) {
  ConfigurationState state;
  state.metadata.name = name;
  state.metadata.namespace_ = ns;
  state.metadata.labels = labels;
  state.metadata.labels[kComponentTypeLabel] = component;
  if (!owner.uid.empty()) state.metadata.owner_references.push_back(owner);
  return encodeJson(state);
}

}  // namespace ingot::api
