// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/flags.h"

#include "agent/core/drain.h"
#include "api/duration.h"
#include "common/http/tls_settings.h"

namespace ingot::agent {
namespace {

using daemon::FlagSet;

daemon::Setter holdDown(Flags& f) {
  return [&f](const std::string& v) {
    auto ns = api::parseGoDuration(v);
    if (!ns) {
      return ns.error().message;
    }
    constexpr int64_t kHourNs = 3'600'000'000'000;
    if (*ns < 0 || *ns > kHourNs) {
      return std::string("must be a duration from 0s to 1h");
    }
    f.l2_hold_down =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(*ns));
    return std::string();
  };
}

daemon::Setter drainTriggers(Flags& f) {
  return [&f](const std::string& v) {
    auto t = parseDrainTriggers(v);
    if (!t) return t.error().message;
    f.drain.triggers = std::move(*t);
    return std::string();
  };
}

daemon::Setter drainDelay(Flags& f) {
  return [&f](const std::string& v) {
    auto ns = api::parseGoDuration(v);
    if (!ns) return ns.error().message;
    constexpr int64_t kHourNs = 3'600'000'000'000;
    if (*ns < 0 || *ns > kHourNs) return std::string("must be a duration from 0s to 1h");
    f.drain.delay_ms = *ns / 1'000'000;
    return std::string();
  };
}

daemon::Setter frrApply(Flags& f) {
  return [&f](const std::string& v) {
    if (v != "incremental" && v != "reload") {
      return std::string("must be incremental or reload");
    }
    f.frr_full_reload = v == "reload";
    return std::string();
  };
}

daemon::Setter mode(Flags& f) {
  return [&f](const std::string& v) {
    if (v == "frr-k8s") {
      f.bgp_mode = BgpMode::FrrK8s;
    } else if (v == "frr") {
      f.bgp_mode = BgpMode::Frr;
    } else if (v == "none" || v == "native") {
      // Ingot has no BGP speaker of its own: MetalLB's native mode runs as Layer 2 only, and
      // its BGPPeers are reported (ConfigurationState, Event) instead of served.
      f.bgp_mode = BgpMode::None;
      f.native_requested = v == "native";
    } else {
      return std::string("must be frr-k8s, frr or none");
    }
    return std::string();
  };
}

void addConnectionFlags(FlagSet& set, Flags& f) {
  daemon::addMetalLBFlags(set, f,
                          "port of /healthz and /readyz on 127.0.0.1, 0 disables (default 17472)",
                          "namespace of the MetalLB objects (env METALLB_NAMESPACE; default: the "
                          "pod's namespace, else metallb-system)");
  set.add({"node-name", false, daemon::text(f.node_name),
           "this node's name (env METALLB_NODE_NAME; required)", "METALLB_NODE_NAME"});
  set.add({"tls-min-version", false, daemon::text(f.tls_min_version),
           "minimum TLS version of the HTTPS /metrics endpoint: VersionTLS12 or VersionTLS13 "
           "(default VersionTLS13)"});
  set.add({"tls-cipher-suites", false, daemon::text(f.tls_cipher_suites),
           "comma-separated TLS 1.2 cipher suites of the /metrics endpoint (IANA names)"});
}

void addAnnounceFlags(FlagSet& set, Flags& f) {
  set.add({"ignore-exclude-lb", true, daemon::flag(f.ignore_exclude_lb),
           "announce even when this node carries "
           "node.kubernetes.io/exclude-from-external-load-balancers"});
  set.add({"weighted-ecmp", true, daemon::flag(f.weighted_ecmp),
           "send each node's ready local endpoints of every externalTrafficPolicy Local Service as "
           "the BGP link-bandwidth extended community (frr mode), unless the Service's "
           "ingot.dev/weighted-ecmp annotation is \"false\""});
  set.add({"frrk8s-namespace", false, daemon::text(f.frrk8s_namespace),
           "namespace of frr-k8s, where FRRConfiguration metallb-<node> is written (env "
           "FRRK8S_NAMESPACE; default: --namespace)",
           "FRRK8S_NAMESPACE"});
  set.add({"frrk8s-secret-passthrough", true, daemon::flag(f.frrk8s_secret_passthrough),
           "pass BGPPeer passwordSecret references through to frr-k8s instead of writing the "
           "password"});
  set.add({"bgp-mode", false, mode(f),
           "frr-k8s (write FRRConfiguration; BGP waits while frr-k8s is not installed), frr "
           "(reload the node's FRR) or none (Layer 2 only; MetalLB's native runs so) (env "
           "METALLB_BGP_TYPE; default frr-k8s)",
           "METALLB_BGP_TYPE"});
  set.add({"bgp-debounce-timeout", false, daemon::milliseconds(f.bgp_debounce),
           "milliseconds to coalesce BGP changes before writing (env "
           "METALLB_BGP_DEBOUNCE_TIMEOUT; default 200)",
           "METALLB_BGP_DEBOUNCE_TIMEOUT"});
  set.add({"frr-pathspace", false, daemon::text(f.frr_pathspace),
           "frr mode: FRR -N pathspace (default: the default instance)"});
  set.add({"frr-workdir", false, daemon::text(f.frr_workdir),
           "frr mode: directory for frr.conf (default /var/lib/ingot/frr)"});
  set.add({"frr-reload-script", false, daemon::text(f.frr_reload_script),
           "frr mode: frr-reload.py (default /usr/lib/frr/frr-reload.py)"});
  set.add({"frr-apply", false, frrApply(f),
           "frr mode: incremental (compact policy, vtysh deltas; frr-reload.py as fallback) or "
           "reload (every change through frr-reload.py, per-prefix policy; for comparisons) "
           "(default incremental)"});
  set.add({"frr-verify-interval", false, daemon::seconds(f.frr_verify_interval),
           "frr mode: seconds between read-backs of FRR's running configuration, which find "
           "and correct drift; 0 = never (default 30)"});
  set.add({"excludel2-path", false, daemon::text(f.excludel2_path),
           "Layer 2: YAML file whose announcedInterfacesToExclude regexes name interfaces never "
           "answered on; a missing file excludes nothing (default /etc/metallb/excludel2.yaml)"});
  set.add({"l2-hold-down", false, holdDown(f),
           "Layer 2: how long a node that just joined memberlist waits before it takes back the "
           "addresses it wins, as a duration (\"10s\"); the smallest value of all agents "
           "applies, none while a MetalLB speaker is a member (default 0s: off, as MetalLB)"});
  set.add({"drain-triggers", false, drainTriggers(f),
           "drain-awareness: comma-separated conditions that make this node move its traffic "
           "away before it goes: cordon, taint (--drain-taint), shutdown (kubelet's graceful "
           "node shutdown), sigterm (agent stopped while cordoned) (default none: off, as "
           "MetalLB)"});
  set.add({"drain-taint", false, daemon::text(f.drain.taint_key),
           "drain-awareness: key of the taint that drains a node (trigger taint)"});
  set.add({"drain-delay", false, drainDelay(f),
           "drain-awareness: how long a draining node announces its BGP prefixes with "
           "GRACEFUL_SHUTDOWN 65535:0 before it withdraws them, as a duration (default 30s)"});
}

daemon::Setter bindPort(memberlist::MembershipOptions& m) {
  return [&m](const std::string& v) {
    int port = 0;
    if (auto e = daemon::port(port)(v); !e.empty()) {
      return e;
    }
    m.bind_port = static_cast<uint16_t>(port);
    return std::string();
  };
}

/// addMemberlistFlags adds MetalLB's speaker memberlist flags with their environment variables
/// (--ml-wan-config has none in MetalLB either) and Ingot's --ml-tuning-path.
void addMemberlistFlags(FlagSet& set, memberlist::MembershipOptions& m) {
  set.add({"ml-bindaddr", false, daemon::text(m.bind_addr),
           "memberlist bind address, normally the pod IP (env METALLB_ML_BIND_ADDR; memberlist "
           "runs only with this and --ml-labels)",
           "METALLB_ML_BIND_ADDR"});
  set.add({"ml-bindport", false, bindPort(m),
           "memberlist TCP and UDP port, also the port of every seed (env METALLB_ML_BIND_PORT; "
           "default 7946)",
           "METALLB_ML_BIND_PORT"});
  set.add({"ml-labels", false, daemon::text(m.labels),
           "label selector of the agent pods in --namespace whose IPs are the memberlist seeds "
           "(env METALLB_ML_LABELS)",
           "METALLB_ML_LABELS"});
  set.add({"ml-secret-key-path", false, daemon::text(m.secret_key_path),
           "directory holding the memberlist key file \"secretkey\" (env "
           "METALLB_ML_SECRET_KEY_PATH; unset: gossip is not encrypted)",
           "METALLB_ML_SECRET_KEY_PATH"});
  set.add({"ml-wan-config", true, daemon::flag(m.wan_config),
           "start from memberlist's WAN timing instead of Ingot's fast default"});
  set.add({"ml-tuning-path", false, daemon::text(m.tuning_path),
           "memberlist tuning JSON, used when the file exists (default "
           "/etc/metallb/memberlist/config.json)"});
}

/// flagSet is ingot-agent's table over f.
FlagSet flagSet(Flags& f) {
  FlagSet set;
  addConnectionFlags(set, f);
  addAnnounceFlags(set, f);
  addMemberlistFlags(set, f.memberlist);
  set.ignore(f.ignored, {"ml-namespace", "host", "pprof-bind-address", "tls-curve-preferences"},
             {"enable-pprof"});
  return set;
}

/// finish: a node name is required, the TLS flags must parse, the namespace falls back to
/// metallb-system and frr-k8s' namespace to the namespace.
Result<void> finish(Flags& flags, const Environment&) {
  if (flags.node_name.empty()) {
    return invalidArgument("the node name is unknown: pass --node-name or set METALLB_NODE_NAME");
  }
  if (auto tls = http::parseTlsSettings(flags.tls_min_version, flags.tls_cipher_suites); !tls) {
    return tls.error();
  }
  if (flags.namespace_.empty()) flags.namespace_ = "metallb-system";
  if (flags.frrk8s_namespace.empty()) flags.frrk8s_namespace = flags.namespace_;
  return {};
}

}  // namespace

std::string_view bgpModeName(BgpMode mode) {
  switch (mode) {
    case BgpMode::Frr:
      return "frr";
    case BgpMode::None:
      return "none";
    case BgpMode::FrrK8s:
      break;
  }
  return "frr-k8s";
}

const daemon::CommandLine<Flags>& commandLine() {
  static const daemon::CommandLine<Flags> kCommandLine{
      "ingot-agent",
      "Announces the addresses of LoadBalancer Services from this node over BGP, through\n"
      "frr-k8s (FRRConfiguration) or the node's FRR, and over Layer 2 (ARP/NDP answers; needs\n"
      "CAP_NET_RAW) from the owner elected among the live agents (memberlist gossip, see "
      "--ml-*).\n",
      "\nAccepted for MetalLB compatibility, without effect: --ml-namespace, --host,\n"
      "  --pprof-bind-address, --enable-pprof, --tls-curve-preferences.\n"
      "\nEnvironment: METALLB_NODE_NAME, METALLB_POD_NAME, METALLB_NAMESPACE, FRRK8S_NAMESPACE,\n"
      "  METALLB_BGP_TYPE (frr-k8s|frr|none; native runs as none), METALLB_BGP_DEBOUNCE_TIMEOUT,\n"
      "  METALLB_ML_BIND_ADDR, METALLB_ML_BIND_PORT, METALLB_ML_LABELS,\n"
      "  METALLB_ML_SECRET_KEY_PATH,\n"
      "  KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT (in-cluster).\n",
      flagSet,
      Flags{},
      finish};
  return kCommandLine;
}

}  // namespace ingot::agent
