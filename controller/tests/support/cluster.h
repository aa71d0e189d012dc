// SPDX-License-Identifier: Apache-2.0
// A test cluster: the test API server (e2e/kubeapi/server.py) and ingot-controller as child
// processes on free loopback ports, plus helpers to create objects, read them back and run
// kubectl against the server. Used by the integration tests and the benchmark.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/types.h"
#include "common/util/result.h"
#include "controller/tests/support/process.h"
#include "kube/api_client.h"
#include "kube/client_config.h"

namespace ingot::controller::testing {

/// kTestToken is the bearer token the test server accepts.
inline constexpr const char* kTestToken = "ingot-controller-test-token";

/// KubeApi is one running test API server with its own scratch directory.
class KubeApi {
 public:
  /// start launches the server with extra flags (e.g. {"--fail-writes", "0.1"}) and waits until
  /// it serves (port file written). The error carries the server's log.
  static Result<std::unique_ptr<KubeApi>> start(const std::vector<std::string>& extra_args = {});
  ~KubeApi();

  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  int port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  std::string log() const;

  /// client returns a REST client for the server without client-side rate limits.
  Result<k8s::ApiClientPtr> client() const;

  /// kubectl runs /usr/bin/kubectl --kubeconfig <this server> <args> (its discovery cache in
  /// this server's directory).
  CommandResult kubectl(const std::string& args) const;

 private:
  std::unique_ptr<Process> process_;
  std::string dir_;
  int port_ = 0;
};

/// ControllerProcess is one running ingot-controller.
class ControllerProcess {
 public:
  /// start runs the binary against the kubeconfig with --namespace metallb-system, free metrics
  /// and health ports, --log-level debug and extra args; log in <dir>/controller-<n>.log.
  static Result<std::unique_ptr<ControllerProcess>> start(
      const std::string& kubeconfig,
      const std::string& dir,
      const std::vector<std::string>& extra = {});

  Process& process() { return *process_; }
  const std::string& logPath() const { return log_path_; }
  std::string log() const { return readWholeFile(log_path_); }
  int metricsPort() const { return metrics_port_; }
  int healthPort() const { return health_port_; }

  /// waitReady polls /readyz until 200 (true) or the timeout / the process exits (false).
  bool waitReady(Millis timeout);

  /// metrics returns the /metrics text ("" when unreachable).
  std::string metrics() const;

  /// metric reads one series from /metrics; -1 when it is absent or the endpoint unreachable.
  double metric(const std::string& series) const {
    return metricValue(metrics(), series).value_or(-1);
  }

 private:
  std::unique_ptr<Process> process_;
  std::string log_path_;
  int metrics_port_ = 0;
  int health_port_ = 0;
};

/// serviceJson renders a Service; type LoadBalancer unless `type` is given. annotations and
/// extra spec JSON members (e.g. R"("loadBalancerClass":"x")") are optional.
std::string serviceJson(const std::string& ns,
                        const std::string& name,
                        const std::map<std::string, std::string>& annotations = {},
                        const std::string& type = "LoadBalancer",
                        const std::string& extra_spec = "");

/// poolJson renders an IPAddressPool in metallb-system.
std::string poolJson(const std::string& name, const std::vector<std::string>& addresses);

/// createRetrying creates an object, retrying server errors (the fault-injecting server fails
/// a fraction of writes) up to 20 times; AlreadyExists counts as success (a retried create).
Result<void> createRetrying(k8s::ApiClient& api,
                            const k8s::ResourceRef& ref,
                            const std::string& ns,
                            const std::string& body);

/// removeRetrying deletes an object, retrying server errors; NotFound counts as success.
Result<void> removeRetrying(k8s::ApiClient& api,
                            const k8s::ResourceRef& ref,
                            const std::string& ns,
                            const std::string& name);

/// listServices returns every Service of the cluster, decoded.
Result<std::vector<api::Service>> listServices(k8s::ApiClient& api);

/// ingressIps returns a Service's status ingress addresses.
std::vector<std::string> ingressIps(const api::Service& svc);

/// poolStatusOf reads an IPAddressPool's status (zeros when it has none).
Result<api::IPAddressPoolStatus> poolStatusOf(k8s::ApiClient& api, const std::string& name);

/// configurationState reads ConfigurationState metallb-system/controller.
Result<api::ConfigurationState> configurationState(k8s::ApiClient& api);

/// eventsFor lists core/v1 Events in ns about the named object: "Type Reason: message" each.
Result<std::vector<std::string>> eventsFor(k8s::ApiClient& api,
                                           const std::string& ns,
                                           const std::string& name);

/// waitFor polls check every 50 ms until it returns true or the timeout passes.
template <typename F>
bool waitFor(Millis timeout, F&& check) {
  const auto deadline = Clock::now() + timeout;
  while (!check()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(Millis(50));
  }
  return true;
}

}  // namespace ingot::controller::testing
