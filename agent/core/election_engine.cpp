// SPDX-License-Identifier: Apache-2.0
#include "agent/core/election_engine.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ingot::agent {

namespace {

bool before(const L2Digest& a, uint32_t an, const L2Digest& b, uint32_t bn) {
  const int c = std::memcmp(a.data(), b.data(), a.size());
  return c != 0 ? c < 0 : an < bn;
}

bool testBit(const std::vector<uint64_t>& m, uint32_t bit) {
  const size_t word = bit / 64;
  return word < m.size() && ((m[word] >> (bit % 64)) & 1U) != 0;
}

void setBit(std::vector<uint64_t>& m, uint32_t bit) {
  const size_t word = bit / 64;
  if (word >= m.size()) {
    m.resize(word + 1, 0);
  }
  m[word] |= uint64_t{1} << (bit % 64);
}

void clearBit(std::vector<uint64_t>& m, uint32_t bit) {
  const size_t word = bit / 64;
  if (word < m.size()) {
    m[word] &= ~(uint64_t{1} << (bit % 64));
  }
}

// anyCommon reports whether two masks share a bit.
bool anyCommon(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if ((a[i] & b[i]) != 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

L2Elector::L2Elector(size_t keep) : keep_(std::max<size_t>(keep, 1)) {}

uint32_t L2Elector::intern(const std::string& name) {
  auto [it, added] = ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (added) {
    names_.push_back(name);
  }
  return it->second;
}

const L2Elector::Mask& L2Elector::adMask(const config::L2Advertisement* ad) {
  auto it = ad_masks_.find(ad);
  if (it != ad_masks_.end()) {
    return it->second;
  }
  Mask m;
  for (const auto& node : ad->nodes) {
    setBit(m, intern(node));
  }
  return ad_masks_.emplace(ad, std::move(m)).first->second;
}

// fill elects from scratch: hashes every current candidate once and keeps the best limit.
void L2Elector::fill(Entry& e, size_t limit) {
  scratch_.clear();
  const size_t words = std::min(e.candidates.size(), eligible_.size());
  for (size_t w = 0; w < words; ++w) {
    for (uint64_t bits = e.candidates[w] & eligible_[w]; bits != 0; bits &= bits - 1) {
      const auto node = static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits));
      scratch_.push_back({hasher_.digest(names_[node], e.ip), node});
    }
  }
  const auto by_digest = [](const Top& a, const Top& b) {
    return before(a.digest, a.node, b.digest, b.node);
  };
  e.complete = scratch_.size() <= limit;
  const size_t n = std::min(scratch_.size(), limit);
  std::partial_sort(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(n),
                    scratch_.end(), by_digest);
  e.top.assign(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(n));
}

// leave drops a node that stopped being eligible; the cached prefix stays valid, so only an
// emptied, incomplete prefix needs a new election.
void L2Elector::leave(Entry& e, uint32_t node) {
  if (!testBit(e.candidates, node)) {
    return;
  }
  auto it =
      std::find_if(e.top.begin(), e.top.end(), [node](const Top& t) { return t.node == node; });
  if (it == e.top.end()) {
    return;
  }
  e.top.erase(it);
  if (e.top.empty() && !e.complete) {
    fill(e, keep_);
  }
}

// join places a node that became eligible: one digest, inserted when it falls inside the
// cached prefix.
void L2Elector::join(Entry& e, uint32_t node) {
  if (!testBit(e.candidates, node)) {
    return;
  }
  Top t{hasher_.digest(names_[node], e.ip), node};
  const auto by_digest = [](const Top& a, const Top& b) {
    return before(a.digest, a.node, b.digest, b.node);
  };
  if (!e.complete && (e.top.empty() || !by_digest(t, e.top.back()))) {
    return;
  }
  e.top.insert(std::upper_bound(e.top.begin(), e.top.end(), t, by_digest), t);
  if (e.top.size() > keep_) {
    e.top.pop_back();
    e.complete = false;
  }
}

bool L2Elector::isHeld(uint32_t node) const {
  return testBit(held_, node);
}

void L2Elector::unheld(Entry& e) {
  if (e.complete || e.top.empty()) {
    return;
  }
  if (std::all_of(e.top.begin(), e.top.end(), [this](const Top& t) { return isHeld(t.node); })) {
    fill(e, SIZE_MAX);  // rare: at least keep_ held nodes lead this Service's order
  }
}

std::optional<uint32_t> L2Elector::winnerId(const Entry& e) const {
  if (!e.active || e.top.empty()) {
    return std::nullopt;
  }
  for (const auto& t : e.top) {
    if (!isHeld(t.node)) {
      return t.node;
    }
  }
  return e.top.front().node;  // every candidate held: the normal winner keeps it
}

std::vector<L2Elector::Before> L2Elector::winners() const {
  std::vector<Before> out;
  out.reserve(entries_.size());
  for (const auto& [key, e] : entries_) {
    out.push_back({&key, &e, winnerId(e)});
  }
  return out;
}

std::vector<std::string> L2Elector::changedSince(const std::vector<Before>& before) const {
  std::vector<std::string> changed;
  for (const auto& b : before) {
    if (winnerId(*b.entry) != b.winner) {
      changed.push_back(*b.key);
    }
  }
  std::sort(changed.begin(), changed.end());
  return changed;
}

std::vector<std::string> L2Elector::setHeld(const std::set<std::string>& held) {
  Mask next;
  for (const auto& name : held) {
    setBit(next, intern(name));
  }
  const std::vector<Before> before = winners();
  held_ = std::move(next);
  for (auto& [key, e] : entries_) {
    unheld(e);
  }
  return changedSince(before);
}

void L2Elector::diff(const Mask& next,
                     std::vector<uint32_t>& left,
                     std::vector<uint32_t>& joined) const {
  for (uint32_t id = 0; id < names_.size(); ++id) {
    const bool was = testBit(eligible_, id);
    const bool is = testBit(next, id);
    if (was && !is) {
      left.push_back(id);
    } else if (!was && is) {
      joined.push_back(id);
    }
  }
}

std::vector<std::string> L2Elector::setMembership(const L2Membership& membership) {
  Mask next;
  for (const auto& name : membership.eligible) {
    setBit(next, intern(name));
  }
  std::vector<uint32_t> left;
  std::vector<uint32_t> joined;
  diff(next, left, joined);
  const std::vector<Before> old = winners();
  for (uint32_t id : left) {
    clearBit(eligible_, id);
  }
  for (auto& [key, e] : entries_) {
    for (uint32_t id : left) {
      leave(e, id);
    }
  }
  for (uint32_t id : joined) {
    setBit(eligible_, id);
    for (auto& [key, e] : entries_) {
      join(e, id);
    }
  }
  eligible_ = std::move(next);
  if (!held_.empty()) {
    for (auto& [key, e] : entries_) {
      unheld(e);
    }
  }
  return changedSince(old);
}

void L2Elector::setService(const std::string& key, const L2Subject& subject) {
  Entry e;
  e.ip = subject.ip;
  e.active = subject.active_endpoint;
  e.has_ads = !subject.ads.empty();
  for (const auto* ad : subject.ads) {
    const Mask& m = adMask(ad);
    e.ads.resize(std::max(e.ads.size(), m.size()), 0);
    for (size_t i = 0; i < m.size(); ++i) {
      e.ads[i] |= m[i];
    }
  }
  if (subject.local) {
    for (const auto& node : subject.endpoint_nodes) {
      const uint32_t id = intern(node);
      if (testBit(e.ads, id)) {
        setBit(e.candidates, id);
      }
    }
  } else {
    e.candidates = e.ads;
  }
  fill(e, keep_);
  unheld(e);
  entries_[key] = std::move(e);
}

void L2Elector::removeService(const std::string& key) {
  entries_.erase(key);
}

void L2Elector::clear() {
  entries_.clear();
  ad_masks_.clear();
}

std::optional<std::string> L2Elector::winner(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    return std::nullopt;
  }
  const auto id = winnerId(it->second);
  return id ? std::optional<std::string>(names_[*id]) : std::nullopt;
}

L2Reason L2Elector::reason(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    return L2Reason::None;
  }
  const Entry& e = it->second;
  if (!e.active) {
    return L2Reason::NoActiveEndpoint;
  }
  if (!e.has_ads) {
    return L2Reason::NoMatchingAdvertisement;
  }
  if (!e.top.empty()) {
    return L2Reason::None;
  }
  return anyCommon(e.ads, eligible_) ? L2Reason::NoCandidateWithLocalEndpoint
                                     : L2Reason::NoCandidateNode;
}

std::vector<std::string> L2Elector::head(const std::string& key) const {
  std::vector<std::string> out;
  if (auto it = entries_.find(key); it != entries_.end()) {
    for (const auto& t : it->second.top) {
      out.push_back(names_[t.node]);
    }
  }
  return out;
}

L2Decision decideL2Cached(const config::Config& config,
                          const std::string& node_name,
                          const api::Service& service,
                          const std::vector<api::EndpointSlice>& slices,
                          const AnnounceOptions& options,
                          L2Elector& engine) {
  L2Decision d;
  const std::string key = service.metadata.namespace_ + "/" + service.metadata.name;
  if (!prepareL2(config, service, slices, options, d)) {
    engine.removeService(key);
    return d;
  }
  engine.setService(key, d.subject);
  d.election.winner = engine.winner(key);
  d.election.reason = engine.reason(key);
  d.election.candidates = engine.head(key);
  d.verdict = d.election.verdictFor(d.subject, node_name);
  return d;
}

}  // namespace ingot::agent
