// SPDX-License-Identifier: Apache-2.0
// Startup failures end the process at once with a non-zero exit and an error that says what to
// fix: a CA that did not sign the server's certificate, a token the server rejects, bad flags.
#include <filesystem>
#include <regex>

#include <boost/test/unit_test.hpp>

#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

/// kubeconfigWith rewrites the server's kubeconfig: its CA data and/or its token.
std::string kubeconfigWith(const std::string& original,
                           const std::string& ca_data,
                           const std::string& token) {
  std::string out = original;
  if (!ca_data.empty()) {
    out = std::regex_replace(out, std::regex("certificate-authority-data: .*"),
                             "certificate-authority-data: " + ca_data);
  }
  if (!token.empty()) {
    out = std::regex_replace(out, std::regex("token: .*"), "token: \"" + token + "\"");
  }
  return out;
}

/// otherCaData creates a self-signed CA with openssl and returns its base64 PEM.
std::string otherCaData(const std::string& dir) {
  const auto r = runCommand(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
      " -keyout " +
      dir + "/other.key -out " + dir + "/other.crt -subj /CN=other-ca -days 1 && base64 -w0 " +
      dir + "/other.crt");
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const size_t begin = r.output.find("LS0t");  // base64 of "-----"
  BOOST_REQUIRE(begin != std::string::npos);
  return r.output.substr(begin);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(startup)

BOOST_AUTO_TEST_CASE(wrong_ca_or_token_fails_at_startup_with_a_clear_error) {
  Cluster cluster;
  const std::string original = readWholeFile(cluster.server->kubeconfig());
  struct Case {
    std::string desc;
    std::string ca_data;
    std::string token;
    std::string expected;  ///< in the log
  };
  const std::vector<Case> cases = {
      {"a CA that did not sign the server certificate", otherCaData(cluster.server->dir()), "",
       "TLS verification of the API server failed: check the CA"},
      {"a token the server rejects", "", "not-the-token",
       "the API server rejected the credentials (401)"},
  };
  int n = 0;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const std::string kc = cluster.server->dir() + "/bad-" + std::to_string(++n) + ".kubeconfig";
      BOOST_REQUIRE(writeWholeFile(kc, kubeconfigWith(original, c.ca_data, c.token)).has_value());
      auto controller = ControllerProcess::start(kc, cluster.server->dir());
      BOOST_REQUIRE(controller.has_value());
      const auto code = (*controller)->process().waitExit(Millis(15000));
      BOOST_REQUIRE_MESSAGE(code.has_value(), "still running:\n" + (*controller)->log());
      BOOST_TEST(*code == 1);
      BOOST_TEST((*controller)->log().find(c.expected) != std::string::npos, (*controller)->log());
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_flags_exit_with_usage_error) {
  const auto dir = makeTempDir("ingot-ctrl-flags");
  BOOST_REQUIRE(dir.has_value());
  struct Case {
    std::string desc;
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unknown flag", {"--no-such-flag"}, "unknown flag --no-such-flag"},
      {"bad log level", {"--log-level=loud"}, "invalid log level \"loud\""},
      {"port out of range", {"--port=70000"}, "must be a port number 0-65535"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      std::vector<std::string> argv = {INGOT_CONTROLLER_BINARY, "--namespace=metallb-system"};
      argv.insert(argv.end(), c.args.begin(), c.args.end());
      auto p = Process::spawn(argv, {}, *dir + "/out.log");
      BOOST_REQUIRE(p.has_value());
      const auto code = (*p)->waitExit(Millis(5000));
      BOOST_REQUIRE(code.has_value());
      BOOST_TEST(*code == 2);
      BOOST_TEST(readWholeFile(*dir + "/out.log").find(c.expected) != std::string::npos);
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(*dir, ec);
}

BOOST_AUTO_TEST_SUITE_END()
