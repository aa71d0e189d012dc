// SPDX-License-Identifier: Apache-2.0
#include "agent/tests/support/agent_process.h"

namespace ingot::agent::testing {

Result<std::unique_ptr<AgentProcess>> AgentProcess::start(const std::string& kubeconfig,
                                                          const std::string& dir,
                                                          const std::vector<std::string>& extra) {
  auto a = std::unique_ptr<AgentProcess>(new AgentProcess());
  if (auto ok = a->launch(INGOT_AGENT_BINARY, "agent", kubeconfig, dir, extra); !ok) {
    return ok.error();
  }
  return a;
}

}  // namespace ingot::agent::testing
