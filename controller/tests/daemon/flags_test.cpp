// SPDX-License-Identifier: Apache-2.0
#include "controller/flags.h"

#include <map>

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace ingot::controller;

namespace {

Environment envOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(flags)

BOOST_AUTO_TEST_CASE(flags_and_environment_are_parsed_like_metallb_controller) {
  struct Case {
    std::string desc;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string pod_namespace;
    std::string ns;
    std::string lb_class;
    log::Level level;
    int port;
    int health;
    config::Backend backend;
  };
  const std::vector<Case> cases = {
      {"defaults with the namespace from the environment",
       {},
       {{"METALLB_NAMESPACE", "mlb"}},
       "",
       "mlb",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::FrrK8s},
      {"flag overrides the environment",
       {"--namespace=x"},
       {{"METALLB_NAMESPACE", "mlb"}},
       "",
       "x",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::FrrK8s},
      {"the pod's namespace file is the last fallback",
       {},
       {},
       "from-pod",
       "from-pod",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::FrrK8s},
      {"single dash and separate values as Go's flag package",
       {"-namespace", "a", "-lb-class", "cls", "-log-level", "all", "-port", "0"},
       {},
       "",
       "a",
       "cls",
       log::Level::Debug,
       0,
       17472,
       config::Backend::FrrK8s},
      {"health probe port and log level none",
       {"--namespace=a", "--health-probe-port=0", "--log-level=none"},
       {},
       "",
       "a",
       "",
       log::Level::None,
       9120,
       0,
       config::Backend::FrrK8s},
      {"METALLB_BGP_TYPE selects the validation backend",
       {"--namespace=a"},
       {{"METALLB_BGP_TYPE", "frr"}},
       "",
       "a",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::Frr},
      {"Layer 2 only agents validate BGP objects as for frr-k8s",
       {"--namespace=a"},
       {{"METALLB_BGP_TYPE", "none"}},
       "",
       "a",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::FrrK8s},
      {"MetalLB's native runs as Layer 2 only",
       {"--namespace=a"},
       {{"METALLB_BGP_TYPE", "native"}},
       "",
       "a",
       "",
       log::Level::Info,
       9120,
       17472,
       config::Backend::FrrK8s},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto f = parseFlags(c.args, envOf(c.env), c.pod_namespace);
      BOOST_REQUIRE_MESSAGE(f.has_value(), (f.has_value() ? std::string() : f.error().message));
      BOOST_TEST(f->namespace_ == c.ns);
      BOOST_TEST(f->lb_class == c.lb_class);
      BOOST_TEST(static_cast<int>(f->log_level) == static_cast<int>(c.level));
      BOOST_TEST(f->port == c.port);
      BOOST_TEST(f->health_probe_port == c.health);
      BOOST_TEST(static_cast<int>(f->backend) == static_cast<int>(c.backend));
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_flags_are_rejected_with_the_flag_and_reason) {
  struct Case {
    std::string desc;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unknown flag", {"--nope"}, {}, "unknown flag --nope"},
      {"missing value", {"--namespace"}, {}, "flag --namespace needs a value"},
      {"bad log level", {"--namespace=a", "--log-level=loud"}, {}, "invalid log level \"loud\""},
      {"port too large", {"--namespace=a", "--port=65536"}, {}, "must be a port number 0-65535"},
      {"port not a number", {"--namespace=a", "--port=http"}, {}, "must be a port number"},
      {"no namespace anywhere", {}, {}, "the MetalLB namespace is unknown"},
      {"positional argument", {"--namespace=a", "extra"}, {}, "unexpected argument \"extra\""},
      {"bad backend", {"--namespace=a"}, {{"METALLB_BGP_TYPE", "bird"}}, "METALLB_BGP_TYPE"},
      {"bad backend names the accepted values",
       {"--namespace=a"},
       {{"METALLB_BGP_TYPE", "gobgp"}},
       "must be frr-k8s, frr or none"},
      {"unknown webhook mode",
       {"--namespace=a", "--webhook-mode=sometimes"},
       {},
       "must be enabled, disabled or onlywebhook"},
      {"webhook port out of range",
       {"--namespace=a", "--webhook-port=70000"},
       {},
       "must be a port number 0-65535"},
      {"unknown TLS version",
       {"--namespace=a", "--tls-min-version=VersionTLS14"},
       {},
       "--tls-min-version \"VersionTLS14\": must be one of"},
      {"cipher suites with a TLS 1.3 minimum",
       {"--namespace=a", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
       {},
       "cannot be used with a TLS 1.3 minimum"},
      {"bad boolean",
       {"--namespace=a", "--disable-cert-rotation=maybe"},
       {},
       "invalid boolean value"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto f = parseFlags(c.args, envOf(c.env), "");
      BOOST_REQUIRE(!f.has_value());
      BOOST_TEST(f.error().message.find(c.expected) != std::string::npos, f.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(metallb_flags_without_an_ingot_equivalent_are_accepted_and_listed) {
  auto f = parseFlags({"--namespace=a", "--ml-secret-name=memberlist", "--deployment", "ctrl",
                       "--disable-cert-rotation", "--webhook-mode=enabled", "--webhook-http2=false",
                       "--tls-min-version=VersionTLS12", "--tls-curve-preferences=23"},
                      envOf({}), "");
  BOOST_REQUIRE(f.has_value());
  const std::vector<std::string> expected = {"tls-curve-preferences"};  // http2=false: no-op
  BOOST_TEST(f->ignored == expected, boost::test_tools::per_element());
  BOOST_TEST(f->ml_secret_name == "memberlist");
  BOOST_TEST(f->deployment == "ctrl");
}

BOOST_AUTO_TEST_CASE(webhook_flags_take_metallb_names_and_defaults) {
  auto d = parseFlags({"--namespace=a"}, envOf({}), "");
  BOOST_REQUIRE(d.has_value());
  BOOST_TEST((d->webhook.mode == WebhookMode::Enabled));
  BOOST_TEST(d->webhook.cert_dir == "/tmp/k8s-webhook-server/serving-certs");
  BOOST_TEST(d->webhook.cert_service_name == "metallb-webhook-service");
  BOOST_TEST(d->webhook.secret == "metallb-webhook-cert");
  BOOST_TEST(!d->webhook.disable_cert_rotation);
  BOOST_TEST(!d->webhook.port.has_value());
  auto f =
      parseFlags({"--namespace=a", "--webhook-mode=onlywebhook", "--cert-dir=/certs",
                  "--cert-service-name=svc", "--webhook-secret=sec", "--disable-cert-rotation",
                  "--tls-min-version=VersionTLS12",
                  "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "--webhook-port=0"},
                 envOf({}), "");
  BOOST_REQUIRE(f.has_value());
  BOOST_TEST((f->webhook.mode == WebhookMode::OnlyWebhook));
  BOOST_TEST(f->webhook.cert_dir == "/certs");
  BOOST_TEST(f->webhook.cert_service_name == "svc");
  BOOST_TEST(f->webhook.secret == "sec");
  BOOST_TEST(f->webhook.disable_cert_rotation);
  BOOST_TEST(f->webhook.tls_cipher_suites == "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
  BOOST_TEST((f->webhook.port == std::optional<int>(0)));
  BOOST_TEST(f->ignored.empty());
}

BOOST_AUTO_TEST_CASE(memberlist_secret_flags_fall_back_to_metallb_environment) {
  struct Case {
    std::string desc;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string secret;
    std::string deployment;
  };
  const std::vector<Case> cases = {
      {"unset_creates_nothing", {"--namespace=a"}, {}, "", ""},
      {"environment_as_the_chart_sets_it",
       {"--namespace=a"},
       {{"METALLB_ML_SECRET_NAME", "metallb-memberlist"}, {"METALLB_DEPLOYMENT", "controller"}},
       "metallb-memberlist",
       "controller"},
      {"flags_win",
       {"--namespace=a", "--ml-secret-name", "mine", "-deployment=ctl"},
       {{"METALLB_ML_SECRET_NAME", "metallb-memberlist"}, {"METALLB_DEPLOYMENT", "controller"}},
       "mine",
       "ctl"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto f = parseFlags(c.args, envOf(c.env), "");
      BOOST_REQUIRE(f.has_value());
      BOOST_TEST(f->ml_secret_name == c.secret);
      BOOST_TEST(f->deployment == c.deployment);
      BOOST_TEST(f->ignored.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(help_is_recognised_before_the_namespace_is_required) {
  auto f = parseFlags({"--help"}, envOf({}), "");
  BOOST_REQUIRE(f.has_value());
  BOOST_TEST(f->help);
  BOOST_TEST(usage().find("--health-probe-port") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
