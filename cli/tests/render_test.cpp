// SPDX-License-Identifier: Apache-2.0
// `ingotctl render` on examples/: what each node's agent would configure, and why.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "api/manifest.h"
#include "cli/commands.h"
#include "cli/tests/test_util.h"
#include "frrgen/served.h"

namespace {

using namespace ingot::cli::testing;

Run render(std::vector<std::string> words) {
  words.push_back("-f");
  words.push_back(sourceDir() + "/examples");
  return run(ingot::cli::runRender, words);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_command)

BOOST_AUTO_TEST_CASE(frrconfiguration_of_each_node_matches_golden) {
  for (const std::string node : {"node1", "node2"}) {
    BOOST_TEST_CONTEXT(node) {
      const Run r = render({"--node", node});
      BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
      BOOST_TEST(r.out.find("name: metallb-" + node) != std::string::npos, r.out);
      checkGolden("render-" + node + ".frrconfiguration.yaml", r.out);
    }
  }
}

BOOST_AUTO_TEST_CASE(frr_conf_of_node1_matches_golden) {
  const Run r = render({"--node", "node1", "--format", "frr.conf"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("router bgp 64513") != std::string::npos, r.out);
  checkGolden("render-node1.frr.conf", r.out);
}

BOOST_AUTO_TEST_CASE(explain_gives_the_announcement_or_the_reason) {
  // checkout is ETP Local with its only endpoint on node1: node2 must say why it stays silent.
  const Run r1 = render({"--node", "node1", "--explain"});
  const Run r2 = render({"--node", "node2", "--explain"});
  BOOST_TEST_REQUIRE(r1.code == 0, r1.err);
  BOOST_TEST_REQUIRE(r2.code == 0, r2.err);
  BOOST_TEST(r1.out.find("shop/checkout: announced as ") != std::string::npos, r1.out);
  BOOST_TEST(r2.out.find("shop/checkout: not announced: noLocalEndpoints") != std::string::npos,
             r2.out);
  checkGolden("explain-node1.txt", r1.out);
  checkGolden("explain-node2.txt", r2.out);
}

// Endpoint-weighted ECMP (--weighted-ecmp, as the agents' flag): checkout's node1 has one ready
// endpoint. --explain names the weight; the FRRConfiguration carries it in spec.raw for frr-k8s
// (frrgen/weight_raw.h), and the frr.conf frr-k8s renders from it sets the link-bandwidth.
BOOST_AUTO_TEST_CASE(weighted_ecmp_shows_each_nodes_weight) {
  const Run plain = render({"--node", "node1", "--explain"});
  const Run weighted = render({"--node", "node1", "--explain", "--weighted-ecmp"});
  BOOST_TEST_REQUIRE(weighted.code == 0, weighted.err);
  BOOST_TEST(plain.out.find("weight") == std::string::npos, plain.out);
  BOOST_TEST(weighted.out.find("198.51.100.0/32 (localPref 150, communities 64512:100 "
                               "64512:200, weight 1) to tor1") != std::string::npos,
             weighted.out);
  const Run yaml = render({"--node", "node1", "--weighted-ecmp"});
  BOOST_TEST_REQUIRE(yaml.code == 0, yaml.err);
  BOOST_TEST(yaml.out.find("rawConfig: ") != std::string::npos, yaml.out);
  BOOST_TEST(yaml.out.find("set extcommunity bandwidth 1") != std::string::npos, yaml.out);
  const Run conf = render({"--node", "node1", "--weighted-ecmp", "--format", "frr.conf"});
  BOOST_TEST_REQUIRE(conf.code == 0, conf.err);
  BOOST_TEST(conf.out.find(" set extcommunity bandwidth 1\n") != std::string::npos, conf.out);
  BOOST_TEST(render({"--node", "node1"}).out.find("rawConfig: ") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(exclude_label_is_honoured_unless_ignored) {
  const std::string node = sourceDir() + "/cli/tests/testdata/excluded-node.yaml";
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> base = {
      "--node", "node3", "--explain", "-f", sourceDir() + "/examples", "-f", node};
  BOOST_TEST_REQUIRE(ingot::cli::runRender(base, out, err) == 0, err.str());
  BOOST_TEST(out.str().find("shop/checkout: not announced: nodeLabeledExcludeBalancers") !=
                 std::string::npos,
             out.str());
  auto ignoring = base;
  ignoring.push_back("--ignore-exclude-lb");
  std::ostringstream out2;
  BOOST_TEST_REQUIRE(ingot::cli::runRender(ignoring, out2, err) == 0, err.str());
  BOOST_TEST(out2.str().find("nodeLabeledExcludeBalancers") == std::string::npos, out2.str());
}

BOOST_AUTO_TEST_CASE(as_served_prints_the_object_as_the_api_server_returns_it) {
  const Run plain = render({"--node", "node1"});
  const Run served = render({"--node", "node1", "--as-served"});
  BOOST_TEST_REQUIRE(served.code == 0, served.out + served.err);
  // MetalLB's always-serialised empty structs and frr-k8s' CRD defaults.
  for (const char* line :
       {"      passwordSecret: {}", "          mode: filtered", "      disableMP: false",
        "      dualStackAddressFamily: false", "  raw: {}"}) {
    BOOST_TEST(served.out.find(std::string(line) + "\n") != std::string::npos, line);
    BOOST_TEST(plain.out.find(std::string(line) + "\n") == std::string::npos, line);
  }
  // The same object: served is the plain one with the server's additions.
  auto decode = [](const std::string& text) {
    auto set = ingot::api::loadManifestText(text, "render");
    BOOST_TEST_REQUIRE((set.problems.empty() && set.objects.size() == 1u), text);
    return std::get<ingot::api::FRRConfiguration>(set.objects[0].object);
  };
  const auto a = decode(plain.out);
  const auto b = decode(served.out);
  BOOST_TEST((ingot::frrgen::servedSpec(a.spec) == b.spec));
  BOOST_TEST(ingot::frrgen::sameServedSpec(a.spec, b.spec));
  checkGolden("render-node1.served.yaml", served.out);
}

BOOST_AUTO_TEST_CASE(a_node_without_sessions_or_profiles_gets_no_frrconfiguration) {
  const std::string file = sourceDir() + "/cli/tests/testdata/no-sessions.yaml";
  std::ostringstream out;
  std::ostringstream err;
  BOOST_TEST_REQUIRE(ingot::cli::runRender({"--node", "node4", "-f", file}, out, err) == 0,
                     err.str());
  BOOST_TEST(out.str().empty(), out.str());
  BOOST_TEST(err.str().find("note: node \"node4\" has no BGP session and no BFD profile: no "
                            "FRRConfiguration metallb-node4 is written") != std::string::npos,
             err.str());
  // frr mode still gets a configuration: the one that clears any BGP state.
  std::ostringstream conf;
  BOOST_TEST_REQUIRE(ingot::cli::runRender({"--node", "node4", "--format", "frr.conf", "-f", file},
                                           conf, err) == 0,
                     err.str());
  BOOST_TEST(conf.str().find("ip nht resolve-via-default") != std::string::npos, conf.str());
  BOOST_TEST(conf.str().find("router bgp") == std::string::npos, conf.str());
}

BOOST_AUTO_TEST_CASE(an_object_broken_on_one_node_breaks_only_that_node) {
  const std::string data = sourceDir() + "/cli/tests/testdata/";
  const std::vector<std::string> files = {"-f", data + "per-node-base.yaml", "-f",
                                          data + "per-node-rack1.yaml"};
  auto on = [&](const std::string& node) {
    std::vector<std::string> words = {"--node", node};
    words.insert(words.end(), files.begin(), files.end());
    return run(ingot::cli::runRender, words);
  };
  const Run n2 = on("n2");
  BOOST_TEST(n2.code == 0, n2.out + n2.err);
  BOOST_TEST(n2.out.find("name: metallb-n2") != std::string::npos, n2.out);
  const Run n1 = on("n1");
  BOOST_TEST(n1.code == 1, n1.out + n1.err);
  BOOST_TEST(n1.out.find("BGPAdvertisement metallb-system/rack1: spec.communities[0]") !=
                 std::string::npos,
             n1.out);
}

BOOST_AUTO_TEST_CASE(unknown_node_and_bad_flags_fail) {
  BOOST_TEST(render({"--node", "nosuchnode"}).code == 1);
  BOOST_TEST(render({}).code == 2);
  BOOST_TEST(render({"--node", "node1", "--format", "bird.conf"}).code == 2);
}

BOOST_AUTO_TEST_SUITE_END()
