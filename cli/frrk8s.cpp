// SPDX-License-Identifier: Apache-2.0
// `ingotctl frr-k8s`: FRRConfigurations → frr.conf for one node, as frr-k8s would apply them.
#include "cli/frrk8s.h"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "api/manifest.h"
#include "cli/args.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"

namespace ingot::cli {
namespace {

constexpr const char* kDefaultNamespace = "frr-k8s-system";

struct FrrK8sRequest {
  std::string node;
  std::string namespace_;
  frrgen::RenderOptions render;
};

/// Inputs are the objects of the manifests that frr-k8s reads for one node.
struct Inputs {
  std::vector<api::FRRConfiguration> configs;
  std::vector<api::Secret> secrets;
  const api::Node* node = nullptr;
};

Inputs collect(const api::ManifestSet& set, const FrrK8sRequest& req) {
  Inputs in;
  for (const auto& o : set.objects) {
    if (const auto* c = std::get_if<api::FRRConfiguration>(&o.object)) {
      in.configs.push_back(*c);
    } else if (const auto* s = std::get_if<api::Secret>(&o.object);
               s != nullptr && s->metadata.namespace_ == req.namespace_) {
      in.secrets.push_back(*s);
    } else if (const auto* n = std::get_if<api::Node>(&o.object);
               n != nullptr && n->metadata.name == req.node) {
      in.node = n;
    }
  }
  return in;
}

Result<std::string> frrConfFor(const Inputs& in, const FrrK8sRequest& req) {
  auto selected = frrgen::selectForNode(in.configs, req.namespace_, in.node->metadata.labels);
  if (!selected) {
    return selected.error();
  }
  auto model = frrgen::merge(*selected, in.secrets);
  if (!model) {
    return model.error();
  }
  frrgen::clearFrrK8sDefaults(*model);  // frr-k8s' timer semantics, not Ingot's FRR mode's
  return frrgen::render(*model, req.render);
}

void printProblems(const api::ManifestSet& set, std::ostream& out) {
  for (const auto& p : set.problems) {
    out << p.pos.file << (p.pos.line > 0 ? ":" + std::to_string(p.pos.line) : "") << ": " << p.kind
        << (p.kind.empty() ? "" : " ") << (p.namespace_.empty() ? "" : p.namespace_ + "/") << p.name
        << (p.field.empty() ? "" : ": " + p.field) << ": " << p.message << "\n";
  }
}

}  // namespace

int runFrrK8s(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  auto args = parseArgs(words, flagSpecOf(*findCommand("frr-k8s")));
  if (!args) {
    err << "ingotctl frr-k8s: " << args.error().message << "\n";
    return kExitUsage;
  }
  FrrK8sRequest req;
  req.node = args->option("node");
  req.namespace_ = args->option("frrk8s-namespace", kDefaultNamespace);
  req.render.log_level = args->option("log-level", req.render.log_level);
  if (req.node.empty() || args->files.empty()) {
    err << "ingotctl frr-k8s: give --node NODE and -f PATH...\n";
    return kExitUsage;
  }
  const api::ManifestSet set = api::loadManifestPaths(args->files);
  if (!set.problems.empty()) {
    printProblems(set, out);
    return kExitInvalid;
  }
  const Inputs in = collect(set, req);
  if (in.node == nullptr) {
    err << "ingotctl frr-k8s: node \"" << req.node << "\" is not defined in the manifests (give "
        << "its Node object: the FRRConfigurations' nodeSelectors match its labels)\n";
    return kExitInvalid;
  }
  auto text = frrConfFor(in, req);
  if (!text) {
    err << "ingotctl frr-k8s: " << text.error().message << "\n";
    return kExitInvalid;
  }
  out << *text;
  return kExitOk;
}

}  // namespace ingot::cli
