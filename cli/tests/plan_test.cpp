// SPDX-License-Identifier: Apache-2.0
// Golden tests of `ingotctl plan` on examples/: the addresses MetalLB would assign to them.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/tests/test_util.h"
#include "common/json/json.h"

namespace {

using namespace ingot::cli::testing;

Run plan(const std::vector<std::string>& words) {
  return run(ingot::cli::runPlan, words);
}

// L2Want is one Service's expected "l2" object (orders checked with the Go oracle).
struct L2Want {
  std::string service;
  std::string winner;  // "" = null
  std::string reason;
  std::vector<std::string> candidates;
};

// texts returns a JSON array of strings as a vector.
std::vector<std::string> texts(const ingot::json::Value& array) {
  std::vector<std::string> out;
  for (const auto& v : array.items()) {
    out.push_back(v.text());
  }
  return out;
}

// l2Of returns the "l2" object of a Service in plan's JSON, or null when it has none.
const ingot::json::Value* l2Of(const ingot::json::Value& doc, const std::string& name) {
  for (const auto& s : doc.find("services")->items()) {
    if (s.find("name")->text() == name) {
      return s.find("l2");
    }
  }
  BOOST_FAIL("service " << name << " is not in the plan");
  return nullptr;
}

void checkL2(const std::vector<std::string>& extra, const std::vector<L2Want>& wants) {
  std::vector<std::string> words = {"--output", "json", "-f",
                                    sourceDir() + "/cli/tests/testdata/l2-plan.yaml"};
  words.insert(words.end(), extra.begin(), extra.end());
  const Run r = plan(words);
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  for (const auto& w : wants) {
    BOOST_TEST_CONTEXT(w.service) {
      const auto* l2 = l2Of(*doc, w.service);
      BOOST_TEST_REQUIRE(l2 != nullptr);
      const auto* winner = l2->find("winner");
      BOOST_TEST((w.winner.empty() ? winner->isNull() : winner->text() == w.winner));
      BOOST_TEST(l2->find("reason")->text() == w.reason);
      BOOST_TEST(texts(*l2->find("candidates")) == w.candidates, boost::test_tools::per_element());
    }
  }
  BOOST_TEST(l2Of(*doc, "routed") == nullptr);  // a BGP-only pool has no "l2"
  BOOST_TEST(l2Of(*doc, "idle") != nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plan_command)

BOOST_AUTO_TEST_CASE(plan_of_examples_matches_golden_json) {
  const Run r = plan({"--output", "json", "-f", sourceDir() + "/examples"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  checkGolden("plan-examples.json", r.out);
}

BOOST_AUTO_TEST_CASE(plan_of_examples_matches_golden_table) {
  const Run r = plan({"-f", sourceDir() + "/examples"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  checkGolden("plan-examples.txt", r.out);
}

BOOST_AUTO_TEST_CASE(lb_class_filter_hides_services_of_other_classes) {
  const Run r = plan({"--lb-class", "other", "--output", "json", "-f", sourceDir() + "/examples"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("\"services\": []") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(invalid_config_prints_validate_errors_and_exits_1) {
  const Run r = plan({"-f", sourceDir() + "/examples", "-f",
                      sourceDir() + "/cli/tests/testdata/overlapping-pool.yaml"});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.find("overlapping-pool.yaml:1: IPAddressPool metallb-system/overlap: ") !=
                 std::string::npos,
             r.out);
}

// Every Node of the input counts as a live agent; the exclude label, NetworkUnavailable,
// nodeSelectors, serviceSelectors and ETP Local narrow the candidates.
BOOST_AUTO_TEST_CASE(l2_objects_name_the_winner_or_why_there_is_none) {
  checkL2({}, {
                  {"web", "node-a", "", {"node-a", "node-b"}},
                  {"local", "node-b", "", {"node-b"}},
                  {"idle", "", "noActiveEndpoint", {"node-b", "node-a"}},
                  {"unmatched", "", "noMatchingAdvertisement", {}},
                  {"edge", "", "noCandidateNode", {}},
              });
}

BOOST_AUTO_TEST_CASE(ignore_exclude_lb_puts_excluded_nodes_back) {
  checkL2({"--ignore-exclude-lb"}, {
                                       {"web", "node-c", "", {"node-c", "node-a", "node-b"}},
                                       {"local", "node-b", "", {"node-b"}},
                                       {"edge", "node-c", "", {"node-c"}},
                                   });
}

BOOST_AUTO_TEST_CASE(table_shows_the_l2_winner) {
  const Run r = plan({"-f", sourceDir() + "/cli/tests/testdata/l2-plan.yaml"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("L2-WINNER") != std::string::npos, r.out);
  const auto line = r.out.substr(r.out.find("apps/web "));
  std::istringstream words(line.substr(0, line.find('\n')));
  std::vector<std::string> cells{std::istream_iterator<std::string>(words), {}};
  BOOST_TEST_REQUIRE(cells.size() >= 4U, line);
  BOOST_TEST(cells[3] == "node-a");
  BOOST_TEST(r.out.find("(none: noCandidateNode)") != std::string::npos, r.out);
}

// plan predicts the owner MetalLB's speakers elect for dual-stack Services: the status order is
// MetalLB's (adopted, allocated IPv4 first, an added family second, requested in text order) and
// the election runs on its first address. Orders from the Go oracle (see the file's comment).
BOOST_AUTO_TEST_CASE(dual_stack_owner_follows_metallbs_status_order) {
  struct Want {
    std::string service;
    std::vector<std::string> ips;
    std::vector<std::string> candidates;
  };
  const std::vector<Want> wants = {
      {"migrated",
       {"fd00::1", "203.0.113.7"},
       {"k8s-worker", "k8s-control-plane", "k8s-worker3", "k8s-worker2"}},
      {"upgraded",
       {"fd00::2", "203.0.113.0"},
       {"k8s-worker2", "k8s-worker", "k8s-control-plane", "k8s-worker3"}},
      {"fresh",
       {"203.0.113.1", "fd00::"},
       {"k8s-worker", "k8s-control-plane", "k8s-worker3", "k8s-worker2"}},
      {"requested",
       {"2001:db8::a", "203.0.113.10"},
       {"k8s-worker2", "k8s-worker3", "k8s-worker", "k8s-control-plane"}},
  };
  const Run r =
      plan({"--output", "json", "-f", sourceDir() + "/cli/tests/testdata/dual-stack-order.yaml"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  for (const auto& w : wants) {
    BOOST_TEST_CONTEXT(w.service) {
      const ingot::json::Value* svc = nullptr;
      for (const auto& s : doc->find("services")->items()) {
        if (s.find("name")->text() == w.service) {
          svc = &s;
        }
      }
      BOOST_TEST_REQUIRE(svc != nullptr);
      BOOST_TEST(texts(*svc->find("ips")) == w.ips, boost::test_tools::per_element());
      const auto* l2 = svc->find("l2");
      BOOST_TEST_REQUIRE(l2 != nullptr);
      BOOST_TEST(l2->find("winner")->text() == w.candidates.front());
      BOOST_TEST(texts(*l2->find("candidates")) == w.candidates, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_pool_of_the_whole_ipv6_space_is_counted_exactly) {
  const std::string file = sourceDir() + "/cli/tests/testdata/whole-ipv6-pool.yaml";
  const Run json = plan({"--output", "json", "-f", file});
  BOOST_TEST_REQUIRE(json.code == 0, json.out + json.err);
  BOOST_TEST(json.out.find("\"availableIPv6\": 340282366920938463463374607431768211456") !=
                 std::string::npos,
             json.out);
  const Run table = plan({"-f", file});
  BOOST_TEST_REQUIRE(table.code == 0, table.out + table.err);
  BOOST_TEST(table.out.find("340282366920938463463374607431768211456") != std::string::npos,
             table.out);
}

BOOST_AUTO_TEST_SUITE_END()
