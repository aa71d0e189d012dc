// SPDX-License-Identifier: Apache-2.0
#include "frrgen/incremental.h"

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>

#include "frrgen/build_keys.h"

namespace ingot::frrgen {

namespace {

bool sameOptions(const BuildOptions& a, const BuildOptions& b) {
  return a.frrk8s_namespace == b.frrk8s_namespace && a.metallb_namespace == b.metallb_namespace &&
         a.secret_passthrough == b.secret_passthrough;
}

// groupList returns the prefixes of the group keyed key in groups (sorted by key, as build
// writes them), inserting an empty group there when create is set.
template <typename G, typename K>
std::vector<std::string>* groupList(std::vector<G>& groups,
                                    K G::*field,
                                    const K& key,
                                    bool create) {
  auto it = std::lower_bound(groups.begin(), groups.end(), key,
                             [field](const G& g, const K& k) { return g.*field < k; });
  if (it == groups.end() || (*it).*field != key) {
    if (!create) {
      return nullptr;
    }
    G g;
    g.*field = key;
    it = groups.insert(it, std::move(g));
  }
  return &it->prefixes;
}

template <typename G, typename K>
void dropEmpty(std::vector<G>& groups, K G::*field, const K& key) {
  auto it = std::lower_bound(groups.begin(), groups.end(), key,
                             [field](const G& g, const K& k) { return g.*field < k; });
  if (it != groups.end() && (*it).*field == key && it->prefixes.empty()) {
    groups.erase(it);
  }
}

bool hasRepeats(const std::vector<std::string>& names) {
  for (size_t i = 1; i < names.size(); ++i) {
    if (std::find(names.begin(), names.begin() + static_cast<ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<ptrdiff_t>(i)) {
      return true;
    }
  }
  return false;
}

}  // namespace

template <typename F>
void IncrementalBuild::slots(const config::Announcement& a, F&& f) const {
  std::vector<uint32_t> routers;  // a router gets the prefix once per announcement
  for (const auto& name : a.peers) {
    auto it = sessions_.find(name);
    if (it == sessions_.end() || !detail::carries(*it->second.peer, a.prefix)) {
      continue;
    }
    const Session& s = it->second;
    if (std::find(routers.begin(), routers.end(), s.router) == routers.end()) {
      routers.push_back(s.router);
      f(Slot{List::RouterPrefixes, s.router, 0, {}, 0});
    }
    if (!s.neighbor) {
      continue;
    }
    f(Slot{List::Allowed, s.router, *s.neighbor, {}, 0});
    for (const auto& c : a.communities) {
      f(Slot{List::Community, s.router, *s.neighbor, communityText(c), 0});
    }
    if (a.local_pref != 0) {
      f(Slot{List::LocalPref, s.router, *s.neighbor, {}, a.local_pref});
    }
    if (a.bandwidth != 0) {
      f(Slot{List::Bandwidth, s.router, *s.neighbor, {}, a.bandwidth});
    }
  }
}

std::vector<std::string>* IncrementalBuild::list(const Slot& slot, bool create) {
  api::FrrRouter& router = out_->spec.routers[slot.router];
  if (slot.list == List::RouterPrefixes) {
    return &router.prefixes;
  }
  api::FrrAdvertise& adv = router.neighbors[slot.neighbor].to_advertise;
  switch (slot.list) {
    case List::Allowed:
      return &adv.allowed_prefixes;
    case List::Community:
      return groupList(adv.with_community, &api::FrrCommunityPrefixes::community, slot.community,
                       create);
    case List::LocalPref:
      return groupList(adv.with_local_pref, &api::FrrLocalPrefPrefixes::local_pref, slot.value,
                       create);
    case List::Bandwidth:
      return groupList(adv.with_bandwidth, &api::FrrBandwidthPrefixes::bandwidth, slot.value,
                       create);
    case List::RouterPrefixes:
      break;
  }
  return nullptr;
}

void IncrementalBuild::dropEmptyGroup(const Slot& slot) {
  if (slot.list == List::RouterPrefixes || slot.list == List::Allowed) {
    return;
  }
  api::FrrAdvertise& adv = out_->spec.routers[slot.router].neighbors[slot.neighbor].to_advertise;
  switch (slot.list) {
    case List::Community:
      dropEmpty(adv.with_community, &api::FrrCommunityPrefixes::community, slot.community);
      break;
    case List::LocalPref:
      dropEmpty(adv.with_local_pref, &api::FrrLocalPrefPrefixes::local_pref, slot.value);
      break;
    case List::Bandwidth:
      dropEmpty(adv.with_bandwidth, &api::FrrBandwidthPrefixes::bandwidth, slot.value);
      break;
    case List::RouterPrefixes:
    case List::Allowed:
      break;
  }
}

std::string IncrementalBuild::slotKey(const Slot& slot) {
  return std::to_string(static_cast<int>(slot.list)) + "|" + std::to_string(slot.router) + "|" +
         std::to_string(slot.neighbor) + "|" + slot.community + "|" + std::to_string(slot.value);
}

std::string IncrementalBuild::extraKey(const Slot& slot, const std::string& prefix) {
  return slotKey(slot) + "|" + prefix;
}

void IncrementalBuild::add(const config::Announcement& a) {
  const std::string text = a.prefix.toString();
  slots(a, [&](const Slot& s) {
    std::vector<std::string>& l = *list(s, true);
    auto it = std::lower_bound(l.begin(), l.end(), text);
    if (it != l.end() && *it == text) {
      ++extra_[extraKey(s, text)];
      return;
    }
    l.insert(it, text);
    fragments_.erase(slotKey(s));
    changed_ = true;
  });
}

void IncrementalBuild::remove(const config::Announcement& a) {
  const std::string text = a.prefix.toString();
  slots(a, [&](const Slot& s) {
    if (!extra_.empty()) {
      if (auto e = extra_.find(extraKey(s, text)); e != extra_.end()) {
        if (--e->second == 0) {
          extra_.erase(e);
        }
        return;
      }
    }
    std::vector<std::string>* l = list(s, false);
    if (l == nullptr) {
      return;
    }
    auto it = std::lower_bound(l->begin(), l->end(), text);
    if (it != l->end() && *it == text) {
      l->erase(it);
      fragments_.erase(slotKey(s));
      changed_ = true;
      dropEmptyGroup(s);
    }
  });
}

Result<bool> IncrementalBuild::rebuild(const config::ConfigSharedPtr& config,
                                       const std::string& node,
                                       const std::vector<config::Announcement>& announcements,
                                       const BuildOptions& options) {
  config_.reset();
  auto built = build(*config, node, announcements, options);
  if (!built) {
    return built.error();
  }
  ++rebuilds_;
  const bool changed = !out_ || *out_ != *built;
  out_ = std::move(*built);
  // The layout build uses: routers by key, a router's neighbors by session key, the first
  // peer of a session key owning its neighbor.
  std::map<std::string, std::map<std::string, std::string>> layout;
  for (const auto& [name, peer] : config->peers) {
    if (peer.nodes.contains(node)) {
      layout[detail::routerKey(peer)].emplace(detail::sessionKey(peer), name);
    }
  }
  sessions_.clear();
  std::map<std::string, uint32_t> router_index;
  uint32_t r = 0;
  for (const auto& [router_key, neighbors] : layout) {
    router_index[router_key] = r;
    uint32_t n = 0;
    for (const auto& [session_key, owner] : neighbors) {
      sessions_[owner] = Session{&config->peers.at(owner), r, n++};
    }
    ++r;
  }
  for (const auto& [name, peer] : config->peers) {
    if (peer.nodes.contains(node) && !sessions_.contains(name)) {
      sessions_[name] = Session{&peer, router_index.at(detail::routerKey(peer)), std::nullopt};
    }
  }
  ++epoch_;
  services_.clear();
  held_ = announcements.size();
  extra_.clear();
  fragments_.clear();
  std::unordered_map<std::string, uint32_t> uses;  // prefix text → announcements with it
  for (const auto& a : announcements) {
    Group& g = services_[a.service];
    g.announcements.push_back(a);
    g.epoch = epoch_;
    ++uses[a.prefix.toString()];
  }
  // A prefix lands in a slot more than once only when two announcements share it or a peer is
  // named twice: count the landings of those alone.
  std::unordered_map<std::string, uint32_t> landings;
  for (const auto& a : announcements) {
    const std::string text = a.prefix.toString();
    if (uses[text] < 2 && !hasRepeats(a.peers)) {
      continue;
    }
    slots(a, [&](const Slot& s) { ++landings[extraKey(s, text)]; });
  }
  for (const auto& [key, n] : landings) {
    if (n > 1) {
      extra_[key] = n - 1;
    }
  }
  config_ = config;
  node_ = node;
  options_ = options;
  return changed;
}

Result<bool> IncrementalBuild::update(const config::ConfigSharedPtr& config,
                                      const std::string& node,
                                      const std::vector<config::Announcement>& announcements,
                                      const BuildOptions& options) {
  if (!config_ || config != config_ || node != node_ || !sameOptions(options, options_)) {
    return rebuild(config, node, announcements, options);
  }
  // Find the Services whose announcements differ (they come grouped by Service).
  struct Change {
    Group* group;  ///< nullptr: a Service new to this update
    size_t begin;
    size_t end;
  };
  ++epoch_;
  std::vector<Change> changes;
  std::unordered_set<std::string_view> added;
  size_t seen = 0;
  size_t moved = 0;  // announcements in the changes, old and new
  const size_t limit = patchLimit(announcements.size());
  for (size_t b = 0; b < announcements.size();) {
    size_t e = b + 1;
    while (e < announcements.size() && announcements[e].service == announcements[b].service) {
      ++e;
    }
    const std::string& service = announcements[b].service;
    auto it = services_.find(service);
    if (it == services_.end()) {
      if (!added.insert(service).second) {
        return rebuild(config, node, announcements, options);  // one Service in two runs
      }
      changes.push_back({nullptr, b, e});
      moved += e - b;
    } else {
      Group& g = it->second;
      if (g.epoch == epoch_) {
        return rebuild(config, node, announcements, options);  // one Service in two runs
      }
      g.epoch = epoch_;
      ++seen;
      if (!std::equal(announcements.begin() + static_cast<ptrdiff_t>(b),
                      announcements.begin() + static_cast<ptrdiff_t>(e), g.announcements.begin(),
                      g.announcements.end())) {
        changes.push_back({&g, b, e});
        moved += (e - b) + g.announcements.size();
      }
    }
    for (size_t i = b; i < e; ++i) {
      if (announcements[i].communities.size() > detail::kMaxCommunities) {
        return rebuild(config, node, announcements, options);  // build says why
      }
    }
    if (moved > limit) {
      return rebuild(config, node, announcements, options);  // most of it changed
    }
    b = e;
  }
  if (moved + (services_.size() - seen) > limit) {
    return rebuild(config, node, announcements, options);  // many Services are gone
  }
  changed_ = false;
  for (const Change& c : changes) {
    const auto first = announcements.begin() + static_cast<ptrdiff_t>(c.begin);
    const auto last = announcements.begin() + static_cast<ptrdiff_t>(c.end);
    Group* g = c.group;
    if (g == nullptr) {
      g = &services_[first->service];
      g->epoch = epoch_;
    } else {
      for (const auto& a : g->announcements) {
        remove(a);
      }
    }
    g->announcements.assign(first, last);
    for (const auto& a : g->announcements) {
      add(a);
    }
  }
  if (seen + added.size() < services_.size()) {  // Services no longer announced
    for (auto it = services_.begin(); it != services_.end();) {
      if (it->second.epoch == epoch_) {
        ++it;
        continue;
      }
      for (const auto& a : it->second.announcements) {
        remove(a);
      }
      it = services_.erase(it);
    }
  }
  held_ = announcements.size();
  return changed_;
}

std::optional<bool> IncrementalBuild::patch(
    const config::ConfigSharedPtr& config,
    const std::string& node,
    const std::vector<config::ServiceAnnouncements>& changes,
    const BuildOptions& options) {
  if (!config_ || config != config_ || node != node_ || !sameOptions(options, options_)) {
    return std::nullopt;  // update builds afresh
  }
  size_t moved = 0;  // announcements in the changes, old and new
  size_t total = held_;
  for (const auto& c : changes) {
    for (const auto& a : c.announcements) {
      if (a.service != c.service || a.communities.size() > detail::kMaxCommunities) {
        return std::nullopt;  // update groups by Announcement::service; build says why
      }
    }
    auto it = services_.find(c.service);
    const size_t was = it == services_.end() ? 0 : it->second.announcements.size();
    moved += was + c.announcements.size();
    total = total - was + c.announcements.size();
  }
  if (moved > patchLimit(total)) {
    return std::nullopt;  // most of it changed: update builds afresh
  }
  changed_ = false;
  for (const auto& c : changes) {
    auto it = services_.find(c.service);
    if (it != services_.end()) {
      std::vector<config::Announcement>& held = it->second.announcements;
      if (held == c.announcements) {
        continue;
      }
      for (const auto& a : held) {
        remove(a);
      }
      held_ -= held.size();
      if (c.announcements.empty()) {
        services_.erase(it);
        continue;
      }
      held = c.announcements;
    } else if (c.announcements.empty()) {
      continue;
    } else {
      it = services_.emplace(c.service, Group{c.announcements, epoch_}).first;
    }
    held_ += c.announcements.size();
    for (const auto& a : it->second.announcements) {
      add(a);
    }
  }
  ++patches_;
  return changed_;
}

namespace {

// plainJson reports whether text is its own JSON string body (no escaping needed), as prefix
// texts are.
bool plainJson(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

}  // namespace

std::string IncrementalBuild::encode(api::FRRConfiguration object, const Encoder& encoder) {
  // Each non-empty list of result() is swapped for a one-element list holding a marker, the
  // small object left is encoded by the codec, and each marker's `"marker"` is replaced by the
  // list's cached text. Anything unexpected (a marker found other than once, a text needing
  // escapes) falls back to encoding the whole object.
  struct Spliced {
    std::string marker;  // with its quotes, as the codec writes it
    const std::string* text;
  };
  std::vector<Spliced> spliced;
  std::vector<std::pair<std::vector<std::string>*, std::vector<std::string>>> saved;
  bool plain = true;
  auto swap_out = [&](std::vector<std::string>& l, const Slot& slot) {
    if (l.empty()) {
      return;
    }
    auto [it, fresh] = fragments_.try_emplace(slotKey(slot));
    if (fresh) {
      for (const auto& p : l) {
        plain = plain && plainJson(p);
        it->second += (it->second.empty() ? "\"" : ",\"") + p + "\"";
      }
    }
    const std::string marker = "@ingot-splice-" + std::to_string(spliced.size()) + "@";
    saved.emplace_back(&l, std::exchange(l, {marker}));
    spliced.push_back({"\"" + marker + "\"", &it->second});
  };
  auto& routers = out_->spec.routers;
  for (uint32_t r = 0; r < routers.size(); ++r) {
    swap_out(routers[r].prefixes, Slot{List::RouterPrefixes, r, 0, {}, 0});
    for (uint32_t n = 0; n < routers[r].neighbors.size(); ++n) {
      api::FrrAdvertise& adv = routers[r].neighbors[n].to_advertise;
      swap_out(adv.allowed_prefixes, Slot{List::Allowed, r, n, {}, 0});
      for (auto& g : adv.with_community) {
        swap_out(g.prefixes, Slot{List::Community, r, n, g.community, 0});
      }
      for (auto& g : adv.with_local_pref) {
        swap_out(g.prefixes, Slot{List::LocalPref, r, n, {}, g.local_pref});
      }
      for (auto& g : adv.with_bandwidth) {  // never serialised: only kept out of the copy
        saved.emplace_back(&g.prefixes, std::exchange(g.prefixes, {}));
      }
    }
  }
  object.spec = out_->spec;
  for (auto& [list, prefixes] : saved) {
    *list = std::move(prefixes);
  }
  const std::string skeleton = encoder(object);
  std::vector<std::pair<size_t, size_t>> at;  // (position in skeleton, spliced index)
  for (size_t i = 0; i < spliced.size() && plain; ++i) {
    const size_t pos = skeleton.find(spliced[i].marker);
    plain =
        pos != std::string::npos && skeleton.find(spliced[i].marker, pos + 1) == std::string::npos;
    at.emplace_back(pos, i);
  }
  if (!plain) {
    fragments_.clear();
    object.spec = out_->spec;
    return encoder(object);
  }
  std::sort(at.begin(), at.end());
  size_t size = skeleton.size();
  for (const auto& s : spliced) {
    size += s.text->size();
  }
  std::string out;
  out.reserve(size);
  size_t from = 0;
  for (const auto& [pos, i] : at) {
    out.append(skeleton, from, pos - from);
    out += *spliced[i].text;
    from = pos + spliced[i].marker.size();
  }
  out.append(skeleton, from);
  return out;
}

}  // namespace ingot::frrgen
