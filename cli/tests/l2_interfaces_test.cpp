// SPDX-License-Identifier: Apache-2.0
// Tests of the interfaces a Layer 2 address is answered on (`--interfaces`, `--excludel2-path`)
// in plan and explain, and of explain's memberlist states (`--suspect-node`).
#include "cli/l2_interfaces.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/tests/test_util.h"
#include "common/json/json.h"

namespace {

using namespace ingot::cli;
using namespace ingot::cli::testing;
using Names = std::vector<std::string>;

std::string joinedNames(const Names& names) {
  std::string out;
  for (const auto& n : names) {
    out += "[" + n + "]";
  }
  return out;
}

ingot::config::L2Advertisement ad(std::set<std::string> nodes, Names interfaces) {
  ingot::config::L2Advertisement a;
  a.name = "ad";
  a.nodes = std::move(nodes);
  a.interfaces = std::move(interfaces);
  return a;
}

ingot::agent::l2::ExcludeList excludeList(const std::string& yaml) {
  auto list = ingot::agent::l2::ExcludeList::parse(yaml, "test");
  BOOST_TEST_REQUIRE(list.has_value());
  return *list;
}

ingot::json::Value parsed(const Run& r) {
  BOOST_TEST_REQUIRE(r.code == kExitOk, r.out + r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  return *doc;
}

std::string examples() {
  return sourceDir() + "/examples";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(l2_interfaces)

BOOST_AUTO_TEST_CASE(interfaces_flag_values_parse_into_nodes) {
  struct Case {
    std::string desc;
    Names values;
    std::string want;  // "node:[if][if];" per node, or "error: " and a part of the message
  };
  const std::vector<Case> cases = {
      {"one node", {"n1=eth0,eth1"}, "n1:[eth0][eth1];"},
      {"';' separates nodes", {"n1=eth0;n2=ens3"}, "n1:[eth0];n2:[ens3];"},
      {"repeated flags add up", {"n1=eth0", "n2=ens3", "n1=eth1"}, "n1:[eth0][eth1];n2:[ens3];"},
      {"spaces are trimmed, duplicates dropped", {" n1 = eth0 , eth0 ;"}, "n1:[eth0];"},
      {"no '='", {"n1"}, "error: want NODE=IF"},
      {"no node", {"=eth0"}, "error: want NODE=IF"},
      {"no interface", {"n1="}, "error: no interface for node n1"},
      {"an empty name in the list", {"n1=eth0,,eth1"}, "error: an empty interface name"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto got = parseNodeInterfaces(c.values);
      const std::string error = "error: ";
      if (c.want.rfind(error, 0) == 0) {
        BOOST_TEST_REQUIRE(!got.has_value());
        BOOST_TEST(got.error().message.find(c.want.substr(error.size())) != std::string::npos,
                   got.error().message);
        continue;
      }
      BOOST_TEST_REQUIRE(got.has_value());
      std::string s;
      for (const auto& [node, ifs] : *got) {
        s += node + ":" + joinedNames(ifs) + ";";
      }
      BOOST_TEST(s == c.want);
    }
  }
}

// The agent's rules: the advertisements' union (or every interface), the exclude list, and
// announceFailed when a list names only interfaces the node does not have.
BOOST_AUTO_TEST_CASE(answering_applies_the_lists_and_the_exclude_list) {
  struct Case {
    std::string desc;
    std::vector<ingot::config::L2Advertisement> ads;
    Names given;
    std::string exclude;
    Names answered;
    Names excluded;
    Names missing;
    bool failed;
  };
  const std::string docker = "announcedInterfacesToExclude: ['^docker.*', '^lo$']\n";
  const std::vector<Case> cases = {
      {"no list: every given interface",
       {ad({"n1"}, {})},
       {"eth0", "eth1"},
       "",
       {"eth0", "eth1"},
       {},
       {},
       false},
      {"no list: minus the excluded ones",
       {ad({"n1"}, {})},
       {"eth0", "docker0", "lo"},
       docker,
       {"eth0"},
       {"docker0", "lo"},
       {},
       false},
      {"a list keeps the named interfaces",
       {ad({"n1"}, {"eth1"})},
       {"eth0", "eth1"},
       "",
       {"eth1"},
       {},
       {},
       false},
      {"a named interface the node lacks is missing; the others answer",
       {ad({"n1"}, {"eth0", "eth3"})},
       {"eth0"},
       "",
       {"eth0"},
       {},
       {"eth3"},
       false},
      {"only missing interfaces: announceFailed",
       {ad({"n1"}, {"eth3"})},
       {"eth0"},
       "",
       {},
       {},
       {"eth3"},
       true},
      {"a named interface that is excluded is not usable",
       {ad({"n1"}, {"docker0"})},
       {"eth0", "docker0"},
       docker,
       {},
       {"docker0"},
       {"docker0"},
       true},
      {"lists of two advertisements are united",
       {ad({"n1"}, {"eth0"}), ad({"n1"}, {"eth1"})},
       {"eth0", "eth1", "eth2"},
       "",
       {"eth0", "eth1"},
       {},
       {},
       false},
      {"an advertisement not selecting the node does not widen the list",
       {ad({"n1"}, {"eth0"}), ad({"n2"}, {})},
       {"eth0", "eth1"},
       "",
       {"eth0"},
       {},
       {},
       false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ingot::agent::L2Subject subject;
      for (const auto& a : c.ads) {
        subject.ads.push_back(&a);
      }
      const auto got = l2Answering(subject, "n1", c.given, excludeList(c.exclude));
      BOOST_TEST(joinedNames(got.answered) == joinedNames(c.answered));
      BOOST_TEST(joinedNames(got.excluded) == joinedNames(c.excluded));
      BOOST_TEST(joinedNames(got.missing) == joinedNames(c.missing));
      BOOST_TEST(got.failed == c.failed);
    }
  }
}

BOOST_AUTO_TEST_CASE(plan_table_and_json_show_where_the_winner_answers) {
  const std::string exclude = "/tmp/ingotctl-l2-interfaces-test-excludel2.yaml";
  std::ofstream(exclude) << "announcedInterfacesToExclude:\n  - ^docker.*\n";
  const Run table = run(runPlan, {"-f", examples(), "--interfaces", "node1=docker0,eth0",
                                  "--interfaces", "node2=ens3", "--excludel2-path", exclude});
  BOOST_TEST_REQUIRE(table.code == kExitOk, table.err);
  // examples/l2/pool.yaml names eth0; web/frontend is node1's, team-a's node2's (no list).
  BOOST_TEST(table.out.find("node1 on eth0 (excluded: docker0)") != std::string::npos, table.out);
  BOOST_TEST(table.out.find("node2 on ens3") != std::string::npos, table.out);
  const auto doc = parsed(run(
      runPlan, {"--output", "json", "-f", examples(), "--interfaces", "node1=eth1;node2=ens3"}));
  for (const auto& s : doc.find("services")->items()) {
    if (s.find("name")->text() == "frontend") {
      const auto* ifs = s.find("l2")->find("interfaces");
      BOOST_TEST_REQUIRE(ifs != nullptr);
      BOOST_TEST(ifs->find("announceFailed")->boolValue());
      BOOST_TEST(ifs->find("missing")->items().at(0).text() == "eth0");
      BOOST_TEST(ifs->find("named")->items().at(0).text() == "eth0");
    }
  }
  std::remove(exclude.c_str());
}

BOOST_AUTO_TEST_CASE(plan_without_interfaces_keeps_its_output) {
  const Run r = run(runPlan, {"--output", "json", "-f", examples()});
  BOOST_TEST_REQUIRE(r.code == kExitOk);
  BOOST_TEST(r.out.find("\"interfaces\"") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_interface_flags_are_usage_errors_naming_the_flag) {
  struct Case {
    Names words;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{"--interfaces", "node9=eth0"}, "--interfaces node9: no Node of that name in the input"},
      {{"--interfaces", "node1"}, "--interfaces \"node1\": want NODE=IF"},
      {{"--interfaces", "node1=eth0", "--excludel2-path", "/nonexistent/excludel2.yaml"},
       "--excludel2-path /nonexistent/excludel2.yaml: cannot read the file"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      Names words = {"-f", examples()};
      words.insert(words.end(), c.words.begin(), c.words.end());
      const Run p = run(runPlan, words);
      BOOST_TEST(p.code == kExitUsage);
      BOOST_TEST(p.err.find(c.want) != std::string::npos, p.err);
      words.insert(words.begin(), "web/frontend");
      const Run e = run(runExplain, words);
      BOOST_TEST(e.code == kExitUsage);
      BOOST_TEST(e.err.find(c.want) != std::string::npos, e.err);
    }
  }
}

BOOST_AUTO_TEST_CASE(explain_shows_where_owner_and_candidates_answer) {
  const Run r = run(runExplain, {"service", "web/frontend", "-f", examples(), "--interfaces",
                                 "node1=eth0,eth1;node2=ens3"});
  BOOST_TEST_REQUIRE(r.code == kExitOk, r.err);
  BOOST_TEST(r.out.find("L2:  owner (candidate #1), answering on eth0\n") != std::string::npos,
             r.out);
  BOOST_TEST(r.out.find("(candidate #2), would answer on no interface: the L2Advertisements "
                        "name eth0") != std::string::npos,
             r.out);
  const auto doc = explainExamples({"web/frontend", "--interfaces", "node1=eth0"});
  const auto* ifs = jsonNode(doc, "node1").find("l2")->find("interfaces");
  BOOST_TEST(ifs->find("answered")->items().at(0).text() == "eth0");
  BOOST_TEST(jsonNode(doc, "node2").find("l2")->find("interfaces")->isNull());
}

// memberlist keeps a suspect member in its live set until it is declared dead: the agents'
// election still counts it, so it keeps the address; a dead one loses it.
BOOST_AUTO_TEST_CASE(a_suspect_node_is_still_live_for_the_election) {
  const auto suspect = explainExamples({"web/frontend", "--suspect-node", "node1"});
  BOOST_TEST(suspect.find("l2")->find("winner")->text() == "node1");
  BOOST_TEST(jsonNode(suspect, "node1").find("live")->boolValue());
  BOOST_TEST(jsonNode(suspect, "node1").find("suspect")->boolValue());
  BOOST_TEST(!jsonNode(suspect, "node2").find("suspect")->boolValue());
  BOOST_TEST(suspect.find("suspectNodes")->items().at(0).text() == "node1");
  const auto dead = explainExamples({"web/frontend", "--dead-node=node1", "--suspect-node=node2"});
  BOOST_TEST(dead.find("l2")->find("winner")->text() == "node2");
  BOOST_TEST(!jsonNode(dead, "node1").find("live")->boolValue());

  const Run text = run(runExplain, {"web/frontend", "-f", examples(), "--suspect-node", "node1"});
  BOOST_TEST(text.out.find("node node1 (agent suspect: still live)\n") != std::string::npos,
             text.out);
  BOOST_TEST(text.out.find("memberlist suspects node1, still live until declared dead") !=
                 std::string::npos,
             text.out);
}

BOOST_AUTO_TEST_CASE(suspect_node_errors_name_the_flag) {
  struct Case {
    Names words;
    int code;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{"-f", examples(), "--suspect-node", "node9"},
       kExitInvalid,
       "--suspect-node node9: no Node of that name in the input"},
      {{"-f", examples(), "--suspect-node", "node1", "--dead-node", "node1"},
       kExitInvalid,
       "--suspect-node node1: also given as --dead-node"},
      {{"--suspect-node"}, kExitUsage, "flag --suspect-node needs a node name"},
      {{"--suspect-node", "node1"}, kExitUsage, "--suspect-node previews memberlist on -f files"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      Names words = {"web/frontend"};
      words.insert(words.end(), c.words.begin(), c.words.end());
      const Run r = run(runExplain, words);
      BOOST_TEST(r.code == c.code);
      BOOST_TEST(r.err.find(c.want) != std::string::npos, r.err);
    }
  }
}

// `explain service NS/NAME` names the kind as kubectl does; a Service named "service" still
// works alone.
BOOST_AUTO_TEST_CASE(explain_accepts_the_kind_word) {
  const Run kind = run(runExplain, {"service", "web/frontend", "-f", examples()});
  const Run bare = run(runExplain, {"web/frontend", "-f", examples()});
  BOOST_TEST(kind.code == kExitOk);
  BOOST_TEST(kind.out == bare.out);
  BOOST_TEST(run(runExplain, {"svc", "web/frontend", "-f", examples()}).out == bare.out);
  const Run named = run(runExplain, {"service", "-f", examples()});
  BOOST_TEST(named.err.find("Service default/service is not in the input") != std::string::npos,
             named.err);
}

BOOST_AUTO_TEST_SUITE_END()
