// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/node_state.h"

#include "common/json/json.h"
#include "common/json/value.h"
#include "frr/frr_driver.h"

namespace ingot::ingotfrr {

NodeStatus redacted(NodeStatus status) {
  status.running_config = frr::retractPasswords(status.running_config);
  status.last_conversion_result = frr::retractPasswords(status.last_conversion_result);
  status.last_reload_result = frr::retractPasswords(status.last_reload_result);
  return status;
}

std::string statusPatchJson(const NodeStatus& status) {
  json::Value s = json::Value::object();
  s.set("lastConversionResult", json::Value::string(status.last_conversion_result));
  s.set("lastReloadResult", json::Value::string(status.last_reload_result));
  s.set("runningConfig", json::Value::string(status.running_config));
  json::Value patch = json::Value::object();
  patch.set("status", std::move(s));
  return json::write(patch);
}

Result<void> NodeStateWriter::write(const NodeStatus& status) {
  const NodeStatus clean = redacted(status);
  if (written_ && *written_ == clean) {
    return {};
  }
  const std::string where = "FRRNodeState " + node_;
  if (auto got = api_.get(kFrrNodeStates, "", node_); !got) {
    if (got.error().code != ErrorCode::NotFound) {
      return Error{got.error().code, "read " + where + ": " + got.error().message};
    }
    json::Value meta = json::Value::object();
    meta.set("name", json::Value::string(node_));
    json::Value obj = json::Value::object();
    obj.set("apiVersion", json::Value::string("frrk8s.metallb.io/v1beta1"));
    obj.set("kind", json::Value::string("FRRNodeState"));
    obj.set("metadata", std::move(meta));
    auto created = api_.create(kFrrNodeStates, "", json::write(obj));
    if (!created && created.error().code != ErrorCode::AlreadyExists) {
      return Error{created.error().code, "create " + where + ": " + created.error().message};
    }
  }
  auto patched =
      api_.patchStatus(kFrrNodeStates, "", node_, k8s::PatchType::Merge, statusPatchJson(clean));
  if (!patched) {
    return Error{patched.error().code, "write " + where + " status: " + patched.error().message};
  }
  written_ = clean;
  return {};
}

}  // namespace ingot::ingotfrr
