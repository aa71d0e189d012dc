// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain --drain-triggers`: a cordoned node is reported draining and leaves the Layer 2
// election, as the agents started with the same flag decide.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/tests/test_util.h"
#include "common/json/json.h"

namespace {

namespace fs = std::filesystem;
using namespace ingot::cli;
using namespace ingot::cli::testing;

/// CordonedExamples is a copy of examples/ whose node1 has spec.unschedulable.
struct CordonedExamples {
  TempDir tmp;
  CordonedExamples() {
    fs::copy(sourceDir() + "/examples", tmp.path, fs::copy_options::recursive);
    const fs::path nodes = tmp.path / "cluster" / "nodes.yaml";
    std::string text = readFile(nodes.string());
    text.replace(text.find("status:"), 7, "spec:\n  unschedulable: true\nstatus:");
    std::ofstream(nodes) << text;
  }
};

ingot::json::Value explainJsonOn(const std::string& dir, std::vector<std::string> words) {
  words.insert(words.end(), {"--output", "json", "-f", dir});
  const Run r = run(runExplain, words);
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  return *doc;
}

BOOST_AUTO_TEST_SUITE(explain_drain)

BOOST_AUTO_TEST_CASE(a_cordoned_node_is_draining_only_with_the_cordon_trigger) {
  const CordonedExamples ex;
  const std::string dir = ex.tmp.path.string();
  const auto off = explainJsonOn(dir, {"web/frontend"});
  BOOST_TEST(off.find("l2")->find("winner")->text() == "node1");
  BOOST_TEST(jsonNode(off, "node1").find("draining")->isNull());

  const auto on = explainJsonOn(dir, {"web/frontend", "--drain-triggers", "cordon"});
  BOOST_TEST(on.find("l2")->find("winner")->text() == "node2");
  BOOST_TEST(jsonNode(on, "node1").find("draining")->text() == "cordoned");
  BOOST_TEST(jsonNode(on, "node1").find("l2")->find("excluded")->text() == "draining");
  BOOST_TEST(jsonNode(on, "node2").find("draining")->isNull());

  const Run text = run(runExplain, {"web/frontend", "-f", dir, "--drain-triggers=cordon"});
  BOOST_TEST(text.out.find("node node1 (draining: cordoned)\n") != std::string::npos, text.out);
}

BOOST_AUTO_TEST_CASE(an_unknown_trigger_is_refused) {
  const Run r = run(
      runExplain, {"web/frontend", "-f", sourceDir() + "/examples", "--drain-triggers", "reboot"});
  BOOST_TEST(r.code != 0);
  BOOST_TEST(r.err.find("unknown drain trigger \"reboot\"") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
