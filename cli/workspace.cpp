// SPDX-License-Identifier: Apache-2.0
#include "cli/workspace.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <type_traits>

#include "api/convert.h"
#include "api/validate.h"

namespace ingot::cli {
namespace {

using ObjectKey = std::tuple<std::string, std::string, std::string>;  // kind, namespace, name

/// isMetalLBKind reports whether the object is one of the metallb.io kinds, which MetalLB's
/// webhooks only admit in the MetalLB namespace.
bool isMetalLBKind(const api::ManifestObject& o) {
  return o.api_version.rfind("metallb.io/", 0) == 0;
}

/// namespaceFor returns where an object of kind lives when its manifest names no namespace:
/// none for cluster-scoped kinds, the MetalLB namespace for MetalLB's own kinds, Secrets and
/// FRRConfigurations, "default" (as kubectl would) for the rest.
std::string namespaceFor(const std::string& kind, const std::string& metallb_ns) {
  static const std::set<std::string> kClusterScoped = {"Node", "Namespace"};
  static const std::set<std::string> kMetalLBNamespaced = {
      "IPAddressPool",      "L2Advertisement", "BGPAdvertisement", "BGPPeer",
      "BFDProfile",         "Community",       "ServiceL2Status",  "ServiceBGPStatus",
      "ConfigurationState", "Secret",          "FRRConfiguration"};
  if (kClusterScoped.count(kind) != 0) {
    return "";
  }
  return kMetalLBNamespaced.count(kind) != 0 ? metallb_ns : "default";
}

void defaultNamespace(api::ManifestObject& o, const std::string& metallb_ns) {
  auto& meta = o.meta();
  if (meta.namespace_.empty()) {
    meta.namespace_ = namespaceFor(o.kind, metallb_ns);
  }
}

Problem problemFor(const api::ManifestObject& o, std::string field, std::string message) {
  return Problem{
      o.pos, o.kind, o.meta().namespace_, o.meta().name, std::move(field), std::move(message),
      false, {}};
}

/// collect sorts one decoded object into the parser's inputs (MetalLB namespace only) or the
/// services the planners read.
void collect(const api::ManifestObject& o, const std::string& metallb_ns, Workspace& ws) {
  const bool in_ns = o.meta().namespace_ == metallb_ns;
  auto& in = ws.inputs;
  std::visit(
      [&](const auto& obj) {
        using T = std::decay_t<decltype(obj)>;
        if constexpr (std::is_same_v<T, api::IPAddressPool>) {
          if (in_ns) in.pools.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::L2Advertisement>) {
          if (in_ns) in.l2_advertisements.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::BGPAdvertisement>) {
          if (in_ns) in.bgp_advertisements.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::BGPPeer>) {
          if (in_ns) in.peers.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::BGPPeerV1beta1>) {
          if (in_ns) in.peers.push_back(api::toV1beta2(obj));
        } else if constexpr (std::is_same_v<T, api::BFDProfile>) {
          if (in_ns) in.bfd_profiles.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::Community>) {
          if (in_ns) in.communities.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::Secret>) {
          if (in_ns) in.secrets.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::Node>) {
          in.nodes.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::Namespace>) {
          in.namespaces.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::Service>) {
          ws.services.push_back(obj);
        } else if constexpr (std::is_same_v<T, api::EndpointSlice>) {
          ws.endpoint_slices.push_back(obj);
        }
      },
      o.object);
}

/// addImplicitNamespaces makes namespaces that objects live in exist for selector resolution,
/// as they must in a cluster; labels are only known for Namespace objects given explicitly.
void addImplicitNamespaces(Workspace& ws) {
  std::map<std::string, bool> known;
  for (const auto& ns : ws.inputs.namespaces) {
    known[ns.metadata.name] = true;
  }
  for (const auto& o : ws.objects) {
    const auto& name = o.meta().namespace_;
    if (!name.empty() && !known[name]) {
      known[name] = true;
      api::Namespace ns;
      ns.metadata.name = name;
      ws.inputs.namespaces.push_back(ns);
    }
  }
}

void checkObjects(Workspace& ws, const WorkspaceOptions& options) {
  std::map<ObjectKey, api::SourcePos> seen;
  for (const auto& o : ws.objects) {
    const auto& meta = o.meta();
    if (isMetalLBKind(o) && meta.namespace_ != options.metallb_namespace) {
      ws.problems.push_back(
          problemFor(o, "metadata.namespace",
                     "resource must be created in " + options.metallb_namespace + " namespace"));
    }
    const ObjectKey key{o.kind, meta.namespace_, meta.name};
    if (const auto it = seen.find(key); it != seen.end() && !meta.name.empty()) {
      ws.problems.push_back(problemFor(o, "metadata.name",
                                       "duplicate object: also defined at " + it->second.file +
                                           ":" + std::to_string(it->second.line)));
    }
    seen.emplace(key, o.pos);
    for (auto& w : api::objectWarnings(o.object)) {
      ws.warnings.push_back(problemFor(o, std::move(w.field), std::move(w.message)));
    }
  }
}

/// NodeError is one parse error and the nodes whose agent reports it (empty: not node-specific).
struct NodeError {
  config::ConfigError error;
  std::vector<std::string> nodes;
};

/// addConfigErrors appends the parser's errors at their object's position, to problems (or to
/// warnings when as_warnings). A field the field validation already reported (with the field's own
/// line) is not reported twice.
void addConfigErrors(Workspace& ws, const std::vector<NodeError>& errors, bool as_warnings) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> reported;
  for (const auto& p : ws.problems) {
    reported.emplace(p.kind, p.namespace_, p.name, p.field);
  }
  std::map<ObjectKey, api::SourcePos> where;
  for (const auto& o : ws.objects) {
    where.emplace(ObjectKey{o.kind, o.meta().namespace_, o.meta().name}, o.pos);
  }
  for (const auto& [e, nodes] : errors) {
    if (reported.count({e.kind, e.namespace_, e.name, e.field}) != 0) {
      continue;
    }
    Problem p{{}, e.kind, e.namespace_, e.name, e.field, e.message, e.transient, nodes};
    if (const auto it = where.find(ObjectKey{e.kind, e.namespace_, e.name}); it != where.end()) {
      p.pos = it->second;
    }
    (as_warnings ? ws.warnings : ws.problems).push_back(std::move(p));
  }
}

/// everywhere is errors that are not some nodes' only.
std::vector<NodeError> everywhere(const std::vector<config::ConfigError>& errors) {
  std::vector<NodeError> out;
  out.reserve(errors.size());
  for (const auto& e : errors) {
    out.push_back({e, {}});
  }
  return out;
}

/// byError merges the groups' errors: each error once, with the nodes that report it (none
/// listed when every node does).
std::vector<NodeError> byError(const std::vector<config::NodeGroup>& groups, size_t node_count) {
  std::vector<NodeError> out;
  for (const auto& g : groups) {
    for (const auto& e : g.outcome.errors) {
      auto it =
          std::find_if(out.begin(), out.end(), [&](const NodeError& x) { return x.error == e; });
      if (it == out.end()) {
        it = out.insert(out.end(), NodeError{e, {}});
      }
      it->nodes.insert(it->nodes.end(), g.nodes.begin(), g.nodes.end());
    }
  }
  for (auto& e : out) {
    std::sort(e.nodes.begin(), e.nodes.end());
    if (e.nodes.size() == node_count) {
      e.nodes.clear();
    }
  }
  return out;
}

/// selectsNoNode reports whether an object with these nodeSelectors is parsed by no agent.
bool selectsNoNode(const std::vector<api::LabelSelector>& selectors,
                   const std::vector<api::Node>& nodes) {
  return std::none_of(nodes.begin(), nodes.end(), [&](const api::Node& n) {
    return config::selectsNode(selectors, n.metadata.labels);
  });
}

/// unselectedErrors returns the errors of the BGPPeers and BGPAdvertisements that select no
/// node: no agent parses them (MetalLB's speakers drop them before parsing), so they break
/// nothing yet, but they would break the nodes they come to select.
std::vector<NodeError> unselectedErrors(const config::Inputs& in,
                                        const config::ParseOptions& options) {
  std::set<std::pair<std::string, std::string>> idle;  // kind, name
  for (const auto& p : in.peers) {
    if (selectsNoNode(p.spec.node_selectors, in.nodes)) idle.emplace("BGPPeer", p.metadata.name);
  }
  for (const auto& a : in.bgp_advertisements) {
    if (selectsNoNode(a.spec.node_selectors, in.nodes)) {
      idle.emplace("BGPAdvertisement", a.metadata.name);
    }
  }
  std::vector<NodeError> out;
  if (idle.empty()) {
    return out;
  }
  for (auto& e : config::parse(in, options).errors) {
    if (idle.contains({e.kind, e.name})) {
      e.message +=
          " (it selects no node, so no agent parses it yet; the nodes it comes to "
          "select will reject it)";
      out.push_back({std::move(e), {}});
    }
  }
  return out;
}

/// parseConfig runs the parser as loadWorkspace describes.
void parseConfig(Workspace& ws, const WorkspaceOptions& options) {
  const config::ParseOptions popts{options.backend, options.metallb_namespace};
  const auto& nodes = ws.inputs.nodes;
  if (!options.node.empty()) {
    api::Node own;
    own.metadata.name = options.node;
    const auto it = std::find_if(nodes.begin(), nodes.end(), [&](const api::Node& n) {
      return n.metadata.name == options.node;
    });
    if (it != nodes.end()) own = *it;
    ws.parsed = config::parse(config::forNode(ws.inputs, own), popts);
    addConfigErrors(ws, everywhere(ws.parsed.errors), false);
    return;
  }
  if (nodes.empty()) {
    ws.parsed = config::parse(ws.inputs, popts);
    addConfigErrors(ws, everywhere(ws.parsed.errors), false);
    return;
  }
  ws.node_groups = config::parsePerNode(ws.inputs, popts);
  const auto errors = byError(ws.node_groups, nodes.size());
  for (const auto& e : errors) {
    ws.parsed.errors.push_back(e.error);
  }
  // Problems that are only some nodes' leave the others' configuration usable: explain reads it.
  if (std::all_of(errors.begin(), errors.end(),
                  [](const NodeError& e) { return !e.nodes.empty(); })) {
    ws.parsed.config = config::combine(ws.node_groups);
  }
  addConfigErrors(ws, errors, false);
  addConfigErrors(ws, unselectedErrors(ws.inputs, popts), true);
}

}  // namespace

Result<config::Backend> parseBackend(const std::string& name) {
  if (name == "frr-k8s") {
    return config::Backend::FrrK8s;
  }
  if (name == "frr") {
    return config::Backend::Frr;
  }
  if (name == "native") {
    return invalidArgument(
        "backend \"native\" is not supported: Ingot has no native BGP speaker (use frr-k8s, the "
        "default, or frr)");
  }
  return invalidArgument("unknown backend \"" + name + "\" (one of: frr-k8s, frr)");
}

Workspace loadWorkspace(const std::vector<std::string>& paths, const WorkspaceOptions& options) {
  return loadWorkspaceSet(api::loadManifestPaths(paths), options);
}

Workspace loadWorkspaceSet(api::ManifestSet set, const WorkspaceOptions& options) {
  Workspace ws;
  ws.notes = std::move(set.notes);
  for (auto& mp : set.problems) {
    if (mp.namespace_.empty() && !mp.name.empty()) {
      mp.namespace_ = namespaceFor(mp.kind, options.metallb_namespace);
    }
    ws.problems.push_back(
        Problem{mp.pos, mp.kind, mp.namespace_, mp.name, mp.field, mp.message, false, {}});
  }
  ws.objects = std::move(set.objects);
  for (auto& o : ws.objects) {
    defaultNamespace(o, options.metallb_namespace);
  }
  checkObjects(ws, options);
  for (const auto& o : ws.objects) {
    collect(o, options.metallb_namespace, ws);
  }
  addImplicitNamespaces(ws);
  parseConfig(ws, options);
  std::stable_sort(ws.problems.begin(), ws.problems.end(), [](const Problem& a, const Problem& b) {
    return std::tie(a.pos.file, a.pos.line) < std::tie(b.pos.file, b.pos.line);
  });
  return ws;
}

std::string formatProblem(const Problem& p) {
  std::string out = p.pos.file.empty() ? "<config>" : p.pos.file;
  if (p.pos.line > 0) {
    out += ":" + std::to_string(p.pos.line);
  }
  out += ": ";
  if (!p.kind.empty()) {
    out += p.kind + " " + (p.namespace_.empty() ? "" : p.namespace_ + "/") + p.name + ": ";
  }
  if (!p.field.empty()) {
    out += p.field + ": ";
  }
  out += p.message;
  if (!p.nodes.empty()) {
    std::string list;
    for (const auto& n : p.nodes) {
      list += (list.empty() ? "" : ", ") + n;
    }
    out += " [rejected by the agent" +
           std::string(p.nodes.size() == 1 ? " on node " : "s on nodes ") + list + "]";
  }
  return out;
}

}  // namespace ingot::cli
