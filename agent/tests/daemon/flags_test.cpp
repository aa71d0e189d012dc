// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/flags.h"

#include <map>

#include <boost/test/unit_test.hpp>

#include "agent/daemon/manager.h"

namespace ingot::agent {
namespace {

Environment envOf(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

struct FlagCase {
  std::string desc;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string pod_namespace;
  std::function<void(const Flags&)> check;  ///< for successes
  std::string error;                        ///< substring, for failures
};

BOOST_AUTO_TEST_CASE(flags_parse_with_environment_fallbacks_and_defaults) {
  const std::vector<FlagCase> cases = {
      {"defaults_with_only_the_node_name",
       {"--node-name", "n1"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.node_name == "n1");
         BOOST_TEST(f.namespace_ == "metallb-system");
         BOOST_TEST(f.frrk8s_namespace == "metallb-system");
         BOOST_TEST(f.port == 9120);
         BOOST_TEST(f.health_probe_port == 17472);
         BOOST_TEST((f.bgp_mode == BgpMode::FrrK8s));
         BOOST_TEST(f.bgp_debounce.count() == 200);
         BOOST_TEST(f.frr_workdir == "/var/lib/ingot/frr");
         BOOST_TEST(f.frr_reload_script == "/usr/lib/frr/frr-reload.py");
         BOOST_TEST(f.frr_verify_interval.count() == 30);
         BOOST_TEST(!f.frr_full_reload);
         BOOST_TEST((f.log_level == log::Level::Info));
         BOOST_TEST(!f.ignore_exclude_lb);
         BOOST_TEST(!f.weighted_ecmp);
         BOOST_TEST(f.l2_hold_down.count() == 0);
         BOOST_TEST(!f.drain.enabled());
         BOOST_TEST(f.drain.delay_ms == 30'000);
       },
       ""},
      {"drain_flags_are_stored",
       {"--node-name", "n", "--drain-triggers", "cordon,taint,shutdown,sigterm", "--drain-taint",
        "example.com/maintenance", "--drain-delay", "1m5s"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.drain.triggers.size() == 4u);
         BOOST_TEST(f.drain.taint_key == "example.com/maintenance");
         BOOST_TEST(f.drain.delay_ms == 65'000);
       },
       ""},
      {"hold_down_is_a_go_duration",
       {"--node-name", "n", "--l2-hold-down", "1m30.5s"},
       {},
       "",
       [](const Flags& f) { BOOST_TEST(f.l2_hold_down.count() == 90'500); },
       ""},
      {"hold_down_of_an_hour_is_the_most",
       {"--node-name", "n", "--l2-hold-down=1h"},
       {},
       "",
       [](const Flags& f) { BOOST_TEST(f.l2_hold_down.count() == 3'600'000); },
       ""},
      {"environment_supplies_node_pod_namespaces_mode_and_debounce",
       {},
       {{"METALLB_NODE_NAME", "n2"},
        {"METALLB_POD_NAME", "speaker-x"},
        {"METALLB_NAMESPACE", "lb"},
        {"FRRK8S_NAMESPACE", "frr-k8s-system"},
        {"METALLB_BGP_TYPE", "frr"},
        {"METALLB_BGP_DEBOUNCE_TIMEOUT", "3000"}},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.node_name == "n2");
         BOOST_TEST(f.pod_name == "speaker-x");
         BOOST_TEST(f.namespace_ == "lb");
         BOOST_TEST(f.frrk8s_namespace == "frr-k8s-system");
         BOOST_TEST((f.bgp_mode == BgpMode::Frr));
         BOOST_TEST(f.bgp_debounce.count() == 3000);
       },
       ""},
      {"flags_win_over_the_environment",
       {"--node-name=n3", "--bgp-mode", "frr-k8s", "--namespace", "x"},
       {{"METALLB_NODE_NAME", "n2"}, {"METALLB_BGP_TYPE", "frr"}},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.node_name == "n3");
         BOOST_TEST((f.bgp_mode == BgpMode::FrrK8s));
         BOOST_TEST(f.namespace_ == "x");
         BOOST_TEST(f.frrk8s_namespace == "x");
       },
       ""},
      {"pod_namespace_file_is_the_namespace_fallback",
       {"-node-name", "n"},
       {},
       "from-pod",
       [](const Flags& f) { BOOST_TEST(f.namespace_ == "from-pod"); },
       ""},
      {"every_value_flag_is_stored",
       {"--node-name",
        "n",
        "--kubeconfig",
        "/k",
        "--context",
        "c",
        "--lb-class",
        "cls",
        "--ignore-exclude-lb",
        "--weighted-ecmp",
        "--log-level",
        "debug",
        "--port",
        "0",
        "--health-probe-port",
        "1234",
        "--frrk8s-namespace",
        "f",
        "--frrk8s-secret-passthrough",
        "--bgp-debounce-timeout",
        "0",
        "--frr-pathspace",
        "p",
        "--frr-workdir",
        "/w",
        "--frr-reload-script",
        "/r.py",
        "--frr-verify-interval",
        "0",
        "--frr-apply",
        "reload"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.kubeconfig == "/k");
         BOOST_TEST(f.context == "c");
         BOOST_TEST(f.lb_class == "cls");
         BOOST_TEST(f.ignore_exclude_lb);
         BOOST_TEST(f.weighted_ecmp);
         BOOST_TEST((f.log_level == log::Level::Debug));
         BOOST_TEST(f.port == 0);
         BOOST_TEST(f.health_probe_port == 1234);
         BOOST_TEST(f.frrk8s_namespace == "f");
         BOOST_TEST(f.frrk8s_secret_passthrough);
         BOOST_TEST(f.bgp_debounce.count() == 0);
         BOOST_TEST(f.frr_pathspace == "p");
         BOOST_TEST(f.frr_workdir == "/w");
         BOOST_TEST(f.frr_reload_script == "/r.py");
         BOOST_TEST(f.frr_verify_interval.count() == 0);
         BOOST_TEST(f.frr_full_reload);
       },
       ""},
      {"pprof_flags_are_accepted_and_listed_as_ignored",
       {"--node-name", "n", "--ml-namespace", "x", "--enable-pprof", "--host", "h",
        "--tls-min-version=VersionTLS13"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.ignored == (std::vector<std::string>{"ml-namespace", "enable-pprof", "host"}),
                    boost::test_tools::per_element());
         BOOST_TEST(f.tls_min_version == "VersionTLS13");
       },
       ""},
      {"metallbs_metrics_cert_dir_names_its_tls_files",
       {"--node-name", "n", "--metrics-cert-dir", "/etc/metrics"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.tls_cert_file == "/etc/metrics/tls.crt");
         BOOST_TEST(f.tls_private_key_file == "/etc/metrics/tls.key");
       },
       ""},
      {"an_unknown_tls_version_is_refused",
       {"--node-name", "n", "--tls-min-version=VersionTLS99"},
       {},
       "",
       [](const Flags&) {},
       "VersionTLS99"},
      {"memberlist_is_off_by_default_with_metallb_defaults",
       {"--node-name", "n"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(!f.memberlist.enabled());
         BOOST_TEST(f.memberlist.bind_port == 7946);
         BOOST_TEST(!f.memberlist.wan_config);
         BOOST_TEST(f.memberlist.secret_key_path.empty());
         BOOST_TEST(f.memberlist.tuning_path == "/etc/metallb/memberlist/config.json");
         BOOST_TEST(f.ignored.empty());
       },
       ""},
      {"memberlist_flags_are_stored_and_enable_it",
       {"--node-name", "n", "--ml-bindaddr", "10.0.0.1", "--ml-bindport", "7947", "--ml-labels",
        "app=metallb,component=speaker", "--ml-secret-key-path", "/etc/ml_secret_key",
        "--ml-wan-config", "--ml-tuning-path", "/t.json"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.memberlist.enabled());
         BOOST_TEST(f.memberlist.bind_addr == "10.0.0.1");
         BOOST_TEST(f.memberlist.bind_port == 7947);
         BOOST_TEST(f.memberlist.labels == "app=metallb,component=speaker");
         BOOST_TEST(f.memberlist.secretFile() == "/etc/ml_secret_key/secretkey");
         BOOST_TEST(f.memberlist.wan_config);
         BOOST_TEST(f.memberlist.tuning_path == "/t.json");
         BOOST_TEST(f.ignored.empty());
       },
       ""},
      {"memberlist_environment_as_metallb_chart_sets_it",
       {"--node-name", "n"},
       {{"METALLB_ML_BIND_ADDR", "10.0.0.2"},
        {"METALLB_ML_BIND_PORT", "7950"},
        {"METALLB_ML_LABELS", "app=metallb"},
        {"METALLB_ML_SECRET_KEY_PATH", "/etc/ml_secret_key"}},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.memberlist.enabled());
         BOOST_TEST(f.memberlist.bind_addr == "10.0.0.2");
         BOOST_TEST(f.memberlist.bind_port == 7950);
         BOOST_TEST(f.memberlist.labels == "app=metallb");
         BOOST_TEST(f.memberlist.secret_key_path == "/etc/ml_secret_key");
       },
       ""},
      {"memberlist_flags_win_over_the_environment",
       {"--node-name", "n", "--ml-bindaddr=10.0.0.3", "--ml-bindport=0"},
       {{"METALLB_ML_BIND_ADDR", "10.0.0.2"},
        {"METALLB_ML_BIND_PORT", "7950"},
        {"METALLB_ML_LABELS", "app=metallb"}},
       "",
       [](const Flags& f) {
         BOOST_TEST(f.memberlist.bind_addr == "10.0.0.3");
         BOOST_TEST(f.memberlist.bind_port == 0);
       },
       ""},
      {"memberlist_needs_labels_as_well_as_the_bind_address",
       {"--node-name", "n", "--ml-bindaddr", "10.0.0.1"},
       {},
       "",
       [](const Flags& f) { BOOST_TEST(!f.memberlist.enabled()); },
       ""},
      {"memberlist_needs_the_bind_address_as_well_as_labels",
       {"--node-name", "n"},
       {{"METALLB_ML_LABELS", "app=metallb"}},
       "",
       [](const Flags& f) { BOOST_TEST(!f.memberlist.enabled()); },
       ""},
      {"bad_memberlist_port_flag_names_the_flag",
       {"--node-name", "n", "--ml-bindport", "seventy"},
       {},
       "",
       nullptr,
       "--ml-bindport"},
      {"bad_memberlist_port_variable_names_the_variable",
       {"--node-name", "n"},
       {{"METALLB_ML_BIND_PORT", "65536"}},
       "",
       nullptr,
       "METALLB_ML_BIND_PORT"},
      {"help_needs_no_node_name",
       {"--help"},
       {},
       "",
       [](const Flags& f) { BOOST_TEST(f.help); },
       ""},
      {"missing_node_name_is_an_error",
       {},
       {},
       "",
       nullptr,
       "--node-name or set METALLB_NODE_NAME"},
      {"none_mode_runs_layer2_only",
       {"--node-name", "n", "--bgp-mode", "none"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST((f.bgp_mode == BgpMode::None));
         BOOST_TEST(!f.native_requested);
         BOOST_TEST(bgpModeName(f.bgp_mode) == "none");
       },
       ""},
      {"native_mode_flag_runs_layer2_only",
       {"--node-name", "n", "--bgp-mode", "native"},
       {},
       "",
       [](const Flags& f) {
         BOOST_TEST((f.bgp_mode == BgpMode::None));
         BOOST_TEST(f.native_requested);
       },
       ""},
      {"native_mode_environment_runs_layer2_only",
       {"--node-name", "n"},
       {{"METALLB_BGP_TYPE", "native"}},
       "",
       [](const Flags& f) {
         BOOST_TEST((f.bgp_mode == BgpMode::None));
         BOOST_TEST(f.native_requested);
       },
       ""},
      {"unknown_mode_is_refused",
       {"--node-name", "n", "--bgp-mode", "gobgp"},
       {},
       "",
       nullptr,
       "must be frr-k8s, frr or none"},
      {"unknown_mode_environment_names_the_variable",
       {"--node-name", "n"},
       {{"METALLB_BGP_TYPE", "gobgp"}},
       "",
       nullptr,
       "METALLB_BGP_TYPE=\"gobgp\""},
      {"bad_debounce_environment_names_the_variable",
       {"--node-name", "n"},
       {{"METALLB_BGP_DEBOUNCE_TIMEOUT", "soon"}},
       "",
       nullptr,
       "METALLB_BGP_DEBOUNCE_TIMEOUT"},
      {"bad_port_names_the_flag",
       {"--node-name", "n", "--port", "70000"},
       {},
       "",
       nullptr,
       "flag --port=\"70000\": must be a port number"},
      {"unknown_frr_apply_is_refused",
       {"--node-name", "n", "--frr-apply", "fast"},
       {},
       "",
       nullptr,
       "must be incremental or reload"},
      {"negative_verify_interval_is_refused",
       {"--node-name", "n", "--frr-verify-interval", "-1"},
       {},
       "",
       nullptr,
       "--frr-verify-interval"},
      {"unknown_drain_trigger_is_refused",
       {"--node-name", "n", "--drain-triggers", "cordon,drain"},
       {},
       "",
       nullptr,
       "unknown drain trigger \"drain\" (expected cordon, taint, shutdown or sigterm)"},
      {"drain_delay_over_an_hour_is_refused",
       {"--node-name", "n", "--drain-delay", "2h"},
       {},
       "",
       nullptr,
       "flag --drain-delay=\"2h\": must be a duration from 0s to 1h"},
      {"hold_down_without_unit_is_refused",
       {"--node-name", "n", "--l2-hold-down", "10"},
       {},
       "",
       nullptr,
       "missing unit in duration"},
      {"negative_hold_down_is_refused",
       {"--node-name", "n", "--l2-hold-down", "-5s"},
       {},
       "",
       nullptr,
       "flag --l2-hold-down=\"-5s\": must be a duration from 0s to 1h"},
      {"hold_down_over_an_hour_is_refused",
       {"--node-name", "n", "--l2-hold-down", "61m"},
       {},
       "",
       nullptr,
       "must be a duration from 0s to 1h"},
      {"unknown_flag_is_an_error",
       {"--node-name", "n", "--bogus"},
       {},
       "",
       nullptr,
       "unknown flag --bogus"},
      {"missing_value_is_an_error", {"--node-name"}, {}, "", nullptr, "needs a value"},
      {"bad_log_level_is_an_error",
       {"--node-name", "n", "--log-level", "loud"},
       {},
       "",
       nullptr,
       "--log-level"},
      {"positional_argument_is_an_error",
       {"--node-name", "n", "extra"},
       {},
       "",
       nullptr,
       "unexpected argument \"extra\""},
  };
  for (const FlagCase& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto f = parseFlags(c.args, envOf(c.env), c.pod_namespace);
      if (c.error.empty()) {
        BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().message));
        c.check(*f);
      } else {
        BOOST_REQUIRE(!f);
        BOOST_TEST(f.error().message.find(c.error) != std::string::npos, f.error().message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(usage_lists_every_flag_of_the_brief) {
  const std::string u = usage();
  for (const char* f :
       {"--node-name", "--pod-name", "--namespace", "--kubeconfig", "--lb-class",
        "--ignore-exclude-lb", "--log-level", "--port", "--health-probe-port", "--frrk8s-namespace",
        "--frrk8s-secret-passthrough", "--bgp-mode", "--bgp-debounce-timeout", "--frr-pathspace",
        "--frr-workdir", "--frr-reload-script", "--frr-verify-interval", "--l2-hold-down",
        "--weighted-ecmp"}) {
    const bool listed = u.find(std::string("  ") + f + " value\n") != std::string::npos ||
                        u.find(std::string("  ") + f + "\n") != std::string::npos;
    BOOST_TEST(listed, f);
  }
}

// The Service projection keeps the weighted-ECMP opt-in annotation and drops every other one.
BOOST_AUTO_TEST_CASE(service_projection_keeps_only_the_weighted_ecmp_annotation) {
  api::Service s;
  s.metadata.annotations = {{"ingot.dev/weighted-ecmp", "true"},
                            {"metallb.io/address-pool", "a"},
                            {"kubectl.kubernetes.io/last-applied-configuration", "{}"}};
  projectService(s);
  BOOST_TEST((s.metadata.annotations == api::StringMap{{"ingot.dev/weighted-ecmp", "true"}}));
  api::Service none;
  none.metadata.annotations = {{"metallb.io/address-pool", "a"}};
  projectService(none);
  BOOST_TEST(none.metadata.annotations.empty());
}

}  // namespace
}  // namespace ingot::agent
