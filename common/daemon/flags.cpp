// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/flags.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace ingot::daemon {

Environment processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) {
      return std::nullopt;
    }
    return std::string(v);
  };
}

namespace {

/// parseBool accepts the spellings of Go's strconv.ParseBool.
std::optional<bool> parseBool(std::string_view v) {
  for (std::string_view t : {"1", "t", "T", "true", "TRUE", "True"}) {
    if (v == t) {
      return true;
    }
  }
  for (std::string_view f : {"0", "f", "F", "false", "FALSE", "False"}) {
    if (v == f) {
      return false;
    }
  }
  return std::nullopt;
}

}  // namespace

void FlagSet::add(Flag flag) {
  flags_.push_back(std::move(flag));
}

void FlagSet::ignore(std::vector<std::string>& given,
                     const std::vector<std::string>& valued,
                     const std::vector<std::string>& booleans) {
  auto record = [&given](const std::string& name) -> Setter {
    return [&given, name](const std::string&) {
      given.push_back(name);
      return std::string();
    };
  };
  for (const auto& name : valued) {
    add(Flag{name, false, record(name), "", ""});
  }
  for (const auto& name : booleans) {
    add(Flag{name, true, record(name), "", ""});
  }
}

const Flag* FlagSet::find(std::string_view name) const {
  for (const auto& f : flags_) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

Result<size_t> FlagSet::apply(const std::vector<std::string>& args, size_t i) const {
  const std::string& shown = args[i];
  std::string name = shown.substr(shown.rfind("--", 0) == 0 ? 2 : 1);
  std::optional<std::string> value;
  if (const size_t eq = name.find('='); eq != std::string::npos) {
    value = name.substr(eq + 1);
    name.resize(eq);
  }
  const Flag* f = find(name);
  if (f == nullptr) {
    return invalidArgument("unknown flag " + shown + " (see --help)");
  }
  if (f->boolean) {
    const std::optional<bool> on = value ? parseBool(*value) : true;
    if (!on) {
      return invalidArgument("flag --" + name + ": invalid boolean value \"" + *value + "\"");
    }
    if (!*on) {
      return i + 1;
    }
    if (const std::string err = f->set("true"); !err.empty()) {
      return invalidArgument("flag --" + name + ": " + err);
    }
    return i + 1;
  }
  if (!value) {
    if (i + 1 >= args.size()) {
      return invalidArgument("flag --" + name + " needs a value");
    }
    value = args[++i];
  }
  if (const std::string err = f->set(*value); !err.empty()) {
    return invalidArgument("flag --" + name + "=\"" + *value + "\": " + err);
  }
  return i + 1;
}

Result<void> FlagSet::parse(const std::vector<std::string>& args, const Environment& env) const {
  for (const auto& f : flags_) {
    if (f.env.empty()) {
      continue;
    }
    const auto v = env(f.env);
    if (!v || v->empty()) {
      continue;
    }
    const std::optional<bool> on = f.boolean ? parseBool(*v) : true;
    if (!on) {
      return invalidArgument(f.env + "=\"" + *v + "\": invalid boolean value");
    }
    if (!*on) {
      continue;
    }
    if (const std::string err = f.set(f.boolean ? "true" : *v); !err.empty()) {
      return invalidArgument(f.env + "=\"" + *v + "\": " + err);
    }
  }
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--") {
      if (i + 1 < args.size()) {
        return invalidArgument("unexpected argument \"" + args[i + 1] + "\"");
      }
      break;
    }
    if (args[i].size() < 2 || args[i][0] != '-') {
      return invalidArgument("unexpected argument \"" + args[i] + "\" (flags start with -)");
    }
    auto next = apply(args, i);
    if (!next) {
      return next.error();
    }
    i = *next;
  }
  return {};
}

std::string FlagSet::usage() const {
  std::vector<const Flag*> listed;
  for (const auto& f : flags_) {
    if (!f.help.empty()) {
      listed.push_back(&f);
    }
  }
  std::sort(listed.begin(), listed.end(),
            [](const Flag* a, const Flag* b) { return a->name < b->name; });
  std::string out;
  for (const Flag* f : listed) {
    out += "  --" + f->name + (f->boolean ? "" : " value") + "\n      " + f->help + "\n";
  }
  return out;
}

void addCommonFlags(FlagSet& set, CommonFlags& f, const std::string& health_help) {
  set.add({"kubeconfig", false, text(f.kubeconfig),
           "kubeconfig file for out-of-cluster use (default: $KUBECONFIG, in-cluster, "
           "~/.kube/config)"});
  set.add({"context", false, text(f.context), "kubeconfig context (default: current-context)"});
  set.add({"kube-api-qps", false, number(f.kube_api_qps),
           "client-side limit on API requests per second, <= 0 disables (default 20)"});
  set.add({"kube-api-burst", false,
           integer(f.kube_api_burst, 0, 1'000'000, "must be a whole number >= 0"),
           "burst of the client-side API limit (default 30)"});
  set.add({"log-level", false,
           [&f](const std::string& v) {
             auto l = log::parseLevel(v);
             if (!l) {
               return l.error().message;
             }
             f.log_level = *l;
             return std::string();
           },
           "all, debug, info, warn, error or none (default info)"});
  set.add(
      {"port", false, port(f.port), "port of the /metrics endpoint, 0 disables (default 9120)"});
  set.add({"health-probe-port", false, port(f.health_probe_port), health_help});
  set.add({"ports-file", false, text(f.ports_file),
           "for tests: listen on 127.0.0.1 on ports the system picks, for the endpoints --port "
           "and --health-probe-port enable, and write them to this file (\"metrics <port>\" and "
           "\"health <port>\" lines)"});
  set.add({"help", true, flag(f.help), "print this help"});
  set.add({"h", true, flag(f.help), ""});
  set.add({"version", true, flag(f.version), "print the version and git revision, then exit"});
}

void addMetalLBFlags(FlagSet& set,
                     MetalLBFlags& f,
                     const std::string& health_help,
                     const std::string& namespace_help) {
  addCommonFlags(set, f, health_help);
  set.add({"namespace", false, text(f.namespace_), namespace_help, "METALLB_NAMESPACE"});
  set.add({"pod-name", false, text(f.pod_name),
           "this pod's name, owner of the ConfigurationState (env METALLB_POD_NAME)",
           "METALLB_POD_NAME"});
  set.add({"lb-class", false, text(f.lb_class),
           "handle only Services of this spec.loadBalancerClass (\"\" = Services without one)"});
  set.add({"plain-metrics-bind-address", false,
           bindAddress(f.plain_metrics_address, f.plain_metrics_port),
           "host:port where /metrics is served over plain HTTP as well, to anyone who can "
           "connect (for a local scraper, e.g. 127.0.0.1:7472; default 0: off)"});
  set.add({"tls-cert-file", false, text(f.tls_cert_file),
           "PEM certificate of the HTTPS /metrics endpoint (default: self-signed at start-up)"});
  set.add({"tls-private-key-file", false, text(f.tls_private_key_file),
           "PEM private key of --tls-cert-file"});
  set.add({"metrics-cert-dir", false,
           [&f](const std::string& dir) {
             f.tls_cert_file = dir.empty() ? "" : dir + "/tls.crt";
             f.tls_private_key_file = dir.empty() ? "" : dir + "/tls.key";
             return std::string();
           },
           "directory holding tls.crt and tls.key for the HTTPS /metrics endpoint (MetalLB's "
           "flag; the same as --tls-cert-file DIR/tls.crt --tls-private-key-file DIR/tls.key)"});
}

Setter text(std::string& out) {
  return [&out](const std::string& v) {
    out = v;
    return std::string();
  };
}

namespace {

/// wholeUnits accepts a whole number of Duration's units in [0, max].
template <typename Duration>
Setter wholeUnits(Duration& out, int max, const char* what) {
  return [&out, max, what](const std::string& v) {
    int n = 0;
    if (auto e = integer(n, 0, max, what)(v); !e.empty()) {
      return e;
    }
    out = Duration(n);
    return std::string();
  };
}

}  // namespace

Setter milliseconds(std::chrono::milliseconds& out) {
  return wholeUnits(out, 3'600'000, "must be milliseconds 0-3600000");
}

Setter seconds(std::chrono::seconds& out) {
  return wholeUnits(out, 86'400, "must be seconds 0-86400");
}

Setter flag(bool& out) {
  return [&out](const std::string&) {
    out = true;
    return std::string();
  };
}

Setter integer(int& out, int min, int max, std::string what) {
  return [&out, min, max, what = std::move(what)](const std::string& v) {
    int n = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < min || n > max) {
      return what;
    }
    out = n;
    return std::string();
  };
}

Setter bindAddress(std::string& host, int& port_out) {
  return [&host, &port_out](const std::string& v) {
    const size_t colon = v.rfind(':');
    std::string h = colon == std::string::npos ? "" : v.substr(0, colon);
    const std::string p = colon == std::string::npos ? v : v.substr(colon + 1);
    int parsed = 0;
    if (auto e = port(parsed)(p); !e.empty()) {
      return std::string("must be host:port (port 0-65535; 0 disables)");
    }
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
      h = h.substr(1, h.size() - 2);
    }
    host = h == "0.0.0.0" || h == "::" ? "" : h;
    port_out = parsed;
    return std::string();
  };
}

Setter port(int& out) {
  return integer(out, 0, 65535, "must be a port number 0-65535");
}

Setter number(double& out) {
  return [&out](const std::string& v) {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) {
      return std::string("must be a number");
    }
    out = d;
    return std::string();
  };
}

}  // namespace ingot::daemon
