// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/flags.h"

namespace ingot::ingotfrr {
namespace {

using daemon::FlagSet;

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
  set.add({"bgp-debounce-timeout", false, daemon::milliseconds(f.debounce),
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
  set.add({"frr-verify-interval", false, daemon::seconds(f.verify_interval),
           "seconds between read-backs of FRR's running configuration, which find and correct "
           "drift; 0 = never (default 30)"});
  set.add({"status-interval", false, daemon::seconds(f.status_interval),
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

/// finish: a node name and a namespace are required.
Result<void> finish(Flags& flags, const daemon::Environment&) {
  if (flags.node_name.empty()) {
    return invalidArgument("--node-name is required");
  }
  if (flags.namespace_.empty()) {
    return invalidArgument("--namespace is required outside a pod");
  }
  return {};
}

/// defaults are frr-k8s' ports.
Flags defaults() {
  Flags f;
  f.port = 9140;
  f.health_probe_port = 7572;
  return f;
}

}  // namespace

const daemon::CommandLine<Flags>& commandLine() {
  static const daemon::CommandLine<Flags> kCommandLine{
      "ingot-frr",
      "Applies the FRRConfigurations (frrk8s.metallb.io/v1beta1) of --namespace that select\n"
      "this node to the node's FRR, as frr-k8s does, through incremental vtysh deltas; writes\n"
      "FRRNodeState <node>.\n",
      "\nAccepted for frr-k8s compatibility, without effect: --metrics-cert-dir,\n"
      "  --pprof-bind-address, --tls-*, --webhook-mode, --zap-*.\n",
      flagSet,
      defaults(),
      finish};
  return kCommandLine;
}

}  // namespace ingot::ingotfrr
