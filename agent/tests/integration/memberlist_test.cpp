// SPDX-License-Identifier: Apache-2.0
// Three ingot-agent processes with memberlist on loopback (127.0.0.1-3, one port, as pods on
// three nodes), encrypted with a key file, against the test API server: they find each other
// through the agent Pods that --ml-labels selects, agree on the Layer 2 winner, and when the
// winner's agent is killed (no leave) or stopped (graceful leave) the survivors move the address.
#include <csignal>
#include <cstdlib>
#include <map>
#include <optional>

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/agent_process.h"
#include "controller/tests/integration/fixture.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::controller::testing;
using ingot::agent::testing::AgentProcess;

namespace {

namespace res = k8s::resources;

constexpr int kAgents = 3;
const std::string kKey = "web/frontend";

/// memberlistPort waits for the agent's "memberlist_started" log line and returns the port it
/// reports (the agent bound --ml-bindport=0: the system chose), or 0 when none came.
int memberlistPort(const AgentProcess& agent) {
  const std::string key = "\"bind_port\":";
  int port = 0;
  waitFor(Millis(20000), [&] {
    const std::string log = agent.log();
    const size_t line = log.find("\"event\":\"memberlist_started\"");
    const size_t at = line == std::string::npos ? line : log.find(key, line);
    if (at != std::string::npos) {
      port = std::atoi(log.c_str() + at + key.size());
    }
    return port != 0;
  });
  return port;
}

std::string world() {
  std::string y =
      readWholeFile(std::string(std::getenv("INGOT_SOURCE_DIR")) + "/examples/l2/service.yaml") +
      "\n---\n" +
      readWholeFile(std::string(std::getenv("INGOT_SOURCE_DIR")) + "/examples/l2/pool.yaml");
  for (int n = 1; n <= kAgents; ++n) {
    const std::string name = "n" + std::to_string(n);
    y += "\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {ingot.example/l2-speaker: \"true\"}\n";
    y += "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: agent-" + name +
         "\n  namespace: metallb-system\n  labels: {app: ingot-agent}\n"
         "spec:\n  nodeName: " +
         name + "\n  containers: [{name: agent, image: ingot}]\n";
  }
  y += "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: fe\n"
       "  namespace: web\n  labels: {kubernetes.io/service-name: frontend}\n"
       "addressType: IPv4\nendpoints:\n  - addresses: [10.244.1.5]\n"
       "    conditions: {ready: true}\n    nodeName: n1\n";
  return y;
}

/// winner returns the winner in the agent's last Layer 2 line for kKey (nullopt: none yet).
std::optional<std::string> winner(const AgentProcess& agent) {
  const std::string log = agent.log();
  std::optional<std::string> out;
  size_t at = 0;
  while ((at = log.find("\"op\":\"layer2\"", at)) != std::string::npos) {
    const size_t end = log.find('\n', at);
    const std::string line = log.substr(at, end - at);
    at = end;
    if (line.find("\"key\":\"" + kKey + "\"") == std::string::npos) continue;
    const size_t w = line.find("\"winner\":\"") + 10;
    out = line.substr(w, line.find('"', w) - w);
  }
  return out;
}

/// Lab is the cluster and one agent per node n1..n3, bound to 127.0.0.<n>.
struct Lab {
  Cluster cluster;
  std::map<std::string, std::unique_ptr<AgentProcess>> agents;

  Lab() {
    const std::string dir = cluster.server->dir();
    BOOST_REQUIRE(writeWholeFile(dir + "/world.yaml", world()).has_value());
    cluster.kubectlOk("apply -f " + dir + "/world.yaml");
    patch(res::kServices, "web", "frontend",
          R"({"status":{"loadBalancer":{"ingress":[{"ip":"192.168.10.1"}]}}})");
    for (int n = 1; n <= kAgents; ++n) {
      patch(res::kPods, "metallb-system", "agent-n" + std::to_string(n),
            R"({"status":{"phase":"Running","podIP":"127.0.0.)" + std::to_string(n) + "\"}}");
    }
    BOOST_REQUIRE(writeWholeFile(dir + "/secretkey", "0123456789abcdefghijkl").has_value());
    // The first agent's port is the system's choice; the others bind the same one on their
    // addresses, as agents on three nodes share --ml-bindport.
    std::string port = "0";
    for (int n = 1; n <= kAgents; ++n) {
      const std::string name = "n" + std::to_string(n);
      auto a = AgentProcess::start(
          cluster.server->kubeconfig(), dir,
          {"--node-name=" + name, "--ml-bindaddr=127.0.0." + std::to_string(n),
           "--ml-bindport=" + port, "--ml-labels=app=ingot-agent", "--ml-secret-key-path=" + dir,
           "--ml-tuning-path=" + dir + "/none.json"});
      BOOST_REQUIRE_MESSAGE(a.has_value(), why(a));
      agents[name] = std::move(*a);
      if (n == 1) {
        const int chosen = memberlistPort(*agents[name]);
        BOOST_REQUIRE_MESSAGE(chosen != 0, agents[name]->log());
        port = std::to_string(chosen);
      }
    }
  }

  void patch(const k8s::ResourceRef& ref,
             const std::string& ns,
             const std::string& name,
             const std::string& body) {
    auto r = cluster.api->patchStatus(ref, ns, name, k8s::PatchType::Merge, body);
    BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
  }

  /// agreed waits until every running agent names the same winner, other than `gone` (a
  /// stopped agent the survivors may still name until they notice), and returns it.
  std::string agreed(Millis timeout, const std::string& gone = "") {
    std::string common;
    const bool ok = waitFor(timeout, [&] {
      std::optional<std::string> first;
      for (auto& [name, a] : agents) {
        auto w = winner(*a);
        if (!w || w->empty() || *w == gone || (first && *first != *w)) return false;
        first = w;
      }
      common = *first;
      return true;
    });
    BOOST_REQUIRE_MESSAGE(ok, logs());
    return common;
  }

  std::string logs() const {
    std::string out;
    for (const auto& [name, a] : agents) out += "--- " + name + "\n" + a->log();
    return out;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(memberlist)

BOOST_AUTO_TEST_CASE(agents_gossip_and_move_the_l2_winner_when_a_member_stops) {
  Lab lab;
  // Every agent joined the other two (through the Pods' IPs) and they agree on one winner.
  for (auto& [name, a] : lab.agents) {
    BOOST_REQUIRE_MESSAGE(waitFor(Millis(20000),
                                  [&a = a] {
                                    const std::string log = a->log();
                                    size_t joins = 0;
                                    for (size_t at = 0;
                                         (at = log.find("\"NodeJoin\"", at)) != std::string::npos;
                                         ++at) {
                                      ++joins;
                                    }
                                    return joins >= kAgents - 1;
                                  }),
                          lab.logs());
  }
  const std::string first = lab.agreed(Millis(20000));

  // The winner's agent dies without leaving: the survivors declare it dead and move the address.
  auto& dead = lab.agents.at(first);
  kill(dead->process().pid(), SIGKILL);
  BOOST_REQUIRE(dead->process().waitExit(Millis(10000)).has_value());
  lab.agents.erase(first);
  const std::string second = lab.agreed(Millis(20000), first);
  BOOST_TEST(second != first);
  for (auto& [name, a] : lab.agents) {
    BOOST_TEST(a->log().find("\"node name\":\"" + first + "\",\"node event\":\"NodeLeave\"") !=
                   std::string::npos,
               a->log());
  }

  // The new winner stops gracefully: it leaves (bounded) and exits 0; the last agent takes over.
  auto& leaving = lab.agents.at(second);
  const auto code = leaving->process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), leaving->log());
  BOOST_TEST(*code == 0);
  BOOST_TEST(leaving->log().find("left memberlist cluster") != std::string::npos, leaving->log());
  lab.agents.erase(second);
  const std::string last = lab.agreed(Millis(20000), second);
  BOOST_TEST(last == lab.agents.begin()->first);
}

BOOST_AUTO_TEST_SUITE_END()
