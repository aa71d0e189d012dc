// SPDX-License-Identifier: Apache-2.0
// AgentProcess: one ingot-agent child process against a test API server (controller/tests/
// support's KubeApi), with free metrics and health ports; killed by PID when destroyed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controller/tests/support/process.h"

namespace ingot::agent::testing {

using controller::testing::Millis;
using controller::testing::Process;

class AgentProcess {
 public:
  /// start runs the binary with --kubeconfig, --namespace metallb-system, free ports,
  /// --log-level debug and extra args (e.g. --node-name=node1); log in <dir>/agent-<n>.log.
  static Result<std::unique_ptr<AgentProcess>> start(const std::string& kubeconfig,
                                                     const std::string& dir,
                                                     const std::vector<std::string>& extra);
  Process& process() { return *process_; }
  std::string log() const;
  /// waitReady polls /readyz until 200 (true) or the timeout / the process exits (false).
  bool waitReady(Millis timeout);
  /// metric reads one series from /metrics; -1 when absent or unreachable.
  double metric(const std::string& series) const;

 private:
  std::unique_ptr<Process> process_;
  std::string log_path_;
  int metrics_port_ = 0;
  int health_port_ = 0;
};

}  // namespace ingot::agent::testing
