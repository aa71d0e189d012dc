// SPDX-License-Identifier: Apache-2.0
// One row per filter of the Layer 2 election: which nodes stay candidates, the per-Service
// reason, and what chosen nodes answer (MetalLB's per-node reasons).
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/election.h"
#include "agent/core/election_engine.h"
#include "agent/tests/core/election_fixtures.h"

namespace agent = ingot::agent;
namespace api = ingot::api;
using agent::L2Reason;
using agent::L2Verdict;
using namespace ingot::agent::testing;

namespace {

const std::vector<std::string> kNodes = {"n1", "n2", "n3", "n4"};

struct Case {
  std::string desc;
  std::function<void(World&)> edit;
  std::vector<std::string> want_candidates;  // as a set; the order is rankL2's
  L2Reason want_reason = L2Reason::None;
  std::vector<std::pair<std::string, L2Verdict>> verdicts = {};  // only the listed nodes
};

api::LabelSelector selector(const std::string& key, const std::string& value) {
  api::LabelSelector s;
  s.match_labels = {{key, value}};
  return s;
}

void setEndpoints(World& w, std::vector<api::Endpoint> eps) {
  w.slice.endpoints = std::move(eps);
}

void localPolicy(World& w) {
  w.service.spec.external_traffic_policy = "Local";
}

void condition(World& w, size_t node, const std::string& status) {
  w.nodes[node].conditions.push_back({"NetworkUnavailable", status, "", ""});
}

void exclude(World& w, size_t node) {
  w.nodes[node].metadata.labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"every live selected node is a candidate", [](World&) {}, kNodes},
      {"an advertisement whose serviceSelectors miss the Service matches nothing",
       [](World& w) { w.cfg.l2_advertisements[0].service_selectors = {selector("app", "db")}; },
       {},
       L2Reason::NoMatchingAdvertisement,
       {{"n1", L2Verdict::NoMatchingAdvertisement}, {"n3", L2Verdict::NoMatchingAdvertisement}}},
      {"only advertisements matching the Service contribute nodes",
       [](World& w) {
         w.cfg.l2_advertisements = {l2Ad("a-match", {"n1", "n2"}), l2Ad("b-other", {"n3", "n4"})};
         w.cfg.l2_advertisements[0].service_selectors = {selector("app", "frontend")};
         w.cfg.l2_advertisements[1].service_selectors = {selector("app", "db")};
       },
       {"n1", "n2"},
       L2Reason::None,
       {{"n3", L2Verdict::NoMatchingAdvertisement}}},
      {"candidates are the union of the matching advertisements' nodeSelectors",
       [](World& w) {
         w.cfg.l2_advertisements = {l2Ad("a", {"n2"}), l2Ad("b", {"n3"})};
       },
       {"n2", "n3"},
       L2Reason::None,
       {{"n1", L2Verdict::NoMatchingAdvertisement}}},
      {"the exclude label removes a node",
       [](World& w) { exclude(w, 0); },
       {"n2", "n3", "n4"},
       L2Reason::None,
       {{"n1", L2Verdict::NotOwner}}},
      {"--ignore-exclude-lb keeps the labelled node",
       [](World& w) {
         exclude(w, 0);
         w.options.ignore_exclude_lb = true;
       },
       kNodes},
      {"NetworkUnavailable=True removes a node",
       [](World& w) { condition(w, 1, "True"); },
       {"n1", "n3", "n4"},
       L2Reason::None,
       {{"n2", L2Verdict::NotOwner}}},
      {"NetworkUnavailable=False keeps a node", [](World& w) { condition(w, 1, "False"); }, kNodes},
      {"a node without a live agent is not a candidate",
       [](World& w) { w.live.erase("n4"); },
       {"n1", "n2", "n3"}},
      {"a live agent without a Node object is selected by no advertisement",
       [](World& w) { w.live.insert("ghost"); },
       kNodes,
       L2Reason::None,
       {{"ghost", L2Verdict::NoMatchingAdvertisement}}},
      {"every node filtered out leaves no candidate",
       [](World& w) {
         for (size_t i = 0; i < w.nodes.size(); ++i) {
           exclude(w, i);
         }
       },
       {},
       L2Reason::NoCandidateNode,
       {{"n1", L2Verdict::NotOwner}}},
      {"ETP Local keeps the nodes hosting a serving endpoint",
       [](World& w) {
         localPolicy(w);
         setEndpoints(w, {endpoint("n3"), endpoint("n4", false), endpoint("n2", false, true)});
       },
       {"n2", "n3"},
       L2Reason::None,
       {{"n4", L2Verdict::NotOwner}}},
      {"ETP Local with the only endpoint on a filtered node",
       [](World& w) {
         localPolicy(w);
         exclude(w, 2);
         setEndpoints(w, {endpoint("n3")});
       },
       {},
       L2Reason::NoCandidateWithLocalEndpoint,
       {{"n3", L2Verdict::NotOwner}}},
      {"ETP Local with an endpoint without nodeName",
       [](World& w) {
         localPolicy(w);
         setEndpoints(w, {endpoint(std::nullopt)});
       },
       {},
       L2Reason::NoCandidateWithLocalEndpoint},
      {"ETP Cluster ignores where endpoints run",
       [](World& w) { setEndpoints(w, {endpoint("elsewhere")}); }, kNodes},
      {"no endpoint: no winner, but the candidates are listed",
       [](World& w) { setEndpoints(w, {}); },
       kNodes,
       L2Reason::NoActiveEndpoint,
       {{"n1", L2Verdict::NotOwner}, {"n2", L2Verdict::NotOwner}}},
      {"no active endpoint comes before no matching advertisement",
       [](World& w) {
         setEndpoints(w, {});
         w.cfg.l2_advertisements[0].service_selectors = {selector("app", "db")};
       },
       {},
       L2Reason::NoActiveEndpoint,
       {{"n1", L2Verdict::NotOwner}}},
      {"ready unset counts as serving", [](World& w) { setEndpoints(w, {endpoint("n1", {})}); },
       kNodes},
      {"not ready but serving counts",
       [](World& w) { setEndpoints(w, {endpoint("n1", false, true)}); }, kNodes},
      {"not ready and not serving does not count",
       [](World& w) { setEndpoints(w, {endpoint("n1", false, false)}); }, kNodes,
       L2Reason::NoActiveEndpoint},
      {"v0.16.1 rule: one serving endpoint is enough even if its address is unready elsewhere",
       [](World& w) {
         setEndpoints(w, {endpoint("n1", false), endpoint("n2", true)});
       },
       kNodes},
      {"slices of other Services are ignored",
       [](World& w) { w.slice.metadata.labels["kubernetes.io/service-name"] = "other"; }, kNodes,
       L2Reason::NoActiveEndpoint},
      {"an IPv6 first ingress IP", [](World& w) { w.service.status.ingress[0].ip = "2001:db8::1"; },
       kNodes},
  };
  return kCases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(election_filters)

BOOST_AUTO_TEST_CASE(each_filter_narrows_the_candidates) {
  agent::L2Hasher hasher;
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      World w = worldOf(kNodes, "192.168.10.1");
      c.edit(w);
      const auto e = w.elect(hasher);
      const std::string ip = *agent::goIpString(w.service.status.ingress[0].ip);
      BOOST_TEST(e.candidates == agent::rankL2(c.want_candidates, ip, hasher),
                 boost::test_tools::per_element());
      BOOST_TEST(agent::l2ReasonName(e.reason) == agent::l2ReasonName(c.want_reason));
      BOOST_TEST(e.winner.has_value() == (c.want_reason == L2Reason::None));
      if (e.winner) {
        BOOST_TEST(*e.winner == e.candidates.front());
        BOOST_TEST(w.decide(*e.winner, hasher).announced());
      }
      for (const auto& [node, verdict] : c.verdicts) {
        BOOST_TEST_CONTEXT(node) {
          BOOST_TEST(agent::l2VerdictReason(w.decide(node, hasher).verdict) ==
                     agent::l2VerdictReason(verdict));
        }
      }
    }
  }
}

// The agent's cached path gives every node the same verdict as decideL2, row by row.
BOOST_AUTO_TEST_CASE(cached_decisions_equal_decide_l2) {
  agent::L2Hasher hasher;
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      World w = worldOf(kNodes, "192.168.10.1");
      c.edit(w);
      agent::L2Elector engine(2);
      engine.setMembership(w.membership());
      for (const std::string node : {"n1", "n2", "n3", "n4", "ghost"}) {
        BOOST_TEST_CONTEXT(node) {
          const auto want = w.decide(node, hasher);
          const auto got =
              agent::decideL2Cached(w.cfg, node, w.service, {w.slice}, w.options, engine);
          BOOST_TEST(got.reason() == want.reason());
          BOOST_TEST(got.election.winner.value_or("-") == want.election.winner.value_or("-"));
          BOOST_TEST(agent::l2ReasonName(got.election.reason) ==
                     agent::l2ReasonName(want.election.reason));
          const size_t head = std::min<size_t>(2, want.election.candidates.size());
          BOOST_TEST(got.election.candidates ==
                         std::vector<std::string>(want.election.candidates.begin(),
                                                  want.election.candidates.begin() + head),
                     boost::test_tools::per_element());
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(ipv4_mapped_ingress_elects_like_its_dotted_quad) {
  agent::L2Hasher hasher;
  World a = worldOf(kNodes, "192.168.10.1");
  World b = worldOf(kNodes, "::ffff:192.168.10.1");
  BOOST_TEST(a.elect(hasher).candidates == b.elect(hasher).candidates);
  World c = worldOf(kNodes, "::192.168.10.1");  // IPv4-compatible: a different key
  BOOST_TEST(c.decide("n1", hasher).subject.ip == "::c0a8:a01");
}

BOOST_AUTO_TEST_CASE(common_gate_withdraws_before_the_election) {
  agent::L2Hasher hasher;
  World w = worldOf(kNodes, "192.168.10.1");
  w.service.spec.type = "ClusterIP";
  BOOST_TEST(w.decide("n1", hasher).reason() == "notLoadBalancer");
  w = worldOf(kNodes, "192.168.10.1");
  w.service.status.ingress.clear();
  BOOST_TEST(w.decide("n1", hasher).reason() == "noIPAllocated");
  w = worldOf(kNodes, "not-an-ip");
  BOOST_TEST(w.decide("n1", hasher).reason() == "invalidIP");
}

BOOST_AUTO_TEST_CASE(pool_without_l2_advertisement_is_not_an_l2_pool) {
  agent::L2Hasher hasher;
  World w = worldOf(kNodes, "192.168.10.1");
  w.cfg.l2_advertisements[0].pools = {"pool-b"};
  const auto d = w.decide("n1", hasher);
  BOOST_TEST(!d.l2_pool);
  BOOST_TEST(d.pool == "pool-a");
  BOOST_TEST(d.reason() == "noMatchingAdvertisement");
  BOOST_TEST(agent::l2ReasonName(d.election.reason) == "noMatchingAdvertisement");
}

// The agent logs one line per Service and decision; the winner's says serviceAnnounced.
BOOST_AUTO_TEST_CASE(decision_log_lines_name_winner_and_reasons) {
  agent::L2Hasher hasher;
  World w = worldOf(kNodes, "192.168.10.1");
  const auto winner = *w.elect(hasher).winner;
  const std::string loser = winner == "n1" ? "n2" : "n1";
  std::vector<std::string> lines;
  ingot::log::Logger logger(ingot::log::Level::Info,
                            [&lines](std::string_view l) { lines.emplace_back(l); });
  agent::logL2Decision(logger, "web/frontend", w.decide(winner, hasher));
  agent::logL2Decision(logger, "web/frontend", w.decide(loser, hasher));
  w.slice.endpoints.clear();
  agent::logL2Decision(logger, "web/frontend", w.decide(winner, hasher));
  BOOST_TEST_REQUIRE(lines.size() == 3U);
  const std::string fields = R"("key":"web/frontend","pool":"pool-a",)";
  BOOST_TEST(lines[0].find(R"("event":"serviceAnnounced")") != std::string::npos, lines[0]);
  BOOST_TEST(
      lines[0].find(fields + R"("winner":")" + winner +
                    R"(","reason":"","serviceReason":"","candidates":4)") != std::string::npos,
      lines[0]);
  BOOST_TEST(lines[1].find(R"("event":"serviceNotAnnounced")") != std::string::npos, lines[1]);
  BOOST_TEST(lines[1].find(R"("reason":"notOwner")") != std::string::npos, lines[1]);
  BOOST_TEST(
      lines[2].find(R"("winner":"","reason":"notOwner","serviceReason":"noActiveEndpoint")") !=
          std::string::npos,
      lines[2]);
}

// Where the winner answers: the union of the interface lists of the advertisements that select
// it; one advertisement without a list means every usable interface (MetalLB's
// ipAdvertisementFor).
BOOST_AUTO_TEST_CASE(l2_interfaces_unites_the_lists_of_advertisements_selecting_the_node) {
  using Names = std::optional<std::set<std::string>>;
  auto ad = [](std::string name, std::set<std::string> nodes, std::vector<std::string> ifs) {
    ingot::config::L2Advertisement a;
    a.name = std::move(name);
    a.nodes = std::move(nodes);
    a.interfaces = std::move(ifs);
    return a;
  };
  struct IfCase {
    std::string desc;
    std::vector<ingot::config::L2Advertisement> ads;
    Names want;
  };
  const std::vector<IfCase> cases = {
      {"one list", {ad("a", {"n1"}, {"eth0", "eth1"})}, std::set<std::string>{"eth0", "eth1"}},
      {"two lists are united",
       {ad("a", {"n1"}, {"eth0"}), ad("b", {"n1", "n2"}, {"eth2"})},
       std::set<std::string>{"eth0", "eth2"}},
      {"an advertisement without a list means every interface",
       {ad("a", {"n1"}, {"eth0"}), ad("b", {"n1"}, {})},
       std::nullopt},
      {"an advertisement not selecting the node does not count",
       {ad("a", {"n1"}, {"eth0"}), ad("b", {"n2"}, {}), ad("c", {"n2"}, {"eth9"})},
       std::set<std::string>{"eth0"}},
      {"no advertisement selects the node: an empty list",
       {ad("a", {"n2"}, {})},
       std::set<std::string>{}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      agent::L2Subject subject;
      for (const auto& a : c.ads) {
        subject.ads.push_back(&a);
      }
      const Names got = agent::l2Interfaces(subject, "n1");
      BOOST_TEST(got.has_value() == c.want.has_value());
      if (got && c.want) {
        BOOST_TEST(std::vector<std::string>(got->begin(), got->end()) ==
                       std::vector<std::string>(c.want->begin(), c.want->end()),
                   boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
