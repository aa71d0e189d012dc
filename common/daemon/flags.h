// SPDX-License-Identifier: Apache-2.0
// The daemons' command-line engine with the semantics of Go's flag package, which MetalLB's
// daemons use: "-name" and "--name" alike, the value as "--name=value" or as the next argument,
// booleans bare or as "--name=true" / "--name=false", "--" ending the flags. Each daemon declares
// one table (its flags bound to the fields of its own Flags struct, with an optional environment
// variable each) and the MetalLB flags it accepts without effect. Parsing is pure: the
// environment is passed in.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/log.h"
#include "common/util/result.h"

namespace ingot::daemon {

/// Environment reads one variable (nullopt when unset).
using Environment = std::function<std::optional<std::string>(std::string_view name)>;

/// processEnvironment reads the real environment.
Environment processEnvironment();

/// Setter stores a flag's value; it returns "" on success, else why the value is invalid.
using Setter = std::function<std::string(const std::string& value)>;

/// Flag is one flag of a table.
struct Flag {
  Flag(std::string name, bool boolean, Setter set, std::string help, std::string env = "")
      : name(std::move(name)),
        boolean(boolean),
        set(std::move(set)),
        help(std::move(help)),
        env(std::move(env)) {}

  std::string name;      ///< without dashes
  bool boolean = false;  ///< takes no value; the setter receives "true"
  Setter set;
  std::string help;  ///< one line for usage(); "" = not listed
  std::string env;   ///< variable read when set and non-empty, before the arguments ("" = none)
};

/// FlagSet is one daemon's table. Build it over the struct the values go to.
class FlagSet {
 public:
  /// add appends a flag. Names are unique.
  void add(Flag flag);

  /// ignore accepts the MetalLB flags `valued` (taking a value) and `booleans` without effect;
  /// each one given is appended to `given`, in command-line order.
  void ignore(std::vector<std::string>& given,
              const std::vector<std::string>& valued,
              const std::vector<std::string>& booleans);

  /// parse applies the environment variables first and then args (without argv[0]), so flags
  /// win. Go's flag syntax: "-name" or "--name", the value as "=value" or as the next argument;
  /// booleans take no value or "=true"/"=false". Errors name the flag or variable and the reason:
  /// unknown flag, missing value, invalid value (with the setter's reason), invalid boolean, stray
  /// argument.
  Result<void> parse(const std::vector<std::string>& args, const Environment& env) const;

  /// usage lists the flags with help, sorted by name: "  --name value\n      help\n".
  std::string usage() const;

 private:
  const Flag* find(std::string_view name) const;
  Result<size_t> apply(const std::vector<std::string>& args, size_t i) const;

  std::vector<Flag> flags_;
};

/// CommonFlags are the flags every daemon has. A daemon's Flags derive from it.
struct CommonFlags {
  std::string kubeconfig;  ///< --kubeconfig ("" = $KUBECONFIG, in-cluster, ~/.kube/config)
  std::string context;     ///< --context ("" = current-context)
  log::Level log_level = log::Level::Info;  ///< --log-level
  int port = 9120;  ///< --port: /metrics (HTTPS in ingot-controller/-agent); 0 disables
  int health_probe_port = 17472;  ///< --health-probe-port: /healthz, /readyz; 0 disables
  /// --ports-file (for tests): listen on 127.0.0.1 on ports the system picks and write them here
  std::string ports_file;
  double kube_api_qps = 20;  ///< --kube-api-qps; <= 0 disables client-side throttling
  int kube_api_burst = 30;   ///< --kube-api-burst
  bool help = false;         ///< -h / --help
  bool version = false;      ///< --version: print the version and git revision, then exit
  std::string namespace_;    ///< --namespace: where the objects are read (fallbacks per daemon)
  std::string pod_name;      ///< --pod-name: this pod, owner or source of what the daemon writes
  /// The certificate of HTTPS /metrics (ingot-controller, ingot-agent): --tls-cert-file and
  /// --tls-private-key-file (kube-rbac-proxy's names), or --metrics-cert-dir (MetalLB's: its
  /// tls.crt and tls.key); none = a self-signed certificate made at start-up.
  std::string tls_cert_file;
  std::string tls_private_key_file;
  /// --plain-metrics-bind-address (ingot-controller, ingot-agent): /metrics over plain HTTP
  /// without authentication as well, on this host:port (port 0 = off, the default).
  std::string plain_metrics_address;
  int plain_metrics_port = 0;
  /// ignored lists the flags of the daemon Ingot replaces (MetalLB's, frr-k8s') that were given
  /// but have no effect here (pprof, TLS of the metrics endpoint, ...), in command-line order;
  /// main warns about each.
  std::vector<std::string> ignored;
};

/// addCommonFlags adds the CommonFlags to set but --namespace and --pod-name, whose help and
/// environment variables differ per daemon; health_help describes --health-probe-port.
void addCommonFlags(FlagSet& set, CommonFlags& f, const std::string& health_help);

/// parseWith parses env and args into flags (holding the daemon's defaults) through the table
/// table(flags) builds over it, then runs finish(flags) (the daemon's fallbacks and checks across
/// flags) unless --help or --version was given. The error is FlagSet::parse's or finish's.
template <typename Flags, typename Table, typename Finish>
Result<Flags> parseWith(Flags flags,
                        const Table& table,
                        const std::vector<std::string>& args,
                        const Environment& env,
                        const Finish& finish) {
  if (auto ok = table(flags).parse(args, env); !ok) {
    return ok.error();
  }
  if (flags.help || flags.version) {
    return flags;
  }
  if (Result<void> ok = finish(flags); !ok) {
    return ok.error();
  }
  return flags;
}

/// CommandLine is one daemon's command line: the table over its Flags, its defaults, the checks
/// across flags after parsing and the --help text around the table. Each daemon defines one and
/// its parseFlags and usage are the CommandLine's.
template <typename Flags>
struct CommandLine {
  std::string name;     ///< "ingot-agent", the usage line's
  std::string summary;  ///< what the daemon does, before the flags; ends with "\n"
  std::string footer;   ///< after the flags: the flags accepted without effect, the environment
  FlagSet (*table)(Flags&) = nullptr;
  Flags defaults{};
  /// finish is the daemon's fallbacks and checks across flags (parseWith's finish), run after
  /// --namespace fell back to the pod's namespace.
  Result<void> (*finish)(Flags&, const Environment&) = nullptr;

  /// parse parses args (without argv[0]) with FlagSet's Go flag semantics into the defaults
  /// (parseWith). pod_namespace is the service-account namespace file's content ("" outside a
  /// pod): an empty --namespace falls back to it before finish runs.
  Result<Flags> parse(const std::vector<std::string>& args,
                      const Environment& env,
                      const std::string& pod_namespace) const {
    return parseWith(defaults, table, args, env, [&](Flags& flags) -> Result<void> {
      if (flags.namespace_.empty()) flags.namespace_ = pod_namespace;
      return finish(flags, env);
    });
  }

  /// usage returns the --help text: "Usage: <name> [flags]", the summary, the flags, the footer.
  std::string usage() const {
    Flags unused{};
    return "Usage: " + name + " [flags]\n\n" + summary + "\nFlags:\n" + table(unused).usage() +
           footer;
  }
};

/// parseFlagsOf is line().parse and usageOf line().usage, for a daemon header to name them:
/// `inline constexpr auto parseFlags = &daemon::parseFlagsOf<commandLine>;`.
template <auto line>
auto parseFlagsOf(const std::vector<std::string>& args,
                  const Environment& env,
                  const std::string& pod_namespace) {
  return line().parse(args, env, pod_namespace);
}
template <auto line>
std::string usageOf() {
  return line().usage();
}

/// MetalLBFlags are the flags ingot-controller and ingot-agent share with MetalLB's daemons.
struct MetalLBFlags : CommonFlags {
  std::string lb_class;  ///< --lb-class: only Services of this spec.loadBalancerClass
};

/// addMetalLBFlags adds addCommonFlags' flags and --namespace ($METALLB_NAMESPACE, described by
/// namespace_help), --pod-name ($METALLB_POD_NAME) and --lb-class.
void addMetalLBFlags(FlagSet& set,
                     MetalLBFlags& f,
                     const std::string& health_help,
                     const std::string& namespace_help);

/// text stores the value as is.
Setter text(std::string& out);

/// flag sets out to true (for boolean flags).
Setter flag(bool& out);

/// integer accepts a whole number in [min, max]; `what` is the reason otherwise.
Setter integer(int& out, int min, int max, std::string what);

/// milliseconds accepts whole milliseconds 0-3600000 (a debounce window).
Setter milliseconds(std::chrono::milliseconds& out);

/// seconds accepts whole seconds 0-86400 (an interval; the daemons read 0 as never).
Setter seconds(std::chrono::seconds& out);

/// port accepts 0-65535.
Setter port(int& out);

/// bindAddress parses "host:port" (":port" and "0" too; port 0 disables; "0.0.0.0" and "::"
/// become "" = every interface; brackets around an IPv6 host are dropped).
Setter bindAddress(std::string& host, int& port);

/// number accepts any decimal floating-point number.
Setter number(double& out);

}  // namespace ingot::daemon
