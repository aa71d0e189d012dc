// SPDX-License-Identifier: Apache-2.0
// `ingotctl render`: what the agent on one node would configure, from manifests.
#include "frrgen/render.h"

#include <algorithm>
#include <string>
#include <vector>

#include "agent/core/announce.h"
#include "cli/args.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/workspace.h"
#include "frrgen/build.h"
#include "frrgen/compact.h"
#include "frrgen/merge.h"
#include "frrgen/served.h"
#include "frrgen/weight_raw.h"
#include "frrgen/yaml.h"

namespace ingot::cli {
namespace {

struct RenderRequest {
  std::string node;
  std::string format;
  bool explain = false;
  frrgen::YamlOptions yaml;  ///< --as-served
  agent::AnnounceOptions announce;
  frrgen::BuildOptions build;
  /// --backend: frr renders the compact file the agent applies in --bgp-mode frr (from its own
  /// FRRConfiguration only); frr-k8s the file frr-k8s renders from every FRRConfiguration.
  config::Backend backend = config::Backend::FrrK8s;
};

struct NodeDecision {
  const api::Service* service;
  agent::BgpDecision decision;
};

/// describe renders one announcement as "PREFIX (localPref N, communities A:B ...)".
std::string describe(const agent::Announcement& a) {
  std::vector<std::string> extras;
  if (a.local_pref != 0) {
    extras.push_back("localPref " + std::to_string(a.local_pref));
  }
  if (!a.communities.empty()) {
    std::vector<std::string> cs;
    for (const auto& c : a.communities) {
      cs.push_back(frrgen::communityText(c));
    }
    extras.push_back("communities " + joined(cs, " "));
  }
  if (a.bandwidth != 0) {
    extras.push_back("weight " + std::to_string(a.bandwidth));
  }
  return a.prefix.toString() + (extras.empty() ? "" : " (" + joined(extras, ", ") + ")");
}

void explain(std::ostream& out, const std::vector<NodeDecision>& decisions) {
  for (const auto& d : decisions) {
    if (d.service->spec.type != "LoadBalancer") {
      continue;
    }
    out << d.service->metadata.namespace_ << "/" << d.service->metadata.name << ": ";
    if (!d.decision.announced()) {
      out << "not announced: " << agent::bgpSkipReason(*d.decision.skip) << "\n";
      continue;
    }
    std::vector<std::string> parts;
    for (const auto& a : d.decision.announcements) {
      parts.push_back(describe(a) +
                      (a.peers.empty() ? " to no peer" : " to " + joined(a.peers, ",")));
    }
    out << "announced as " << joined(parts, "; ") << "\n";
  }
}

/// userConfigs returns the FRRConfiguration objects given in the manifests: frr-k8s merges them
/// with the agent's own.
std::vector<api::FRRConfiguration> userConfigs(const Workspace& ws) {
  std::vector<api::FRRConfiguration> out;
  for (const auto& o : ws.objects) {
    if (const auto* c = std::get_if<api::FRRConfiguration>(&o.object)) {
      out.push_back(*c);
    }
  }
  return out;
}

Result<std::string> frrConf(const Workspace& ws,
                            const api::FRRConfiguration& own,
                            const api::Node* node,
                            const RenderRequest& req) {
  const bool agent_frr_mode = req.backend == config::Backend::Frr;
  std::vector<api::FRRConfiguration> all;
  if (!agent_frr_mode) {
    all = userConfigs(ws);
  }
  all.push_back(own);
  auto selected = frrgen::selectForNode(all, req.build.frrk8s_namespace,
                                        node != nullptr ? node->metadata.labels : api::StringMap{});
  if (!selected) {
    return selected.error();
  }
  std::vector<api::Secret> secrets;
  for (const auto& o : ws.objects) {
    if (const auto* s = std::get_if<api::Secret>(&o.object);
        s != nullptr && s->metadata.namespace_ == req.build.frrk8s_namespace) {
      secrets.push_back(*s);
    }
  }
  auto model = frrgen::merge(*selected, secrets);
  if (!model) {
    return model.error();
  }
  if (!agent_frr_mode) {
    return frrgen::render(*model, frrgen::RenderOptions{});
  }
  auto compacted = frrgen::compact(*model);
  if (!compacted) {
    return compacted.error();
  }
  return frrgen::renderCompact(*compacted, frrgen::RenderOptions{});
}

int renderNode(const Workspace& ws,
               const RenderRequest& req,
               std::ostream& out,
               std::ostream& err) {
  const config::Config& config = *ws.parsed.config;
  const auto& nodes = ws.inputs.nodes;
  const auto it = std::find_if(nodes.begin(), nodes.end(),
                               [&](const api::Node& n) { return n.metadata.name == req.node; });
  if (it == nodes.end()) {
    err << "ingotctl render: node \"" << req.node << "\" is not defined in the manifests (give its "
        << "Node object: selectors and ETP Local depend on it)\n";
    return kExitInvalid;
  }
  // Services without an address get the one the controller would give them.
  std::vector<api::Service> services = ws.services;
  if (auto plan = convergeServices(config, services, {req.announce.lb_class}); !plan) {
    err << "ingotctl render: " << plan.error().message << "\n";
    return kExitInvalid;
  }
  std::sort(services.begin(), services.end(), [](const api::Service& a, const api::Service& b) {
    return std::tie(a.metadata.namespace_, a.metadata.name) <
           std::tie(b.metadata.namespace_, b.metadata.name);
  });
  std::vector<NodeDecision> decisions;
  std::vector<agent::BgpDecision> plain;
  for (const auto& svc : services) {
    auto d = agent::decideBgp(config, req.node, &*it, svc, ws.endpoint_slices, req.announce);
    plain.push_back(d);
    decisions.push_back({&svc, std::move(d)});
  }
  if (req.explain) {
    explain(out, decisions);
    return kExitOk;
  }
  auto own = frrgen::build(config, req.node, agent::collectAnnouncements(plain), req.build);
  if (!own) {
    err << "ingotctl render: " << own.error().message << "\n";
    return kExitInvalid;
  }
  if (req.backend != config::Backend::Frr) {
    // What the agent writes for frr-k8s: the weights in spec.raw (frrgen/weight_raw.h).
    auto written = frrgen::forFrrK8s(std::move(*own));
    if (!written) {
      err << "ingotctl render: " << written.error().message << "\n";
      return kExitInvalid;
    }
    own = std::move(*written);
  }
  if (req.format == "frrconfiguration") {
    if (!frrgen::hasSessionsOrProfiles(own->spec)) {
      err << "note: node \"" << req.node << "\" has no BGP session and no BFD profile: no "
          << "FRRConfiguration " << own->metadata.name << " is written (an existing one is "
          << "deleted)\n";
      return kExitOk;
    }
    out << frrgen::toYaml(*own, req.yaml);
    return kExitOk;
  }
  auto text = frrConf(ws, *own, &*it, req);
  if (!text) {
    err << "ingotctl render: " << text.error().message << "\n";
    return kExitInvalid;
  }
  out << *text;
  return kExitOk;
}

}  // namespace

int runRender(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  auto args = parseArgs(words, flagSpecOf(*findCommand("render")));
  if (!args) {
    err << "ingotctl render: " << args.error().message << "\n";
    return kExitUsage;
  }
  RenderRequest req;
  req.node = args->option("node");
  req.format = args->option("format", "frrconfiguration");
  req.explain = args->hasSwitch("explain");
  req.yaml.served = args->hasSwitch("as-served");
  req.announce.ignore_exclude_lb = args->hasSwitch("ignore-exclude-lb");
  req.announce.lb_class = args->option("lb-class");
  req.announce.weighted_ecmp = args->hasSwitch("weighted-ecmp");
  const std::string ns = args->option("namespace", "metallb-system");
  req.build.metallb_namespace = ns;
  req.build.frrk8s_namespace = args->option("frrk8s-namespace", ns);
  auto format_ok = checkChoice("format", req.format, {"frrconfiguration", "frr.conf"});
  auto backend = parseBackend(args->option("backend", "frr-k8s"));
  if (req.node.empty() || args->files.empty() || !format_ok || !backend) {
    err << "ingotctl render: "
        << (!format_ok ? format_ok.error().message
            : !backend ? backend.error().message
                       : std::string("give --node NODE and -f PATH..."))
        << "\n";
    return kExitUsage;
  }
  req.backend = *backend;
  // Parsed as the agent on the node parses: objects that do not select it cannot break it.
  const Workspace ws = loadWorkspace(args->files, {ns, *backend, req.node});
  for (const auto& note : ws.notes) {
    err << "note: " << note << "\n";
  }
  if (!ws.problems.empty() || !ws.parsed.config) {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
    return kExitInvalid;
  }
  return renderNode(ws, req, out, err);
}

}  // namespace ingot::cli
