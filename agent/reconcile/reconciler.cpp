// SPDX-License-Identifier: Apache-2.0
// Configuration parse, the full announcement pass and the Layer 2 election. One Service's pass
// and the announcement reports are in reconciler_service.cpp, ServiceBGPStatus in
// reconciler_status.cpp, the backends' keys and ConfigurationState in reconciler_state.cpp.
#include "agent/reconcile/reconciler.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "agent/reconcile/writes.h"
#include "common/json/scan.h"
#include "config/scope.h"
#include "kube/resources.h"

namespace ingot::agent {
namespace {

using k8s::values;

std::string serviceKey(const api::Service& svc) {
  return svc.metadata.namespace_ + "/" + svc.metadata.name;
}

/// l2Announcement is what node announces for a Service whose Layer 2 election it won: the
/// ingress IPs, on the interfaces l2Interfaces names.
L2Announcement l2Announcement(const api::Service& svc,
                              const L2Decision& d,
                              const std::string& node) {
  L2Announcement out{svc.metadata.namespace_, svc.metadata.name, {}, l2Interfaces(d.subject, node)};
  for (const auto& i : svc.status.ingress) {
    if (auto ip = net::IpAddress::parse(i.ip)) out.ips.push_back(*ip);
  }
  return out;
}

}  // namespace

BackendOptions backendOptions(const ReconcilerOptions& options) {
  BackendOptions o;
  o.node = options.node;
  o.build = options.build;
  o.debounce = options.debounce;
  o.hostname = options.hostname;
  o.frr_verify_interval = options.frr_verify_interval;
  o.frr_full_reload = options.frr_full_reload;
  o.namespace_ = options.namespace_;
  o.owner = options.owner;
  o.live_nodes = options.live_nodes;
  return o;
}

Reconciler::Reconciler(Caches caches,
                       const k8s::ReconcileIo& io,
                       Metrics& metrics,
                       ReconcilerOptions options,
                       Backends backends)
    : k8s::ReconcilerIo(io),
      caches_(caches),
      metrics_(metrics),
      options_(std::move(options)),
      backends_(std::move(backends)),
      hold_down_(log_, metrics, options_.wall_clock),
      drain_(log_, metrics, options_.wall_clock),
      wall_clock_(options_.wall_clock ? options_.wall_clock : systemWallClockMs),
      status_writer_(caches_.bgp_statuses,
                     api_,
                     queue_,
                     metrics_,
                     log_,
                     clock_,
                     {options_.node, options_.namespace_, options_.owner, options_.overlay_ttl,
                      options_.status_writes_per_pass, std::string(keys::kStatus)},
                     bgpStatusDecisions()),
      state_writer_(caches_.states,
                    api_,
                    log_,
                    clock_,
                    {options_.namespace_, stateName(options_.node),
                     configurationStateObject(options_.namespace_, options_.node, options_.owner),
                     options_.overlay_ttl}) {
  for (const auto& backend : backends_) {
    if (auto accepted = backend->acceptedBgp()) {
      accepted_ = std::move(accepted);  // nothing is claimed before the backend's daemon took it
    }
  }
}

ReconcileResult Reconciler::reconcile(const std::string& key) {
  if (key == keys::kConfig) return reconcileConfig();
  if (key == keys::kMembers) return reconcileMembers();
  if (key == keys::kSync) {
    ReconcileResult r = sync();
    metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
    return r;
  }
  if (key.starts_with(keys::kServicePrefix)) {
    ReconcileResult r = syncService(key.substr(keys::kServicePrefix.size()));
    metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
    return r;
  }
  if (key == keys::kHandOff) {
    if (std::exchange(hand_off_, false) && config_) {
      handChanges();
    }
    queue_.add(std::string(keys::kStatus));  // behind the backends' keys
    return ReconcileResult::done();
  }
  if (key == keys::kStatus) {
    ReconcileResult r = syncBgpStatuses();
    metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
    return r;
  }
  // A ServiceL2Status changed: a new owner may have announced what this node hands off.
  if (key == keys::kLayer2 && config_ && releaseL2HandOff()) handLayer2();
  for (const auto& backend : backends_) {
    if (key == backend->key()) {
      return applyBackend(*backend);
    }
  }
  if (key == keys::kRecheck) {
    for (const auto& backend : backends_) {
      backend->recheck();
    }
    return ReconcileResult::done();
  }
  if (key == keys::kState) {
    ReconcileResult r = writeState();
    metrics_.countReconcile(ReconcileKind::ConfigurationState, !r.ok());
    return r;
  }
  log_.error("reconcile", "unknown_key", "dropping a work-queue key of no known kind",
             {{"key", key}});
  return ReconcileResult::done();
}

ReconcileResult Reconciler::reconcileConfig() {
  metrics_.countUpdate();
  config::Inputs in;
  in.pools = values(caches_.pools);
  in.l2_advertisements = values(caches_.l2_advertisements);
  in.bgp_advertisements = values(caches_.bgp_advertisements);
  in.peers = values(caches_.peers);
  in.bfd_profiles = values(caches_.bfd_profiles);
  in.communities = values(caches_.communities);
  in.nodes = values(caches_.nodes);
  in.namespaces = values(caches_.namespaces);
  in.secrets = values(caches_.secrets);
  // MetalLB's speaker parses only the BGPPeers and BGPAdvertisements that select its node, so an
  // object broken where it does not apply never blocks this node. Before its Node is cached the
  // agent knows no labels: objects with nodeSelectors cannot apply here yet and are left out.
  api::Node own;
  own.metadata.name = options_.node;
  if (const auto node = caches_.nodes.get(options_.node)) own = *node;
  config::ParseOutcome parsed =
      config::parse(config::forNode(std::move(in), own), {options_.dialect, options_.namespace_});
  config_parsed_ = true;
  config_errors_ = parsed.errors;
  queue_.add(std::string(keys::kState));
  if (!parsed.errors.empty()) {
    metrics_.setConfigStale(true);
    metrics_.countUpdateError();
    for (const auto& e : parsed.errors) {
      log_.error("config", "invalid", config::formatConfigError(e),
                 {{"key", k8s::objectKey(e.namespace_, e.name)}, {"kind", e.kind}});
    }
    log_.error("config", "kept_last_good",
               config_ ? "configuration rejected; announcing with the last good one"
                       : "configuration rejected; no valid configuration yet, nothing announced",
               {log::num("errors", static_cast<long long>(parsed.errors.size()))});
    // The next change of an input re-triggers; a change of BGP's availability still applies.
    return useConfig(parsed_);
  }
  metrics_.setConfigLoaded(true);
  metrics_.setConfigStale(false);
  if (!parsed_ || *parsed_ != *parsed.config) {
    log_.info("config", "reloaded", "configuration loaded",
              {log::num("pools", static_cast<long long>(parsed.config->pools.size())),
               log::num("peers", static_cast<long long>(parsed.config->peers.size()))});
  }
  return useConfig(parsed.config);
}

std::optional<std::string> Reconciler::bgpUnavailable() const {
  for (const auto& backend : backends_) {
    if (auto why = backend->bgpUnavailable()) {
      return why;
    }
  }
  return std::nullopt;
}

ReconcileResult Reconciler::useConfig(const config::ConfigSharedPtr& parsed) {
  if (!parsed) {
    return ReconcileResult::done();
  }
  std::optional<std::string> off = bgpUnavailable();
  // Nothing the decisions read changed (e.g. a pool's status was written): no full pass.
  const bool same = config_ && (parsed_ == parsed || *parsed_ == *parsed) && off == bgp_off_;
  if (!same) {
    if (off != bgp_off_) {
      log_.info("config", off ? "bgp_off" : "bgp_on",
                off ? "deciding without BGP: " + *off : std::string("deciding with BGP"));
    }
    parsed_ = parsed;
    bgp_off_ = off;
    config_ = bgp_off_ ? std::make_shared<const config::Config>(withoutBgp(*parsed_)) : parsed_;
    l2_elector_.clear();  // its subjects point into the Config it replaces
  }
  reportBgp(off);
  if (same) {
    return ReconcileResult::done();
  }
  ReconcileResult r = sync();
  metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
  if (!r.ok()) queue_.addRateLimited(std::string(keys::kSync));
  return ReconcileResult::done();
}

void Reconciler::reportBgp(const std::optional<std::string>& unavailable) {
  std::optional<std::string> report;
  std::vector<std::string> peers;
  if (unavailable && parsed_) {
    for (const auto& [name, peer] : parsed_->peers) {
      if (peer.nodes.contains(options_.node)) peers.push_back(name);
    }
  }
  if (!peers.empty()) {
    std::string names;
    for (const auto& p : peers) names += (names.empty() ? "" : ", ") + p;
    report = "BGPPeer " + names + " not served: " + *unavailable +
             ". BGP needs frr-k8s (--bgp-mode=frr-k8s with frr-k8s installed) or frr mode; "
             "Layer 2 announcements are not affected";
  }
  if (report == bgp_report_) {
    return;
  }
  bgp_report_ = report;
  queue_.add(std::string(keys::kState));
  if (!report) {
    log_.info("config", "bgp_peers_served", "no BGPPeer of this node is left unserved");
    return;
  }
  log_.warn("config", "bgp_not_available", *report, {{"node", options_.node}});
  auto node = caches_.nodes.get(options_.node);
  events_.record(k8s::ObjectReference{"v1", "Node", "", options_.node,
                                      node ? node->metadata.uid : std::string(),
                                      node ? node->metadata.resource_version : std::string()},
                 k8s::EventType::Warning, "BGPNotAvailable", *report);
}

std::vector<api::EndpointSlice> Reconciler::slicesOf(const std::string& key) const {
  std::vector<api::EndpointSlice> out;
  for (const auto& s : caches_.endpoint_slices.byIndex(key)) {
    out.push_back(*s);
  }
  return out;
}

L2Membership Reconciler::l2MembershipNow() const {
  std::vector<api::Node> nodes = values(caches_.nodes);
  std::set<std::string> live;
  if (options_.live_nodes != nullptr) {
    live = options_.live_nodes->live();
  } else {
    for (const auto& n : nodes) live.insert(n.metadata.name);
  }
  return l2Membership(nodes, live, options_.announce.ignore_exclude_lb, options_.announce.drain);
}

void Reconciler::decideLayer2(const std::vector<ServicePtr>& services) {
  std::vector<L2Announcement> won;
  if (options_.live_nodes != nullptr && !options_.live_nodes->joined()) {
    if (!std::exchange(l2_deferred_, true)) {
      log_.info("memberlist", "l2_deferred", "Layer 2 election waits for the memberlist join");
    }
    l2_won_.clear();
    return;  // nothing decided, nothing answered: the join's members key decides all
  }
  l2_deferred_ = false;
  l2_elector_.setMembership(l2MembershipNow());  // every Service is decided below anyway
  applyHoldDown();
  std::map<std::string, L2Decision> previous = std::move(l2_decisions_);
  l2_decisions_.clear();
  for (const auto& svc : services) {
    const std::string key = serviceKey(*svc);
    L2Decision d = decideL2Cached(*config_, options_.node, *svc, slicesOf(key), options_.announce,
                                  l2_elector_);
    ++l2_decisions_made_;
    previous.erase(key);
    if (!d.l2_pool) continue;
    noteLayer2(key, d);
    if (d.announced()) won.push_back(l2Announcement(*svc, d, options_.node));
  }
  for (const auto& [key, gone] : previous) {  // deleted Services
    l2_elector_.removeService(key);
  }
  std::erase_if(l2_logged_, [this](const auto& e) { return !l2_decisions_.contains(e.first); });
  l2_won_.clear();
  for (const auto& a : won) l2_won_.emplace(a.key(), a);
}

ReconcileResult Reconciler::reconcileMembers() {
  if (!config_) return ReconcileResult::done();  // nothing elected before a configuration
  if (l2_deferred_) return reconcile(std::string(keys::kSync));  // first join: decide all
  bool changed = false;
  std::vector<std::string> moved = l2_elector_.setMembership(l2MembershipNow());
  const std::vector<std::string> released = applyHoldDown();
  moved.insert(moved.end(), released.begin(), released.end());
  std::sort(moved.begin(), moved.end());
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  for (const auto& key : moved) {
    auto it = l2_decisions_.find(key);
    if (it == l2_decisions_.end()) continue;
    L2Decision d = it->second;
    d.election.winner = l2_elector_.winner(key);
    d.election.reason = l2_elector_.reason(key);
    d.election.candidates = l2_elector_.head(key);
    d.verdict = d.election.verdictFor(d.subject, options_.node);
    ++l2_decisions_made_;
    noteLayer2(key, d);
    changed |= noteWon(key, d);
  }
  if (changed) handLayer2();
  return ReconcileResult::done();
}

std::vector<std::string> Reconciler::applyHoldDown() {
  if (options_.live_nodes == nullptr) {
    return {};  // without memberlist nobody advertises a join
  }
  HoldDownTracker::Step step = hold_down_.update(options_.live_nodes->metadata());
  if (step.recheck) {
    queue_.addAfter(std::string(keys::kMembers), *step.recheck);
  }
  return l2_elector_.setHeld(step.held);
}

bool Reconciler::decideLayer2For(const std::string& key, const ServicePtr& svc) {
  if (options_.live_nodes != nullptr && !options_.live_nodes->joined()) {
    return false;  // nothing is elected before the join, whose members key decides all
  }
  if (!svc) {
    l2_elector_.removeService(key);
  }
  L2Decision d;
  if (svc) {
    d = decideL2Cached(*config_, options_.node, *svc, slicesOf(key), options_.announce,
                       l2_elector_);
    ++l2_decisions_made_;
  }
  if (!d.l2_pool) {  // deleted, or not in a Layer 2 pool: as if the full pass skipped it
    l2_decisions_.erase(key);
    l2_logged_.erase(key);
    return l2_won_.erase(key) > 0;
  }
  noteLayer2(key, d);
  return noteWon(key, d);
}

bool Reconciler::noteWon(const std::string& key, const L2Decision& d) {
  auto svc = d.announced() ? caches_.services.get(key) : nullptr;
  auto prev = l2_won_.find(key);
  if (!svc) {
    if (prev == l2_won_.end()) return false;
    l2_won_.erase(prev);
    return true;
  }
  L2Announcement next = l2Announcement(*svc, d, options_.node);
  if (prev != l2_won_.end() && prev->second == next) return false;
  l2_won_.insert_or_assign(key, std::move(next));
  return true;
}

void Reconciler::handLayer2() {
  Desired desired{config_, {}, l2Desired()};
  for (const auto& backend : backends_) {
    if (auto delay = backend->updateLayer2(desired)) {
      queue_.addAfter(std::string(backend->key()), *delay);
    }
  }
}

void Reconciler::noteLayer2(const std::string& key, const L2Decision& d) {
  std::string sig = d.election.winner.value_or("") + "|" + std::string(d.reason()) + "|" +
                    std::string(l2ReasonName(d.election.reason));
  auto prev = l2_logged_.find(key);
  if (prev == l2_logged_.end() || prev->second != sig) {
    logL2Decision(log_, key, d);
    l2_logged_[key] = std::move(sig);
  }
  l2_decisions_[key] = d;
}

ReconcileResult Reconciler::sync() {
  if (!config_) return ReconcileResult::done();  // nothing is announced before a configuration
  std::vector<ServicePtr> services = caches_.services.list();
  std::sort(services.begin(), services.end(), [](const ServicePtr& a, const ServicePtr& b) {
    return std::tie(a->metadata.namespace_, a->metadata.name) <
           std::tie(b->metadata.namespace_, b->metadata.name);
  });
  const auto node = caches_.nodes.get(options_.node);
  stepDrain();
  decided_.clear();
  for (const auto& svc : services) {
    decided_.emplace_hint(decided_.end(), serviceKey(*svc),
                          Decided{svc, decideBgpHere(*svc, node.get())});
  }
  decideLayer2(services);
  releaseL2HandOff();
  handBackends();
  hand_off_ = false;  // a queued hand-off finds nothing left to hand
  reportAnnouncements();
  // The status writes run under their own key, after the backends' keys queued above.
  status_writer_.markAll();
  queue_.add(std::string(keys::kStatus));
  ready_.store(true);
  return ReconcileResult::done();
}

std::string Reconciler::now() const {
  return k8s::formatTimestamp(std::chrono::system_clock::now());
}

}  // namespace ingot::agent
