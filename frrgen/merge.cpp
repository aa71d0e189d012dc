// SPDX-License-Identifier: Apache-2.0
#include "frrgen/merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "api/selector.h"
#include "frrgen/convert.h"

namespace ingot::frrgen {

namespace {

constexpr uint32_t kDefaultHold = 180;
constexpr uint32_t kDefaultKeepalive = 60;
constexpr uint32_t kDefaultConnect = 60;

// takeSet makes `into` the set one of two optionals already known to agree.
template <typename T>
void takeSet(std::optional<T>& into, const std::optional<T>& other) {
  if (!into) {
    into = other;
  }
}

Result<void> sessionsAgree(const Neighbor& a, const Neighbor& b) {
  const std::string id = a.id();
  auto conflict = [&id](const std::string& what) {
    return invalidArgument(what + " specified for " + id);
  };
  if (a.remote_as != b.remote_as) return conflict("multiple asns");
  if (a.port.value_or(kBgpDefaultPort) != b.port.value_or(kBgpDefaultPort)) {
    return conflict("multiple ports");
  }
  if (a.source_address != b.source_address) return conflict("multiple source addresses");
  if (a.password != b.password) return conflict("multiple passwords");
  if (!a.bfd_profile.empty() && !b.bfd_profile.empty() && a.bfd_profile != b.bfd_profile) {
    return conflict("multiple bfd profiles");
  }
  if (a.ebgp_multi_hop != b.ebgp_multi_hop) return conflict("conflicting ebgp-multihop");
  if (a.family != b.family) return conflict("conflicting advertiseDualStack");
  if (a.hold_time.value_or(kDefaultHold) != b.hold_time.value_or(kDefaultHold)) {
    return conflict("multiple hold times");
  }
  if (a.keepalive_time.value_or(kDefaultKeepalive) !=
      b.keepalive_time.value_or(kDefaultKeepalive)) {
    return conflict("multiple keepalive times");
  }
  if (a.connect_time.value_or(kDefaultConnect) != b.connect_time.value_or(kDefaultConnect)) {
    return conflict("multiple connect times");
  }
  if (a.local_asn && b.local_asn && *a.local_asn != *b.local_asn) {
    return conflict("multiple localASNs");
  }
  return {};
}

void unionSorted(std::vector<std::string>& into, const std::vector<std::string>& other) {
  std::set<std::string> all(into.begin(), into.end());
  all.insert(other.begin(), other.end());
  into.assign(all.begin(), all.end());
}

Result<void> mergeOutgoing(OutgoingList& into, const OutgoingList& other) {
  if (into.sameStorage(other)) {
    return {};  // one list merged with itself is itself
  }
  std::map<std::string, OutgoingPrefix> by_prefix;
  for (const auto& o : std::as_const(into)) by_prefix.emplace(o.prefix, o);
  for (const auto& o : other) {
    auto [it, inserted] = by_prefix.emplace(o.prefix, o);
    if (inserted) continue;
    OutgoingPrefix& cur = it->second;
    if (cur.local_pref != 0 && o.local_pref != 0 && cur.local_pref != o.local_pref) {
      return invalidArgument("multiple local prefs (" + std::to_string(cur.local_pref) + " != " +
                             std::to_string(o.local_pref) + ") specified for prefix " + o.prefix);
    }
    if (o.local_pref != 0) cur.local_pref = o.local_pref;
    if (cur.bandwidth != 0 && o.bandwidth != 0 && cur.bandwidth != o.bandwidth) {
      return invalidArgument("multiple bandwidths (" + std::to_string(cur.bandwidth) + " != " +
                             std::to_string(o.bandwidth) + ") specified for prefix " + o.prefix);
    }
    if (o.bandwidth != 0) cur.bandwidth = o.bandwidth;
    unionSorted(cur.communities, o.communities);
    unionSorted(cur.large_communities, o.large_communities);
  }
  std::vector<OutgoingPrefix> merged;
  merged.reserve(by_prefix.size());
  for (auto& [p, o] : by_prefix) merged.push_back(std::move(o));
  into = OutgoingList(std::move(merged));
  return {};
}

// incomingKey is frr-k8s' dedup and sort key: prefix, le, ge in decimal (unset = 0).
std::string incomingKey(const IncomingFilter& f) {
  return f.prefix + std::to_string(f.le.value_or(0)) + std::to_string(f.ge.value_or(0));
}

void normaliseIncoming(std::vector<IncomingFilter>& list) {
  std::map<std::string, IncomingFilter> by_key;
  for (auto& f : list) by_key.emplace(incomingKey(f), std::move(f));
  list.clear();
  for (auto& [k, f] : by_key) list.push_back(std::move(f));
}

Result<void> mergeNeighbor(Neighbor& into, const Neighbor& other) {
  if (auto r = sessionsAgree(into, other); !r) return r;
  takeSet(into.port, other.port);
  takeSet(into.hold_time, other.hold_time);
  takeSet(into.keepalive_time, other.keepalive_time);
  takeSet(into.connect_time, other.connect_time);
  takeSet(into.local_asn, other.local_asn);
  if (into.bfd_profile.empty()) into.bfd_profile = other.bfd_profile;
  into.graceful_restart = into.graceful_restart || other.graceful_restart;
  if (auto r = mergeOutgoing(into.outgoing_v4, other.outgoing_v4); !r) return r;
  if (auto r = mergeOutgoing(into.outgoing_v6, other.outgoing_v6); !r) return r;
  into.receive_all = into.receive_all || other.receive_all;
  into.incoming_v4.insert(into.incoming_v4.end(), other.incoming_v4.begin(),
                          other.incoming_v4.end());
  into.incoming_v6.insert(into.incoming_v6.end(), other.incoming_v6.begin(),
                          other.incoming_v6.end());
  return {};
}

// RouterMerge accumulates the routers of one VRF.
struct RouterMerge {
  Router router;
  std::map<std::string, Neighbor> neighbors;  // by id
  bool seen = false;
};

Result<void> mergeRouter(RouterMerge& acc, Router r) {
  if (!acc.seen) {
    acc.seen = true;
    acc.router.asn = r.asn;
    acc.router.vrf = r.vrf;
  }
  if (acc.router.asn != r.asn) {
    return invalidArgument("different asns (" + std::to_string(acc.router.asn) +
                           " != " + std::to_string(r.asn) + ") specified for same vrf: " + r.vrf);
  }
  if (!acc.router.router_id.empty() && !r.router_id.empty() &&
      acc.router.router_id != r.router_id) {
    return invalidArgument("different router ids (" + acc.router.router_id + " != " + r.router_id +
                           ") specified for same vrf: " + r.vrf);
  }
  if (acc.router.router_id.empty()) acc.router.router_id = r.router_id;
  unionSorted(acc.router.prefixes_v4, r.prefixes_v4);
  unionSorted(acc.router.prefixes_v6, r.prefixes_v6);
  unionSorted(acc.router.import_vrfs, r.import_vrfs);
  for (auto& n : r.neighbors) {
    auto it = acc.neighbors.find(n.id());
    if (it == acc.neighbors.end()) {
      acc.neighbors.emplace(n.id(), std::move(n));
    } else {
      if (auto m = mergeNeighbor(it->second, n); !m) return m;
    }
  }
  return {};
}

Router finish(RouterMerge& acc) {
  Router r = std::move(acc.router);
  for (auto& [id, n] : acc.neighbors) {
    if (n.receive_all) {
      n.incoming_v4.clear();
      n.incoming_v6.clear();
    }
    normaliseIncoming(n.incoming_v4);
    normaliseIncoming(n.incoming_v6);
    r.neighbors.push_back(std::move(n));
  }
  return r;
}

Result<void> mergeProfiles(std::map<std::string, BfdProfile>& all,
                           const std::vector<BfdProfile>& profiles,
                           const std::string& config_name) {
  for (const auto& p : profiles) {
    auto [it, inserted] = all.emplace(p.name, p);
    if (!inserted && !(it->second == p)) {
      return invalidArgument("duplicate bfd profile name " + p.name +
                             " with different values for config " + config_name);
    }
  }
  return {};
}

std::string rawConfig(const std::vector<api::FRRConfiguration>& configs) {
  std::vector<std::tuple<int32_t, std::string, std::string>> raws;
  for (const auto& c : configs) {
    if (c.spec.raw && !c.spec.raw->raw_config.empty()) {
      raws.emplace_back(c.spec.raw->priority, c.metadata.name, c.spec.raw->raw_config);
    }
  }
  std::sort(raws.begin(), raws.end());
  std::string out;
  for (const auto& [priority, name, text] : raws) {
    out += text;
    if (text.back() != '\n') out += '\n';
  }
  return out;
}

}  // namespace

Result<std::vector<api::FRRConfiguration>> selectForNode(
    const std::vector<api::FRRConfiguration>& configs,
    const std::string& namespace_,
    const api::StringMap& node_labels) {
  std::vector<api::FRRConfiguration> out;
  for (const auto& c : configs) {
    if (c.metadata.namespace_ != namespace_) continue;
    if (auto ok = api::checkSelector(c.spec.node_selector); !ok) {
      return invalidArgument("FRRConfiguration " + c.metadata.namespace_ + "/" + c.metadata.name +
                             ": spec.nodeSelector: " + ok.error().message);
    }
    if (api::matches(c.spec.node_selector, node_labels)) out.push_back(c);
  }
  return out;
}

void clearFrrK8sDefaults(Model& model) {
  auto clear = [](auto& value, auto def) {
    if (value && *value == def) {
      value.reset();
    }
  };
  for (auto& router : model.routers) {
    for (auto& n : router.neighbors) {
      clear(n.port, kBgpDefaultPort);
      clear(n.hold_time, kDefaultHold);
      clear(n.keepalive_time, kDefaultKeepalive);
      clear(n.connect_time, kDefaultConnect);
    }
  }
}

Result<Model> merge(const std::vector<api::FRRConfiguration>& configs,
                    const std::vector<api::Secret>& secrets) {
  std::map<std::string, RouterMerge> by_vrf;
  std::map<std::string, BfdProfile> profiles;
  for (const auto& c : configs) {
    const std::string object = "FRRConfiguration " + c.metadata.namespace_ + "/" + c.metadata.name;
    auto converted = convert(c, secrets);
    if (!converted) return converted.error();
    if (auto r = mergeProfiles(profiles, converted->bfd_profiles, c.metadata.name); !r) {
      return invalidArgument(object + ": " + r.error().message);
    }
    for (auto& router : converted->routers) {
      const std::string vrf = router.vrf;
      if (auto r = mergeRouter(by_vrf[vrf], std::move(router)); !r) {
        return invalidArgument(object +
                               ": merging into the node's configuration: " + r.error().message);
      }
    }
  }
  Model model;
  for (auto& [vrf, acc] : by_vrf) model.routers.push_back(finish(acc));
  for (auto& [name, p] : profiles) model.bfd_profiles.push_back(std::move(p));
  model.raw_config = rawConfig(configs);
  return model;
}

}  // namespace ingot::frrgen
