// SPDX-License-Identifier: Apache-2.0
#include "controller/flags.h"

#include <map>

namespace ingot::controller {
namespace {

using daemon::Flag;
using daemon::FlagSet;

daemon::Setter webhookMode(Flags& f) {
  return [&f](const std::string& v) {
    if (v == "onlywebhook") {
      return std::string(
          "\"onlywebhook\" is not supported: ingot-controller serves no webhooks yet");
    }
    if (v != "enabled" && v != "disabled") {
      return std::string("must be enabled, disabled or onlywebhook");
    }
    if (v == "enabled") {
      f.ignored.push_back("webhook-mode");
    }
    return std::string();
  };
}

/// flagSet is ingot-controller's table over f.
FlagSet flagSet(Flags& f) {
  FlagSet set;
  daemon::addCommonFlags(set, f, "port of /healthz and /readyz, 0 disables (default 17472)");
  set.add({"namespace", false, daemon::text(f.namespace_),
           "namespace of the MetalLB objects (env METALLB_NAMESPACE)", "METALLB_NAMESPACE"});
  set.add({"lb-class", false, daemon::text(f.lb_class),
           "handle only Services of this spec.loadBalancerClass (\"\" = Services without one)"});
  set.add({"pod-name", false, daemon::text(f.pod_name),
           "this pod's name, owner of the ConfigurationState (env METALLB_POD_NAME)",
           "METALLB_POD_NAME"});
  set.add({"webhook-mode", false, webhookMode(f),
           "enabled or disabled: accepted, but no webhooks are served; onlywebhook is refused"});
  set.add({"ml-secret-name", false, daemon::text(f.ml_secret_name),
           "create this memberlist Secret for the agents when it does not exist (env "
           "METALLB_ML_SECRET_NAME)",
           "METALLB_ML_SECRET_NAME"});
  set.add({"deployment", false, daemon::text(f.deployment),
           "the controller's Deployment, owner of the memberlist Secret (env METALLB_DEPLOYMENT)",
           "METALLB_DEPLOYMENT"});
  set.ignore(f.ignored,
             {"pprof-bind-address", "cert-dir", "cert-service-name", "webhook-secret",
              "tls-min-version", "tls-cipher-suites", "tls-curve-preferences", "metrics-cert-dir"},
             {"disable-cert-rotation", "webhook-http2"});
  return set;
}

Result<config::Backend> backendFromEnv(const Environment& env) {
  const auto v = env("METALLB_BGP_TYPE");
  if (!v || v->empty() || *v == "frr-k8s") {
    return config::Backend::FrrK8s;
  }
  if (*v == "frr") {
    return config::Backend::Frr;
  }
  if (*v == "native") {
    return invalidArgument(
        "METALLB_BGP_TYPE=\"native\" is not supported: Ingot has no native BGP speaker (use "
        "frr-k8s, the default, or frr)");
  }
  return invalidArgument("METALLB_BGP_TYPE=\"" + *v + "\": must be frr-k8s or frr");
}

}  // namespace

Result<Flags> parseFlags(const std::vector<std::string>& args,
                         const Environment& env,
                         const std::string& pod_namespace) {
  Flags flags;
  if (auto ok = flagSet(flags).parse(args, env); !ok) {
    return ok.error();
  }
  if (flags.help || flags.version) return flags;
  auto backend = backendFromEnv(env);
  if (!backend) return backend.error();
  flags.backend = *backend;
  if (flags.namespace_.empty()) flags.namespace_ = pod_namespace;
  if (flags.namespace_.empty()) {
    return invalidArgument(
        "the MetalLB namespace is unknown: pass --namespace or set METALLB_NAMESPACE (the pod's "
        "service-account namespace file is not available)");
  }
  return flags;
}

std::string usage() {
  std::string out =
      "Usage: ingot-controller [flags]\n\n"
      "Allocates addresses to LoadBalancer Services from metallb.io IPAddressPools.\n\nFlags:\n";
  Flags unused;
  out += flagSet(unused).usage();
  out +=
      "\nAccepted for MetalLB compatibility, without effect:\n"
      "  --pprof-bind-address, --cert-dir, --cert-service-name, --webhook-secret,\n"
      "  --tls-min-version, --tls-cipher-suites, --tls-curve-preferences, --metrics-cert-dir,\n"
      "  --disable-cert-rotation, --webhook-http2.\n"
      "\nEnvironment: METALLB_NAMESPACE, METALLB_POD_NAME, METALLB_BGP_TYPE (frr-k8s|frr,\n"
      "  default frr-k8s; native is refused), METALLB_ML_SECRET_NAME, METALLB_DEPLOYMENT,\n"
      "  KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT (in-cluster).\n";
  return out;
}

}  // namespace ingot::controller
