// SPDX-License-Identifier: Apache-2.0
// What the Layer 2 integration tests share: a node namespace and a peer joined by a veth pair
// (VethLab), the test API server, kubectl and the agent inside the node's namespace, a Service
// with 192.0.2.100 answered on n0. Each test binary holds one case: the API client's worker
// threads are created at its first request and stay in the namespace they were created in, so no
// request may precede entering the node's namespace.
#pragma once

#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/tests/l2/netns.h"
#include "agent/tests/support/agent_process.h"
#include "agent/tests/support/examples.h"
#include "api/codec.h"
#include "controller/tests/integration/fixture.h"
#include "kube/resources.h"

namespace ingot::agent::testing::layer2 {

using controller::testing::Cluster;
using controller::testing::why;
using l2::test::lower;
using l2::test::VethLab;

namespace res = k8s::resources;

inline boost::test_tools::assertion_result canRun(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok(geteuid() == 0);
  if (!ok) {
    ok.message() << "skipped: creating network namespaces needs root";
    return ok;
  }
  ok = boost::test_tools::assertion_result(
      ::ingot::testing::runCommand("command -v arping").exit_code == 0);
  ok.message() << "skipped: arping is not installed";
  return ok;
}

/// objects: the namespace, node1, the Layer 2 pool and advertisement, one Service and its slice.
inline const std::string kObjects = R"(apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: v1
kind: Node
metadata:
  name: node1
  labels: {kubernetes.io/hostname: node1}
---
)" + std::string(agent::testing::kL2PoolYaml) +
                                    R"(---
apiVersion: v1
kind: Service
metadata: {name: frontend, namespace: web}
spec:
  type: LoadBalancer
  ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: frontend-a
  namespace: web
  labels: {kubernetes.io/service-name: frontend}
addressType: IPv4
endpoints:
  - addresses: [10.244.1.5]
    conditions: {ready: true}
    nodeName: node1
ports: [{name: http, protocol: TCP, port: 8080}]
)";

inline std::vector<api::ServiceL2Status> l2Statuses(k8s::ApiClient& api) {
  std::vector<api::ServiceL2Status> out;
  auto page = api.list(res::kServiceL2Statuses, "metallb-system", {});
  if (!page) {
    return out;
  }
  for (const auto& item : page->items) {
    if (auto s = api::decodeJson<api::ServiceL2Status>(item)) {
      out.push_back(*s);
    }
  }
  return out;
}

/// mac returns an interface's MAC, lower case.
inline std::string mac(const VethLab& lab, const std::string& ns, const std::string& link) {
  const std::string out = lower(lab.in(ns, "cat /sys/class/net/" + link + "/address"));
  return out.substr(0, out.find('\n'));
}

/// applyWithAddress applies yaml (kObjects and more) with kubectl and gives web/frontend the
/// address 192.0.2.100, as the controller would.
inline void applyWithAddress(Cluster& cluster, const std::string& yaml) {
  const std::string file = cluster.server->dir() + "/l2.yaml";
  BOOST_REQUIRE(::ingot::testing::writeWholeFile(file, yaml).has_value());
  cluster.kubectlOk("apply -f " + file);
  auto st =
      cluster.api->patchStatus(res::kServices, "web", "frontend", k8s::PatchType::Merge,
                               R"({"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.100"}]}}})");
  BOOST_REQUIRE_MESSAGE(st.has_value(), why(st));
}

/// startReady starts the agent of node1 (no excluded interface) and waits until it is ready.
inline std::unique_ptr<AgentProcess> startReady(Cluster& cluster) {
  auto started = AgentProcess::start(
      cluster.server->kubeconfig(), cluster.server->dir(),
      {"--node-name=node1", "--excludel2-path=" + cluster.server->dir() + "/no-excludel2.yaml"});
  BOOST_REQUIRE_MESSAGE(started.has_value(), why(started));
  BOOST_REQUIRE_MESSAGE((*started)->waitReady(Millis(30000)), (*started)->log());
  return std::move(*started);
}

}  // namespace ingot::agent::testing::layer2
