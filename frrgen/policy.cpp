// SPDX-License-Identifier: Apache-2.0
#include "frrgen/policy.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_set>

#include "frrgen/convert.h"

namespace ingot::frrgen {

namespace {

// AttributeList is one local-pref or community list before numbering.
struct AttributeList {
  net::Family family;
  SetKind kind;
  std::string value;
  std::vector<std::string> prefixes;
};

std::string famText(net::Family f) {
  return f == net::Family::V4 ? "ip" : "ipv6";
}

std::string attributeListName(const std::string& id, const AttributeList& a) {
  switch (a.kind) {
    case SetKind::LocalPreference:
      return id + "-" + a.value + "-" + famText(a.family) + "-localpref-prefixes";
    case SetKind::LargeCommunity:
      return id + "-large:" + a.value + "-" + famText(a.family) + "-community-prefixes";
    case SetKind::Bandwidth:
      return id + "-" + a.value + "-" + famText(a.family) + "-bandwidth-prefixes";
    case SetKind::Community:
    case SetKind::None:
      break;
  }
  return id + "-" + a.value + "-" + famText(a.family) + "-community-prefixes";
}

// attributeLists groups a family's advertised prefixes by local pref and community.
void attributeLists(const OutgoingList& out,
                    net::Family family,
                    const std::string& id,
                    std::map<std::string, AttributeList>& lists) {
  auto add = [&](SetKind kind, const std::string& value, const std::string& prefix) {
    AttributeList a{family, kind, value, {}};
    auto [it, inserted] = lists.emplace(attributeListName(id, a), std::move(a));
    it->second.prefixes.push_back(prefix);
  };
  for (const auto& o : out) {
    if (o.local_pref != 0) add(SetKind::LocalPreference, std::to_string(o.local_pref), o.prefix);
    for (const auto& c : o.communities) add(SetKind::Community, c, o.prefix);
    for (const auto& c : o.large_communities) add(SetKind::LargeCommunity, c, o.prefix);
    if (o.bandwidth != 0) add(SetKind::Bandwidth, std::to_string(o.bandwidth), o.prefix);
  }
}

}  // namespace

std::string frrCommunityText(const std::string& value) {
  // FRR's community_str(): the well-known communities of RFC 1997, RFC 8326, RFC 7999, RFC 3765
  // and draft-ietf-idr-long-lived-gr, checked against FRR 8.4's `show running-config`.
  static const std::map<std::string, std::string, std::less<>> kNames = {
      {"0:0", "internet"},
      {"65535:0", "graceful-shutdown"},
      {"65535:1", "accept-own"},
      {"65535:2", "route-filter-translated-v4"},
      {"65535:3", "route-filter-v4"},
      {"65535:4", "route-filter-translated-v6"},
      {"65535:5", "route-filter-v6"},
      {"65535:6", "llgr-stale"},
      {"65535:7", "no-llgr"},
      {"65535:8", "accept-own-nexthop"},
      {"65535:666", "blackhole"},
      {"65535:65281", "no-export"},
      {"65535:65282", "no-advertise"},
      {"65535:65283", "local-AS"},
      {"65535:65284", "no-peer"},
  };
  const auto it = kNames.find(value);
  return it == kNames.end() ? value : it->second;
}

namespace {

// permitList numbers exact-match permits by hash; an empty list gets "deny any".
Result<PrefixList> permitList(net::Family family,
                              std::string name,
                              const std::vector<std::string>& prefixes) {
  PrefixList list{family, std::move(name), {}};
  if (prefixes.empty()) {
    list.entries.push_back({kDenyAnySeq, Action::Deny, "", std::nullopt, std::nullopt});
    return list;
  }
  auto seqs = assignSeqs(prefixes, kPrefixSeqMax);
  if (!seqs) return seqs.error();
  for (size_t i = 0; i < prefixes.size(); ++i) {
    list.entries.push_back({(*seqs)[i], Action::Permit, prefixes[i], std::nullopt, std::nullopt});
  }
  std::sort(list.entries.begin(), list.entries.end(),
            [](const auto& a, const auto& b) { return a.seq < b.seq; });
  return list;
}

std::string selectorKey(const IncomingFilter& f) {
  std::string key = f.prefix;
  if (f.ge) key += " ge " + std::to_string(*f.ge);
  if (f.le) key += " le " + std::to_string(*f.le);
  return key;
}

// inboundList is "<id>-inpl-<family>": permit any (receive all), the selectors, or deny any.
Result<PrefixList> inboundList(const Neighbor& n, net::Family family) {
  PrefixList list{family, n.id() + "-inpl-" + neighborFamilyName(n.family), {}};
  const auto& filters = family == net::Family::V4 ? n.incoming_v4 : n.incoming_v6;
  if (n.receive_all || filters.empty()) {
    const Action a = n.receive_all ? Action::Permit : Action::Deny;
    list.entries.push_back({kDenyAnySeq, a, "", std::nullopt, std::nullopt});
    return list;
  }
  std::vector<std::string> keys;
  keys.reserve(filters.size());
  for (const auto& f : filters) keys.push_back(selectorKey(f));
  auto seqs = assignSeqs(keys, kPrefixSeqMax);
  if (!seqs) return seqs.error();
  for (size_t i = 0; i < filters.size(); ++i) {
    list.entries.push_back(
        {(*seqs)[i], Action::Permit, filters[i].prefix, filters[i].ge, filters[i].le});
  }
  std::sort(list.entries.begin(), list.entries.end(),
            [](const auto& a, const auto& b) { return a.seq < b.seq; });
  return list;
}

// counted returns n sequence numbers first, first + 1, … (frr-k8s' counter).
Result<std::vector<uint32_t>> counted(size_t n, uint32_t first) {
  std::vector<uint32_t> out(n);
  std::iota(out.begin(), out.end(), first);
  return out;
}

// frrk8sAttributeCount is the number of local-pref and community lists frr-k8s writes for n.
size_t frrk8sAttributeCount(const Neighbor& n, const std::string& id) {
  std::map<std::string, AttributeList> lists;
  attributeLists(n.outgoing_v4, net::Family::V4, id, lists);
  attributeLists(n.outgoing_v6, net::Family::V6, id, lists);
  return static_cast<size_t>(std::count_if(lists.begin(), lists.end(), [](const auto& l) {
    return l.second.kind != SetKind::Bandwidth;
  }));
}

std::vector<std::string> prefixesOf(const OutgoingList& out) {
  std::vector<std::string> v;
  v.reserve(out.size());
  for (const auto& o : out) v.push_back(o.prefix);
  return v;
}

// attributeEntries adds the attribute lists and their `on-match next` route-map entries.
Result<void> attributeEntries(const Neighbor& n, Numbering numbering, NeighborPolicy& p) {
  std::map<std::string, AttributeList> lists;  // by name: frr-k8s' order
  attributeLists(n.outgoing_v4, net::Family::V4, p.id, lists);
  attributeLists(n.outgoing_v6, net::Family::V6, p.id, lists);
  std::vector<std::string> names;
  names.reserve(lists.size());
  for (const auto& [name, a] : lists) names.push_back(name);
  auto seqs = numbering == Numbering::FrrK8s ? counted(names.size(), 1)
                                             : assignSeqs(names, kSetEntrySeqMax);
  if (!seqs) {
    return invalidArgument("neighbor " + p.id +
                           ": too many local-pref/community lists: " + seqs.error().message);
  }
  size_t i = 0;
  for (auto& [name, a] : lists) {
    auto list = permitList(a.family, name, a.prefixes);
    if (!list) return list.error();
    p.prefix_lists.push_back(std::move(*list));
    p.out.entries.push_back({(*seqs)[i++], Action::Permit, a.family, name, a.kind, a.value, true});
  }
  return {};
}

// inboundEntries adds the inbound lists and the two entries of "<id>-in", numbered from first.
Result<void> inboundEntries(const Neighbor& n, uint32_t first, NeighborPolicy& p) {
  for (auto family : {net::Family::V4, net::Family::V6}) {
    auto list = inboundList(n, family);
    if (!list) return list.error();
    const uint32_t seq = family == net::Family::V4 ? first : first + 1;
    p.in.entries.push_back({seq, Action::Permit, family, list->name, SetKind::None, "", false});
    p.prefix_lists.push_back(std::move(*list));
  }
  return {};
}

}  // namespace

uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

Result<std::vector<uint32_t>> assignSeqs(const std::vector<std::string>& keys, uint32_t max) {
  if (keys.size() > max) {
    return invalidArgument(std::to_string(keys.size()) + " entries do not fit " +
                           std::to_string(max) + " sequence numbers");
  }
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&keys](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> out(keys.size());
  std::unordered_set<uint32_t> used;
  used.reserve(keys.size() * 2);
  for (size_t i : order) {
    auto seq = static_cast<uint32_t>(fnv1a64(keys[i]) % max) + 1;
    while (!used.insert(seq).second) {
      seq = seq % max + 1;
    }
    out[i] = seq;
  }
  return out;
}

AllowedSeqs frrk8sAllowedSeqs(const Neighbor& n) {
  const auto k = static_cast<uint32_t>(frrk8sAttributeCount(n, n.id()));
  return {k + 1, k + 2};
}

Result<NeighborPolicy> planNeighbor(const Neighbor& n, Numbering numbering) {
  NeighborPolicy p;
  p.id = n.id();
  p.out.name = p.id + "-out";
  p.in.name = p.id + "-in";
  if (auto r = attributeEntries(n, numbering, p); !r) return r.error();
  // frr-k8s' counter runs on after the attribute entries: allowed ip, allowed ipv6, inbound.
  const auto attributes = static_cast<uint32_t>(p.out.entries.size());
  const bool frrk8s = numbering == Numbering::FrrK8s;
  const uint32_t allowed_v4 = frrk8s ? attributes + 1 : kAllowedV4Seq;
  const uint32_t allowed_v6 = frrk8s ? attributes + 2 : kAllowedV6Seq;
  const std::string allowed4 = p.id + "-allowed-ipv4";
  const std::string allowed6 = p.id + "-allowed-ipv6";
  for (auto [family, name, out] : {std::tuple{net::Family::V4, allowed4, &n.outgoing_v4},
                                   std::tuple{net::Family::V6, allowed6, &n.outgoing_v6}}) {
    auto list = permitList(family, name, prefixesOf(*out));
    if (!list) return list.error();
    p.prefix_lists.push_back(std::move(*list));
  }
  p.out.entries.push_back(
      {allowed_v4, Action::Permit, net::Family::V4, allowed4, SetKind::None, "", false});
  p.out.entries.push_back(
      {allowed_v6, Action::Permit, net::Family::V6, allowed6, SetKind::None, "", false});
  std::sort(p.out.entries.begin(), p.out.entries.end(),
            [](const auto& a, const auto& b) { return a.seq < b.seq; });
  if (auto r = inboundEntries(n, frrk8s ? attributes + 3 : kInboundV4Seq, p); !r) {
    return r.error();
  }
  return p;
}

Result<NeighborPolicy> planInbound(const Neighbor& n) {
  NeighborPolicy p;
  p.id = n.id();
  p.in.name = p.id + "-in";
  if (auto r = inboundEntries(n, kInboundV4Seq, p); !r) return r.error();
  return p;
}

Result<std::vector<NeighborPolicy>> planPolicy(const Model& model, Numbering numbering) {
  std::vector<NeighborPolicy> out;
  for (const auto& r : model.routers) {
    for (const auto& n : r.neighbors) {
      auto p = planNeighbor(n, numbering);
      if (!p) return p.error();
      out.push_back(std::move(*p));
    }
  }
  return out;
}

}  // namespace ingot::frrgen
