// SPDX-License-Identifier: Apache-2.0
// Object sets for the reconciler tests: the repository's examples (examples/bgp and
// examples/cluster/nodes.yaml), loaded the way `ingotctl render` loads them.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "agent/tests/daemon/harness.h"
#include "cli/converge.h"
#include "cli/workspace.h"

namespace ingot::agent::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string sourceDir() {
  const char* d = std::getenv("INGOT_SOURCE_DIR");
  return d != nullptr ? d : ".";
}

/// examples returns examples/bgp and examples/cluster/nodes.yaml as one YAML stream.
inline std::string examples() {
  const std::string dir = sourceDir() + "/examples/";
  std::string out;
  for (const char* f : {"bgp/advertisement.yaml", "bgp/endpoints.yaml", "bgp/peering.yaml",
                        "bgp/service.yaml", "cluster/nodes.yaml"}) {
    out += readFile(dir + f) + "\n---\n";
  }
  return out;
}

/// replaced replaces the first `from` in text (which must contain it).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "test input lacks: " + from);
  return text.replace(at, from.size(), to);
}

/// TempFile holds YAML in a file under /tmp for as long as it lives.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int n = 0;
    path_ =
        "/tmp/ingot-agent-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n) + ".yaml";
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// node1 is the options of an agent on node1, everything else at its default.
inline ReconcilerOptions node1() {
  ReconcilerOptions o;
  o.node = "node1";
  return o;
}

/// loadInto puts the objects of the YAML file into the harness' stores, Services with the
/// addresses the controller would give them (as `ingotctl render` assumes).
inline void loadInto(Harness& h, const std::string& file) {
  cli::Workspace ws = cli::loadWorkspace({file}, {});
  BOOST_REQUIRE_MESSAGE(ws.problems.empty() && ws.parsed.config, "test manifests are invalid");
  std::vector<api::Service> services = ws.services;
  BOOST_REQUIRE(cli::convergeServices(*ws.parsed.config, services, {}));
  for (const auto& o : ws.objects) {
    if (!std::holds_alternative<api::Service>(o.object)) h.world.put(o.object);
  }
  for (const auto& s : services) h.world.put(s);
}

/// firstPass loads the objects of the YAML text (the examples by default) into the harness'
/// stores and runs the configuration pass that an agent starts with.
inline void firstPass(Harness& h, const std::string& yaml = examples()) {
  const TempFile file(yaml);
  loadInto(h, file.path());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
}

/// DesiredProbe is a backend that keeps the Layer 2 part of every Desired it is handed.
struct DesiredProbe final : Backend {
  explicit DesiredProbe(std::vector<L2Announcement>& seen) : seen_(seen) {}
  std::string_view key() const override { return "probe"; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Layer2; }
  std::optional<k8s::Duration> update(const Desired& desired) override {
    seen_ = desired.l2;
    return std::nullopt;
  }
  ReconcileResult apply() override { return ReconcileResult::done(); }
  std::vector<L2Announcement>& seen_;
};

/// startWithL2Service starts h on the examples plus examples/l2's pool with ads (instead of its
/// own advertisement), its Service with address 192.168.10.1 and a ready endpoint on node1.
inline void startWithL2Service(Harness& h, const std::string& ads) {
  const std::string dir = sourceDir() + "/examples/";
  const std::string pool = readFile(dir + "l2/pool.yaml");
  firstPass(h, examples() + pool.substr(0, pool.find("---")) + ads + "---\n" +
                   readFile(dir + "l2/service.yaml") + R"(
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
)");
  auto svc = *h.world.services.get(k8s::objectKey("web", "frontend"));
  api::LoadBalancerIngress ingress;
  ingress.ip = "192.168.10.1";
  svc.status.ingress = {ingress};
  World::upsert(h.world.services, svc, "2");
  h.queue.add(std::string(keys::kSync));
  h.drain();
}

}  // namespace ingot::agent::testing
