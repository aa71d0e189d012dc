// SPDX-License-Identifier: Apache-2.0
// ingot-agent's command line: MetalLB speaker flags and environment variables where they exist,
// plus --kubeconfig/--context, the BGP mode and the frr-mode options.
// Parsing is pure: the environment and the pod's namespace file are passed in.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/drain_options.h"
#include "agent/memberlist/core/options.h"
#include "common/daemon/flags.h"
#include "common/util/log.h"
#include "common/util/result.h"

namespace ingot::agent {

/// BgpMode selects how announcements reach FRR.
enum class BgpMode {
  FrrK8s,  ///< write FRRConfiguration metallb-<node> through the API (frr-k8s renders it)
  Frr,     ///< render frr.conf and reload the node's FRR with frr-reload.py
  /// Layer 2 only: no FRR and no frr-k8s. Ingot has no BGP speaker of its own (MetalLB's native
  /// mode has one), so BGPPeers are reported as not served, never announced to.
  None,
};

/// bgpModeName returns "frr-k8s", "frr" or "none".
std::string_view bgpModeName(BgpMode mode);

/// Flags is the parsed command line: the common flags plus this daemon's own.
struct Flags : daemon::MetalLBFlags {
  std::string node_name;                   ///< --node-name, $METALLB_NODE_NAME (required)
  bool ignore_exclude_lb = false;          ///< --ignore-exclude-lb
  bool weighted_ecmp = false;              ///< --weighted-ecmp (docs/weighted-ecmp.md)
  std::string frrk8s_namespace;            ///< --frrk8s-namespace, $FRRK8S_NAMESPACE
  bool frrk8s_secret_passthrough = false;  ///< --frrk8s-secret-passthrough
  BgpMode bgp_mode = BgpMode::FrrK8s;      ///< --bgp-mode, $METALLB_BGP_TYPE
  /// native_requested: the mode was given as MetalLB's "native", which runs as None (logged).
  bool native_requested = false;
  /// --bgp-debounce-timeout (ms), $METALLB_BGP_DEBOUNCE_TIMEOUT. MetalLB: 3000, frr mode only;
  /// Ingot: 200 in both modes.
  std::chrono::milliseconds bgp_debounce{200};
  std::string frr_pathspace;                                     ///< --frr-pathspace
  std::string frr_workdir = "/var/lib/ingot/frr";                ///< --frr-workdir
  std::string frr_reload_script = "/usr/lib/frr/frr-reload.py";  ///< --frr-reload-script
  /// --frr-verify-interval (seconds; 0 = never): FRR's running configuration is read back
  /// this often to find (and correct) drift.
  std::chrono::seconds frr_verify_interval{30};
  bool frr_full_reload = false;  ///< --frr-apply reload (default incremental)
  /// --excludel2-path: the announcedInterfacesToExclude file MetalLB reads from this fixed path
  /// (its chart mounts a ConfigMap there); a missing file excludes nothing.
  std::string excludel2_path = "/etc/metallb/excludel2.yaml";
  /// --l2-hold-down (Go duration, 0-1h; 0 = off, MetalLB's behaviour): a node that has just
  /// joined memberlist takes back no Layer 2 address until it has been a member this long. The
  /// smallest value any member advertises applies; off while any member is not an Ingot agent.
  std::chrono::milliseconds l2_hold_down{0};
  /// --drain-triggers, --drain-taint, --drain-delay: drain-awareness (off without a trigger).
  DrainOptions drain;
  /// --ml-bindaddr, --ml-bindport, --ml-labels, --ml-secret-key-path, --ml-wan-config,
  /// --ml-tuning-path and their METALLB_ML_* variables. Memberlist runs when enabled() (MetalLB's
  /// rule: a bind address and labels); otherwise every Node object counts as a live agent.
  memberlist::MembershipOptions memberlist;
  /// --tls-min-version, --tls-cipher-suites: the HTTPS /metrics endpoint's TLS (MetalLB's
  /// names and defaults: TLS 1.3).
  std::string tls_min_version;
  std::string tls_cipher_suites;
};

using daemon::Environment;

/// commandLine is ingot-agent's flag table, defaults, checks and --help text.
const daemon::CommandLine<Flags>& commandLine();

/// parseFlags is commandLine().parse: the namespace falls back to the pod's, then to
/// "metallb-system"; a missing node name is an error. MetalLB's `native` mode is accepted and
/// runs as BgpMode::None (Layer 2 only), with native_requested set.
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto parseFlags = &daemon::parseFlagsOf<commandLine>;

/// usage is commandLine().usage(): the --help text.
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto usage = &daemon::usageOf<commandLine>;

}  // namespace ingot::agent
