// SPDX-License-Identifier: Apache-2.0
// Golden tests of `ingotctl plan` on examples/: the addresses MetalLB would assign to them.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/tests/test_util.h"

namespace {

using namespace ingot::cli::testing;

Run plan(const std::vector<std::string>& words) {
  return run(ingot::cli::runPlan, words);
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
