// SPDX-License-Identifier: Apache-2.0
// Golden tests of `ingotctl plan` on examples/: the addresses MetalLB would assign to them.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"

namespace {

std::string sourceDir() {
  const char* dir = std::getenv("INGOT_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// checkGolden compares got with cli/tests/testdata/NAME, or rewrites it when
/// INGOT_UPDATE_GOLDEN=1.
void checkGolden(const std::string& name, const std::string& got) {
  const std::string path = sourceDir() + "/cli/tests/testdata/" + name;
  if (const char* update = std::getenv("INGOT_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(path) << got;
    return;
  }
  BOOST_TEST(got == readFile(path), "golden " << path << " differs; got:\n" << got);
}

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run plan(const std::vector<std::string>& words) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = ingot::cli::runPlan(words, out, err);
  return {code, out.str(), err.str()};
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

BOOST_AUTO_TEST_SUITE_END()
