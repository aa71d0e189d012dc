// SPDX-License-Identifier: Apache-2.0
// ingot-frr's command line: frr-k8s' daemon flags where frr-k8s has them (--node-name,
// --namespace, --pod-name, --log-level, --metrics-bind-address, --health-probe-bind-address,
// --bgp-debounce-timeout / FRR_K8S_BGP_DEBOUNCE_TIMEOUT, --always-block), the common daemon flags
// (--kubeconfig, --port, --health-probe-port, ...) and the FRR location. Parsing is pure.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/daemon/flags.h"
#include "common/util/result.h"

namespace ingot::ingotfrr {

/// Flags is the parsed command line.
struct Flags : daemon::CommonFlags {
  std::string node_name;        ///< --node-name (required)
  std::string metrics_address;  ///< host of --metrics-bind-address ("" = every interface)
  std::string health_address = "127.0.0.1";  ///< host of --health-probe-bind-address
  /// --bgp-debounce-timeout (ms), $FRR_K8S_BGP_DEBOUNCE_TIMEOUT. frr-k8s waits this long after
  /// every change (default 3000); ingot-frr applies a lone change at once and coalesces what
  /// follows within this window (default 200).
  std::chrono::milliseconds debounce{200};
  std::string frr_pathspace;                                     ///< --frr-pathspace
  std::string frr_workdir = "/var/lib/ingot/frr";                ///< --frr-workdir
  std::string frr_reload_script = "/usr/lib/frr/frr-reload.py";  ///< --frr-reload-script
  std::string vtysh = "/usr/bin/vtysh";                          ///< --vtysh
  std::chrono::seconds verify_interval{30};                      ///< --frr-verify-interval
  std::chrono::seconds status_interval{30};                      ///< --status-interval
};

/// commandLine is ingot-frr's flag table, defaults (frr-k8s' ports), checks and --help text.
const daemon::CommandLine<Flags>& commandLine();

/// parseFlags is commandLine().parse. Errors name the flag and the reason: unknown flag, bad
/// value, no node name or namespace, a non-empty --always-block (not implemented: refused rather
/// than ignored).
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto parseFlags = &daemon::parseFlagsOf<commandLine>;

/// usage is commandLine().usage(): the --help text.
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto usage = &daemon::usageOf<commandLine>;

}  // namespace ingot::ingotfrr
