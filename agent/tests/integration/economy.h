// SPDX-License-Identifier: Apache-2.0
// The agent's request economy, shared by the BGP (economy_test.cpp) and Layer 2
// (layer2_economy_test.cpp) tests: once an agent has converged, a full pass over every Service (a
// configuration change that changes no decision), a re-list after the server expired its watches
// (410 Gone) and a restart with nothing changed write no object. Every object the agent writes
// (FRRConfiguration, ServiceBGPStatus, ServiceL2Status, ConfigurationState, the Services' Events)
// keeps its resourceVersion and the agent's own write counters do not move; the only writes
// allowed are those of the restart's nodeAssigned Events (MetalLB's speaker announces afresh, and
// says so, after a restart too). The test API server must run with a short history, no
// bookmarks and short-lived watches (kEconomyServerArgs), so that the ConfigMaps the check creates
// make the agent's next watches get 410.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/agent_process.h"
#include "common/json/scan.h"
#include "controller/tests/integration/fixture.h"
#include "kube/reflector.h"
#include "kube/resources.h"

namespace ingot::agent::testing::economy {

using controller::testing::Cluster;
using ingot::testing::Millis;
using ingot::testing::waitFor;

/// kEconomyServerArgs: a 40-event history, no bookmarks, every watch closed after 2 s. A watch
/// resumed after the server closed it starts from the version of the last event of its own
/// kind, which the check's ConfigMap writes push out of the history: 410.
inline const std::vector<std::string> kEconomyServerArgs = {
    "--history", "40", "--bookmark-interval", "3600", "--close-watches-after", "2"};

/// writes sums the agent's API requests of every writing verb (Events included).
inline double writes(const AgentProcess& a) {
  double sum = 0;
  for (const char* verb :
       {"create", "update", "patch", "update_status", "patch_status", "delete"}) {
    sum += std::max(0.0,
                    a.metric("ingot_agent_api_requests_total{verb=\"" + std::string(verb) + "\"}"));
  }
  return sum;
}

inline double lists(const AgentProcess& a) {
  return a.metric("ingot_agent_api_requests_total{verb=\"list\"}");
}

inline bool idle(const AgentProcess& a) {
  return a.metric("ingot_agent_workqueue_depth") == 0.0;
}

/// Versions maps "plural ns/name" to the resourceVersion of every object the agent writes, as
/// the server holds them (Events also by reason).
using Versions = std::map<std::string, std::string>;

inline void addVersions(k8s::ApiClient& api,
                        const k8s::ResourceRef& ref,
                        const std::string& ns,
                        Versions& out) {
  auto page = api.list(ref, ns, {});
  BOOST_REQUIRE_MESSAGE(page.has_value(), controller::testing::why(page));
  for (const auto& item : page->items) {
    auto meta = k8s::rawObjectMeta(item);
    BOOST_REQUIRE(meta.has_value());
    std::string key = ref.plural + " " + meta->namespace_ + "/" + meta->name;
    if (ref.plural == "events") {
      auto reason = json::stringAt(item, {"reason"});
      key += " " + (reason ? *reason : std::string());
    }
    out[key] = meta->resource_version;
  }
}

/// versions snapshots every object kind the agent writes; Events of the Services in events_ns.
inline Versions versions(k8s::ApiClient& api, const std::string& events_ns) {
  namespace res = k8s::resources;
  Versions out;
  addVersions(api, res::kFrrConfigurations, "metallb-system", out);
  addVersions(api, res::kServiceBgpStatuses, "metallb-system", out);
  addVersions(api, res::kServiceL2Statuses, "metallb-system", out);
  addVersions(api, res::kConfigurationStates, "metallb-system", out);
  addVersions(api, res::kEvents, events_ns, out);
  return out;
}

/// count counts the snapshot's objects of one resource (plural).
inline size_t count(const Versions& v, const std::string& resource) {
  size_t n = 0;
  for (const auto& [key, rv] : v) {
    n += key.rfind(resource + " ", 0) == 0 ? 1 : 0;
  }
  return n;
}

/// changed lists what differs between two snapshots (added, removed or with a new version).
inline std::vector<std::string> changed(const Versions& a, const Versions& b) {
  std::vector<std::string> out;
  for (const auto& [key, rv] : b) {
    auto it = a.find(key);
    if (it == a.end() || it->second != rv) {
      out.push_back(key);
    }
  }
  for (const auto& [key, rv] : a) {
    if (!b.contains(key)) {
      out.push_back(key + " (gone)");
    }
  }
  return out;
}

/// Economy is one converged agent and how to snapshot and restart it.
struct Economy {
  Cluster& cluster;
  std::string events_ns;  ///< the namespace of the Services whose Events count
  std::function<std::unique_ptr<AgentProcess>()> start;
  std::unique_ptr<AgentProcess> agent;

  Versions snapshot() { return versions(*cluster.api, events_ns); }

  /// settle waits until the snapshot stays the same while the agent is idle (Event writes are
  /// asynchronous) and returns it.
  Versions settle(const std::function<bool()>& also = [] { return true; }) {
    Versions last;
    BOOST_REQUIRE_MESSAGE(waitFor(Millis(30000),
                                  [&] {
                                    const Versions now = snapshot();
                                    const bool same = now == last && idle(*agent) && also();
                                    last = now;
                                    return same;
                                  }),
                          "the agent's objects did not settle:\n" + agent->log());
    return last;
  }

  /// check runs the full pass, the re-list after 410 and the restart against the converged agent.
  void check() {
    const Versions converged = settle();
    const double written = writes(*agent);
    fullPass(converged, written);
    relist(converged, written);
    restart(converged);
  }

  /// fullPass: a new Community changes the configuration, so every Service is decided again.
  void fullPass(const Versions& converged, double written) {
    const std::string passes = R"(ingot_agent_reconciles_total{kind="sync"})";
    const double before = agent->metric(passes);
    cluster.create(k8s::resources::kCommunities, "metallb-system",
                   R"({"apiVersion":"metallb.io/v1beta1","kind":"Community","metadata":)"
                   R"({"name":"econ","namespace":"metallb-system"},"spec":{"communities":)"
                   R"([{"name":"unused","value":"65535:65282"}]}})");
    BOOST_REQUIRE_MESSAGE(
        waitFor(Millis(20000), [&] { return agent->metric(passes) > before && idle(*agent); }),
        "no full pass after the new Community:\n" + agent->log());
    BOOST_TEST(writes(*agent) == written, "the full pass wrote " << writes(*agent) - written);
    BOOST_TEST(changed(converged, snapshot()) == std::vector<std::string>{},
               boost::test_tools::per_element());
  }

  /// relist: watch expiry; the informers re-list and find nothing new.
  void relist(const Versions& converged, double written) {
    const double listed = lists(*agent);
    for (int i = 0; i < 60; ++i) {
      cluster.create(k8s::resources::kConfigMaps, "default",
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"filler-)" +
                         std::to_string(i) + R"("},"data":{"k":"v"}})");
    }
    BOOST_REQUIRE_MESSAGE(
        waitFor(Millis(30000), [&] { return lists(*agent) >= listed + 5 && idle(*agent); }),
        "no re-list after the watches expired:\n" + agent->log());
    BOOST_TEST(writes(*agent) == written, "the re-list wrote " << writes(*agent) - written);
    BOOST_TEST(changed(converged, snapshot()) == std::vector<std::string>{},
               boost::test_tools::per_element());
  }

  /// restart with nothing changed: only nodeAssigned Events are written.
  void restart(const Versions& converged) {
    const auto code = agent->process().terminate(Millis(15000));
    BOOST_REQUIRE_MESSAGE(code.has_value() && *code == 0, agent->log());
    agent = start();
    // The first full pass ran before the snapshot is taken.
    const Versions restarted =
        settle([&] { return agent->metric(R"(ingot_agent_reconciles_total{kind="sync"})") > 0; });
    for (const auto& key : changed(converged, restarted)) {
      BOOST_TEST((key.rfind("events " + events_ns + "/", 0) == 0 &&
                  key.find(" nodeAssigned") != std::string::npos),
                 "written after a restart: " << key << "\n"
                                             << agent->log());
    }
    const auto stopped = agent->process().terminate(Millis(15000));
    BOOST_TEST((stopped.has_value() && *stopped == 0), agent->log());
  }
};

}  // namespace ingot::agent::testing::economy
