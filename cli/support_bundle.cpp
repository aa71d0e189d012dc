// SPDX-License-Identifier: Apache-2.0
// `ingotctl support-bundle`: the command line, the index and the final scrub and write.
#include "cli/support_bundle.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "cli/args.h"
#include "cli/cluster.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/redact.h"
#include "common/json/json.h"
#include "common/version/version.h"

namespace ingot::cli {
namespace {

using json::Value;

int failBundle(std::ostream& err, const std::string& message, int code) {
  err << "ingotctl support-bundle: " << message << "\n";
  return code;
}

Value entryJson(const BundleEntry& e) {
  Value o = Value::object();
  o.set("what", Value::string(e.what));
  o.set("path", e.path.empty() ? Value::null() : Value::string(e.path));
  o.set("source", Value::string(e.source));
  o.set("status", Value::string(e.status));
  o.set("error", e.error.empty() ? Value::null() : Value::string(e.error));
  o.set("items", e.items < 0 ? Value::null() : Value::number(e.items));
  return o;
}

Value redactionJson(size_t scrubbed) {
  Value rules = Value::array();
  for (const char* rule :
       {"Secret data and stringData values",
        "members named password, token, bearerToken or "
        "secretKey (BGPPeer and FRRConfiguration passwords)",
        "env values whose name contains PASS, TOKEN, SECRET, KEY or CREDENTIAL",
        "the kubectl last-applied-configuration annotation; managedFields dropped",
        "the word after 'password' in FRR output",
        "every remaining occurrence of a collected secret value or its base64 form"}) {
    rules.push(Value::string(rule));
  }
  Value o = Value::object();
  o.set("replacement", Value::string(std::string(kRedacted)));
  o.set("rules", std::move(rules));
  o.set("scrubbedOccurrences", Value::number(static_cast<uint64_t>(scrubbed)));
  return o;
}

std::string utcNow(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

Result<BundleOptions> bundleOptions(const Args& args) {
  BundleOptions o;
  o.metallb_namespace = args.option("namespace", o.metallb_namespace);
  o.frrk8s_namespace = args.option("frrk8s-namespace", o.frrk8s_namespace);
  o.frr_pathspace_given = args.options.contains("frr-pathspace");
  o.frr_pathspace = args.option("frr-pathspace");
  o.vtysh = args.option("vtysh", o.vtysh);
  const std::string port = args.option("metrics-port", std::to_string(o.metrics_port));
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
      std::stoi(port) > 65535) {
    return invalidArgument("--metrics-port " + port + ": not a port number (1-65535)");
  }
  o.metrics_port = std::stoi(port);
  return o;
}

}  // namespace

void Bundle::add(BundleEntry entry, std::string content) {
  files.push_back(BundleFile{entry.path, std::move(content)});
  entries.push_back(std::move(entry));
}

void Bundle::failed(std::string what, std::string source, std::string status, std::string error) {
  entries.push_back(
      BundleEntry{std::move(what), "", std::move(source), std::move(status), std::move(error), -1});
}

std::string indexJson(const Bundle& bundle,
                      const BundleOptions& options,
                      const std::string& cluster_source,
                      size_t scrubbed) {
  Value root = Value::object();
  root.set("kind", Value::string("IngotSupportBundle"));
  root.set("createdAt", Value::string(utcNow("%Y-%m-%dT%H:%M:%SZ")));
  const auto build = version::buildInfo();
  root.set("ingotctl", Value::string(std::string(build.version) + " (revision " +
                                     std::string(build.revision) + ")"));
  root.set("cluster", Value::string(cluster_source));
  root.set("metallbNamespace", Value::string(options.metallb_namespace));
  root.set("frrk8sNamespace", Value::string(options.frrk8s_namespace));
  root.set("frrPathspace", Value::string(options.frr_pathspace));
  Value entries = Value::array();
  for (const auto& e : bundle.entries) {
    entries.push(entryJson(e));
  }
  root.set("entries", std::move(entries));
  root.set("redaction", redactionJson(scrubbed));
  return json::write(root, json::Style::Pretty) + "\n";
}

namespace {

/// finish scrubs every file (and the index) for the collected secret values, writes the
/// archive and returns how many values it replaced.
Result<size_t> finish(Bundle& bundle,
                      const BundleOptions& options,
                      const ClusterConnection& conn,
                      const std::string& output) {
  auto values = sensitiveValues(bundle.sensitive);
  if (conn.token.size() >= kMinScrubLength) {
    values.insert(conn.token);
  }
  size_t scrubbed = 0;
  for (auto& f : bundle.files) {
    scrubbed += scrub(f.content, values);
  }
  std::string index = indexJson(bundle, options, conn.source + " (" + conn.server + ")", scrubbed);
  scrub(index, values);
  bundle.files.insert(bundle.files.begin(), BundleFile{"index.json", std::move(index)});
  const std::string top = "ingot-support-bundle-" + utcNow("%Y%m%dT%H%M%SZ");
  if (auto ok = writeTarGz(output, top, bundle.files); !ok) {
    return ok.error();
  }
  return scrubbed;
}

}  // namespace

int runSupportBundle(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  std::vector<std::string> rest;
  std::string output;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "-o" && i + 1 < words.size()) {
      output = words[++i];
    } else {
      rest.push_back(words[i]);
    }
  }
  auto args = parseArgs(rest, flagSpecOf(*findCommand("support-bundle")));
  if (!args || !args->files.empty()) {
    return failBundle(
        err, args ? "unexpected -f: support-bundle reads the cluster" : args.error().message,
        kExitUsage);
  }
  output = args->option("output", output);
  auto options = bundleOptions(*args);
  if (output.empty() || !options) {
    return failBundle(err, !options ? options.error().message : "no output: give -o FILE.tar.gz",
                      kExitUsage);
  }
  auto conn = connectCluster(args->option("kubeconfig"), args->option("context"));
  if (!conn) {
    return failBundle(err, conn.error().message, kExitInvalid);
  }
  Bundle bundle;
  collectCluster(*conn->client, *options, bundle);
  collectFrr(*options, bundle);
  auto scrubbed = finish(bundle, *options, *conn, output);
  if (!scrubbed) {
    return failBundle(err, scrubbed.error().message, kExitInvalid);
  }
  const auto failed = std::count_if(bundle.entries.begin(), bundle.entries.end(),
                                    [](const auto& e) { return e.status == "failed"; });
  out << "wrote " << output << ": " << bundle.files.size() << " files, " << failed
      << " items failed (see index.json), " << *scrubbed << " secret values scrubbed\n";
  return kExitOk;
}

}  // namespace ingot::cli
