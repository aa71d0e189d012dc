// SPDX-License-Identifier: Apache-2.0
// Boost.Test glue over the test cluster (controller/tests/support): every test case gets its own
// API server and controller processes; failures print the controller's and the server's logs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "controller/tests/support/cluster.h"
#include "kube/resources.h"

namespace ingot::controller::testing {

/// why returns a Result's error message ("" on success) for assertion messages.
template <typename R>
std::string why(const R& r) {
  return r.has_value() ? std::string() : r.error().message;
}

/// Cluster is one test API server and a client to it.
struct Cluster {
  std::unique_ptr<KubeApi> server;
  k8s::ApiClientPtr api;

  explicit Cluster(const std::vector<std::string>& server_args = {}) {
    auto s = KubeApi::start(server_args);
    BOOST_REQUIRE_MESSAGE(s.has_value(), why(s));
    server = std::move(*s);
    auto c = server->client();
    BOOST_REQUIRE_MESSAGE(c.has_value(), why(c));
    api = std::move(*c);
  }

  /// startController starts ingot-controller and waits until /readyz says ready.
  std::unique_ptr<ControllerProcess> startController(const std::vector<std::string>& extra = {}) {
    auto c = ControllerProcess::start(server->kubeconfig(), server->dir(), extra);
    BOOST_REQUIRE_MESSAGE(c.has_value(), why(c));
    const bool ready = (*c)->waitReady(Millis(30000));
    BOOST_REQUIRE_MESSAGE(ready, "controller not ready:\n" + (*c)->log());
    return std::move(*c);
  }

  void create(const k8s::ResourceRef& ref, const std::string& ns, const std::string& body) {
    auto r = createRetrying(*api, ref, ns, body);
    BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
  }

  void createService(const std::string& ns,
                     const std::string& name,
                     const std::map<std::string, std::string>& annotations = {}) {
    create(k8s::resources::kServices, ns, serviceJson(ns, name, annotations));
  }

  void createPool(const std::string& name, const std::vector<std::string>& addresses) {
    create(k8s::resources::kIpAddressPools, "metallb-system", poolJson(name, addresses));
  }

  /// services returns name ("ns/name") -> Service.
  std::map<std::string, api::Service> services() {
    auto list = listServices(*api);
    BOOST_REQUIRE_MESSAGE(list.has_value(), why(list));
    std::map<std::string, api::Service> out;
    for (auto& s : *list) out[s.metadata.namespace_ + "/" + s.metadata.name] = std::move(s);
    return out;
  }

  /// kubectlOk runs kubectl and requires success.
  std::string kubectlOk(const std::string& args) {
    const auto r = server->kubectl(args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, "kubectl " + args + " failed:\n" + r.output);
    return r.output;
  }
};

/// stopCleanly sends SIGTERM and requires exit code 0 within 15 s.
inline void stopCleanly(ControllerProcess& c) {
  const auto code = c.process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "controller did not stop on SIGTERM:\n" + c.log());
  BOOST_TEST(*code == 0, "exit code " << *code << "\n" << c.log());
}

}  // namespace ingot::controller::testing
