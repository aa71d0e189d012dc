// SPDX-License-Identifier: Apache-2.0
// The per-Service path (a Service's own key) against a full pass: two reconcilers over the same
// random sequences of Service (weighted ECMP or not), EndpointSlice (endpoint counts) and Node
// changes, one handed each change's Service key and the objects projected as the agent's
// informers do, the other a full pass over the full objects each time, must hand the backends the
// same announcements (link-bandwidth included; the per-Service side hands over the changed
// Services alone, which the BGP backend patches in), write the same FRRConfiguration and
// ServiceBGPStatus objects and record the same Events.
#include <algorithm>
#include <random>

#include <boost/test/unit_test.hpp>

#include "agent/daemon/manager.h"
#include "agent/tests/daemon/fixtures.h"

namespace ingot::agent {
namespace {

using testing::Harness;

/// Probe keeps the BGP announcements it was handed by Service, following a hand-off of changes
/// alone as a BGP backend does, and renders the last Desired as text. A hand-off of changes whose
/// result differs from what Desired::bgp_all says is every announcement is counted as a mismatch.
struct Probe final : Backend {
  Probe(std::string& seen, int& mismatches, int& changes)
      : seen_(seen), mismatches_(mismatches), changes_(changes) {}
  std::string_view key() const override { return "probe"; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Layer2; }
  std::optional<k8s::Duration> update(const Desired& desired) override {
    if (desired.bgp_changes == nullptr) {
      by_service_.clear();
      for (const auto& a : desired.bgp) by_service_[a.service].push_back(a);
    } else {
      ++changes_;
      for (const auto& c : *desired.bgp_changes) {
        if (c.announcements.empty()) {
          by_service_.erase(c.service);
        } else {
          by_service_[c.service] = c.announcements;
        }
      }
    }
    std::vector<Announcement> all;
    for (const auto& [key, anns] : by_service_) all.insert(all.end(), anns.begin(), anns.end());
    if (all != desired.allBgp()) ++mismatches_;
    seen_.clear();
    for (const auto& a : all) {
      seen_ += a.prefix.toString() + "|" + std::to_string(a.local_pref) + "|" + a.service + "|" +
               a.advertisement + "|bw" + std::to_string(a.bandwidth) + "|";
      for (const auto& c : a.communities) seen_ += c.toString() + ",";
      for (const auto& p : a.peers) seen_ += p + ",";
      seen_ += "\n";
    }
    for (const auto& a : desired.l2) {
      seen_ += "l2 " + a.key() + "|";
      for (const auto& ip : a.ips) seen_ += ip.toString() + ",";
      seen_ += a.interfaces ? std::to_string(a.interfaces->size()) : "all";
      seen_ += "\n";
    }
    return std::nullopt;
  }
  ReconcileResult apply() override { return ReconcileResult::done(); }
  std::string& seen_;
  int& mismatches_;
  int& changes_;  ///< hand-offs of changes alone
  std::map<std::string, std::vector<Announcement>, ServiceKeyLess> by_service_;
};

ReconcilerOptions options() {
  ReconcilerOptions o;
  o.node = "node1";
  o.overlay_ttl = std::chrono::hours(24);  // no informer echoes the writes here
  o.status_writes_per_pass = 3;            // passes that stop half-way and continue
  return o;
}

/// Side is one reconciler of the pair, with the last Desired its probe saw.
struct Side {
  std::string seen;
  int mismatches = 0;
  int changes = 0;
  Harness h{options(), nullptr, [this](const BackendContext&) {
              return std::make_unique<Probe>(seen, mismatches, changes);
            }};

  void settle() {
    for (int i = 0; i < 4; ++i) {
      h.drain();
      h.clock.advance(std::chrono::seconds(1));  // past the debounce
    }
  }

  /// statuses are the ServiceBGPStatus objects as the writes left them, by content.
  std::vector<std::string> statuses() const {
    std::map<std::string, std::string> live;
    for (const auto& w : h.api.writes()) {
      if (w.name.rfind("bgp-", 0) != 0) continue;
      if (w.verb == "patchStatus") live[w.name] = w.body;
      if (w.verb == "remove") live.erase(w.name);
    }
    std::vector<std::string> out;
    out.reserve(live.size());
    for (auto& [name, body] : live) out.push_back(std::move(body));
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (const auto& e : h.events.events) {
      out.push_back(e.object.namespace_ + "/" + e.object.name + " " + e.reason);
    }
    return out;
  }
};

const std::vector<std::string> kNamespaces = {"a", "a-b", "shop"};
const std::vector<std::string> kIps = {"10.200.0.10",
                                       "10.200.0.11",
                                       "10.200.0.12",
                                       "192.168.10.5",
                                       "192.168.10.6",
                                       "192.168.10.7",
                                       ""};

/// kPool is a pool bgp-adv announces (by label) that bgp-aggregate does not.
const char* const kPool = R"(
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: more
  namespace: metallb-system
  labels: {ingot.example/announce: bgp}
spec:
  addresses: [10.200.0.0/24]
)";

api::Service service(const std::string& ns, const std::string& name, std::mt19937& rng, int rv) {
  api::Service s;
  s.metadata.namespace_ = ns;
  s.metadata.name = name;
  s.metadata.uid = "uid-" + ns + "-" + name;
  s.metadata.resource_version = std::to_string(rv);
  s.spec.type = rng() % 8 == 0 ? "ClusterIP" : "LoadBalancer";
  s.spec.external_traffic_policy = rng() % 2 == 0 ? "Local" : "Cluster";
  s.spec.ip_families = {"IPv4"};
  s.spec.ports = {{"http", "TCP", 80, "8080", 0}};
  s.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}";
  s.metadata.labels["app"] = name;
  if (rng() % 2 == 0) {
    s.metadata.annotations["ingot.dev/weighted-ecmp"] = "true";
  }
  if (const std::string& ip = kIps[rng() % kIps.size()]; !ip.empty()) {
    s.status.ingress.push_back({ip, "", std::nullopt});
  }
  return s;
}

api::EndpointSlice slice(const std::string& ns, const std::string& name, std::mt19937& rng) {
  api::EndpointSlice s;
  s.metadata.namespace_ = ns;
  s.metadata.name = name + "-x";
  s.metadata.labels["kubernetes.io/service-name"] = name;
  s.metadata.labels["endpointslice.kubernetes.io/managed-by"] = "endpointslice-controller";
  s.address_type = "IPv4";
  // 1 to 4 endpoints: a changed count on a node is a changed weight (docs/weighted-ecmp.md)
  const unsigned count = 1 + rng() % 4;
  for (unsigned i = 0; i < count; ++i) {
    api::Endpoint e;
    e.addresses = {"10.244.0." + std::to_string(9 + 2 * i),
                   "10.244.0." + std::to_string(10 + 2 * i)};
    e.conditions.ready = rng() % 3 != 0;
    e.conditions.serving = e.conditions.ready;
    e.node_name = rng() % 3 != 0 ? "node1" : "node2";
    s.endpoints.push_back(e);
  }
  return s;
}

/// toggleNetwork flips node1's NetworkUnavailable condition (a full pass on both sides).
void toggleNetwork(testing::World& w, bool project) {
  api::Node n = *w.nodes.get("node1");
  auto it = std::find_if(n.conditions.begin(), n.conditions.end(),
                         [](const auto& c) { return c.type == "NetworkUnavailable"; });
  if (it == n.conditions.end()) {
    n.conditions.push_back({"NetworkUnavailable", "True", "NoRouteCreated", "no route"});
  } else {
    n.conditions.erase(it);
  }
  if (project) projectNode(n);
  testing::World::upsert(w.nodes, n);
}

/// projectNodes projects the Nodes of w as the agent's Node informer does.
void projectNodes(testing::World& w) {
  for (const auto& n : w.nodes.list()) {
    api::Node p = *n;
    projectNode(p);
    testing::World::upsert(w.nodes, p);
  }
}

/// step applies one random change to both worlds and queues what each side runs on it.
void step(Side& inc, Side& full, std::mt19937& rng, int rv) {
  const std::string& ns = kNamespaces[rng() % kNamespaces.size()];
  const std::string name = "s" + std::to_string(rng() % 4);
  const std::string key = ns + "/" + name;
  const auto op = rng() % 10;
  std::mt19937 same(rng());  // both worlds get the same object
  for (Side* side : {&inc, &full}) {
    std::mt19937 r = same;
    testing::World& w = side->h.world;
    if (op < 4) {
      api::Service s = service(ns, name, r, rv);
      if (side == &inc) projectService(s);
      testing::World::upsert(w.services, s);
    } else if (op < 5) {
      w.services.erase(key);
    } else if (op < 8) {
      api::EndpointSlice s = slice(ns, name, r);
      if (side == &inc) projectEndpointSlice(s);
      testing::World::upsert(w.endpoint_slices, s);
    } else if (op < 9) {
      w.endpoint_slices.erase(key + "-x");
    } else {
      toggleNetwork(w, side == &inc);
    }
  }
  inc.h.queue.add(op < 9 ? keys::service(key) : std::string(keys::kSync));
  full.h.queue.add(std::string(keys::kSync));
}

BOOST_AUTO_TEST_CASE(a_service_key_decides_as_a_full_pass_does) {
  const testing::TempFile file(testing::examples() + "---\n" +
                               testing::readFile(testing::sourceDir() + "/examples/l2/pool.yaml") +
                               "---\n" + kPool);
  bool statuses = false;  // the sequences did announce with peers over BGP...
  bool l2 = false;        // ...and won Layer 2 elections
  bool weights = false;   // ...and announced link-bandwidth values other than 1
  bool changes = false;   // ...and handed over changed Services alone
  for (unsigned seed = 1; seed <= 6; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      Side inc;
      Side full;
      for (Side* side : {&inc, &full}) {
        testing::loadInto(side->h, file.path());
      }
      projectNodes(inc.h.world);
      for (Side* side : {&inc, &full}) {
        side->h.queue.add(std::string(keys::kConfig));
        side->settle();
      }
      std::mt19937 rng(seed);
      for (int i = 0; i < 60; ++i) {
        step(inc, full, rng, i + 10);
        inc.settle();
        full.settle();
        BOOST_TEST_CONTEXT("step " << i) {
          BOOST_TEST(inc.seen == full.seen);
          BOOST_TEST(inc.mismatches == 0);
          BOOST_TEST((inc.h.desired() == full.h.desired()));
          BOOST_TEST(inc.statuses() == full.statuses(), boost::test_tools::per_element());
          BOOST_TEST(inc.events() == full.events(), boost::test_tools::per_element());
        }
        statuses |= !full.statuses().empty();
        l2 |= full.seen.find("l2 ") != std::string::npos;
        changes |= inc.changes > 0;
        weights |= full.seen.find("|bw2|") != std::string::npos ||
                   full.seen.find("|bw3|") != std::string::npos;
      }
    }
  }
  BOOST_TEST(statuses);
  BOOST_TEST(l2);
  BOOST_TEST(weights);
  BOOST_TEST(changes);
}

}  // namespace
}  // namespace ingot::agent
