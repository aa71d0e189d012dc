// SPDX-License-Identifier: Apache-2.0
// convert, second half: a neighbor's toAdvertise and toReceive.
#include <algorithm>
#include <map>
#include <set>

#include "frrgen/convert.h"
#include "frrgen/convert_internal.h"

namespace ingot::frrgen::convert_detail {

namespace {

// parseCommunity accepts "A:B" (16-bit each) and "large:A:B:C" (32-bit each).
bool parseCommunity(const std::string& text, bool& large, std::string& canonical) {
  large = text.rfind("large:", 0) == 0;
  std::string rest = large ? text.substr(6) : text;
  std::vector<uint64_t> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = rest.find(':', start);
    const std::string part = rest.substr(start, colon == std::string::npos ? colon : colon - start);
    if (part.empty() || part.size() > 10 || !std::all_of(part.begin(), part.end(), ::isdigit)) {
      return false;
    }
    parts.push_back(std::stoull(part));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  const uint64_t max = large ? UINT32_MAX : UINT16_MAX;
  if (parts.size() != (large ? 3u : 2u) ||
      std::any_of(parts.begin(), parts.end(), [max](uint64_t v) { return v > max; })) {
    return false;
  }
  canonical.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    canonical += (i ? ":" : "") + std::to_string(parts[i]);
  }
  return true;
}

/// OutMap is a neighbor's advertised prefixes of one family, sorted by prefix text and unique
/// once finish() ran (a sorted vector: a node has one entry per prefix and neighbor, and build
/// lists them in text order already, so this costs no tree nodes and no re-sorting).
class OutMap {
 public:
  void add(const std::string& prefix) {
    if (!v_.empty() && !(v_.back().prefix < prefix)) {
      sorted_ = false;
    }
    v_.emplace_back().prefix = prefix;
  }
  void reserve(size_t n) { v_.reserve(n); }
  void finish() {
    const auto less = [](const OutgoingPrefix& a, const OutgoingPrefix& b) {
      return a.prefix < b.prefix;
    };
    if (!sorted_) {
      std::stable_sort(v_.begin(), v_.end(), less);
      const auto same = [](const OutgoingPrefix& a, const OutgoingPrefix& b) {
        return a.prefix == b.prefix;
      };
      v_.erase(std::unique(v_.begin(), v_.end(), same), v_.end());
      sorted_ = true;
    }
  }
  /// find returns the entry of prefix, or null (after finish()). Lists usually name prefixes in
  /// order, so the search gallops forward from the last entry found.
  OutgoingPrefix* find(const std::string& prefix) {
    size_t lo = 0;  // every entry before lo sorts before prefix
    if (next_ > 0 && next_ <= v_.size() && v_[next_ - 1].prefix < prefix) {
      lo = next_;
    }
    size_t hi = lo;  // v_[hi] does not sort before prefix, or hi is past the end
    for (size_t step = 1; hi < v_.size() && v_[hi].prefix < prefix; step *= 2) {
      lo = hi + 1;
      hi = lo + step;
    }
    hi = std::min(hi, v_.size());
    const auto it = std::lower_bound(
        v_.begin() + static_cast<std::ptrdiff_t>(lo), v_.begin() + static_cast<std::ptrdiff_t>(hi),
        prefix, [](const OutgoingPrefix& o, const std::string& p) { return o.prefix < p; });
    if (it == v_.end() || it->prefix != prefix) {
      return nullptr;
    }
    next_ = static_cast<size_t>(it - v_.begin()) + 1;
    return &*it;
  }
  std::vector<OutgoingPrefix>& items() { return v_; }

 private:
  std::vector<OutgoingPrefix> v_;
  bool sorted_ = true;
  size_t next_ = 0;  // where find() looks first
};

/// Available looks prefixes up among a router's available ones. build lists a neighbor's
/// prefixes in the same text order as the set, so the entry after the last one found is tried
/// before a tree lookup.
class Available {
 public:
  explicit Available(const Prefixes& p) : p_(p), next_v4_(p.v4.begin()), next_v6_(p.v6.begin()) {}
  /// known reports whether text is an available prefix in canonical form, setting its family.
  bool known(const std::string& text, net::Family& family) {
    for (auto f : {net::Family::V4, net::Family::V6}) {
      if (take(p_.of(f), f == net::Family::V4 ? next_v4_ : next_v6_, text)) {
        family = f;
        return true;
      }
    }
    return false;
  }

 private:
  using Iter = std::set<std::string>::const_iterator;
  static bool take(const std::set<std::string>& set, Iter& next, const std::string& text) {
    if (next != set.end() && *next == text) {
      ++next;
      return true;
    }
    auto it = set.find(text);
    if (it == set.end()) {
      return false;
    }
    next = std::next(it);
    return true;
  }
  const Prefixes& p_;
  Iter next_v4_;
  Iter next_v6_;
};

struct Outgoing {
  OutMap v4;
  OutMap v6;
  OutMap& of(net::Family f) { return f == net::Family::V4 ? v4 : v6; }
};

// allowedOut builds the advertised set (mode all: every available prefix of the neighbor's
// families; filtered: the listed ones, each available and of a carried family).
Result<Outgoing> allowedOut(const std::string& where,
                            const api::FrrAdvertise& adv,
                            NeighborFamily family,
                            const Prefixes& available) {
  Outgoing out;
  if (adv.allowed_mode == "all") {
    for (auto f : {net::Family::V4, net::Family::V6}) {
      if (hasFamily(family, f)) {
        for (const auto& p : available.of(f)) out.of(f).add(p);
      }
    }
    return out;
  }
  if (!adv.allowed_mode.empty() && adv.allowed_mode != "filtered") {
    return fail(where, "toAdvertise.allowed.mode must be filtered or all, got \"" +
                           adv.allowed_mode + "\"");
  }
  out.of(hasFamily(family, net::Family::V4) ? net::Family::V4 : net::Family::V6)
      .reserve(adv.allowed_prefixes.size());
  Available lookup(available);
  for (const auto& text : adv.allowed_prefixes) {
    net::Family f = net::Family::V4;
    std::string p = text;
    if (!lookup.known(text, f)) {
      auto c = parsePrefix(where, text);
      if (!c) return c.error();
      p = c->toString();
      f = c->family();
      if (!available.of(f).contains(p)) {
        return fail(where, "prefix " + text + " is not an allowed prefix");
      }
    }
    if (!hasFamily(family, f)) {
      return fail(where, "prefix " + text + " does not match the neighbor family " +
                             neighborFamilyName(family));
    }
    out.of(f).add(p);
  }
  out.v4.finish();
  out.v6.finish();
  return out;
}

// advertised finds a prefix of the neighbor's advertised set (canonical text first, then the
// parsed form); null when it is not advertised.
Result<OutgoingPrefix*> advertised(const std::string& where,
                                   const std::string& text,
                                   Outgoing& out,
                                   net::Family& family) {
  for (auto f : {net::Family::V4, net::Family::V6}) {
    if (auto* o = out.of(f).find(text); o != nullptr) {
      family = f;
      return o;
    }
  }
  auto c = parsePrefix(where, text);
  if (!c) return c.error();
  family = c->family();
  return out.of(family).find(c->toString());
}

Result<void> communities(const std::string& where, const api::FrrAdvertise& adv, Outgoing& out) {
  std::set<std::pair<std::string, net::Family>> seen;
  for (const auto& entry : adv.with_community) {
    bool large = false;
    std::string value;
    if (!parseCommunity(entry.community, large, value)) {
      return fail(where, "invalid community " + entry.community +
                             ": want A:B (16-bit numbers) or large:A:B:C (32-bit numbers)");
    }
    std::set<net::Family> families;
    for (const auto& text : entry.prefixes) {
      net::Family f = net::Family::V4;
      auto o = advertised(where, text, out, f);
      if (!o) return o.error();
      if (*o == nullptr) {
        return fail(where,
                    "community " + entry.community + " associated to non existing prefix " + text);
      }
      auto& list = large ? (*o)->large_communities : (*o)->communities;
      if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
      families.insert(f);
    }
    for (auto f : families) {
      if (!seen.insert({(large ? "large:" : "") + value, f}).second) {
        return fail(where, "community " + entry.community + " is listed more than once");
      }
    }
  }
  return {};
}

Result<void> localPrefs(const std::string& where, const api::FrrAdvertise& adv, Outgoing& out) {
  std::set<std::pair<uint32_t, net::Family>> seen;
  for (const auto& entry : adv.with_local_pref) {
    std::set<net::Family> families;
    for (const auto& text : entry.prefixes) {
      net::Family f = net::Family::V4;
      auto o = advertised(where, text, out, f);
      if (!o) return o.error();
      if (*o == nullptr) {
        return fail(where, "localPref associated to non existing prefix " + text);
      }
      if ((*o)->local_pref != 0 && (*o)->local_pref != entry.local_pref) {
        return fail(where, "multiple local prefs specified for prefix " + text);
      }
      (*o)->local_pref = entry.local_pref;
      families.insert(f);
    }
    for (auto f : families) {
      if (!seen.insert({entry.local_pref, f}).second) {
        return fail(where,
                    "localPref " + std::to_string(entry.local_pref) + " is listed more than once");
      }
    }
  }
  return {};
}

// bandwidths applies Ingot's withBandwidth (docs/weighted-ecmp.md) like withLocalPref: one value
// per prefix.
Result<void> bandwidths(const std::string& where, const api::FrrAdvertise& adv, Outgoing& out) {
  for (const auto& entry : adv.with_bandwidth) {
    for (const auto& text : entry.prefixes) {
      net::Family f = net::Family::V4;
      auto o = advertised(where, text, out, f);
      if (!o) return o.error();
      if (*o == nullptr) {
        return fail(where, "bandwidth associated to non existing prefix " + text);
      }
      if ((*o)->bandwidth != 0 && (*o)->bandwidth != entry.bandwidth) {
        return fail(where, "multiple bandwidths specified for prefix " + text);
      }
      (*o)->bandwidth = entry.bandwidth;
    }
  }
  return {};
}

std::vector<OutgoingPrefix> sortedOut(OutMap& m) {
  for (auto& o : m.items()) {
    std::sort(o.communities.begin(), o.communities.end());
    std::sort(o.large_communities.begin(), o.large_communities.end());
  }
  return std::move(m.items());
}

Result<void> receive(const std::string& where, const api::FrrReceive& rcv, Neighbor& out) {
  if (rcv.allowed_mode == "all") {
    out.receive_all = true;
    return {};
  }
  if (!rcv.allowed_mode.empty() && rcv.allowed_mode != "filtered") {
    return fail(where,
                "toReceive.allowed.mode must be filtered or all, got \"" + rcv.allowed_mode + "\"");
  }
  for (const auto& s : rcv.allowed_prefixes) {
    auto c = parsePrefix(where, s.prefix);
    if (!c) return c.error();
    const uint32_t mask = static_cast<uint32_t>(c->prefixLength());
    const uint32_t le = s.le.value_or(0);
    const uint32_t ge = s.ge.value_or(0);
    if ((le > 0 && ge > le) || (le > 0 && mask > le) || (ge > 0 && mask > ge)) {
      return fail(where, "invalid toReceive selector " + s.prefix +
                             ": lengths must satisfy mask (" + std::to_string(mask) +
                             ") <= ge <= le");
    }
    auto& list = c->family() == net::Family::V4 ? out.incoming_v4 : out.incoming_v6;
    list.push_back({c->toString(), s.le, s.ge});
  }
  return {};
}

}  // namespace

Result<void> filters(const std::string& where,
                     const api::FrrNeighbor& n,
                     const Prefixes& available,
                     const Neighbor* same_advertising,
                     Neighbor& out) {
  if (same_advertising != nullptr) {
    out.outgoing_v4 = same_advertising->outgoing_v4;
    out.outgoing_v6 = same_advertising->outgoing_v6;
    return receive(where, n.to_receive, out);
  }
  auto adv = allowedOut(where, n.to_advertise, out.family, available);
  if (!adv) return adv.error();
  if (auto r = communities(where, n.to_advertise, *adv); !r) return r.error();
  if (auto r = localPrefs(where, n.to_advertise, *adv); !r) return r.error();
  if (auto r = bandwidths(where, n.to_advertise, *adv); !r) return r.error();
  out.outgoing_v4 = OutgoingList(sortedOut(adv->v4));
  out.outgoing_v6 = OutgoingList(sortedOut(adv->v6));
  return receive(where, n.to_receive, out);
}

}  // namespace ingot::frrgen::convert_detail
