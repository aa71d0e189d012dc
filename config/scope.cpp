// SPDX-License-Identifier: Apache-2.0
#include "config/scope.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/selector.h"

namespace ingot::config {
namespace {

/// selectedBy returns, for each item, whether it selects a node with labels.
template <typename T>
std::vector<bool> selectedBy(const std::vector<T>& items, const api::StringMap& labels) {
  std::vector<bool> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    out.push_back(selectsNode(item.spec.node_selectors, labels));
  }
  return out;
}

/// kept returns the items whose flag is set.
template <typename T>
std::vector<T> kept(const std::vector<T>& items, const std::vector<bool>& flags) {
  std::vector<T> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (flags[i]) {
      out.push_back(items[i]);
    }
  }
  return out;
}

template <typename T>
std::vector<std::string> namesOf(const std::vector<T>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    out.push_back(item.metadata.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Selection is which peers and advertisements (by input index) a node selects: the key nodes
/// are grouped by.
using Selection = std::pair<std::vector<bool>, std::vector<bool>>;

/// Accepted collects, per object name, the nodes whose parse accepted it.
using Accepted = std::map<std::string, std::set<std::string>>;

void cutNodes(std::set<std::string>& nodes, const std::set<std::string>& accepted) {
  std::erase_if(nodes, [&](const std::string& n) { return !accepted.contains(n); });
}

}  // namespace

bool selectsNode(const std::vector<api::LabelSelector>& selectors, const api::StringMap& labels) {
  if (selectors.empty()) {
    return true;
  }
  const bool invalid =
      std::any_of(selectors.begin(), selectors.end(),
                  [](const api::LabelSelector& s) { return !api::checkSelector(s); });
  return invalid || api::matchesAny(selectors, labels);
}

Inputs forNode(Inputs inputs, const api::Node& node) {
  const auto& labels = node.metadata.labels;
  inputs.peers = kept(inputs.peers, selectedBy(inputs.peers, labels));
  inputs.bgp_advertisements =
      kept(inputs.bgp_advertisements, selectedBy(inputs.bgp_advertisements, labels));
  return inputs;
}

Inputs allocationInputs(const Inputs& inputs) {
  Inputs out;
  out.pools = inputs.pools;
  out.communities = inputs.communities;
  out.namespaces = inputs.namespaces;
  return out;
}

std::vector<NodeGroup> parsePerNode(const Inputs& inputs, const ParseOptions& options) {
  std::vector<const api::Node*> nodes;
  for (const auto& n : inputs.nodes) {
    nodes.push_back(&n);
  }
  std::sort(nodes.begin(), nodes.end(), [](const api::Node* a, const api::Node* b) {
    return a->metadata.name < b->metadata.name;
  });
  std::map<Selection, size_t> index;
  std::vector<NodeGroup> groups;
  for (const api::Node* node : nodes) {
    const auto& labels = node->metadata.labels;
    Selection key{selectedBy(inputs.peers, labels), selectedBy(inputs.bgp_advertisements, labels)};
    const auto [it, added] = index.emplace(key, groups.size());
    if (added) {
      Inputs scoped = inputs;
      scoped.peers = kept(inputs.peers, key.first);
      scoped.bgp_advertisements = kept(inputs.bgp_advertisements, key.second);
      NodeGroup g;
      g.peers = namesOf(scoped.peers);
      g.bgp_advertisements = namesOf(scoped.bgp_advertisements);
      g.outcome = parse(scoped, options);
      groups.push_back(std::move(g));
    }
    groups[it->second].nodes.push_back(node->metadata.name);
  }
  return groups;
}

ConfigSharedPtr combine(const std::vector<NodeGroup>& groups) {
  const Config* base = nullptr;
  Accepted peers_on;
  Accepted ads_on;
  std::map<std::string, Peer> peers;
  std::map<std::string, BgpAdvertisement> ads;
  for (const auto& g : groups) {
    if (!g.outcome.config) {
      continue;
    }
    base = base != nullptr ? base : g.outcome.config.get();
    for (const auto& [name, peer] : g.outcome.config->peers) {
      peers.emplace(name, peer);
      peers_on[name].insert(g.nodes.begin(), g.nodes.end());
    }
    for (const auto& ad : g.outcome.config->bgp_advertisements) {
      ads.emplace(ad.name, ad);
      ads_on[ad.name].insert(g.nodes.begin(), g.nodes.end());
    }
  }
  if (base == nullptr) {
    return nullptr;
  }
  Config out = *base;
  out.peers.clear();
  out.bgp_advertisements.clear();
  for (auto& [name, peer] : peers) {
    cutNodes(peer.nodes, peers_on[name]);
    out.peers.emplace(name, std::move(peer));
  }
  for (auto& [name, ad] : ads) {  // name order, as the parser keeps them
    cutNodes(ad.nodes, ads_on[name]);
    out.bgp_advertisements.push_back(std::move(ad));
  }
  return std::make_shared<const Config>(std::move(out));
}

}  // namespace ingot::config
