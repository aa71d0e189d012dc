// SPDX-License-Identifier: Apache-2.0
// ingot-controller's command line: MetalLB's controller flags and environment variables where
// they exist, plus --kubeconfig/--context for out-of-cluster use and the
// client-side API rate limits. Parsing is pure: the environment is passed in.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/daemon/flags.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "config/config.h"

namespace ingot::controller {

/// WebhookMode is --webhook-mode: serve webhooks and reconcile, only one of the two.
enum class WebhookMode { Enabled, Disabled, OnlyWebhook };

/// WebhookFlags are MetalLB's webhook and certificate flags (and the port, which MetalLB fixes).
struct WebhookFlags {
  WebhookMode mode = WebhookMode::Enabled;                         ///< --webhook-mode
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";  ///< --cert-dir
  std::string cert_service_name = "metallb-webhook-service";       ///< --cert-service-name
  std::string secret = "metallb-webhook-cert";                     ///< --webhook-secret
  bool disable_cert_rotation = false;                              ///< --disable-cert-rotation
  std::string tls_min_version;                                     ///< --tls-min-version
  std::string tls_cipher_suites;                                   ///< --tls-cipher-suites
  /// --webhook-port (Ingot's; MetalLB always uses 9443). Unset with --ports-file: any free
  /// loopback port, added to the ports file as "webhook N".
  std::optional<int> port;
};

/// Flags is the parsed command line: the common flags plus this daemon's own.
struct Flags : daemon::MetalLBFlags {
  config::Backend backend = config::Backend::FrrK8s;  ///< $METALLB_BGP_TYPE (unset = frr-k8s)
  /// --ml-secret-name, $METALLB_ML_SECRET_NAME: the memberlist Secret to create ("" = none)
  std::string ml_secret_name;
  std::string deployment;  ///< --deployment, $METALLB_DEPLOYMENT: owner of that Secret
  WebhookFlags webhook;
  /// --unannounced-grace-seconds: how long a Service's address may go unannounced before the
  /// Warning Event, condition and metric (docs/diagnostics.md); 0 turns the check off.
  int unannounced_grace_seconds = 20;
  /// --agent-labels: label selector of the agent Pods, whose readiness says which agents live
  std::string agent_labels = "app.kubernetes.io/component=speaker";
};

using daemon::Environment;

/// commandLine is ingot-controller's flag table, defaults, checks and --help text.
const daemon::CommandLine<Flags>& commandLine();

/// parseFlags is commandLine().parse: the pod's namespace is the namespace's last fallback; no
/// namespace at all is an error, and so is a METALLB_BGP_TYPE other than frr-k8s, frr, none or
/// native.
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto parseFlags = &daemon::parseFlagsOf<commandLine>;

/// usage is commandLine().usage(): the --help text.
// NOLINTNEXTLINE(readability-identifier-naming): named as the function it points to
inline constexpr auto usage = &daemon::usageOf<commandLine>;

}  // namespace ingot::controller
