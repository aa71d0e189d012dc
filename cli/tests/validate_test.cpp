// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_cli
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/tests/test_util.h"

namespace fs = std::filesystem;

namespace {

using namespace ingot::cli::testing;

Run validate(const std::vector<std::string>& words) {
  return run(ingot::cli::runValidate, words);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

constexpr const char* kGoodPool = R"(apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: good
  namespace: metallb-system
spec:
  addresses: [10.1.0.0/24]
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(validate_command)

BOOST_AUTO_TEST_CASE(examples_are_valid) {
  const Run r = validate({"-f", sourceDir() + "/examples"});
  BOOST_TEST(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out.rfind("valid: ", 0) == 0);
  BOOST_TEST(r.out.find(" objects") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(valid_input_prints_object_count) {
  TempDir dir;
  const auto f = dir.write("pool.yaml", std::string(kGoodPool) + "---\n" +
                                            "apiVersion: metallb.io/v1beta1\n"
                                            "kind: L2Advertisement\n"
                                            "metadata: {name: adv}\n");
  const Run r = validate({"-f", f});
  BOOST_TEST(r.code == 0, r.out);
  BOOST_TEST(r.out == "valid: 2 objects\n");
}

BOOST_AUTO_TEST_CASE(invalid_field_is_reported_with_file_line_kind_name_and_field) {
  TempDir dir;
  const auto f = dir.write("bad.yaml", std::string(kGoodPool) +
                                           "---\n"
                                           "apiVersion: metallb.io/v1beta1\n"
                                           "kind: IPAddressPool\n"
                                           "metadata:\n"
                                           "  name: bare-ip\n"
                                           "spec:\n"
                                           "  addresses:\n"
                                           "    - 10.2.0.1\n");
  const Run r = validate({"-f", f});
  BOOST_TEST(r.code == 1);
  const auto out = lines(r.out);
  BOOST_TEST_REQUIRE(out.size() == 1u, r.out);
  // The second document starts on line 9; the offending entry is on line 15.
  const std::string prefix_obj =
      f + ":9: IPAddressPool metallb-system/bare-ip: spec.addresses[0]: ";
  const std::string prefix_field =
      f + ":15: IPAddressPool metallb-system/bare-ip: spec.addresses[0]: ";
  BOOST_TEST((out[0].rfind(prefix_obj, 0) == 0 || out[0].rfind(prefix_field, 0) == 0), out[0]);
}

BOOST_AUTO_TEST_CASE(overlapping_pools_are_reported_across_files) {
  TempDir dir;
  dir.write("a.yaml", kGoodPool);
  dir.write("sub/b.yml",
            "apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: other}\n"
            "spec:\n  addresses: [10.1.0.128/25]\n");
  const Run r = validate({"-f", dir.path.string()});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.find("overlaps with already defined CIDR") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(metallb_kinds_outside_the_metallb_namespace_are_rejected) {
  TempDir dir;
  const auto f = dir.write("ns.yaml",
                           "apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\n"
                           "metadata: {name: p, namespace: default}\n"
                           "spec:\n  addresses: [10.3.0.0/24]\n");
  Run r = validate({"-f", f});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out == f + ":1: IPAddressPool default/p: metadata.namespace: resource must be "
                          "created in metallb-system namespace\n");
  r = validate({"--namespace", "default", "-f", f});
  BOOST_TEST(r.code == 0, r.out);
}

BOOST_AUTO_TEST_CASE(json_output_lists_every_problem_with_transient_flag) {
  TempDir dir;
  const auto f = dir.write("peer.yaml",
                           "apiVersion: metallb.io/v1beta2\nkind: BGPPeer\n"
                           "metadata: {name: tor}\n"
                           "spec:\n  myASN: 64512\n  peerASN: 64513\n  peerAddress: 10.0.0.1\n"
                           "  bfdProfile: missing\n");
  const Run r = validate({"--output", "json", "-f", f});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.find("\"kind\": \"BGPPeer\"") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("\"name\": \"tor\"") != std::string::npos);
  BOOST_TEST(r.out.find("\"namespace\": \"metallb-system\"") != std::string::npos);
  BOOST_TEST(r.out.find("\"transient\": true") != std::string::npos);
  BOOST_TEST(r.out.find("\"file\": \"" + f + "\"") != std::string::npos);
  BOOST_TEST(r.out.find("\"line\": 1") != std::string::npos);
}

// MetalLB's speakers parse only the BGPPeers and BGPAdvertisements that select their node
// (filterByNode): validate reports which nodes reject what, and an object that selects no node
// only warns.
BOOST_AUTO_TEST_CASE(objects_are_judged_on_the_nodes_they_select) {
  const std::string data = sourceDir() + "/cli/tests/testdata/";
  const std::string alias_error =
      "spec.communities[0]: invalid community \"not-defined\" in BGP advertisement: invalid "
      "community format: not-defined (no Community alias with this name either)";

  const Run idle = validate({"-f", data + "per-node-base.yaml"});
  BOOST_TEST(idle.code == 0, idle.out + idle.err);
  BOOST_TEST(idle.out == "valid: 6 objects\n");
  BOOST_TEST(idle.err.find("warning: " + data + "per-node-base.yaml:29: BGPAdvertisement " +
                           "metallb-system/idle: " + alias_error + " (it selects no node") !=
                 std::string::npos,
             idle.err);

  const Run broken =
      validate({"-f", data + "per-node-base.yaml", "-f", data + "per-node-rack1.yaml"});
  BOOST_TEST(broken.code == 1, broken.out + broken.err);
  BOOST_TEST(lines(broken.out) ==
                 (std::vector<std::string>{data + "per-node-rack1.yaml:3: BGPAdvertisement " +
                                           "metallb-system/rack1: " + alias_error +
                                           " [rejected by the agent on node n1]"}),
             boost::test_tools::per_element());

  const Run json = validate(
      {"--output", "json", "-f", data + "per-node-base.yaml", "-f", data + "per-node-rack1.yaml"});
  BOOST_TEST(json.out.find("\"nodes\": [\n      \"n1\"\n    ]") != std::string::npos, json.out);
}

BOOST_AUTO_TEST_CASE(json_output_of_valid_input_is_an_empty_array) {
  TempDir dir;
  const Run r = validate({"--output=json", "-f", dir.write("p.yaml", kGoodPool)});
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out == "[]\n");
}

BOOST_AUTO_TEST_CASE(unknown_kinds_are_skipped_with_a_note) {
  TempDir dir;
  const auto f = dir.write("mixed.yaml", std::string(kGoodPool) +
                                             "---\napiVersion: apps/v1\nkind: Deployment\n"
                                             "metadata: {name: web}\n");
  const Run r = validate({"-f", f});
  BOOST_TEST(r.code == 0, r.out);
  BOOST_TEST(r.out == "valid: 1 objects\n");
  BOOST_TEST(r.err.find("Deployment") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(truncated_and_binary_input_fail_with_a_line) {
  TempDir dir;
  const auto truncated = dir.write("t.yaml",
                                   "apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\n"
                                   "metadata:\n  name: [unclosed\n");
  Run r = validate({"-f", truncated});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.rfind(truncated + ":", 0) == 0, r.out);
  const auto binary = dir.write("b.json", std::string("\x00\xff\xfe{\x01\"kind", 9));
  r = validate({"-f", binary});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.rfind(binary + ":", 0) == 0, r.out);
}

BOOST_AUTO_TEST_CASE(missing_file_is_an_error_not_a_crash) {
  const Run r = validate({"-f", "/nonexistent/ingot/file.yaml"});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.find("/nonexistent/ingot/file.yaml") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
  BOOST_TEST(validate({}).code == 2);
  BOOST_TEST(validate({"--bogus", "-f", "x"}).code == 2);
  BOOST_TEST(validate({"--output", "yaml", "-f", "x"}).code == 2);
  BOOST_TEST(validate({"--backend", "gobgp", "-f", "x"}).code == 2);
  BOOST_TEST(validate({"-f"}).code == 2);
}

BOOST_AUTO_TEST_CASE(backend_rules_apply) {
  TempDir dir;
  const auto f = dir.write("bfd.yaml",
                           "apiVersion: metallb.io/v1beta1\nkind: BFDProfile\n"
                           "metadata: {name: fast}\nspec: {receiveInterval: 100}\n");
  BOOST_TEST(validate({"-f", f}).code == 0);
  BOOST_TEST(validate({"--backend", "frr", "-f", f}).code == 0);
  const Run native = validate({"--backend", "native", "-f", f});
  BOOST_TEST(native.code == 2);
  BOOST_TEST(
      native.err.find("Ingot has no native BGP speaker (use frr-k8s, the default, or frr)") !=
          std::string::npos,
      native.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(validate_parity_choices)

constexpr const char* kPeer = R"(apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata:
  name: %NAME%
  namespace: metallb-system
spec:
  myASN: 64513
  peerASN: 64512
  peerAddress: "%ADDRESS%"
%EXTRA%)";

std::string peerYaml(const std::string& name,
                     const std::string& address,
                     const std::string& extra = "") {
  std::string text = kPeer;
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"%NAME%", name}, {"%ADDRESS%", address}, {"%EXTRA%", extra}}) {
    text.replace(text.find(key), key.size(), value);
  }
  return text;
}

BOOST_AUTO_TEST_CASE(disable_mp_is_accepted_with_the_webhook_warning) {
  TempDir dir;
  const std::string file = dir.write("peer.yaml", peerYaml("p", "10.0.0.1", "  disableMP: true\n"));
  const Run r = validate({"-f", file});
  BOOST_TEST(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out == "valid: 1 objects\n");
  BOOST_TEST(r.err == "warning: " + file +
                          ":1: BGPPeer metallb-system/p: spec.disableMP: disable mp is deprecated "
                          "and has no effect since it's the default behavior now\n");
  const Run quiet = validate({"-f", dir.write("plain.yaml", peerYaml("q", "10.0.0.2"))});
  BOOST_TEST(quiet.err.empty(), quiet.err);
}

BOOST_AUTO_TEST_CASE(an_ipv6_peer_written_two_ways_is_one_peer) {
  // MetalLB compares the address text and accepts; frr-k8s then fails on the node. Ingot compares
  // addresses and rejects the second BGPPeer up front.
  TempDir dir;
  const std::string file = dir.write(
      "peers.yaml", peerYaml("a", "2001:db8::1") + "---\n" + peerYaml("b", "2001:0db8:0:0::1"));
  const Run r = validate({"-f", file});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.find("BGPPeer metallb-system/b: spec.peerAddress: peer 2001:db8::1 already "
                        "exists, FRR mode doesn't support duplicate BGPPeers selecting the same "
                        "node (BGPPeer a)") != std::string::npos,
             r.out);
}

BOOST_AUTO_TEST_CASE(negative_ipv6_aggregation_on_an_ipv4_pool_is_valid) {
  TempDir dir;
  const std::string file = dir.write("adv.yaml", std::string(kGoodPool) + R"(---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata:
  name: adv
  namespace: metallb-system
spec:
  ipAddressPools: [good]
  aggregationLengthV6: -1
)");
  const Run r = validate({"-f", file});
  BOOST_TEST(r.code == 0, r.out + r.err);
  BOOST_TEST(r.out == "valid: 2 objects\n");
}

BOOST_AUTO_TEST_SUITE_END()
