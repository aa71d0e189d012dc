// SPDX-License-Identifier: Apache-2.0
#include "controller/flags.h"

#include <charconv>
#include <cstdlib>
#include <map>

namespace ingot::controller {
namespace {

/// Setter stores a flag's value; it returns an error message ("" on success).
using Setter = std::function<std::string(Flags&, const std::string&)>;

struct FlagSpec {
  bool boolean = false;
  Setter set;
  std::string help;
};

std::string setPort(int& out, const std::string& v) {
  int n = -1;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0 || n > 65535) {
    return "must be a port number 0-65535";
  }
  out = n;
  return "";
}

std::string setInt(int& out, const std::string& v) {
  int n = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0) return "must be a whole number >= 0";
  out = n;
  return "";
}

std::string setDouble(double& out, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) return "must be a number";
  out = d;
  return "";
}

Setter ignoredFlag(const std::string& name) {
  return [name](Flags& f, const std::string&) {
    f.ignored.push_back(name);
    return std::string();
  };
}

std::string setWebhookMode(Flags& f, const std::string& v) {
  if (v == "onlywebhook") {
    return "\"onlywebhook\" is not supported: ingot-controller serves no webhooks yet";
  }
  if (v != "enabled" && v != "disabled") return "must be enabled, disabled or onlywebhook";
  if (v == "enabled") f.ignored.push_back("webhook-mode");
  return "";
}

const std::map<std::string, FlagSpec>& flagTable() {
  static const std::map<std::string, FlagSpec> kTable = {
      {"namespace",
       {false,
        [](Flags& f, const std::string& v) {
          f.namespace_ = v;
          return std::string();
        },
        "namespace of the MetalLB objects (env METALLB_NAMESPACE)"}},
      {"lb-class",
       {false,
        [](Flags& f, const std::string& v) {
          f.lb_class = v;
          return std::string();
        },
        "handle only Services of this spec.loadBalancerClass (\"\" = Services without one)"}},
      {"log-level",
       {false,
        [](Flags& f, const std::string& v) {
          auto l = log::parseLevel(v);
          if (!l) return l.error().message;
          f.log_level = *l;
          return std::string();
        },
        "all, debug, info, warn, error or none (default info)"}},
      {"port",
       {false, [](Flags& f, const std::string& v) { return setPort(f.port, v); },
        "port of the plain-HTTP /metrics endpoint, 0 disables (default 9120)"}},
      {"health-probe-port",
       {false, [](Flags& f, const std::string& v) { return setPort(f.health_probe_port, v); },
        "port of /healthz and /readyz, 0 disables (default 17472)"}},
      {"kubeconfig",
       {false,
        [](Flags& f, const std::string& v) {
          f.kubeconfig = v;
          return std::string();
        },
        "kubeconfig file for out-of-cluster use (default: $KUBECONFIG, in-cluster, "
        "~/.kube/config)"}},
      {"context",
       {false,
        [](Flags& f, const std::string& v) {
          f.context = v;
          return std::string();
        },
        "kubeconfig context (default: current-context)"}},
      {"pod-name",
       {false,
        [](Flags& f, const std::string& v) {
          f.pod_name = v;
          return std::string();
        },
        "this pod's name, owner of the ConfigurationState (env METALLB_POD_NAME)"}},
      {"kube-api-qps",
       {false, [](Flags& f, const std::string& v) { return setDouble(f.kube_api_qps, v); },
        "client-side limit on API requests per second, <= 0 disables (default 20)"}},
      {"kube-api-burst",
       {false, [](Flags& f, const std::string& v) { return setInt(f.kube_api_burst, v); },
        "burst of the client-side API limit (default 30)"}},
      {"webhook-mode",
       {false, setWebhookMode,
        "enabled or disabled: accepted, but no webhooks are served; onlywebhook is refused"}},
      {"help",
       {true,
        [](Flags& f, const std::string&) {
          f.help = true;
          return std::string();
        },
        "print this help"}},
      {"h",
       {true,
        [](Flags& f, const std::string&) {
          f.help = true;
          return std::string();
        },
        ""}},
  };
  return kTable;
}

/// ignoredSpec returns the spec of a MetalLB flag ingot-controller accepts without effect.
std::optional<FlagSpec> ignoredSpec(const std::string& name) {
  static const char* const kValued[] = {
      "ml-secret-name",        "deployment",      "pprof-bind-address", "cert-dir",
      "cert-service-name",     "webhook-secret",  "tls-min-version",    "tls-cipher-suites",
      "tls-curve-preferences", "metrics-cert-dir"};
  static const char* const kBools[] = {"disable-cert-rotation", "webhook-http2"};
  for (const char* n : kValued) {
    if (name == n) return FlagSpec{false, ignoredFlag(name), ""};
  }
  for (const char* n : kBools) {
    if (name == n) return FlagSpec{true, ignoredFlag(name), ""};
  }
  return std::nullopt;
}

std::optional<FlagSpec> findFlag(const std::string& name) {
  const auto& table = flagTable();
  if (auto it = table.find(name); it != table.end()) return it->second;
  return ignoredSpec(name);
}

Result<config::Backend> backendFromEnv(const Environment& env) {
  const auto v = env("METALLB_BGP_TYPE");
  if (!v || v->empty() || *v == "native") return config::Backend::Native;
  if (*v == "frr") return config::Backend::Frr;
  if (*v == "frr-k8s") return config::Backend::FrrK8s;
  return invalidArgument("METALLB_BGP_TYPE=\"" + *v + "\": must be native, frr or frr-k8s");
}

/// applyArg handles args[i] (and maybe args[i+1]); returns the next index or an error.
Result<size_t> applyArg(const std::vector<std::string>& args, size_t i, Flags& flags) {
  std::string arg = args[i];
  const std::string shown = arg;
  arg.erase(0, arg.rfind("--", 0) == 0 ? 2 : 1);
  std::optional<std::string> value;
  if (const size_t eq = arg.find('='); eq != std::string::npos) {
    value = arg.substr(eq + 1);
    arg.resize(eq);
  }
  const auto spec = findFlag(arg);
  if (!spec) return invalidArgument("unknown flag " + shown + " (see --help)");
  if (spec->boolean) {
    if (value && *value != "true" && *value != "false") {
      return invalidArgument("flag --" + arg + ": invalid boolean value \"" + *value + "\"");
    }
    if (value && *value == "false") return i + 1;
    return spec->set(flags, "true").empty() ? Result<size_t>(i + 1)
                                            : invalidArgument("flag --" + arg);
  }
  if (!value) {
    if (i + 1 >= args.size()) return invalidArgument("flag --" + arg + " needs a value");
    value = args[++i];
  }
  if (const std::string err = spec->set(flags, *value); !err.empty()) {
    return invalidArgument("flag --" + arg + "=\"" + *value + "\": " + err);
  }
  return i + 1;
}

}  // namespace

Result<Flags> parseFlags(const std::vector<std::string>& args,
                         const Environment& env,
                         const std::string& pod_namespace) {
  Flags flags;
  flags.namespace_ = env("METALLB_NAMESPACE").value_or("");
  flags.pod_name = env("METALLB_POD_NAME").value_or("");
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--") {
      if (i + 1 < args.size())
        return invalidArgument("unexpected argument \"" + args[i + 1] + "\"");
      break;
    }
    if (args[i].size() < 2 || args[i][0] != '-') {
      return invalidArgument("unexpected argument \"" + args[i] + "\" (flags start with -)");
    }
    auto next = applyArg(args, i, flags);
    if (!next) return next.error();
    i = *next;
  }
  if (flags.help) return flags;
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
  for (const auto& [name, spec] : flagTable()) {
    if (spec.help.empty()) continue;
    out += "  --" + name + (spec.boolean ? "" : " value") + "\n      " + spec.help + "\n";
  }
  out +=
      "\nAccepted for MetalLB compatibility, without effect: --ml-secret-name, --deployment,\n"
      "  --pprof-bind-address, --cert-dir, --cert-service-name, --webhook-secret,\n"
      "  --tls-min-version, --tls-cipher-suites, --tls-curve-preferences, --metrics-cert-dir,\n"
      "  --disable-cert-rotation, --webhook-http2.\n"
      "\nEnvironment: METALLB_NAMESPACE, METALLB_POD_NAME, METALLB_BGP_TYPE (native|frr|frr-k8s,\n"
      "  default native), KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT (in-cluster).\n";
  return out;
}

Environment processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace ingot::controller
