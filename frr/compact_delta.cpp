// SPDX-License-Identifier: Apache-2.0
#include "frr/compact_delta.h"

#include <algorithm>
#include <sstream>

namespace ingot::frr {

namespace {

using frrgen::AdvertClass;
using frrgen::CompactModel;
using frrgen::CompactNeighbor;
using frrgen::CompactRouter;
using frrgen::OutEntry;

// appendLines splits a multi-line text into commands.
void appendLines(std::vector<std::string>& out, const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    out.emplace_back(text, start, end - start);
    start = end + 1;
  }
}

// sessionsEqual compares what a full reload would have to change for one neighbor.
bool sessionsEqual(const CompactNeighbor& a, const CompactNeighbor& b) {
  return a.session == b.session && a.inbound == b.inbound;
}

// skeletonDifference names the first difference outside classes, out entries and networks.
std::string skeletonDifference(const CompactModel& a, const CompactModel& b) {
  if (a.bfd_profiles != b.bfd_profiles) {
    return "BFD profiles changed";
  }
  if (a.raw_config != b.raw_config) {
    return "raw configuration changed";
  }
  if (a.routers.size() != b.routers.size()) {
    return "routers added or removed";
  }
  for (size_t i = 0; i < a.routers.size(); ++i) {
    const auto& x = a.routers[i];
    const auto& y = b.routers[i];
    if (x.asn != y.asn || x.vrf != y.vrf || x.router_id != y.router_id ||
        x.import_vrfs != y.import_vrfs || x.neighbors.size() != y.neighbors.size()) {
      return "router " + frrgen::routerLine(y) + " changed";
    }
    for (size_t j = 0; j < x.neighbors.size(); ++j) {
      if (!sessionsEqual(x.neighbors[j], y.neighbors[j])) {
        return "neighbor " + y.neighbors[j].session.id() + " changed";
      }
    }
  }
  return "";
}

// ClassChanges are the classes only in from (removed) or only in to (added).
struct ClassChanges {
  std::vector<const AdvertClass*> added, removed;
  std::string conflict;  ///< a tag kept with other attributes
};

ClassChanges classChanges(const CompactModel& from, const CompactModel& to) {
  ClassChanges c;
  std::map<uint32_t, const AdvertClass*> old;
  for (const auto& k : from.classes) {
    old.emplace(k.tag, &k);
  }
  for (const auto& k : to.classes) {
    auto it = old.find(k.tag);
    if (it == old.end()) {
      c.added.push_back(&k);
      continue;
    }
    if (!(*it->second == k)) {
      c.conflict = "route-map " + k.mapName() + " changed its attributes";
    }
    old.erase(it);
  }
  for (const auto& [tag, k] : old) {
    c.removed.push_back(k);
  }
  return c;
}

// entryChanges appends the "add" commands (new or changed entries, a changed one deleted first)
// and the "remove" commands of one outbound map.
void entryChanges(const CompactNeighbor& from,
                  const CompactNeighbor& to,
                  std::vector<std::string>& add,
                  std::vector<std::string>& remove,
                  size_t& count) {
  const std::string name = to.outMapName();
  std::map<uint32_t, const OutEntry*> old;
  for (const auto& e : from.out) {
    old.emplace(e.seq, &e);
  }
  for (const auto& e : to.out) {
    auto it = old.find(e.seq);
    if (it != old.end() && *it->second == e) {
      old.erase(it);
      continue;
    }
    if (it != old.end()) {
      add.push_back("no route-map " + name + " permit " + std::to_string(e.seq));
      old.erase(it);
    }
    appendLines(add, frrgen::outEntryText(name, e));
    ++count;
  }
  for (const auto& [seq, e] : old) {
    remove.push_back("no route-map " + name + " permit " + std::to_string(seq));
    ++count;
  }
}

// networkChanges walks two sorted maps and emits one address-family block when anything changed.
void networkChanges(const std::string& router,
                    const char* family,
                    const std::map<std::string, uint32_t>& from,
                    const std::map<std::string, uint32_t>& to,
                    CompactDelta& d) {
  std::vector<std::string> lines;
  auto a = from.begin();
  auto b = to.begin();
  while (a != from.end() || b != to.end()) {
    if (b == to.end() || (a != from.end() && a->first < b->first)) {
      lines.push_back("no network " + a->first);
      ++d.networks_removed;
      ++a;
    } else if (a == from.end() || b->first < a->first) {
      lines.push_back(frrgen::networkLine(b->first, b->second));
      ++d.networks_added;
      ++b;
    } else {
      if (a->second != b->second) {
        lines.push_back(frrgen::networkLine(b->first, b->second));
        ++d.networks_changed;
      }
      ++a;
      ++b;
    }
  }
  if (lines.empty()) {
    return;
  }
  // Withdrawals first: a prefix re-added under the same name in one batch cannot be removed by a
  // later line.
  std::stable_partition(lines.begin(), lines.end(),
                        [](const std::string& l) { return l.rfind("no ", 0) == 0; });
  d.commands.push_back(router);
  d.commands.push_back(std::string("address-family ") + family + " unicast");
  d.commands.insert(d.commands.end(), lines.begin(), lines.end());
  d.commands.push_back("exit-address-family");
  d.commands.push_back("exit");
}

}  // namespace

CompactDelta computeDelta(const CompactModel& from, const CompactModel& to) {
  CompactDelta d;
  d.reload_reason = skeletonDifference(from, to);
  if (d.needsReload()) {
    return d;
  }
  const ClassChanges classes = classChanges(from, to);
  if (!classes.conflict.empty()) {
    d.reload_reason = classes.conflict;
    return d;
  }
  std::vector<std::string> add_entries;
  std::vector<std::string> remove_entries;
  for (const auto* k : classes.added) {
    appendLines(d.commands, frrgen::advMapText(*k));
    ++d.maps_changed;
  }
  for (size_t i = 0; i < to.routers.size(); ++i) {
    for (size_t j = 0; j < to.routers[i].neighbors.size(); ++j) {
      entryChanges(from.routers[i].neighbors[j], to.routers[i].neighbors[j], add_entries,
                   remove_entries, d.maps_changed);
    }
  }
  d.commands.insert(d.commands.end(), add_entries.begin(), add_entries.end());
  for (size_t i = 0; i < to.routers.size(); ++i) {
    const std::string router = frrgen::routerLine(to.routers[i]);
    networkChanges(router, "ipv4", from.routers[i].networks_v4, to.routers[i].networks_v4, d);
    networkChanges(router, "ipv6", from.routers[i].networks_v6, to.routers[i].networks_v6, d);
  }
  d.commands.insert(d.commands.end(), remove_entries.begin(), remove_entries.end());
  for (const auto* k : classes.removed) {
    d.commands.push_back("no route-map " + k->mapName());
    ++d.maps_changed;
  }
  return d;
}

namespace {

std::string trimmed(std::string_view line) {
  const size_t a = line.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) {
    return "";
  }
  const size_t b = line.find_last_not_of(" \t\r");
  return std::string(line.substr(a, b - a + 1));
}

// Projector is the state of one pass over the text.
class Projector {
 public:
  Projector(const std::set<std::string>& out_maps, PolicyProjection& out)
      : out_maps_(out_maps), out_(out) {}

  void line(std::string_view raw) {
    const std::string l = trimmed(raw);
    const bool top = !raw.empty() && raw.front() != ' ';
    if (top) {
      closeEntry();
      topLevel(l);
      return;
    }
    if (in_entry_) {
      body_.push_back(l);
    } else if (l.rfind("address-family ", 0) == 0) {
      family_ = l.find("ipv6") != std::string::npos ? "ipv6" : "ipv4";
    } else if (!router_.empty() && l.rfind("network ", 0) == 0) {
      out_.networks.insert(router_ + "|" + family_ + "|" + l);
    }
  }
  void finish() { closeEntry(); }

 private:
  void topLevel(const std::string& l) {
    router_.clear();
    if (l.rfind("router bgp ", 0) == 0) {
      router_ = l;
      return;
    }
    if (l.rfind("route-map ", 0) != 0) {
      return;
    }
    std::istringstream in(l);
    std::string kw, name;
    in >> kw >> name;
    if (name.rfind(frrgen::kAdvMapPrefix, 0) == 0 || out_maps_.count(name) != 0) {
      in_entry_ = true;
      entry_ = l;
    }
  }
  void closeEntry() {
    if (!in_entry_) {
      return;
    }
    std::sort(body_.begin(), body_.end());
    std::string text;
    for (const auto& b : body_) {
      if (b != "exit" && !b.empty() && b != "!") {
        text += b + "\n";
      }
    }
    out_.entries[entry_] = text;
    body_.clear();
    in_entry_ = false;
  }

  const std::set<std::string>& out_maps_;
  PolicyProjection& out_;
  std::string router_;
  std::string family_ = "ipv4";
  bool in_entry_ = false;
  std::string entry_;
  std::vector<std::string> body_;
};

}  // namespace

PolicyProjection projectPolicy(std::string_view text, const std::set<std::string>& out_maps) {
  PolicyProjection p;
  Projector proj(out_maps, p);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const std::string_view raw = text.substr(start, end - start);
    // "exit" closes a route-map entry in FRR's running config; it is not indented.
    proj.line(raw == "exit" ? std::string_view("!") : raw);
    start = end + 1;
  }
  proj.finish();
  return p;
}

std::set<std::string> outMapNames(const CompactModel& model) {
  std::set<std::string> out;
  for (const auto& r : model.routers) {
    for (const auto& n : r.neighbors) {
      out.insert(n.outMapName());
    }
  }
  return out;
}

std::string describeDrift(const PolicyProjection& expected,
                          const PolicyProjection& actual,
                          size_t limit) {
  std::vector<std::string> diffs;
  for (const auto& n : expected.networks) {
    if (actual.networks.count(n) == 0) {
      diffs.push_back("-" + n);
    }
  }
  for (const auto& n : actual.networks) {
    if (expected.networks.count(n) == 0) {
      diffs.push_back("+" + n);
    }
  }
  for (const auto& [k, v] : expected.entries) {
    auto it = actual.entries.find(k);
    if (it == actual.entries.end() || it->second != v) {
      diffs.push_back("-" + k);
    }
  }
  for (const auto& [k, v] : actual.entries) {
    auto it = expected.entries.find(k);
    if (it == expected.entries.end() || it->second != v) {
      diffs.push_back("+" + k);
    }
  }
  std::string out;
  for (size_t i = 0; i < diffs.size() && i < limit; ++i) {
    out += (i == 0 ? "" : "; ") + diffs[i];
  }
  if (diffs.size() > limit) {
    out += "; … (+" + std::to_string(diffs.size() - limit) + " more)";
  }
  return out;
}

}  // namespace ingot::frr
