// SPDX-License-Identifier: Apache-2.0
#include "agent/tests/support/agent_process.h"

#include "controller/tests/support/cluster.h"

namespace ingot::agent::testing {

using namespace controller::testing;

Result<std::unique_ptr<AgentProcess>> AgentProcess::start(const std::string& kubeconfig,
                                                          const std::string& dir,
                                                          const std::vector<std::string>& extra) {
  static int counter = 0;
  auto a = std::unique_ptr<AgentProcess>(new AgentProcess());
  a->metrics_port_ = freePort();
  a->health_port_ = freePort();
  a->log_path_ = dir + "/agent-" + std::to_string(++counter) + ".log";
  std::vector<std::string> argv = {INGOT_AGENT_BINARY,
                                   "--kubeconfig=" + kubeconfig,
                                   "--namespace=metallb-system",
                                   "--port=" + std::to_string(a->metrics_port_),
                                   "--health-probe-port=" + std::to_string(a->health_port_),
                                   "--log-level=debug"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = Process::spawn(argv, {}, a->log_path_);
  if (!p) return p.error();
  a->process_ = std::move(*p);
  return a;
}

std::string AgentProcess::log() const {
  return readWholeFile(log_path_);
}

bool AgentProcess::waitReady(Millis timeout) {
  return waitFor(timeout,
                 [this] {
                   if (!process_->running()) return true;  // stop waiting; reported below
                   auto r = httpGet(health_port_, "/readyz");
                   return r.has_value() && r->status == 200;
                 }) &&
         process_->running();
}

double AgentProcess::metric(const std::string& series) const {
  auto r = httpGet(metrics_port_, "/metrics");
  if (!r || r->status != 200) return -1;
  return metricValue(r->body, series).value_or(-1);
}

}  // namespace ingot::agent::testing
