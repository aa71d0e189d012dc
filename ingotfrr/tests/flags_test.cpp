// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/flags.h"

#include <map>

#include <boost/test/unit_test.hpp>

namespace ingot::ingotfrr {
namespace {

daemon::Environment env(const std::map<std::string, std::string>& vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(flags)

BOOST_AUTO_TEST_CASE(frr_k8s_defaults_and_names) {
  auto f = parseFlags({"--node-name", "n1"}, env({}), "frr-k8s-system");
  BOOST_TEST_REQUIRE(f.has_value());
  BOOST_TEST(f->namespace_ == "frr-k8s-system");
  BOOST_TEST(f->port == 9140);
  BOOST_TEST(f->health_probe_port == 7572);
  BOOST_TEST(f->health_address == "127.0.0.1");
  BOOST_TEST(f->debounce.count() == 200);
}

BOOST_AUTO_TEST_CASE(bind_addresses_debounce_and_env) {
  auto f = parseFlags({"-node-name=n1", "--namespace", "x", "--metrics-bind-address", "10.0.0.1:0",
                       "--health-probe-bind-address=:8080"},
                      env({{"FRR_K8S_BGP_DEBOUNCE_TIMEOUT", "750"}}), "");
  BOOST_TEST_REQUIRE(f.has_value());
  BOOST_TEST(f->metrics_address == "10.0.0.1");
  BOOST_TEST(f->port == 0);
  BOOST_TEST(f->health_address == "");
  BOOST_TEST(f->health_probe_port == 8080);
  BOOST_TEST(f->debounce.count() == 750);
}

BOOST_AUTO_TEST_CASE(errors_name_the_flag) {
  struct Case {
    std::vector<std::string> args;
    std::string want;
  };
  const std::vector<Case> cases{
      {{"--namespace", "x"}, "--node-name is required"},
      {{"--node-name", "n"}, "--namespace is required"},
      {{"--node-name", "n", "--namespace", "x", "--always-block", "10.0.0.0/8"}, "always-block"},
      {{"--node-name", "n", "--namespace", "x", "--metrics-bind-address", "a:b"},
       "metrics-bind-address"},
      {{"--node-name", "n", "--namespace", "x", "--bgp-debounce-timeout", "-1"},
       "bgp-debounce-timeout"},
      {{"--node-name", "n", "--namespace", "x", "--no-such-flag"}, "no-such-flag"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      auto f = parseFlags(c.args, env({}), "");
      BOOST_TEST_REQUIRE(!f.has_value());
      BOOST_TEST(f.error().message.find(c.want) != std::string::npos, f.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(frr_k8s_only_flags_are_accepted_and_reported) {
  auto f = parseFlags({"--node-name", "n", "--namespace", "x", "--tls-min-version", "VersionTLS13",
                       "--always-block", ""},
                      env({}), "");
  BOOST_TEST_REQUIRE(f.has_value());
  BOOST_TEST(f->ignored == std::vector<std::string>{"tls-min-version"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::ingotfrr
