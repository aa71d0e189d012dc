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
  return Problem{o.pos,         o.kind,           o.meta().namespace_,
                 o.meta().name, std::move(field), std::move(message),
                 false};
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

/// addConfigErrors appends the parser's errors at their object's position. A field the field
/// validation already reported (with the field's own line) is not reported twice.
void addConfigErrors(Workspace& ws) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> reported;
  for (const auto& p : ws.problems) {
    reported.emplace(p.kind, p.namespace_, p.name, p.field);
  }
  std::map<ObjectKey, api::SourcePos> where;
  for (const auto& o : ws.objects) {
    where.emplace(ObjectKey{o.kind, o.meta().namespace_, o.meta().name}, o.pos);
  }
  for (const auto& e : ws.parsed.errors) {
    if (reported.count({e.kind, e.namespace_, e.name, e.field}) != 0) {
      continue;
    }
    Problem p{{}, e.kind, e.namespace_, e.name, e.field, e.message, e.transient};
    if (const auto it = where.find(ObjectKey{e.kind, e.namespace_, e.name}); it != where.end()) {
      p.pos = it->second;
    }
    ws.problems.push_back(std::move(p));
  }
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
        Problem{mp.pos, mp.kind, mp.namespace_, mp.name, mp.field, mp.message, false});
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
  ws.parsed = config::parse(ws.inputs, {options.backend, options.metallb_namespace});
  addConfigErrors(ws);
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
  return out + p.message;
}

}  // namespace ingot::cli
