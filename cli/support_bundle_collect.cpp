// SPDX-License-Identifier: Apache-2.0
// support-bundle: the cluster's objects. Each list becomes one JSON List file, redacted as it is
// added; a list that fails is recorded in the index and collection goes on.
#include <algorithm>
#include <map>
#include <set>

#include "cli/cluster.h"
#include "cli/redact.h"
#include "cli/support_bundle.h"
#include "common/json/json.h"
#include "kube/resources.h"

namespace ingot::cli {
namespace {

namespace r = k8s::resources;

const std::string kV1beta1 = "metallb.io/v1beta1";

/// ListSpec is one list call of the bundle.
struct ListSpec {
  Kind kind;
  std::string ns;    ///< "" = all namespaces (or cluster-scoped)
  std::string path;  ///< file in the bundle
};

std::string listDocument(const std::vector<json::Value>& items) {
  json::Value list = json::Value::object();
  list.set("apiVersion", json::Value::string("v1"));
  list.set("kind", json::Value::string("List"));
  json::Value a = json::Value::array();
  for (const auto& item : items) {
    a.push(redactObject(item));
  }
  list.set("items", std::move(a));
  return json::write(list, json::Style::Pretty) + "\n";
}

/// addList lists one kind into path; returns the raw items (empty on failure).
std::vector<json::Value> addList(k8s::ApiClient& c,
                                 const ListSpec& spec,
                                 Bundle& bundle,
                                 const std::string& what = {}) {
  const std::string name =
      !what.empty() ? what : spec.kind.ref.plural + (spec.ns.empty() ? "" : " in " + spec.ns);
  auto items = listObjects(c, spec.kind, spec.ns);
  if (!items) {
    bundle.failed(name, "list", "failed", items.error().message);
    return {};
  }
  bundle.add(BundleEntry{name, spec.path, "list", "ok", "", static_cast<int64_t>(items->size())},
             listDocument(*items));
  return std::move(*items);
}

/// addFiltered writes the items keep accepts as one file.
void addFiltered(const std::string& what,
                 const std::string& path,
                 const std::vector<json::Value>& items,
                 Bundle& bundle) {
  bundle.add(BundleEntry{what, path, "list", "ok", "", static_cast<int64_t>(items.size())},
             listDocument(items));
}

std::vector<ListSpec> metallbLists(const std::string& ns) {
  std::vector<ListSpec> out;
  auto kinds = metallbConfigKinds();
  kinds.push_back({r::kServiceL2Statuses, kV1beta1, "ServiceL2Status"});
  kinds.push_back({r::kServiceBgpStatuses, kV1beta1, "ServiceBGPStatus"});
  kinds.push_back({r::kConfigurationStates, kV1beta1, "ConfigurationState"});
  out.reserve(kinds.size());
  for (const auto& k : kinds) {
    out.push_back({k, ns, "metallb/" + k.ref.plural + ".json"});
  }
  return out;
}

/// LoadBalancers are the LoadBalancer Services by namespace.
using LoadBalancers = std::map<std::string, std::set<std::string>>;

LoadBalancers loadBalancers(const std::vector<json::Value>& services) {
  LoadBalancers out;
  for (const auto& s : services) {
    if (stringAt(s, {"spec", "type"}) == "LoadBalancer") {
      out[stringAt(s, {"metadata", "namespace"})].insert(stringAt(s, {"metadata", "name"}));
    }
  }
  return out;
}

/// collectServices writes the LoadBalancer Services, their EndpointSlices and Events.
void collectServices(k8s::ApiClient& c, Bundle& bundle) {
  auto services = listObjects(c, {r::kServices, "v1", "Service"}, "");
  if (!services) {
    bundle.failed("services", "list", "failed", services.error().message);
    return;
  }
  const auto lbs = loadBalancers(*services);
  std::vector<json::Value> lb_services;
  std::copy_if(services->begin(), services->end(), std::back_inserter(lb_services),
               [](const auto& s) {
                 return stringAt(s, {"spec", "type"}) == "LoadBalancer";
               });
  addFiltered("LoadBalancer services", "services/services.json", lb_services, bundle);
  std::vector<json::Value> slices;
  std::vector<json::Value> events;
  for (const auto& [ns, names] : lbs) {
    auto s = listObjects(c, {r::kEndpointSlices, "discovery.k8s.io/v1", "EndpointSlice"}, ns);
    auto e = listObjects(c, {r::kEvents, "v1", "Event"}, ns);
    if (!s || !e) {
      bundle.failed("endpointslices and events in " + ns, "list", "failed",
                    !s ? s.error().message : e.error().message);
    }
    for (const auto& slice : s ? *s : std::vector<json::Value>{}) {
      if (names.contains(stringAt(slice, {"metadata", "labels", "kubernetes.io/service-name"}))) {
        slices.push_back(slice);
      }
    }
    for (const auto& ev : e ? *e : std::vector<json::Value>{}) {
      if (stringAt(ev, {"involvedObject", "kind"}) == "Service" &&
          names.contains(stringAt(ev, {"involvedObject", "name"}))) {
        events.push_back(ev);
      }
    }
  }
  addFiltered("endpointslices of LoadBalancer services", "services/endpointslices.json", slices,
              bundle);
  addFiltered("events of LoadBalancer services", "services/events.json", events, bundle);
}

}  // namespace

void collectCluster(k8s::ApiClient& client, const BundleOptions& options, Bundle& bundle) {
  const std::string& mlns = options.metallb_namespace;
  for (const auto& spec : metallbLists(mlns)) {
    auto items = addList(client, spec, bundle);
    if (spec.kind.kind == "BGPPeer") {
      bundle.sensitive.insert(bundle.sensitive.end(), items.begin(), items.end());
    }
  }
  addList(client, {{r::kNodes, "v1", "Node"}, "", "cluster/nodes.json"}, bundle);
  collectServices(client, bundle);
  addList(client, {{r::kEvents, "v1", "Event"}, mlns, "events/" + mlns + ".json"}, bundle);
  auto frr = addList(client,
                     {{r::kFrrConfigurations, "frrk8s.metallb.io/v1beta1", "FRRConfiguration"},
                      "",
                      "frrk8s/frrconfigurations.json"},
                     bundle);
  bundle.sensitive.insert(bundle.sensitive.end(), frr.begin(), frr.end());
  for (const auto& ns : std::set<std::string>{mlns, options.frrk8s_namespace}) {
    auto secrets =
        addList(client, {{r::kSecrets, "v1", "Secret"}, ns, "secrets/" + ns + ".json"}, bundle);
    bundle.sensitive.insert(bundle.sensitive.end(), secrets.begin(), secrets.end());
  }
  auto pods = addList(client, {{r::kPods, "v1", "Pod"}, mlns, "pods/" + mlns + ".json"}, bundle);
  bundle.sensitive.insert(bundle.sensitive.end(), pods.begin(), pods.end());
  collectMetrics(client, pods, options, bundle);
}

}  // namespace ingot::cli
