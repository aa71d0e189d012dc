// SPDX-License-Identifier: Apache-2.0
// AgentProcess: one ingot-agent child process against a test API server (controller/tests/
// support's KubeApi), on metrics and health ports it picks and reports; killed by PID when
// destroyed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "testing/daemon_process.h"

namespace ingot::agent::testing {

using ingot::testing::Millis;
using ingot::testing::Process;

class AgentProcess final : public ingot::testing::DaemonProcess {
 public:
  /// start runs the binary with --kubeconfig, --namespace metallb-system, a ports file,
  /// --log-level debug and extra args (e.g. --node-name=node1); log in <dir>/agent-<n>.log.
  static Result<std::unique_ptr<AgentProcess>> start(const std::string& kubeconfig,
                                                     const std::string& dir,
                                                     const std::vector<std::string>& extra);

 private:
  AgentProcess() = default;
};

}  // namespace ingot::agent::testing
