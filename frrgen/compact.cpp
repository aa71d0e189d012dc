// SPDX-License-Identifier: Apache-2.0
// compact(): Model → CompactModel. Rendering is in compact_render.cpp.
#include "frrgen/compact.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace ingot::frrgen {

namespace {

/// kMaxTag is the largest route tag FRR accepts (`set tag (1-4294967295)`).
constexpr uint32_t kMaxTag = 4294967295u;

// numbers splits "A:B[:C]" into its values; a part that does not parse counts as 0 (the model
// holds validated values).
std::vector<uint64_t> numbers(std::string_view text) {
  std::vector<uint64_t> out;
  while (true) {
    const size_t colon = text.find(':');
    const std::string_view part = text.substr(0, colon);
    uint64_t v = 0;
    std::from_chars(part.data(), part.data() + part.size(), v);
    out.push_back(v);
    if (colon == std::string_view::npos) {
      break;
    }
    text.remove_prefix(colon + 1);
  }
  return out;
}

void sortNumerically(std::vector<std::string>& values) {
  std::stable_sort(values.begin(), values.end(), [](const std::string& a, const std::string& b) {
    return numbers(a) < numbers(b);
  });
}

Attributes attributesOf(const OutgoingPrefix& o) {
  Attributes a{o.local_pref, o.communities, o.large_communities, o.bandwidth};
  sortNumerically(a.communities);
  sortNumerically(a.large_communities);
  return a;
}

std::string attributeKey(const Attributes& a) {
  std::string key = std::to_string(a.local_pref) + "/";
  for (const auto& c : a.communities) {
    key += c + ",";
  }
  key += "/";
  for (const auto& c : a.large_communities) {
    key += c + ",";
  }
  if (a.bandwidth != 0) {
    key += "/bw" + std::to_string(a.bandwidth);
  }
  return key;
}

// Member is (neighbor index in its router, attribute id); a Signature lists a prefix's members
// in neighbor order.
using Member = std::pair<uint32_t, uint32_t>;
using Signature = std::vector<Member>;

// Interner numbers distinct attribute sets; consecutive prefixes usually share one, so the last
// lookup is cached.
class Interner {
 public:
  uint32_t intern(const OutgoingPrefix& o) {
    if (last_ != nullptr && last_->local_pref == o.local_pref &&
        last_->communities == o.communities && last_->large_communities == o.large_communities &&
        last_->bandwidth == o.bandwidth) {
      return last_id_;
    }
    Attributes a = attributesOf(o);
    auto [it, inserted] = ids_.emplace(std::move(a), static_cast<uint32_t>(all_.size()));
    if (inserted) {
      all_.push_back(it->first);
    }
    last_ = &o;
    last_id_ = it->second;
    return last_id_;
  }
  const Attributes& at(uint32_t id) const { return all_[id]; }

 private:
  std::map<Attributes, uint32_t> ids_;
  std::vector<Attributes> all_;
  const OutgoingPrefix* last_ = nullptr;
  uint32_t last_id_ = 0;
};

// RouterClasses is one router's distinct signatures and, per network, the signature's index.
struct RouterClasses {
  std::vector<Signature> signatures;
  std::vector<std::pair<const std::string*, uint32_t>> networks_v4;
  std::vector<std::pair<const std::string*, uint32_t>> networks_v6;
};

/// SignatureTrie numbers signatures as they grow one member at a time: node 0 is the empty
/// signature and child(n, m) is n's signature followed by m. Equal signatures built in the same
/// order reach the same node, so a prefix's class is one integer however many neighbors get it.
class SignatureTrie {
 public:
  uint32_t child(uint32_t parent, Member m) {
    if (parent == last_parent_ && m == last_member_ && last_child_ != 0) {
      return last_child_;
    }
    const Key key{parent, m.first, m.second};
    auto [it, inserted] = children_.emplace(key, static_cast<uint32_t>(nodes_.size()));
    if (inserted) {
      nodes_.push_back({parent, m});
    }
    last_parent_ = parent;
    last_member_ = m;
    last_child_ = it->second;
    return it->second;
  }
  Signature signature(uint32_t node) const {
    Signature sig;
    for (; node != 0; node = nodes_[node].parent) {
      sig.push_back(nodes_[node].member);
    }
    std::reverse(sig.begin(), sig.end());
    return sig;
  }

 private:
  struct Node {
    uint32_t parent = 0;
    Member member;
  };
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  struct KeyHash {
    size_t operator()(const Key& k) const {
      const uint64_t a = (uint64_t{std::get<0>(k)} << 32) | std::get<1>(k);
      return std::hash<uint64_t>{}(a * 0x9E3779B97F4A7C15ull ^ std::get<2>(k));
    }
  };
  std::vector<Node> nodes_{Node{}};
  std::unordered_map<Key, uint32_t, KeyHash> children_;
  uint32_t last_parent_ = 0;
  Member last_member_;
  uint32_t last_child_ = 0;
};

/// NetworkIndex finds a prefix among a router's networks of one family. Outgoing lists are in
/// the networks' order, so the entry after the last one found is tried before the hash.
class NetworkIndex {
 public:
  explicit NetworkIndex(const std::vector<std::string>& networks) : networks_(networks) {
    by_text_.reserve(networks.size());
    for (uint32_t i = 0; i < networks.size(); ++i) {
      by_text_.emplace(networks[i], i);
    }
  }
  /// find returns the network's index, or npos.
  size_t find(const std::string& prefix) {
    if (next_ < networks_.size() && networks_[next_] == prefix) {
      return next_++;
    }
    auto it = by_text_.find(prefix);
    if (it == by_text_.end()) {
      return std::string::npos;
    }
    next_ = it->second + 1;
    return it->second;
  }
  void rewind() { next_ = 0; }

 private:
  const std::vector<std::string>& networks_;
  std::unordered_map<std::string_view, uint32_t> by_text_;
  size_t next_ = 0;
};

// classify gives every network of r its signature: the neighbors that list it, in neighbor
// order, with the attributes each sends it with. Signatures are numbered in order of first
// appearance over the v4 networks, then the v6 ones.
RouterClasses classify(const Router& r, Interner& attrs) {
  RouterClasses out;
  SignatureTrie trie;
  std::unordered_map<uint32_t, uint32_t> index;  // trie node → signature index
  for (const bool v4 : {true, false}) {
    const auto& networks = v4 ? r.prefixes_v4 : r.prefixes_v6;
    NetworkIndex where(networks);
    std::vector<uint32_t> node(networks.size(), 0);
    for (uint32_t j = 0; j < r.neighbors.size(); ++j) {
      where.rewind();
      for (const auto& o : v4 ? r.neighbors[j].outgoing_v4 : r.neighbors[j].outgoing_v6) {
        const size_t i = where.find(o.prefix);
        if (i != std::string::npos) {
          node[i] = trie.child(node[i], {j, attrs.intern(o)});
        }
      }
    }
    auto& target = v4 ? out.networks_v4 : out.networks_v6;
    target.reserve(networks.size());
    for (size_t i = 0; i < networks.size(); ++i) {
      auto [pos, inserted] = index.emplace(node[i], static_cast<uint32_t>(index.size()));
      if (inserted) {
        out.signatures.push_back(trie.signature(node[i]));
      }
      target.emplace_back(&networks[i], pos->second);
    }
  }
  return out;
}

std::string classKey(const Router& r, const Signature& sig, const Interner& attrs) {
  std::string key;
  for (const auto& [j, a] : sig) {
    key += r.neighbors[j].id() + "=" + attributeKey(attrs.at(a)) + ";";
  }
  return key;
}

// kLocalScopeCommunities change where this router itself sends a route (no-export, no-advertise,
// local-AS, no-peer). bgpd checks them before the outbound route-map, so set at origination they
// would keep the route from the very peers it is meant for; set in the outbound map (as frr-k8s
// does) they travel with the route and act at the next router.
bool originSafe(const Attributes& a) {
  return std::none_of(a.communities.begin(), a.communities.end(), [](const std::string& c) {
    return c == "65535:65281" || c == "65535:65282" || c == "65535:65283" || c == "65535:65284";
  });
}

// setAtOrigin: every member gets the same attributes, and they may be set when originating.
bool setAtOrigin(const Signature& sig, const Interner& attrs) {
  return !sig.empty() && originSafe(attrs.at(sig.front().second)) &&
         std::all_of(sig.begin(), sig.end(),
                     [&sig](const Member& m) { return m.second == sig.front().second; });
}

// Classes holds every class of the model by key, with its tag.
struct Classes {
  std::vector<std::vector<std::string>> keys;  ///< per router, per signature index
  std::map<std::string, uint32_t> tags;        ///< key → tag
};

Result<Classes> assignTags(const Model& model,
                           const std::vector<RouterClasses>& per_router,
                           const Interner& attrs) {
  Classes c;
  for (size_t i = 0; i < model.routers.size(); ++i) {
    auto& keys = c.keys.emplace_back();
    for (const auto& sig : per_router[i].signatures) {
      keys.push_back(classKey(model.routers[i], sig, attrs));
      c.tags.emplace(keys.back(), 0);
    }
  }
  std::vector<std::string> unique;
  for (const auto& [k, t] : c.tags) {
    unique.push_back(k);
  }
  auto tags = assignSeqs(unique, kMaxTag);
  if (!tags) {
    return invalidArgument("compact policy: too many advertisement classes: " +
                           tags.error().message);
  }
  for (size_t i = 0; i < unique.size(); ++i) {
    c.tags[unique[i]] = (*tags)[i];
  }
  return c;
}

// outEntries numbers the classes neighbor j receives by the hash of their keys.
Result<std::vector<OutEntry>> outEntries(uint32_t j,
                                         const RouterClasses& rc,
                                         const std::vector<std::string>& keys,
                                         const Classes& classes,
                                         const Interner& attrs) {
  std::vector<std::string> mine;
  std::vector<OutEntry> out;
  for (size_t s = 0; s < rc.signatures.size(); ++s) {
    const auto& sig = rc.signatures[s];
    auto it = std::find_if(sig.begin(), sig.end(), [j](const Member& m) { return m.first == j; });
    if (it == sig.end()) {
      continue;
    }
    mine.push_back(keys[s]);
    out.push_back({0, classes.tags.at(keys[s]),
                   setAtOrigin(sig, attrs) ? Attributes{} : attrs.at(it->second)});
  }
  auto seqs = assignSeqs(mine, kSetEntrySeqMax);
  if (!seqs) {
    return invalidArgument("too many advertisement classes: " + seqs.error().message);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].seq = (*seqs)[i];
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
  return out;
}

// sessionOf copies a neighbor without its outgoing lists (the compact shape does not keep them;
// the copy shares their storage until they are cleared, so no prefix is copied).
Neighbor sessionOf(const Neighbor& n) {
  Neighbor s = n;
  s.outgoing_v4.clear();
  s.outgoing_v6.clear();
  return s;
}

Result<CompactRouter> compactRouter(const Router& r,
                                    const RouterClasses& rc,
                                    const std::vector<std::string>& keys,
                                    const Classes& classes,
                                    const Interner& attrs) {
  CompactRouter out{r.asn, r.router_id, r.vrf, r.import_vrfs, {}, {}, {}};
  for (uint32_t j = 0; j < r.neighbors.size(); ++j) {
    CompactNeighbor n;
    n.session = sessionOf(r.neighbors[j]);
    auto entries = outEntries(j, rc, keys, classes, attrs);
    if (!entries) {
      return invalidArgument("neighbor " + n.session.id() + ": " + entries.error().message);
    }
    n.out = std::move(*entries);
    auto inbound = planInbound(n.session);
    if (!inbound) {
      return inbound.error();
    }
    n.inbound = std::move(*inbound);
    out.neighbors.push_back(std::move(n));
  }
  for (const auto& [p, s] : rc.networks_v4) {
    out.networks_v4.emplace_hint(out.networks_v4.end(), *p, classes.tags.at(keys[s]));
  }
  for (const auto& [p, s] : rc.networks_v6) {
    out.networks_v6.emplace_hint(out.networks_v6.end(), *p, classes.tags.at(keys[s]));
  }
  return out;
}

std::vector<AdvertClass> advertClasses(const std::vector<RouterClasses>& per_router,
                                       const Classes& classes,
                                       const Interner& attrs) {
  std::map<uint32_t, AdvertClass> by_tag;
  for (size_t i = 0; i < per_router.size(); ++i) {
    const auto& sigs = per_router[i].signatures;
    for (size_t s = 0; s < sigs.size(); ++s) {
      const uint32_t tag = classes.tags.at(classes.keys[i][s]);
      const bool set_here = setAtOrigin(sigs[s], attrs);
      by_tag.emplace(tag,
                     AdvertClass{tag, set_here ? attrs.at(sigs[s].front().second) : Attributes{}});
    }
  }
  std::vector<AdvertClass> out;
  out.reserve(by_tag.size());
  for (auto& [tag, c] : by_tag) {
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<CompactModel> compact(const Model& model) {
  Interner attrs;
  std::vector<RouterClasses> per_router;
  per_router.reserve(model.routers.size());
  for (const auto& r : model.routers) {
    per_router.push_back(classify(r, attrs));
  }
  auto classes = assignTags(model, per_router, attrs);
  if (!classes) {
    return classes.error();
  }
  CompactModel out;
  out.classes = advertClasses(per_router, *classes, attrs);
  for (size_t i = 0; i < model.routers.size(); ++i) {
    auto r = compactRouter(model.routers[i], per_router[i], classes->keys[i], *classes, attrs);
    if (!r) {
      return r.error();
    }
    out.routers.push_back(std::move(*r));
  }
  out.bfd_profiles = model.bfd_profiles;
  out.raw_config = model.raw_config;
  return out;
}

}  // namespace ingot::frrgen
