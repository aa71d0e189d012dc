// SPDX-License-Identifier: Apache-2.0
#include "controller/flags.h"

#include <map>

#include "controller/webhook/tls.h"

namespace ingot::controller {
namespace {

using daemon::FlagSet;

daemon::Setter webhookMode(Flags& f) {
  return [&f](const std::string& v) {
    static const std::map<std::string, WebhookMode> kModes = {
        {"enabled", WebhookMode::Enabled},
        {"disabled", WebhookMode::Disabled},
        {"onlywebhook", WebhookMode::OnlyWebhook}};
    const auto it = kModes.find(v);
    if (it == kModes.end()) {
      return std::string("must be enabled, disabled or onlywebhook");
    }
    f.webhook.mode = it->second;
    return std::string();
  };
}

daemon::Setter optionalPort(std::optional<int>& out) {
  return [&out](const std::string& v) {
    int port = 0;
    std::string e = daemon::port(port)(v);
    if (e.empty()) {
      out = port;
    }
    return e;
  };
}

/// addWebhookFlags adds MetalLB's webhook flags and Ingot's --webhook-port.
void addWebhookFlags(FlagSet& set, WebhookFlags& w) {
  set.add({"webhook-port", false, optionalPort(w.port),
           "port of the HTTPS webhook server (default 9443; 0 = any free port)"});
  set.add({"cert-dir", false, daemon::text(w.cert_dir),
           "directory of tls.crt/tls.key used with --disable-cert-rotation (default "
           "/tmp/k8s-webhook-server/serving-certs)"});
  set.add({"cert-service-name", false, daemon::text(w.cert_service_name),
           "the webhook Service, named in the certificate (default metallb-webhook-service)"});
  set.add({"webhook-secret", false, daemon::text(w.secret),
           "Secret holding the webhook CA and certificate (default metallb-webhook-cert)"});
  set.add({"disable-cert-rotation", true, daemon::flag(w.disable_cert_rotation),
           "serve the certificate in --cert-dir instead of generating and rotating one"});
  set.add({"tls-min-version", false, daemon::text(w.tls_min_version),
           "VersionTLS12 or VersionTLS13 (default VersionTLS13)"});
  set.add({"tls-cipher-suites", false, daemon::text(w.tls_cipher_suites),
           "comma-separated IANA cipher suite names for TLS 1.2 (default OpenSSL's)"});
}

/// flagSet is ingot-controller's table over f.
FlagSet flagSet(Flags& f) {
  FlagSet set;
  daemon::addMetalLBFlags(set, f, "port of /healthz and /readyz, 0 disables (default 17472)",
                          "namespace of the MetalLB objects (env METALLB_NAMESPACE)");
  set.add({"webhook-mode", false, webhookMode(f),
           "enabled (webhooks and reconcilers), disabled (no webhooks) or onlywebhook"});
  addWebhookFlags(set, f.webhook);
  set.add({"ml-secret-name", false, daemon::text(f.ml_secret_name),
           "create this memberlist Secret for the agents when it does not exist (env "
           "METALLB_ML_SECRET_NAME)",
           "METALLB_ML_SECRET_NAME"});
  set.add({"deployment", false, daemon::text(f.deployment),
           "the controller's Deployment, owner of the memberlist Secret (env METALLB_DEPLOYMENT)",
           "METALLB_DEPLOYMENT"});
  set.add({"unannounced-grace-seconds", false,
           daemon::integer(f.unannounced_grace_seconds, 0, 3600, "must be seconds 0-3600"),
           "report a Service address no node announces after this many seconds (Warning "
           "Event, condition ingot.dev/Announced, metric ingot_services_unannounced); 0 turns "
           "the check off (default 20)"});
  set.add({"agent-labels", false, daemon::text(f.agent_labels),
           "label selector of the agent Pods, whose readiness tells which agents are alive "
           "(default app.kubernetes.io/component=speaker)"});
  set.ignore(f.ignored, {"pprof-bind-address", "tls-curve-preferences"}, {"webhook-http2"});
  return set;
}

Result<config::Backend> backendFromEnv(const Environment& env) {
  const auto v = env("METALLB_BGP_TYPE");
  // none (Layer 2 only agents; MetalLB's native runs so) validates BGP objects as frr-k8s does,
  // as the agents do: the same configuration stays valid once a BGP mode is chosen.
  if (!v || v->empty() || *v == "frr-k8s" || *v == "none" || *v == "native") {
    return config::Backend::FrrK8s;
  }
  if (*v == "frr") {
    return config::Backend::Frr;
  }
  return invalidArgument("METALLB_BGP_TYPE=\"" + *v + "\": must be frr-k8s, frr or none");
}

/// finish: the TLS flags must parse, METALLB_BGP_TYPE names a mode, a namespace is known.
Result<void> finish(Flags& flags, const Environment& env) {
  if (auto tls =
          webhook::parseTlsSettings(flags.webhook.tls_min_version, flags.webhook.tls_cipher_suites);
      !tls) {
    return tls.error();
  }
  auto backend = backendFromEnv(env);
  if (!backend) return backend.error();
  flags.backend = *backend;
  if (flags.namespace_.empty()) {
    return invalidArgument(
        "the MetalLB namespace is unknown: pass --namespace or set METALLB_NAMESPACE (the pod's "
        "service-account namespace file is not available)");
  }
  return {};
}

}  // namespace

const daemon::CommandLine<Flags>& commandLine() {
  static const daemon::CommandLine<Flags> kCommandLine{
      "ingot-controller",
      "Allocates addresses to LoadBalancer Services from metallb.io IPAddressPools.\n",
      "\nAccepted for MetalLB compatibility, without effect:\n"
      "  --pprof-bind-address, --tls-curve-preferences, --webhook-http2.\n"
      "\nEnvironment: METALLB_NAMESPACE, METALLB_POD_NAME, METALLB_BGP_TYPE (frr-k8s|frr|none,\n"
      "  default frr-k8s; native counts as none), METALLB_ML_SECRET_NAME, METALLB_DEPLOYMENT,\n"
      "  KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT (in-cluster).\n",
      flagSet,
      Flags{},
      finish};
  return kCommandLine;
}

}  // namespace ingot::controller
