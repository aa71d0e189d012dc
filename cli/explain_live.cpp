// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain NS/NAME --kubeconfig PATH`: reads the explanation's inputs from a cluster with
// list calls, turns them into the same Workspace the file path builds (the same decoding,
// validation and config parser), takes liveness from the agent pods, ConfigurationStates and the
// Service's status objects, and runs the file path's explanation.
#include "cli/explain_live.h"

#include <algorithm>
#include <set>

#include "api/configuration_state.h"
#include "api/manifest.h"
#include "cli/cluster.h"
#include "cli/commands.h"
#include "common/json/json.h"
#include "kube/resources.h"

namespace ingot::cli {
namespace {

namespace r = k8s::resources;

const std::string kMetallbV1beta1 = "metallb.io/v1beta1";
// Labels of the agents' status objects (MetalLB's names, written by the agent).
const std::string kNodeNameLabel = "metallb.io/node-name";

/// Live is what one explain reads from the cluster besides the config objects.
struct Live {
  std::vector<json::Value> objects;  ///< for the Workspace, cleaned by forLoader
  std::vector<AgentPod> pods;
  std::vector<AgentState> states;
  std::vector<json::Value> l2_statuses;
  std::vector<json::Value> bgp_statuses;
};

int failLive(std::ostream& err, const std::string& message, int code) {
  err << "ingotctl explain: " << message << "\n";
  return code;
}

/// forLoader keeps what the manifest decoder reads: metadata's name, namespace, labels and
/// annotations, and everything outside metadata except a metallb.io object's status (the
/// decoder refuses unknown fields of metallb.io kinds).
json::Value forLoader(const json::Value& obj) {
  const bool metallb = stringAt(obj, {"apiVersion"}).rfind("metallb.io/", 0) == 0;
  json::Value out = withoutMembers(obj, metallb ? std::vector<std::string>{"metadata", "status"}
                                                : std::vector<std::string>{"metadata"});
  json::Value meta = json::Value::object();
  for (const std::string key : {"name", "namespace", "labels", "annotations"}) {
    if (const auto* v = memberAt(obj, {"metadata", key}); v != nullptr) {
      meta.set(key, key == "annotations" ? withoutMembers(*v, {kLastAppliedAnnotation}) : *v);
    }
  }
  putMember(out, "metadata", std::move(meta));
  return out;
}

Result<void> addList(k8s::ApiClient& c,
                     const Kind& kind,
                     const std::string& ns,
                     const k8s::ListOptions& options,
                     std::vector<json::Value>& out) {
  auto items = listObjects(c, kind, ns, options);
  if (!items) {
    return Error{items.error().code, "listing " + kind.ref.plural + ": " + items.error().message};
  }
  for (const auto& item : *items) {
    out.push_back(forLoader(item));
  }
  return {};
}

/// addPeerSecrets reads the Secrets the BGPPeers name in passwordSecret (the config parser
/// checks they exist); no other Secret is read.
Result<void> addPeerSecrets(k8s::ApiClient& c, const std::string& ns, Live& live) {
  std::set<std::string> names;
  for (const auto& o : live.objects) {
    if (stringAt(o, {"kind"}) == "BGPPeer") {
      if (auto name = stringAt(o, {"spec", "passwordSecret", "name"}); !name.empty()) {
        names.insert(name);
      }
    }
  }
  for (const auto& name : names) {
    auto raw = c.get(r::kSecrets, ns, name);
    if (!raw && raw.error().code == ErrorCode::NotFound) {
      continue;  // the parser reports the missing Secret
    }
    auto v = raw ? json::parse(*raw) : Result<json::Value>(raw.error());
    if (!v) {
      return Error{v.error().code, "reading Secret " + ns + "/" + name + ": " + v.error().message};
    }
    putMember(*v, "apiVersion", json::Value::string("v1"));
    putMember(*v, "kind", json::Value::string("Secret"));
    live.objects.push_back(forLoader(*v));
  }
  return {};
}

/// readInputs lists the config objects, Nodes, Namespaces, LoadBalancer Services and the
/// EndpointSlices of the explained Service.
Result<void> readInputs(k8s::ApiClient& c,
                        const std::string& mlns,
                        const std::string& svc_ns,
                        const std::string& svc_name,
                        Live& live) {
  for (const auto& kind : metallbConfigKinds()) {
    if (auto ok = addList(c, kind, mlns, {}, live.objects); !ok) {
      return ok;
    }
  }
  if (auto ok = addPeerSecrets(c, mlns, live); !ok) {
    return ok;
  }
  const std::vector<std::pair<Kind, std::string>> core = {{{r::kNodes, "v1", "Node"}, ""},
                                                          {{r::kNamespaces, "v1", "Namespace"}, ""},
                                                          {{r::kServices, "v1", "Service"}, ""}};
  for (const auto& [kind, ns] : core) {
    if (auto ok = addList(c, kind, ns, {}, live.objects); !ok) {
      return ok;
    }
  }
  k8s::ListOptions slices;
  slices.label_selector = "kubernetes.io/service-name=" + svc_name;
  return addList(c, {r::kEndpointSlices, "discovery.k8s.io/v1", "EndpointSlice"}, svc_ns, slices,
                 live.objects);
}

bool podReady(const json::Value& pod) {
  if (stringAt(pod, {"status", "phase"}) != "Running" ||
      memberAt(pod, {"metadata", "deletionTimestamp"}) != nullptr) {
    return false;
  }
  const auto* conditions = memberAt(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->isArray()) {
    return false;
  }
  return std::any_of(conditions->items().begin(), conditions->items().end(), [](const auto& c) {
    return stringAt(c, {"type"}) == "Ready" && stringAt(c, {"status"}) == "True";
  });
}

/// readAgents lists the agent pods (every selector, deduplicated by name) and the agents'
/// ConfigurationStates. A failed list is a warning: liveness falls back to the next source.
void readAgents(k8s::ApiClient& c,
                const std::string& mlns,
                const std::vector<std::string>& selectors,
                Live& live,
                std::ostream& err) {
  std::set<std::string> seen;
  for (const auto& selector : selectors) {
    k8s::ListOptions o;
    o.label_selector = selector;
    auto pods = listObjects(c, {r::kPods, "v1", "Pod"}, mlns, o);
    if (!pods) {
      err << "ingotctl explain: warning: listing agent pods (" << selector
          << "): " << pods.error().message << "\n";
      continue;
    }
    for (const auto& p : *pods) {
      if (seen.insert(stringAt(p, {"metadata", "name"})).second) {
        live.pods.push_back(AgentPod{stringAt(p, {"metadata", "name"}),
                                     stringAt(p, {"spec", "nodeName"}), podReady(p)});
      }
    }
  }
  k8s::ListOptions o;
  o.label_selector = std::string(api::kComponentTypeLabel) + "=speaker";
  auto states =
      listObjects(c, {r::kConfigurationStates, kMetallbV1beta1, "ConfigurationState"}, mlns, o);
  if (!states) {
    err << "ingotctl explain: warning: listing ConfigurationStates: " << states.error().message
        << "\n";
    return;
  }
  for (const auto& s : *states) {
    live.states.push_back(AgentState{stringAt(s, {"metadata", "labels", kNodeNameLabel}),
                                     stringAt(s, {"status", "result"}),
                                     stringAt(s, {"status", "errorSummary"})});
  }
}

/// readStatuses lists the Service's ServiceL2Status and ServiceBGPStatus objects.
void readStatuses(k8s::ApiClient& c,
                  const std::string& mlns,
                  const std::string& svc_ns,
                  const std::string& svc_name,
                  Live& live,
                  std::ostream& err) {
  k8s::ListOptions o;
  o.label_selector =
      "metallb.io/service-name=" + svc_name + ",metallb.io/service-namespace=" + svc_ns;
  const std::vector<std::pair<Kind, std::vector<json::Value>*>> kinds = {
      {{r::kServiceL2Statuses, kMetallbV1beta1, "ServiceL2Status"}, &live.l2_statuses},
      {{r::kServiceBgpStatuses, kMetallbV1beta1, "ServiceBGPStatus"}, &live.bgp_statuses}};
  for (const auto& [kind, out] : kinds) {
    auto items = listObjects(c, kind, mlns, o);
    if (!items) {
      err << "ingotctl explain: warning: listing " << kind.ref.plural << ": "
          << items.error().message << "\n";
      continue;
    }
    *out = std::move(*items);
  }
}

/// observe adds what the status objects say to each node's liveness.
void observe(const Live& live, ExplainLiveness& liveness) {
  for (const auto& s : live.l2_statuses) {
    if (auto it = liveness.nodes.find(stringAt(s, {"status", "node"}));
        it != liveness.nodes.end()) {
      it->second.observed_l2 = true;
    }
  }
  for (const auto& s : live.bgp_statuses) {
    auto it = liveness.nodes.find(stringAt(s, {"status", "node"}));
    if (it == liveness.nodes.end()) {
      continue;
    }
    it->second.observed_bgp = true;
    if (const auto* peers = memberAt(s, {"status", "peers"}); peers && peers->isArray()) {
      for (const auto& p : peers->items()) {
        it->second.observed_bgp_peers.push_back(p.text());
      }
    }
  }
}

std::vector<std::string> nodeNames(const Workspace& ws) {
  std::vector<std::string> out;
  for (const auto& n : ws.inputs.nodes) {
    out.push_back(n.metadata.name);
  }
  return out;
}

std::vector<std::string> agentSelectors(const Args& args) {
  const std::string flag = args.option("agent-selector");
  return flag.empty() ? kDefaultAgentSelectors : std::vector<std::string>{flag};
}

std::string selectorText(const std::vector<std::string>& selectors) {
  std::string out;
  for (const auto& s : selectors) {
    out += (out.empty() ? "" : " or ") + s;
  }
  return out;
}

/// loadLive reads the cluster into a Workspace; problems that leave the config valid are
/// printed as warnings (a cluster holds objects explain does not need to be perfect).
Result<Workspace> loadLive(k8s::ApiClient& c,
                           const std::string& mlns,
                           const std::string& service,
                           Live& live,
                           std::ostream& err) {
  const auto slash = service.find('/');
  const std::string svc_ns = service.substr(0, slash);
  const std::string svc_name = service.substr(slash + 1);
  if (auto ok = readInputs(c, mlns, svc_ns, svc_name, live); !ok) {
    return ok.error();
  }
  std::string text;
  for (const auto& o : live.objects) {
    text += json::write(o) + "\n---\n";
  }
  Workspace ws = loadWorkspaceSet(api::loadManifestText(text, "<cluster>"), {mlns});
  for (const auto& p : ws.problems) {
    err << "ingotctl explain: " << (ws.parsed.config ? "warning: " : "") << formatProblem(p)
        << "\n";
  }
  if (!ws.parsed.config) {
    return invalidArgument("the cluster's MetalLB configuration is not valid (see above)");
  }
  readStatuses(c, mlns, svc_ns, svc_name, live, err);
  return ws;
}

}  // namespace

int runExplainLive(const std::string& service,
                   const std::set<std::string>& dead_nodes,
                   const Args& args,
                   std::ostream& out,
                   std::ostream& err) {
  auto conn = connectCluster(args.option("kubeconfig"), args.option("context"));
  if (!conn) {
    return failLive(err, "no -f PATH, so explain reads a cluster: " + conn.error().message,
                    kExitInvalid);
  }
  for (const auto& w : conn->warnings) {
    err << "ingotctl explain: warning: " << w << "\n";
  }
  const std::string mlns = args.option("namespace", "metallb-system");
  Live live;
  auto ws = loadLive(*conn->client, mlns, service, live, err);
  if (!ws) {
    return failLive(err, ws.error().message, kExitInvalid);
  }
  const auto selectors = agentSelectors(args);
  readAgents(*conn->client, mlns, selectors, live, err);
  auto liveness =
      decideLiveness(nodeNames(*ws), live.pods, live.states, dead_nodes, selectorText(selectors));
  observe(live, liveness);
  auto e = explainWorkspace(*ws, service, deadNodes(liveness), args);
  if (!e) {
    return failLive(err, e.error().message, kExitInvalid);
  }
  e->liveness = std::move(liveness);
  return printExplanation(out, *e, args.option("output", "text"));
}

}  // namespace ingot::cli
