// SPDX-License-Identifier: Apache-2.0
// Seeded random walk over services and pools, driven the way the controller drives the core
// (converge the changed service; a full pass on pool changes, restarts and reprocess requests),
// with the invariants checked after every step.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

#include "api/selector.h"
#include "controller/core/reprocess.h"
#include "controller/core/service_info.h"
#include "controller/tests/core/cluster_sim.h"
#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

/// The pool universe: small, shared-key friendly, every rule represented.
std::vector<PoolSpec> poolUniverse(bool small_a) {
  const api::StringMap gold = {{"tier", "gold"}};
  return {
      {"a-small", {small_a ? "10.0.0.0/30" : "10.0.0.0/29"}, true, true},
      {"b-v6", {"fc00::/125"}},
      {"c-dual", {"10.1.0.0/30", "fc01::/126"}},
      {"d-ns", {"10.2.0.0/30"}, true, false, allocationIn(10, {"ns1"})},
      {"e-sel", {"10.3.0.0/30", "fc03::/126"}, true, false, allocationIn(5, {}, {gold})},
      {"f-manual", {"10.4.0.0/30"}, false},
      {"g-range", {"10.5.0.250-10.5.1.5"}, true, true},
  };
}

const std::vector<std::string> kRequestable = {"10.0.0.1", "10.1.0.2", "10.4.0.1", "10.5.1.0",
                                               "fc00::3",  "fc01::1",  "10.9.9.9"};

/// inPool and poolAdmits restate the placement rules independently of the allocator's code.
bool inPool(const config::Pool& pool, const net::IpAddress& address) {
  const auto octet = static_cast<unsigned>(address.value() & 0xff);
  if (pool.avoid_buggy_ips && address.isV4() && (octet == 0 || octet == 255)) {
    return false;
  }
  return std::any_of(pool.cidrs.begin(), pool.cidrs.end(),
                     [&](const net::Cidr& c) { return c.contains(address); });
}

bool poolAdmits(const config::Pool& pool, const api::Service& svc) {
  if (!pool.allocation) {
    return true;
  }
  const auto& sa = *pool.allocation;
  const bool ns_ok = !sa.has_namespace_constraint || sa.namespaces.count(svc.metadata.namespace_);
  const bool labels_ok = sa.service_selectors.empty() ||
                         std::any_of(sa.service_selectors.begin(), sa.service_selectors.end(),
                                     [&](const api::LabelSelector& s) {
                                       return api::matches(s, svc.metadata.labels);
                                     });
  return ns_ok && labels_ok;
}

class Walk {
 public:
  explicit Walk(uint64_t seed) : rng_(seed) {}

  void run(int steps) {
    for (int i = 0; i < steps; ++i) {
      BOOST_TEST_CONTEXT("step " << i << ": " << step()) {
        checkInvariants();
        if (i % 10 == 0) {
          checkRestartKeepsEverything();
        }
      }
    }
    BOOST_TEST_MESSAGE("held " << held_observed_ << " shared " << shared_observed_);
    // The walk must actually exercise allocation and sharing, or the invariants prove nothing.
    BOOST_TEST(held_observed_ > static_cast<uint64_t>(steps) * 5);
    BOOST_TEST(shared_observed_ > static_cast<uint64_t>(steps) / 10);
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(int percent) { return pick(100) < percent; }

  std::string step() {
    const int op = pick(100);
    if (op < 55) {
      return upsertService();
    }
    if (op < 72) {
      return deleteService();
    }
    if (op < 90) {
      return changePools();
    }
    Allocator fresh;
    std::swap(sim_.allocator, fresh);
    fullPasses();
    return "controller restart";
  }

  SvcSpec randomSpec(const std::string& ns, const std::string& name) {
    SvcSpec s;
    s.ns = ns;
    s.name = name;
    s.type = chance(90) ? "LoadBalancer" : "ClusterIP";
    switch (pick(5)) {
      case 0:
        s.cluster_ips = {"10.96.0.10"};
        break;
      case 1:
        s.cluster_ips = {"fd00::10"};
        break;
      case 2:
        s.cluster_ips = {"10.96.0.10", "fd00::10"};
        s.policy = "PreferDualStack";
        break;
      case 3:
        s.cluster_ips = {"10.96.0.10", "fd00::10"};
        s.policy = "RequireDualStack";
        break;
      default:
        s.cluster_ips = {"fd00::10", "10.96.0.10"};
        s.policy = "PreferDualStack";
        s.families = {"IPv6", "IPv4"};
    }
    const std::vector<std::string> keys = {"", "", "", "k1", "k2"};
    const std::string& key = keys[pick(static_cast<int>(keys.size()))];
    if (!key.empty()) {
      s.annotations[chance(20) ? kLegacyAnnotationAllowSharedIp : kAnnotationAllowSharedIp] = key;
    }
    const std::vector<std::string> ports = {"TCP/80", "TCP/443", "UDP/53", "TCP/80,UDP/53"};
    s.ports = ports[pick(static_cast<int>(ports.size()))];
    if (chance(30)) {
      s.etp = "Local";
      s.selector = {{"app", chance(50) ? "a" : "b"}};
    }
    if (chance(30)) {
      s.labels = {{"tier", "gold"}};
    }
    if (chance(10)) {
      const auto specs = poolUniverse(false);
      s.annotations[kAnnotationAddressPool] =
          chance(90) ? specs[pick(static_cast<int>(specs.size()))].name : "missing";
    }
    if (chance(10)) {
      s.load_balancer_ip = kRequestable[pick(static_cast<int>(kRequestable.size()))];
    }
    return s;
  }

  std::string upsertService() {
    const std::string ns = "ns" + std::to_string(pick(3));
    const std::string name = "s" + std::to_string(pick(12));
    api::Service next = makeService(randomSpec(ns, name));
    bool existed = false;
    for (auto& svc : sim_.services) {
      if (svc.metadata.namespace_ == ns && svc.metadata.name == name) {
        // An update keeps what the controller wrote: status and its annotation.
        next.status = svc.status;
        if (auto it = svc.metadata.annotations.find(kAnnotationAllocatedFromPool);
            it != svc.metadata.annotations.end()) {
          next.metadata.annotations.insert(*it);
        }
        svc = next;
        existed = true;
      }
    }
    if (!existed) {
      sim_.services.push_back(next);
    }
    const auto out = convergeService(sim_.allocator, sim_.config, next, {});
    for (auto& svc : sim_.services) {
      if (svc.metadata.namespace_ == ns && svc.metadata.name == name) {
        applyOutcome(svc, out);
      }
    }
    if (out.reprocess_all) {
      fullPasses();
    }
    return (existed ? "update " : "create ") + ns + "/" + name;
  }

  std::string deleteService() {
    if (sim_.services.empty()) {
      return "delete (none)";
    }
    const auto victim = sim_.services[pick(static_cast<int>(sim_.services.size()))];
    sim_.remove(victim.metadata.namespace_, victim.metadata.name);
    order_.erase(serviceKey(victim));
    if (releaseService(sim_.allocator, serviceKey(victim))) {
      fullPasses();
    }
    return "delete " + serviceKey(victim);
  }

  std::string changePools() {
    const auto universe = poolUniverse(small_a_ = chance(50));
    const std::string& name = universe[pick(static_cast<int>(universe.size()))].name;
    if (present_.count(name) != 0 && chance(60)) {
      present_.erase(name);
    } else {
      present_.insert(name);
    }
    std::vector<PoolSpec> specs;
    for (const auto& p : universe) {
      if (present_.count(p.name) != 0) {
        specs.push_back(p);
      }
    }
    sim_.config = makeConfig(specs);
    fullPasses();
    return "pools now " + std::to_string(specs.size()) + " (toggled " + name + ")";
  }

  /// fullPasses reprocesses until no convergence asks for more (the controller's loop).
  void fullPasses() {
    for (int pass = 0; pass < 5; ++pass) {
      sim_.pass();
      if (!sim_.last.reprocess_all) {
        return;
      }
    }
  }

  void checkInvariants() {
    std::map<net::IpAddress, std::vector<const api::Service*>> holders;
    for (const auto& svc : sim_.services) {
      const auto ips = statusIps(svc);
      const bool lb = svc.spec.type == "LoadBalancer";
      BOOST_TEST_CONTEXT(serviceKey(svc)) {
        BOOST_TEST((lb || ips.empty()), "a non-LoadBalancer service holds nothing");
        BOOST_TEST(heldBy(sim_.allocator, serviceKey(svc)) == ipv4First(ips),
                   "the allocator agrees with the status");
        if (!ips.empty()) {
          checkPlacement(svc, ips);
        }
        checkOrderKept(serviceKey(svc), ips);
      }
      for (const auto& text : ips) {
        holders[ip(text)].push_back(&svc);
      }
    }
    for (const auto& [address, users] : holders) {
      BOOST_TEST_CONTEXT(address.toString()) {
        checkSharing(users);
      }
      held_observed_ += 1;
      shared_observed_ += users.size() > 1 ? 1 : 0;
    }
    BOOST_TEST(sim_.allocator.serviceKeys().size() <= sim_.services.size());
  }

  void checkPlacement(const api::Service& svc, const std::vector<std::string>& ips) {
    const auto pool_it = svc.metadata.annotations.find(kAnnotationAllocatedFromPool);
    BOOST_REQUIRE(pool_it != svc.metadata.annotations.end());
    const auto cfg_pool = sim_.config.pools.find(pool_it->second);
    BOOST_REQUIRE_MESSAGE(cfg_pool != sim_.config.pools.end(), "pool " << pool_it->second);
    for (const auto& text : ips) {
      BOOST_TEST(inPool(cfg_pool->second, ip(text)), text << " usable in " << pool_it->second);
    }
    BOOST_TEST(poolAdmits(cfg_pool->second, svc), pool_it->second << " admits the service");
    BOOST_TEST(ips.size() <= 2U);
    if (ips.size() == 2) {
      BOOST_TEST(ip(ips[0]).isV4() != ip(ips[1]).isV4(), "one address per family");
    }
    const auto family = clusterFamily(svc);
    BOOST_REQUIRE(family.has_value());
    if (*family != ServiceFamily::Dual) {
      BOOST_TEST((ips.size() == 1U && ip(ips[0]).isV4() == (*family == ServiceFamily::V4)));
    } else if (familyPolicy(svc) == FamilyPolicy::RequireDualStack) {
      BOOST_TEST(ips.size() == 2U);
    }
  }

  /// checkOrderKept: a status that holds the same addresses as after the previous step lists
  /// them in the same order (the Layer 2 owner is elected on the first one).
  void checkOrderKept(const std::string& key, const std::vector<std::string>& ips) {
    auto it = order_.find(key);
    if (it != order_.end() && ipv4First(it->second) == ipv4First(ips)) {
      BOOST_TEST(it->second == ips, "the status order is kept");
    }
    order_[key] = ips;
  }

  /// ipv4First returns addresses in the allocator's storage order.
  static std::vector<std::string> ipv4First(const std::vector<std::string>& texts) {
    std::vector<net::IpAddress> ips;
    ips.reserve(texts.size());
    for (const auto& t : texts) {
      ips.push_back(ip(t));
    }
    std::sort(ips.begin(), ips.end());
    return ipStrings(ips);
  }

  void checkSharing(const std::vector<const api::Service*>& users) {
    if (users.size() < 2) {
      return;
    }
    const ServiceRequest first = makeRequest(*users.front());
    std::set<Port> ports;
    for (const auto* svc : users) {
      const ServiceRequest r = makeRequest(*svc);
      BOOST_TEST(!r.sharing.sharing.empty(), serviceKey(*svc) << " shares without a key");
      BOOST_TEST((r.sharing == first.sharing), serviceKey(*svc) << " shares with another key");
      for (const auto& p : r.ports) {
        BOOST_TEST(ports.insert(p).second, "port " << p.toString() << " used twice");
      }
    }
  }

  /// checkRestartKeepsEverything: a controller restarted now, rebuilding its state from the
  /// statuses alone, reaches the same assignments and writes nothing.
  void checkRestartKeepsEverything() {
    Allocator fresh;
    auto plan = reprocessAll(fresh, sim_.config, sim_.services, {});
    BOOST_REQUIRE(plan.has_value());
    for (const auto& out : plan->services) {
      std::string events;
      for (const auto& e : out.events) {
        events += " [" + e.reason + ": " + e.message + "]";
      }
      BOOST_TEST_CONTEXT("restart: " << out.namespace_ << "/" << out.name << events << " now "
                                     << goList(out.ips)) {
        BOOST_TEST(!out.write);
        BOOST_TEST(heldBy(fresh, out.namespace_ + "/" + out.name) ==
                   heldBy(sim_.allocator, out.namespace_ + "/" + out.name));
      }
    }
  }

  std::mt19937_64 rng_;
  ClusterSim sim_;
  std::set<std::string> present_;
  std::map<std::string, std::vector<std::string>> order_;  // status addresses after the last step
  bool small_a_ = false;
  uint64_t held_observed_ = 0;    // (step, address) pairs with a holder
  uint64_t shared_observed_ = 0;  // ... with several holders
};

}  // namespace

BOOST_AUTO_TEST_SUITE(property)

BOOST_AUTO_TEST_CASE(random_service_and_pool_changes_keep_every_invariant) {
  for (uint64_t seed : {1ULL, 42ULL, 20240611ULL}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      Walk walk(seed);
      walk.run(2000);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
