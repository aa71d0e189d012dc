// SPDX-License-Identifier: Apache-2.0
// A test cluster: the test API server (e2e/kubeapi/server.py) and ingot-controller as child
// processes on loopback ports they pick themselves, plus helpers to create objects, read them back
// and run kubectl against the server. Used by the integration tests and the benchmark.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/client_config.h"
#include "testing/api_server.h"
#include "testing/daemon_process.h"
#include "testing/process.h"

namespace ingot::controller::testing {

using namespace ::ingot::testing;  // NOLINT(google-build-using-namespace): the shared launcher

/// kTestToken is the bearer token the test server accepts.
inline constexpr const char* kTestToken = "ingot-controller-test-token";

/// KubeApi is one running test API server with its own scratch directory.
class KubeApi {
 public:
  /// start launches the server with extra flags (e.g. {"--fail-writes", "0.1"}) and waits until
  /// it serves (port file written). The error carries the server's log.
  static Result<std::unique_ptr<KubeApi>> start(const std::vector<std::string>& extra_args = {});
  ~KubeApi();

  const std::string& dir() const { return server_->dir(); }
  std::string kubeconfig() const { return server_->kubeconfig(); }
  int port() const { return server_->port(); }
  pid_t pid() const { return server_->pid(); }
  std::string log() const { return server_->log(); }

  /// client returns a REST client for the server without client-side rate limits.
  Result<k8s::ApiClientPtr> client() const;

  /// kubectl runs /usr/bin/kubectl --kubeconfig <this server> <args> (its discovery cache in
  /// this server's directory).
  CommandResult kubectl(const std::string& args) const;

 private:
  std::unique_ptr<ApiServerProcess> server_;
};

/// ControllerProcess is one running ingot-controller.
class ControllerProcess final : public DaemonProcess {
 public:
  /// start runs the binary against the kubeconfig with --namespace metallb-system, ports it
  /// picks and reports, --log-level debug and extra args; log in <dir>/controller-<n>.log.
  static Result<std::unique_ptr<ControllerProcess>> start(
      const std::string& kubeconfig,
      const std::string& dir,
      const std::vector<std::string>& extra = {});

 private:
  ControllerProcess() = default;
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

}  // namespace ingot::controller::testing
