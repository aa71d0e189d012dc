// SPDX-License-Identifier: Apache-2.0
#include "agent/flags.h"

#include <charconv>
#include <cstdlib>
#include <map>

namespace ingot::agent {
namespace {

/// Setter stores a flag's value; it returns an error message ("" on success).
using Setter = std::function<std::string(Flags&, const std::string&)>;

struct FlagSpec {
  bool boolean = false;
  Setter set;
  std::string help;
};

std::string setInt(int& out, const std::string& v, int min, int max, const char* what) {
  int n = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < min || n > max) return what;
  out = n;
  return "";
}

std::string setPort(int& out, const std::string& v) {
  return setInt(out, v, 0, 65535, "must be a port number 0-65535");
}

std::string setDouble(double& out, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) return "must be a number";
  out = d;
  return "";
}

std::string setDebounce(Flags& f, const std::string& v) {
  int ms = 0;
  if (auto e = setInt(ms, v, 0, 3'600'000, "must be milliseconds 0-3600000"); !e.empty()) return e;
  f.bgp_debounce = std::chrono::milliseconds(ms);
  return "";
}

std::string setMode(Flags& f, const std::string& v) {
  if (v == "frr-k8s") {
    f.bgp_mode = BgpMode::FrrK8s;
  } else if (v == "frr") {
    f.bgp_mode = BgpMode::Frr;
  } else if (v == "native") {
    return "\"native\" is not supported: ingot-agent announces through FRR only (use frr-k8s or "
           "frr)";
  } else {
    return "must be frr-k8s or frr";
  }
  return "";
}

/// text returns a Setter that stores the value in the string member.
Setter text(std::string Flags::*member) {
  return [member](Flags& f, const std::string& v) {
    f.*member = v;
    return std::string();
  };
}

/// boolean returns a Setter that sets the bool member.
Setter boolean(bool Flags::*member) {
  return [member](Flags& f, const std::string&) {
    f.*member = true;
    return std::string();
  };
}

const std::map<std::string, FlagSpec>& flagTable() {
  static const std::map<std::string, FlagSpec> kTable = {
      {"node-name",
       {false, text(&Flags::node_name), "this node's name (env METALLB_NODE_NAME; required)"}},
      {"pod-name",
       {false, text(&Flags::pod_name),
        "this pod's name, owner of the ConfigurationState (env METALLB_POD_NAME)"}},
      {"namespace",
       {false, text(&Flags::namespace_),
        "namespace of the MetalLB objects (env METALLB_NAMESPACE; default: the pod's namespace, "
        "else metallb-system)"}},
      {"kubeconfig",
       {false, text(&Flags::kubeconfig),
        "kubeconfig file for out-of-cluster use (default: $KUBECONFIG, in-cluster, "
        "~/.kube/config)"}},
      {"context", {false, text(&Flags::context), "kubeconfig context (default: current-context)"}},
      {"lb-class",
       {false, text(&Flags::lb_class),
        "handle only Services of this spec.loadBalancerClass (\"\" = Services without one)"}},
      {"ignore-exclude-lb",
       {true, boolean(&Flags::ignore_exclude_lb),
        "announce even when this node carries "
        "node.kubernetes.io/exclude-from-external-load-balancers"}},
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
        "port of /healthz and /readyz on 127.0.0.1, 0 disables (default 17472)"}},
      {"frrk8s-namespace",
       {false, text(&Flags::frrk8s_namespace),
        "namespace of frr-k8s, where FRRConfiguration metallb-<node> is written (env "
        "FRRK8S_NAMESPACE; default: --namespace)"}},
      {"frrk8s-secret-passthrough",
       {true, boolean(&Flags::frrk8s_secret_passthrough),
        "pass BGPPeer passwordSecret references through to frr-k8s instead of writing the "
        "password"}},
      {"bgp-mode",
       {false, setMode,
        "frr-k8s (write FRRConfiguration) or frr (reload the node's FRR) (env METALLB_BGP_TYPE; "
        "default frr-k8s)"}},
      {"bgp-debounce-timeout",
       {false, setDebounce,
        "milliseconds to coalesce BGP changes before writing (env METALLB_BGP_DEBOUNCE_TIMEOUT; "
        "default 200)"}},
      {"frr-pathspace",
       {false, text(&Flags::frr_pathspace),
        "frr mode: FRR -N pathspace (default: the default instance)"}},
      {"frr-workdir",
       {false, text(&Flags::frr_workdir),
        "frr mode: directory for frr.conf (default /var/lib/ingot/frr)"}},
      {"frr-reload-script",
       {false, text(&Flags::frr_reload_script),
        "frr mode: frr-reload.py (default /usr/lib/frr/frr-reload.py)"}},
      {"frr-max-new-prefixes",
       {false,
        [](Flags& f, const std::string& v) {
          return setInt(f.frr_max_new_prefixes, v, 1, 1'000'000, "must be a whole number >= 1");
        },
        "frr mode: most prefixes added by one reload; more are added by further reloads (default "
        "200)"}},
      {"kube-api-qps",
       {false, [](Flags& f, const std::string& v) { return setDouble(f.kube_api_qps, v); },
        "client-side limit on API requests per second, <= 0 disables (default 20)"}},
      {"kube-api-burst",
       {false,
        [](Flags& f, const std::string& v) {
          return setInt(f.kube_api_burst, v, 0, 1'000'000, "must be a whole number >= 0");
        },
        "burst of the client-side API limit (default 30)"}},
      {"help", {true, boolean(&Flags::help), "print this help"}},
      {"h", {true, boolean(&Flags::help), ""}},
  };
  return kTable;
}

Setter ignoredFlag(const std::string& name) {
  return [name](Flags& f, const std::string&) {
    f.ignored.push_back(name);
    return std::string();
  };
}

/// ignoredSpec returns the spec of a MetalLB speaker flag ingot-agent accepts without effect.
std::optional<FlagSpec> ignoredSpec(const std::string& name) {
  static const char* const kValued[] = {
      "ml-bindaddr",           "ml-bindport",        "ml-labels",
      "ml-namespace",          "ml-secret-key-path", "host",
      "pprof-bind-address",    "tls-min-version",    "tls-cipher-suites",
      "tls-curve-preferences", "metrics-cert-dir"};
  static const char* const kBools[] = {"ml-wan-config", "enable-pprof"};
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
    spec->set(flags, "true");
    return i + 1;
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

/// applyEnvironment sets the values whose environment variable is set; flags parsed later win.
Result<void> applyEnvironment(const Environment& env, Flags& flags) {
  flags.node_name = env("METALLB_NODE_NAME").value_or("");
  flags.pod_name = env("METALLB_POD_NAME").value_or("");
  flags.namespace_ = env("METALLB_NAMESPACE").value_or("");
  flags.frrk8s_namespace = env("FRRK8S_NAMESPACE").value_or("");
  if (auto v = env("METALLB_BGP_TYPE"); v && !v->empty()) {
    if (auto e = setMode(flags, *v); !e.empty()) {
      return invalidArgument("METALLB_BGP_TYPE=\"" + *v + "\": " + e);
    }
  }
  if (auto v = env("METALLB_BGP_DEBOUNCE_TIMEOUT"); v && !v->empty()) {
    if (auto e = setDebounce(flags, *v); !e.empty()) {
      return invalidArgument("METALLB_BGP_DEBOUNCE_TIMEOUT=\"" + *v + "\": " + e);
    }
  }
  return {};
}

}  // namespace

std::string_view bgpModeName(BgpMode mode) {
  return mode == BgpMode::Frr ? "frr" : "frr-k8s";
}

Result<Flags> parseFlags(const std::vector<std::string>& args,
                         const Environment& env,
                         const std::string& pod_namespace) {
  Flags flags;
  if (auto ok = applyEnvironment(env, flags); !ok) return ok.error();
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
      "frr-k8s (FRRConfiguration) or the node's FRR.\n\nFlags:\n";
  for (const auto& [name, spec] : flagTable()) {
    if (spec.help.empty()) continue;
    out += "  --" + name + (spec.boolean ? "" : " value") + "\n      " + spec.help + "\n";
  }
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

Environment processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace ingot::agent
