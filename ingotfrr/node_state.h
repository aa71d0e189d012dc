// SPDX-License-Identifier: Apache-2.0
// FRRNodeState <node> (frrk8s.metallb.io/v1beta1, cluster-scoped): the status frr-k8s keeps per
// node — FRR's running configuration after the last apply, the result of the last conversion
// ("success" or "failed: <reason>") and of the last reload ("success" or the failure) — with every
// password retracted, as frr-k8s writes it.
#pragma once

#include <optional>
#include <string>

#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"

namespace ingot::ingotfrr {

/// kFrrNodeStates is the frrnodestates resource.
inline const k8s::ResourceRef kFrrNodeStates{"frrk8s.metallb.io", "v1beta1", "frrnodestates",
                                             false};

/// NodeStatus is FRRNodeState.status.
struct NodeStatus {
  std::string running_config;          ///< "runningConfig"
  std::string last_conversion_result;  ///< "lastConversionResult"
  std::string last_reload_result;      ///< "lastReloadResult"
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

/// redacted returns status with every "password <word>" replaced by "password <retracted>".
NodeStatus redacted(NodeStatus status);

/// statusPatchJson returns the merge patch {"status": {...}} of a (redacted) status. Pure.
std::string statusPatchJson(const NodeStatus& status);

/// NodeStateWriter writes FRRNodeState <node>, creating it when missing, and skips a write equal
/// to the last one that succeeded. Not thread-safe (the daemon's worker).
class NodeStateWriter {
 public:
  NodeStateWriter(k8s::ApiClient& api, std::string node) : api_(api), node_(std::move(node)) {}

  /// write stores status (redacted). Errors name the object and the API's reason; the caller
  /// retries (the next write re-sends).
  Result<void> write(const NodeStatus& status);

 private:
  k8s::ApiClient& api_;
  std::string node_;
  std::optional<NodeStatus> written_;
};

}  // namespace ingot::ingotfrr
