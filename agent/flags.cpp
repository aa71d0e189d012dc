// SPDX-License-Identifier: Apache-2.0
#include "agent/flags.h"

namespace ingot::agent {
namespace {

using daemon::Flag;
using daemon::FlagSet;

daemon::Setter debounce(Flags& f) {
  return [&f](const std::string& v) {
    int ms = 0;
    if (auto e = daemon::integer(ms, 0, 3'600'000, "must be milliseconds 0-3600000")(v);
        !e.empty()) {
      return e;
    }
    f.bgp_debounce = std::chrono::milliseconds(ms);
    return std::string();
  };
}

daemon::Setter mode(Flags& f) {
  return [&f](const std::string& v) {
    if (v == "frr-k8s") {
      f.bgp_mode = BgpMode::FrrK8s;
    } else if (v == "frr") {
      f.bgp_mode = BgpMode::Frr;
    } else if (v == "native") {
      return std::string(
          "\"native\" is not supported: ingot-agent announces through FRR only (use frr-k8s or "
          "frr)");
    } else {
      return std::string("must be frr-k8s or frr");
    }
    return std::string();
  };
}

void addConnectionFlags(FlagSet& set, Flags& f) {
  daemon::addCommonFlags(set, f,
                         "port of /healthz and /readyz on 127.0.0.1, 0 disables (default 17472)");
  set.add({"node-name", false, daemon::text(f.node_name),
           "this node's name (env METALLB_NODE_NAME; required)", "METALLB_NODE_NAME"});
  set.add({"pod-name", false, daemon::text(f.pod_name),
           "this pod's name, owner of the ConfigurationState (env METALLB_POD_NAME)",
           "METALLB_POD_NAME"});
  set.add({"namespace", false, daemon::text(f.namespace_),
           "namespace of the MetalLB objects (env METALLB_NAMESPACE; default: the pod's "
           "namespace, else metallb-system)",
           "METALLB_NAMESPACE"});
}

void addAnnounceFlags(FlagSet& set, Flags& f) {
  set.add({"lb-class", false, daemon::text(f.lb_class),
           "handle only Services of this spec.loadBalancerClass (\"\" = Services without one)"});
  set.add({"ignore-exclude-lb", true, daemon::flag(f.ignore_exclude_lb),
           "announce even when this node carries "
           "node.kubernetes.io/exclude-from-external-load-balancers"});
  set.add({"frrk8s-namespace", false, daemon::text(f.frrk8s_namespace),
           "namespace of frr-k8s, where FRRConfiguration metallb-<node> is written (env "
           "FRRK8S_NAMESPACE; default: --namespace)",
           "FRRK8S_NAMESPACE"});
  set.add({"frrk8s-secret-passthrough", true, daemon::flag(f.frrk8s_secret_passthrough),
           "pass BGPPeer passwordSecret references through to frr-k8s instead of writing the "
           "password"});
  set.add({"bgp-mode", false, mode(f),
           "frr-k8s (write FRRConfiguration) or frr (reload the node's FRR) (env "
           "METALLB_BGP_TYPE; default frr-k8s)",
           "METALLB_BGP_TYPE"});
  set.add({"bgp-debounce-timeout", false, debounce(f),
           "milliseconds to coalesce BGP changes before writing (env "
           "METALLB_BGP_DEBOUNCE_TIMEOUT; default 200)",
           "METALLB_BGP_DEBOUNCE_TIMEOUT"});
  set.add({"frr-pathspace", false, daemon::text(f.frr_pathspace),
           "frr mode: FRR -N pathspace (default: the default instance)"});
  set.add({"frr-workdir", false, daemon::text(f.frr_workdir),
           "frr mode: directory for frr.conf (default /var/lib/ingot/frr)"});
  set.add({"frr-reload-script", false, daemon::text(f.frr_reload_script),
           "frr mode: frr-reload.py (default /usr/lib/frr/frr-reload.py)"});
  set.add({"frr-max-new-prefixes", false,
           daemon::integer(f.frr_max_new_prefixes, 1, 1'000'000, "must be a whole number >= 1"),
           "frr mode: most prefixes added by one reload; more are added by further reloads "
           "(default 200)"});
  set.add({"excludel2-path", false, daemon::text(f.excludel2_path),
           "Layer 2: YAML file whose announcedInterfacesToExclude regexes name interfaces never "
           "answered on; a missing file excludes nothing (default /etc/metallb/excludel2.yaml)"});
}

/// flagSet is ingot-agent's table over f.
FlagSet flagSet(Flags& f) {
  FlagSet set;
  addConnectionFlags(set, f);
  addAnnounceFlags(set, f);
  set.ignore(f.ignored,
             {"ml-bindaddr", "ml-bindport", "ml-labels", "ml-namespace", "ml-secret-key-path",
              "host", "pprof-bind-address", "tls-min-version", "tls-cipher-suites",
              "tls-curve-preferences", "metrics-cert-dir"},
             {"ml-wan-config", "enable-pprof"});
  return set;
}

}  // namespace

std::string_view bgpModeName(BgpMode mode) {
  return mode == BgpMode::Frr ? "frr" : "frr-k8s";
}

Result<Flags> parseFlags(const std::vector<std::string>& args,
                         const Environment& env,
                         const std::string& pod_namespace) {
  Flags flags;
  if (auto ok = flagSet(flags).parse(args, env); !ok) {
    return ok.error();
  }
  if (flags.help) return flags;
  if (flags.node_name.empty()) {
    return invalidArgument("the node name is unknown: pass --node-name or set METALLB_NODE_NAME");
  }
  if (flags.namespace_.empty()) flags.namespace_ = pod_namespace;
  if (flags.namespace_.empty()) flags.namespace_ = "metallb-system";
  if (flags.frrk8s_namespace.empty()) flags.frrk8s_namespace = flags.namespace_;
  return flags;
}

std::string usage() {
  std::string out =
      "Usage: ingot-agent [flags]\n\n"
      "Announces the addresses of LoadBalancer Services from this node over BGP, through\n"
      "frr-k8s (FRRConfiguration) or the node's FRR, and over Layer 2 (ARP/NDP answers; needs\n"
      "CAP_NET_RAW).\n\nFlags:\n";
  Flags unused;
  out += flagSet(unused).usage();
  out +=
      "\nAccepted for MetalLB compatibility, without effect: --ml-bindaddr, --ml-bindport,\n"
      "  --ml-labels, --ml-namespace, --ml-secret-key-path, --ml-wan-config, --host,\n"
      "  --pprof-bind-address, --enable-pprof, --tls-min-version, --tls-cipher-suites,\n"
      "  --tls-curve-preferences, --metrics-cert-dir.\n"
      "\nEnvironment: METALLB_NODE_NAME, METALLB_POD_NAME, METALLB_NAMESPACE, FRRK8S_NAMESPACE,\n"
      "  METALLB_BGP_TYPE (frr-k8s|frr; native is refused), METALLB_BGP_DEBOUNCE_TIMEOUT,\n"
      "  KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT (in-cluster).\n";
  return out;
}

}  // namespace ingot::agent
