// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain SERVICE -f PATH...`: the command line around explainService.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "agent/core/drain.h"
#include "cli/args.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/explain.h"
#include "cli/explain_live.h"
#include "cli/l2_interfaces.h"
#include "cli/workspace.h"

namespace ingot::cli {
namespace {

/// ExplainWords are the words parseArgs does not handle: the Service and the repeatable
/// --dead-node and --suspect-node.
struct ExplainWords {
  std::string service;
  std::set<std::string> dead;
  std::set<std::string> suspect;
  std::vector<std::string> rest;
};

/// nodeFlag takes a repeatable node flag (--NAME NODE or --NAME=NODE) at words[i] into nodes;
/// false when words[i] is not that flag.
Result<bool> nodeFlag(const std::vector<std::string>& words,
                      size_t& i,
                      const std::string& name,
                      std::set<std::string>& nodes) {
  const std::string flag = "--" + name;
  const std::string& s = words[i];
  if (s == flag) {
    if (i + 1 >= words.size()) {
      return invalidArgument("flag " + flag + " needs a node name");
    }
    nodes.insert(words[++i]);
    return true;
  }
  if (s.rfind(flag + "=", 0) == 0) {
    nodes.insert(s.substr(flag.size() + 1));
    return true;
  }
  return false;
}

/// splitWords takes the Service (the first word, "NAME" meaning "default/NAME", after an
/// optional kind word "service" or "svc") and every --dead-node and --suspect-node out of
/// words; the rest is for parseArgs.
Result<ExplainWords> splitWords(const std::vector<std::string>& words) {
  size_t first = 0;
  if (words.size() > 1 && (words[0] == "service" || words[0] == "svc") && !words[1].empty() &&
      words[1][0] != '-') {
    first = 1;  // `explain service NS/NAME`, as kubectl names an object
  }
  if (words.empty() || words[first].empty() || words[first][0] == '-') {
    return invalidArgument("no Service: give NAMESPACE/NAME first (NAME alone means default/NAME)");
  }
  ExplainWords w;
  const std::string& name = words[first];
  w.service = name.find('/') == std::string::npos ? "default/" + name : name;
  for (size_t i = first + 1; i < words.size(); ++i) {
    auto dead = nodeFlag(words, i, "dead-node", w.dead);
    auto suspect =
        dead && !*dead ? nodeFlag(words, i, "suspect-node", w.suspect) : Result<bool>(false);
    if (!dead || !suspect) {
      return !dead ? dead.error() : suspect.error();
    }
    if (!*dead && !*suspect) {
      w.rest.push_back(words[i]);
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

Result<void> checkNodes(const std::string& flag,
                        const std::set<std::string>& names,
                        const std::vector<api::Node>& nodes) {
  for (const auto& d : names) {
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const auto& n) { return n.metadata.name == d; })) {
      return invalidArgument("--" + flag + " " + d + ": no Node of that name in the input");
    }
  }
  return {};
}

/// checkDeadNodes checks that the flags name Nodes of the input, and no node twice.
Result<void> checkDeadNodes(const std::set<std::string>& dead,
                            const std::set<std::string>& suspect,
                            const std::vector<api::Node>& nodes) {
  if (auto ok = checkNodes("dead-node", dead, nodes); !ok) {
    return ok;
  }
  for (const auto& s : suspect) {
    if (dead.contains(s)) {
      return invalidArgument("--suspect-node " + s + ": also given as --dead-node");
    }
  }
  return checkNodes("suspect-node", suspect, nodes);
}

int fail(std::ostream& err, const std::string& message, int code) {
  err << "ingotctl explain: " << message << "\n";
  return code;
}

}  // namespace

Result<Explanation> explainWorkspace(const Workspace& ws,
                                     const std::string& service,
                                     const std::set<std::string>& dead_nodes,
                                     const Args& args,
                                     const std::set<std::string>& suspect_nodes) {
  const ExplainWords w{service, dead_nodes, suspect_nodes, {}};
  auto index = findService(ws.services, w.service);
  if (auto dead = checkDeadNodes(w.dead, w.suspect, ws.inputs.nodes); !index || !dead) {
    return invalidArgument(!index ? index.error().message : dead.error().message);
  }
  auto interfaces = interfaceFlags(args, ws.inputs.nodes);
  if (!interfaces) {
    return interfaces.error();
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
  agent::AnnounceOptions announce{args.hasSwitch("ignore-exclude-lb"), args.option("lb-class"), {}};
  auto triggers = agent::parseDrainTriggers(args.option("drain-triggers"));
  if (!triggers) {
    return invalidArgument("--drain-triggers: " + triggers.error().message);
  }
  announce.weighted_ecmp = args.hasSwitch("weighted-ecmp");
  announce.drain.triggers = std::move(*triggers);
  announce.drain.taint_key = args.option("drain-taint");
  ExplainInputs in{&*ws.parsed.config,
                   &ws.inputs.nodes,
                   &ws.endpoint_slices,
                   &ws.services[*index],
                   &services[*index],
                   &*outcome,
                   announce,
                   w.dead,
                   w.suspect,
                   &*interfaces};
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
  auto args = parseArgs(w->rest, flagSpecOf(*findCommand("explain")));
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
    if (!w->suspect.empty()) {
      return fail(err,
                  "--suspect-node previews memberlist on -f files; against a cluster the agent "
                  "pods say which agents are live",
                  kExitUsage);
    }
    return runExplainLive(w->service, w->dead, *args, out, err);
  }
  const Workspace ws = loadWorkspace(args->files, {args->option("namespace", "metallb-system")});
  // Problems only some nodes have leave the others' configuration: explain goes on with it,
  // those nodes announcing nothing over BGP (MetalLB's speakers there keep their last good one).
  const bool some_nodes_only =
      ws.parsed.config && std::all_of(ws.problems.begin(), ws.problems.end(),
                                      [](const Problem& p) { return !p.nodes.empty(); });
  if (!some_nodes_only) {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
    return kExitInvalid;
  }
  for (const auto& p : ws.problems) {
    err << "ingotctl explain: warning: " << formatProblem(p)
        << " (explained as if that agent announced nothing over BGP)\n";
  }
  if (auto interfaces = interfaceFlags(*args, ws.inputs.nodes); !interfaces) {
    return fail(err, interfaces.error().message, kExitUsage);
  }
  auto e = explainWorkspace(ws, w->service, w->dead, *args, w->suspect);
  if (!e) {
    return fail(err, e.error().message, kExitInvalid);
  }
  return printExplanation(out, *e, output);
}

}  // namespace ingot::cli
