// SPDX-License-Identifier: Apache-2.0
#include "frr/incremental.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

namespace ingot::frr {

const char* applyPathName(ApplyPath path) {
  switch (path) {
    case ApplyPath::Delta:
      return "delta";
    case ApplyPath::FullReload:
      return "full_reload";
    case ApplyPath::Unchanged:
      break;
  }
  return "unchanged";
}

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t);
}

/// kProbe is a cheap command only bgpd answers: it proves bgpd is not stopped or hung.
constexpr const char* kProbe = "show bgp vrf all summary json";

/// requiredDaemons: zebra and bgpd always, bfdd when the model uses BFD.
std::vector<std::string> requiredDaemons(const frrgen::CompactModel& model) {
  std::vector<std::string> out = {"zebra", "bgpd"};
  bool bfd = !model.bfd_profiles.empty();
  for (const auto& r : model.routers) {
    for (const auto& n : r.neighbors) {
      bfd = bfd || !n.session.bfd_profile.empty();
    }
  }
  if (bfd) {
    out.emplace_back("bfdd");
  }
  return out;
}

/// primeLines is the rendered file as configuration commands, without what only applies at a
/// daemon's start (`frr version`, `frr defaults`) and the closing `end`.
std::vector<std::string> primeLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("frr ", 0) == 0 || line == "end" || line.empty() || line == "!") {
      continue;
    }
    out.push_back(std::move(line));
  }
  return out;
}

size_t prefixCount(const frrgen::CompactModel& model) {
  size_t n = 0;
  for (const auto& r : model.routers) {
    n += r.networks_v4.size() + r.networks_v6.size();
  }
  return n;
}

/// findNeighbor returns the session id of the router of vrf in model, or null.
template <typename Model>
auto* findNeighbor(Model& model, const std::string& vrf, const std::string& id) {
  decltype(&model.routers.front().neighbors.front()) found = nullptr;
  for (auto& r : model.routers) {
    if (r.vrf != vrf) {
      continue;
    }
    for (auto& n : r.neighbors) {
      if (n.session.id() == id) {
        found = &n;
      }
    }
  }
  return found;
}

/// sameSession: equal session settings and inbound policy (what is not Service policy).
bool sameSession(const frrgen::CompactNeighbor& a, const frrgen::CompactNeighbor& b) {
  return a.session == b.session && a.inbound == b.inbound;
}

/// dropNeighbor removes the session id from the router of vrf.
void dropNeighbor(frrgen::CompactModel& model, const std::string& vrf, const std::string& id) {
  for (auto& r : model.routers) {
    if (r.vrf == vrf) {
      std::erase_if(r.neighbors,
                    [&](const frrgen::CompactNeighbor& n) { return n.session.id() == id; });
    }
  }
}

/// compose returns model with each candidate session not in take as FRR held it in before (its
/// settings and inbound policy, with the new outbound entries), or left out when FRR had none.
frrgen::CompactModel compose(const frrgen::CompactModel& model,
                             const std::optional<frrgen::CompactModel>& before,
                             const std::set<std::pair<std::string, std::string>>& candidates,
                             const std::set<std::pair<std::string, std::string>>& take) {
  frrgen::CompactModel out = model;
  for (auto& r : out.routers) {
    std::vector<frrgen::CompactNeighbor> kept;
    for (auto& n : r.neighbors) {
      const std::pair<std::string, std::string> key{r.vrf, n.session.id()};
      if (!candidates.contains(key) || take.contains(key)) {
        kept.push_back(std::move(n));
        continue;
      }
      const frrgen::CompactNeighbor* old =
          before ? findNeighbor(*before, r.vrf, key.second) : nullptr;
      if (old != nullptr) {
        n.session = old->session;
        n.inbound = old->inbound;
        kept.push_back(std::move(n));
      }
    }
    r.neighbors = std::move(kept);
  }
  return out;
}

}  // namespace

IncrementalApplier::IncrementalApplier(VtyshPort& vtysh,
                                       FullReload& full,
                                       frrgen::RenderOptions render)
    : vtysh_(vtysh), full_(full), render_(std::move(render)) {}

PolicyProjection IncrementalApplier::expectedFor(const frrgen::CompactModel& model) const {
  auto text = frrgen::renderCompact(model, render_);
  return projectPolicy(text ? *text : std::string(), outMapNames(model));
}

Result<std::string> IncrementalApplier::readBack(const frrgen::CompactModel& model) {
  auto running = vtysh_.show("show running-config");
  if (!running) {
    return running.error();
  }
  const PolicyProjection actual = projectPolicy(*running, outMapNames(model));
  const PolicyProjection expected = expectedFor(model);
  return expected == actual ? std::string() : describeDrift(expected, actual);
}

Result<void> IncrementalApplier::checkDaemons(const frrgen::CompactModel& model) {
  auto listed = vtysh_.show("show daemons");
  if (!listed) {
    // vtysh talks to every daemon when it starts: a hung one shows here already.
    return Error{listed.error().code, "checking FRR's daemons: " + listed.error().message +
                                          "; nothing applied, FRR keeps its configuration"};
  }
  std::istringstream words(*listed);
  std::vector<std::string> running;
  for (std::string w; words >> w;) {
    running.push_back(w);
  }
  std::string listing;
  for (const auto& d : running) {
    listing += (listing.empty() ? "" : " ") + d;
  }
  std::string missing;
  for (const auto& d : requiredDaemons(model)) {
    if (std::find(running.begin(), running.end(), d) == running.end()) {
      missing += (missing.empty() ? "" : "; ") + d + std::string(kNotRunningMarker);
    }
  }
  if (!missing.empty()) {
    return Error{ErrorCode::Unavailable, "FRR: " + missing + " (vtysh `show daemons` lists: " +
                                             (listing.empty() ? std::string("none") : listing) +
                                             "); nothing applied, FRR keeps its configuration"};
  }
  if (auto probe = vtysh_.show(kProbe); !probe) {
    return Error{probe.error().code, "bgpd probe `" + std::string(kProbe) +
                                         "`: " + probe.error().message +
                                         "; nothing applied, FRR keeps its configuration"};
  }
  return {};
}

Result<FastApplyReport> IncrementalApplier::fullReload(const frrgen::CompactModel& model,
                                                       std::string reason,
                                                       bool prime) {
  FastApplyReport report;
  report.path = ApplyPath::FullReload;
  report.reload_reason = std::move(reason);
  auto text = frrgen::renderCompact(model, render_);
  if (!text) {
    return text.error();
  }
  // A new session: FRR may have restarted, and vtysh's daemon connections with it.
  vtysh_.reset();
  synced_ = false;
  if (auto up = checkDaemons(model); !up) {
    vtysh_.reset();
    return Error{up.error().code,
                 "full reload (" + report.reload_reason + "): " + up.error().message};
  }
  const auto start = Clock::now();
  if (prime) {
    // frr-reload.py diffs the file against the running configuration of all daemons together:
    // a daemon that restarted and lost its part (bgpd's route-maps, which zebra still lists)
    // would never get it back. Every line first, to every daemon (existing lines are no-ops);
    // frr-reload.py then removes what is extra. The lines are those of the last model that
    // applied (known good); the new model's only at start-up. Errors are frr-reload.py's to
    // report.
    auto known = last_ ? frrgen::renderCompact(*last_, render_) : text;
    if (known) {
      (void)vtysh_.configure(primeLines(*known));
    }
    vtysh_.reset();
  }
  auto r = full_.reload(*text);
  report.send_elapsed = since(start);
  if (!r) {
    if (last_ && !(*last_ == model)) {
      auto previous = frrgen::renderCompact(*last_, render_);
      if (previous && full_.reload(*previous)) {
        synced_ = true;
      }
    }
    return Error{r.error().code,
                 "full reload (" + report.reload_reason + "): " + r.error().message};
  }
  last_ = model;
  synced_ = true;
  unverified_ = false;
  return report;
}

Result<FastApplyReport> IncrementalApplier::apply(const frrgen::CompactModel& model) {
  std::vector<RejectedSession> skipped;
  std::optional<frrgen::CompactModel> filtered;
  if (!refused_.empty()) {
    filtered = withoutRefused(model, skipped);
  }
  const frrgen::CompactModel& wanted = filtered ? *filtered : model;
  auto r = applyOnce(wanted);
  if (!r && classifyFailure(r.error()) == FailureReason::Rejected) {
    r = isolate(wanted, r.error());
  }
  if (r) {
    r->rejected.insert(r->rejected.begin(), skipped.begin(), skipped.end());
  }
  return r;
}

frrgen::CompactModel IncrementalApplier::withoutRefused(const frrgen::CompactModel& model,
                                                        std::vector<RejectedSession>& skipped) {
  frrgen::CompactModel out = model;
  for (auto it = refused_.begin(); it != refused_.end();) {
    const auto& [key, refused] = *it;
    frrgen::CompactNeighbor* n = findNeighbor(out, key.first, key.second);
    if (n == nullptr || !sameSession(*n, refused.tried)) {
      it = refused_.erase(it);  // changed or gone: the new version is tried
      continue;
    }
    skipped.push_back({key.first, key.second, refused.error, refused.kept.has_value()});
    if (refused.kept) {
      n->session = refused.kept->session;
      n->inbound = refused.kept->inbound;
    } else {
      dropNeighbor(out, key.first, key.second);
    }
    ++it;
  }
  return out;
}

Result<FastApplyReport> IncrementalApplier::isolate(const frrgen::CompactModel& model,
                                                    const Error& error) {
  const std::optional<frrgen::CompactModel> before = last_;
  std::vector<SessionKey> candidates;
  for (const auto& r : model.routers) {
    for (const auto& n : r.neighbors) {
      const auto* old = before ? findNeighbor(*before, r.vrf, n.session.id()) : nullptr;
      if (old == nullptr || !sameSession(*old, n)) {
        candidates.emplace_back(r.vrf, n.session.id());
      }
    }
  }
  if (candidates.empty()) {
    return error;
  }
  const std::set<SessionKey> all(candidates.begin(), candidates.end());
  std::set<SessionKey> taken;
  const std::string reason = "isolating the BGP sessions FRR refuses";
  // Every new or changed session as FRR held it: if FRR refuses that too, they are not the cause.
  auto base = fullReload(compose(model, before, all, taken), reason, false);
  if (!base) {
    return error;
  }
  FastApplyReport report = *base;
  auto refuse = [&](const SessionKey& key, const std::string& why) {
    const auto* tried = findNeighbor(model, key.first, key.second);
    const auto* old = before ? findNeighbor(*before, key.first, key.second) : nullptr;
    Refused r{*tried, old ? std::optional<frrgen::CompactNeighbor>(*old) : std::nullopt, why};
    report.rejected.push_back({key.first, key.second, why, r.kept.has_value()});
    refused_.insert_or_assign(key, std::move(r));
  };
  // Parts to try, last first. The whole set is known to be refused (error): split it at once.
  std::vector<std::vector<SessionKey>> parts;
  auto split = [&parts](const std::vector<SessionKey>& part) {
    const auto mid = part.begin() + static_cast<std::ptrdiff_t>(part.size() / 2);
    parts.emplace_back(mid, part.end());
    parts.emplace_back(part.begin(), mid);
  };
  if (candidates.size() == 1) {
    refuse(candidates.front(), error.message);
  } else {
    split(candidates);
  }
  while (!parts.empty()) {
    const std::vector<SessionKey> part = std::move(parts.back());
    parts.pop_back();
    std::set<SessionKey> trial = taken;
    trial.insert(part.begin(), part.end());
    auto r = fullReload(compose(model, before, all, trial), reason, false);
    if (r) {
      taken = std::move(trial);
      std::vector<RejectedSession> found = std::move(report.rejected);
      report = std::move(*r);
      report.rejected = std::move(found);
      continue;
    }
    if (classifyFailure(r.error()) != FailureReason::Rejected) {
      return r.error();  // FRR stopped answering: the retry starts over
    }
    if (part.size() == 1) {
      refuse(part.front(), r.error().message);
    } else {
      split(part);
    }
  }
  report.reload_reason = reason;
  return report;
}

Result<FastApplyReport> IncrementalApplier::applyOnce(const frrgen::CompactModel& model) {
  if (auto size = checkSize(render_.hostname.empty() ? "(this node)" : render_.hostname,
                            prefixCount(model));
      !size) {
    return size.error();
  }
  if (!synced_ || !last_) {
    return fullReload(model, last_ ? "resynchronising after an error" : "start-up");
  }
  const CompactDelta delta = computeDelta(*last_, model);
  if (delta.empty()) {
    return FastApplyReport{};
  }
  if (delta.needsReload()) {
    return fullReload(model, delta.reload_reason, false);  // FRR is synced and healthy
  }
  return sendDelta(model, delta);
}

Result<FastApplyReport> IncrementalApplier::sendDelta(const frrgen::CompactModel& model,
                                                      const CompactDelta& delta) {
  FastApplyReport report;
  report.path = ApplyPath::Delta;
  report.commands = delta.commands.size();
  report.networks_added = delta.networks_added;
  report.networks_removed = delta.networks_removed;
  report.networks_changed = delta.networks_changed;
  const auto start = Clock::now();
  auto sent = vtysh_.configure(delta.commands);
  report.send_elapsed = since(start);
  if (sent) {
    last_ = model;
    unverified_ = true;
    return report;
  }
  ++fallback_count_;
  synced_ = false;
  // A daemon down or not answering: a reload would fail the same way. The caller retries with
  // backoff, and the retry reloads the whole file once FRR answers again.
  if (sent.error().code == ErrorCode::Unavailable) {
    return Error{sent.error().code, "delta: " + sent.error().message};
  }
  // A rejected line, or a daemon that restarted under the delta: the whole file, now.
  return fullReload(model, "vtysh: " + sent.error().message,
                    sent.error().code == ErrorCode::Transient);
}

Result<FastApplyReport> IncrementalApplier::verify() {
  if (!last_) {
    return FastApplyReport{};
  }
  const frrgen::CompactModel model = *last_;
  if (!synced_) {
    return fullReload(model, "resynchronising after an error");
  }
  const auto start = Clock::now();
  auto drift = readBack(model);
  if (!drift) {
    // vtysh or a daemon not answering: the retry (with backoff) reloads once FRR answers.
    synced_ = false;
    return Error{drift.error().code, "read-back: " + drift.error().message};
  }
  if (drift->empty()) {
    unverified_ = false;
    FastApplyReport report;
    report.verify_elapsed = since(start);
    return report;
  }
  ++drift_count_;
  auto full = fullReload(model, "drift: " + *drift);
  if (full) {
    full->drift = *drift;
  }
  return full;
}

}  // namespace ingot::frr
