// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain SERVICE -f PATH...`: the command line around explainService.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/explain.h"
#include "cli/explain_live.h"
#include "cli/workspace.h"

namespace ingot::cli {
namespace {

/// ExplainWords are the words parseArgs does not handle: the Service and the repeatable
/// --dead-node.
struct ExplainWords {
  std::string service;
  std::set<std::string> dead;
  std::vector<std::string> rest;
};

/// splitWords takes the Service (the first word, "NAME" meaning "default/NAME") and every
/// --dead-node out of words; the rest is for parseArgs.
Result<ExplainWords> splitWords(const std::vector<std::string>& words) {
  if (words.empty() || words[0].empty() || words[0][0] == '-') {
    return invalidArgument("no Service: give NAMESPACE/NAME first (NAME alone means default/NAME)");
  }
  ExplainWords w;
  w.service = words[0].find('/') == std::string::npos ? "default/" + words[0] : words[0];
  const std::string prefix = "--dead-node=";
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& s = words[i];
    if (s == "--dead-node") {
      if (i + 1 >= words.size()) {
        return invalidArgument("flag --dead-node needs a node name");
      }
      w.dead.insert(words[++i]);
    } else if (s.rfind(prefix, 0) == 0) {
      w.dead.insert(s.substr(prefix.size()));
    } else {
      w.rest.push_back(s);
    }
  }
  return w;
}

/// findService returns the index of "namespace/name" in services, or an error listing them.
Result<size_t> findService(const std::vector<api::Service>& services, const std::string& key) {
  for (size_t i = 0; i < services.size(); ++i) {
    if (services[i].metadata.namespace_ + "/" + services[i].metadata.name == key) {
      return i;
    }
  }
  return invalidArgument("Service " + key + " is not in the input");
}

Result<void> checkDeadNodes(const std::set<std::string>& dead,
                            const std::vector<api::Node>& nodes) {
  for (const auto& d : dead) {
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const auto& n) { return n.metadata.name == d; })) {
      return invalidArgument("--dead-node " + d + ": no Node of that name in the input");
    }
  }
  return {};
}

int fail(std::ostream& err, const std::string& message, int code) {
  err << "ingotctl explain: " << message << "\n";
  return code;
}

}  // namespace

Result<Explanation> explainWorkspace(const Workspace& ws,
                                     const std::string& service,
                                     const std::set<std::string>& dead_nodes,
                                     const Args& args) {
  const ExplainWords w{service, dead_nodes, {}};
  auto index = findService(ws.services, w.service);
  if (auto dead = checkDeadNodes(w.dead, ws.inputs.nodes); !index || !dead) {
    return invalidArgument(!index ? index.error().message : dead.error().message);
  }
  std::vector<api::Service> services = ws.services;
  const controller::Options copts{args.option("lb-class")};
  auto plan = convergeServices(*ws.parsed.config, services, copts);
  if (!plan) {
    return plan.error();
  }
  const auto outcome =
      std::find_if(plan->services.begin(), plan->services.end(),
                   [&](const auto& s) { return s.namespace_ + "/" + s.name == w.service; });
  if (outcome == plan->services.end()) {
    return invalidArgument("Service " + w.service + " has no controller outcome");
  }
  ExplainInputs in{
      &*ws.parsed.config,
      &ws.inputs.nodes,
      &ws.endpoint_slices,
      &ws.services[*index],
      &services[*index],
      &*outcome,
      agent::AnnounceOptions{args.hasSwitch("ignore-exclude-lb"), args.option("lb-class")},
      w.dead};
  return explainService(in);
}

int printExplanation(std::ostream& out, const Explanation& e, const std::string& output) {
  if (output == "json") {
    out << explainJson(e) << "\n";
  } else {
    explainText(out, e);
  }
  return kExitOk;
}

int runExplain(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  auto w = splitWords(words);
  if (!w) {
    return fail(err, w.error().message, kExitUsage);
  }
  auto args = parseArgs(w->rest, FlagSpec{{"lb-class", "output", "namespace", "kubeconfig",
                                           "context", "agent-selector"},
                                          {"ignore-exclude-lb"}});
  if (!args) {
    return fail(err, args.error().message, kExitUsage);
  }
  const std::string output = args->option("output", "text");
  if (auto ok = checkChoice("output", output, {"text", "json"}); !ok) {
    return fail(err, ok.error().message, kExitUsage);
  }
  if (!args->files.empty() &&
      (args->options.contains("kubeconfig") || args->options.contains("agent-selector"))) {
    return fail(err, "give either -f PATH (files) or --kubeconfig (a cluster), not both",
                kExitUsage);
  }
  if (args->files.empty()) {
    return runExplainLive(w->service, w->dead, *args, out, err);
  }
  const Workspace ws = loadWorkspace(args->files, {args->option("namespace", "metallb-system")});
  if (!ws.problems.empty() || !ws.parsed.config) {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
    return kExitInvalid;
  }
  auto e = explainWorkspace(ws, w->service, w->dead, *args);
  if (!e) {
    return fail(err, e.error().message, kExitInvalid);
  }
  return printExplanation(out, *e, output);
}

}  // namespace ingot::cli
