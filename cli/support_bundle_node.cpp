// SPDX-License-Identifier: Apache-2.0
// support-bundle: the daemons' /metrics (API server pod proxy first, then the pod IP directly)
// and FRR's state through vtysh. Both are best effort: a failure is an index entry.
#include <array>
#include <cstdio>
#include <filesystem>
#include <httplib.h>
#include <sys/wait.h>

#include "cli/cluster.h"
#include "cli/redact.h"
#include "cli/support_bundle.h"

namespace ingot::cli {
namespace {

/// metricsPort is the pod's container port named "monitoring" or "metrics", else its
/// prometheus.io/port annotation unless prometheus.io/scheme says https (the bundle reads plain
/// HTTP: the daemons' HTTPS endpoint wants a reviewed token), else fallback.
int metricsPort(const json::Value& pod, int fallback) {
  const auto* containers = memberAt(pod, {"spec", "containers"});
  for (const auto& c :
       containers && containers->isArray() ? containers->items() : std::vector<json::Value>{}) {
    const auto* ports = c.find("ports");
    for (const auto& p : ports && ports->isArray() ? ports->items() : std::vector<json::Value>{}) {
      const std::string name = stringAt(p, {"name"});
      const auto* number = p.find("containerPort");
      if ((name == "monitoring" || name == "metrics") && number && number->isInteger()) {
        return std::stoi(number->text());
      }
    }
  }
  const std::string annotated = stringAt(pod, {"metadata", "annotations", "prometheus.io/port"});
  const bool https = stringAt(pod, {"metadata", "annotations", "prometheus.io/scheme"}) == "https";
  if (!https && !annotated.empty() &&
      annotated.find_first_not_of("0123456789") == std::string::npos && annotated.size() <= 5) {
    return std::stoi(annotated);
  }
  return fallback;
}

Result<std::string> direct(const std::string& ip, int port) {
  httplib::Client client(ip, port);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(10, 0);
  auto res = client.Get("/metrics");
  if (!res) {
    return Error{ErrorCode::Unavailable, "GET http://" + ip + ":" + std::to_string(port) +
                                             "/metrics: " + httplib::to_string(res.error())};
  }
  if (res->status != 200) {
    return Error{ErrorCode::Unavailable, "GET http://" + ip + ":" + std::to_string(port) +
                                             "/metrics: HTTP " + std::to_string(res->status)};
  }
  return res->body;
}

/// podMetrics tries the proxy, then the pod IP; records the one that worked or both errors.
void podMetrics(k8s::ApiClient& client,
                const json::Value& pod,
                const BundleOptions& options,
                Bundle& bundle) {
  const std::string name = stringAt(pod, {"metadata", "name"});
  const std::string what = "metrics of pod " + name;
  const std::string ip = stringAt(pod, {"status", "podIP"});
  if (stringAt(pod, {"status", "phase"}) != "Running" || ip.empty()) {
    bundle.failed(what, "", "skipped", "the pod is not Running with a pod IP");
    return;
  }
  const int port = metricsPort(pod, options.metrics_port);
  const std::string path = "metrics/" + name + ".txt";
  auto proxied = client.getPath("/api/v1/namespaces/" + options.metallb_namespace + "/pods/" +
                                name + ":" + std::to_string(port) + "/proxy/metrics");
  if (proxied) {
    bundle.add(BundleEntry{what, path, "apiserver-proxy", "ok", "", -1}, std::move(*proxied));
    return;
  }
  auto got = direct(ip, port);
  if (got) {
    bundle.add(BundleEntry{what, path, "direct", "ok",
                           "the API server's pod proxy failed: " + proxied.error().message, -1},
               std::move(*got));
    return;
  }
  bundle.failed(what, "apiserver-proxy, direct", "failed",
                "proxy: " + proxied.error().message + "; direct: " + got.error().message);
}

/// runCommand runs argv (no shell) and returns its standard output and error, or why it failed.
Result<std::string> runCommand(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    line += (line.empty() ? "" : " ") + ("'" + a + "'");  // every word checked by validWord
  }
  FILE* pipe = ::popen((line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    return Error{ErrorCode::Unavailable, "cannot run " + argv[0]};
  }
  std::string out;
  std::array<char, 4096> buf{};
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) {
    out.append(buf.data(), n);
  }
  const int status = ::pclose(pipe);
  if (status != 0) {
    return Error{ErrorCode::Unavailable,
                 line + " exited " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                     ": " + out.substr(0, 500)};
  }
  return out;
}

bool validWord(const std::string& s) {
  return !s.empty() && s.find_first_not_of(
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                           "0123456789_.-/") == std::string::npos;
}

}  // namespace

void collectMetrics(k8s::ApiClient& client,
                    const std::vector<json::Value>& pods,
                    const BundleOptions& options,
                    Bundle& bundle) {
  for (const auto& pod : pods) {
    podMetrics(client, pod, options, bundle);
  }
}

void collectFrr(const BundleOptions& options, Bundle& bundle) {
  const std::string dir =
      "/var/run/frr" + (options.frr_pathspace.empty() ? "" : "/" + options.frr_pathspace);
  if (!options.frr_pathspace_given && !std::filesystem::exists(dir + "/zebra.vty")) {
    bundle.failed("FRR", "vtysh", "skipped",
                  "no --frr-pathspace and no FRR on this host (" + dir + "/zebra.vty)");
    return;
  }
  if (!validWord(options.vtysh) ||
      (options.frr_pathspace_given && !validWord(options.frr_pathspace))) {
    bundle.failed("FRR", "vtysh", "failed", "--frr-pathspace may only hold A-Z a-z 0-9 _ . - /");
    return;
  }
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"show running-config", "frr/running-config.txt"},
      {"show bgp summary", "frr/bgp-summary.txt"},
      {"show bfd peers", "frr/bfd-peers.txt"}};
  for (const auto& [command, path] : commands) {
    std::vector<std::string> argv = {"timeout", "30", options.vtysh};
    if (!options.frr_pathspace.empty()) {
      argv.insert(argv.end(), {"-N", options.frr_pathspace});
    }
    argv.insert(argv.end(), {"-c", command});
    auto out = runCommand(argv);
    if (!out) {
      bundle.failed("FRR " + command, "vtysh", "failed", out.error().message);
      continue;
    }
    bundle.add(BundleEntry{"FRR " + command, path, "vtysh", "ok", "", -1}, redactFrrText(*out));
  }
}

}  // namespace ingot::cli
