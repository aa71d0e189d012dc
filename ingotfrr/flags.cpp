// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/flags.h"

#include <utility>

namespace ingot::ingotfrr {
namespace {

using daemon::FlagSet;

daemon::Setter milliseconds(std::chrono::milliseconds& out) {
  return [&out](const std::string& v) {
    int ms = 0;
    if (auto e = daemon::integer(ms, 0, 3'600'000, "must be milliseconds 0-3600000")(v);
        !e.empty()) {
      return e;
    }
    out = std::chrono::milliseconds(ms);
    return std::string();
  };
}

daemon::Setter seconds(std::chrono::seconds& out) {
  return [&out](const std::string& v) {
    int s = 0;
    if (auto e = daemon::integer(s, 0, 86'400, "must be seconds 0-86400")(v); !e.empty()) {
      return e;
    }
    out = std::chrono::seconds(s);
    return std::string();
  };
}

/// alwaysBlock refuses a non-empty list: ingot-frr does not implement it, and ignoring it would
/// accept prefixes the operator meant to block.
daemon::Setter alwaysBlock() {
  return [](const std::string& v) {
    return v.empty() ? std::string()
                     : std::string(
                           "is not implemented by ingot-frr (no always-block filters "
                           "would be applied); leave it empty");
  };
}

void addFrrK8sFlags(FlagSet& set, Flags& f) {
  set.add(
      {"node-name", false, daemon::text(f.node_name), "the node this daemon runs on (required)"});
  set.add({"namespace", false, daemon::text(f.namespace_),
           "namespace whose FRRConfigurations and Secrets are read (default: the pod's)"});
  set.add({"pod-name", false, daemon::text(f.pod_name), "this pod's name (Events' instance)"});
  set.add({"metrics-bind-address", false, daemon::bindAddress(f.metrics_address, f.port),
           "host:port of plain-HTTP /metrics (default 0.0.0.0:9140; port 0 disables)"});
  set.add({"health-probe-bind-address", false,
           daemon::bindAddress(f.health_address, f.health_probe_port),
           "host:port of /healthz and /readyz (default 127.0.0.1:7572; port 0 disables)"});
  set.add({"bgp-debounce-timeout", false, milliseconds(f.debounce),
           "milliseconds within which changes after an apply are coalesced (env "
           "FRR_K8S_BGP_DEBOUNCE_TIMEOUT; default 200)",
           "FRR_K8S_BGP_DEBOUNCE_TIMEOUT"});
  set.add({"always-block", false, alwaysBlock(), "not implemented: must be empty"});
}

void addFrrFlags(FlagSet& set, Flags& f) {
  set.add({"frr-pathspace", false, daemon::text(f.frr_pathspace),
           "FRR -N pathspace (default: the default instance)"});
  set.add({"frr-workdir", false, daemon::text(f.frr_workdir),
           "directory for frr.conf and vtysh batches (default /var/lib/ingot/frr)"});
  set.add({"frr-reload-script", false, daemon::text(f.frr_reload_script),
           "frr-reload.py, the full-reload fallback (default /usr/lib/frr/frr-reload.py)"});
  set.add({"vtysh", false, daemon::text(f.vtysh), "vtysh (default /usr/bin/vtysh)"});
  set.add({"frr-verify-interval", false, seconds(f.verify_interval),
           "seconds between read-backs of FRR's running configuration, which find and correct "
           "drift; 0 = never (default 30)"});
  set.add({"status-interval", false, seconds(f.status_interval),
           "seconds between refreshes of FRRNodeState's running configuration when nothing "
           "changed; 0 = only after applies (default 30)"});
}

FlagSet flagSet(Flags& f) {
  FlagSet set;
  daemon::addCommonFlags(set, f, "port of /healthz and /readyz (default 7572; 0 disables)");
  addFrrK8sFlags(set, f);
  addFrrFlags(set, f);
  set.ignore(f.ignored,
             {"metrics-cert-dir", "pprof-bind-address", "tls-cipher-suites",
              "tls-curve-preferences", "tls-min-version", "webhook-mode", "zap-log-level"},
             {"zap-devel"});
  return set;
}

}  // namespace

Result<Flags> parseFlags(const std::vector<std::string>& args,
                         const daemon::Environment& env,
                         const std::string& pod_namespace) {
  Flags defaults;
  defaults.port = 9140;
  defaults.health_probe_port = 7572;
  const auto finish = [&pod_namespace](Flags& flags) -> Result<void> {
    if (flags.node_name.empty()) {
      return invalidArgument("--node-name is required");
    }
    if (flags.namespace_.empty()) {
      flags.namespace_ = pod_namespace;
    }
    if (flags.namespace_.empty()) {
      return invalidArgument("--namespace is required outside a pod");
    }
    return {};
  };
  return daemon::parseWith(std::move(defaults), flagSet, args, env, finish);
}

std::string usage() {
  std::string out =
      "Usage: ingot-frr [flags]\n\n"
      "Applies the FRRConfigurations (frrk8s.metallb.io/v1beta1) of --namespace that select\n"
      "this node to the node's FRR, as frr-k8s does, through incremental vtysh deltas; writes\n"
      "FRRNodeState <node>.\n\nFlags:\n";
  Flags unused;
  out += flagSet(unused).usage();
  out +=
      "\nAccepted for frr-k8s compatibility, without effect: --metrics-cert-dir,\n"
      "  --pprof-bind-address, --tls-*, --webhook-mode, --zap-*.\n";
  return out;
}

}  // namespace ingot::ingotfrr
