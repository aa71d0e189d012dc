// SPDX-License-Identifier: Apache-2.0
// Configuration parse, the announcement sync and ServiceBGPStatus. The BGP writes (frr-k8s and
// frr mode) and ConfigurationState are in reconciler_bgp.cpp.
#include "agent/reconciler.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "agent/writes.h"
#include "common/json/scan.h"
#include "kube/resources.h"

namespace ingot::agent {
namespace {

using k8s::values;

std::string serviceKey(const api::Service& svc) {
  return svc.metadata.namespace_ + "/" + svc.metadata.name;
}

k8s::ObjectReference serviceRef(const api::Service& svc) {
  return k8s::ObjectReference{"v1",
                              "Service",
                              svc.metadata.namespace_,
                              svc.metadata.name,
                              svc.metadata.uid,
                              svc.metadata.resource_version};
}

/// signature identifies an announcement: its prefixes with their attributes and peers.
std::string signature(const BgpDecision& d) {
  std::vector<std::string> parts;
  for (const auto& a : d.announcements) {
    std::string p = a.prefix.toString() + "|" + std::to_string(a.local_pref) + "|";
    for (const auto& c : a.communities) p += frrgen::communityText(c) + ",";
    p += "|";
    for (const auto& peer : a.peers) p += peer + ",";
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + ";";
  return out;
}

/// l2Announcement is what node announces for a Service whose Layer 2 election it won: the
/// ingress IPs and the union of the interface lists of the matching advertisements that select
/// node (nullopt when one of them lists none), as MetalLB's ipAdvertisementFor.
L2Announcement l2Announcement(const api::Service& svc,
                              const L2Decision& d,
                              const std::string& node) {
  L2Announcement out{svc.metadata.namespace_, svc.metadata.name, {}, std::set<std::string>()};
  for (const auto& i : svc.status.ingress) {
    if (auto ip = net::IpAddress::parse(i.ip)) out.ips.push_back(*ip);
  }
  for (const auto* ad : d.subject.ads) {
    if (!ad->nodes.contains(node)) continue;
    if (ad->interfaces.empty()) {
      out.interfaces.reset();
      break;
    }
    out.interfaces->insert(ad->interfaces.begin(), ad->interfaces.end());
  }
  return out;
}

std::string ingressIps(const api::Service& svc) {
  std::string out;
  for (const auto& i : svc.status.ingress) out += (out.empty() ? "" : ",") + i.ip;
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
                       k8s::ApiClient& api,
                       EventSink& events,
                       k8s::WorkQueue& queue,
                       Metrics& metrics,
                       log::Logger& logger,
                       ReconcilerOptions options,
                       Backends backends,
                       k8s::Clock& clock)
    : caches_(caches),
      api_(api),
      events_(events),
      queue_(queue),
      metrics_(metrics),
      log_(logger),
      options_(std::move(options)),
      backends_(std::move(backends)),
      clock_(clock),
      hold_down_(logger, metrics, options_.wall_clock) {}

ReconcileResult Reconciler::reconcile(const std::string& key) {
  if (key == keys::kConfig) return reconcileConfig();
  if (key == keys::kMembers) return reconcileMembers();
  if (key == keys::kSync) {
    ReconcileResult r = sync();
    metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
    return r;
  }
  if (key == keys::kStatus) {
    ReconcileResult r = syncBgpStatuses(decided_);
    metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
    return r;
  }
  for (const auto& backend : backends_) {
    if (key == backend->key()) {
      return applyBackend(*backend);
    }
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
  config::ParseOutcome parsed = config::parse(in, {options_.dialect, options_.namespace_});
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
    return ReconcileResult::done();  // the next change of an input re-triggers
  }
  metrics_.setConfigLoaded(true);
  metrics_.setConfigStale(false);
  if (!config_ || *config_ != *parsed.config) {
    log_.info("config", "reloaded", "configuration loaded",
              {log::num("pools", static_cast<long long>(parsed.config->pools.size())),
               log::num("peers", static_cast<long long>(parsed.config->peers.size()))});
  }
  config_ = parsed.config;
  l2_elector_.clear();  // its subjects point into the Config it replaces
  ReconcileResult r = sync();
  metrics_.countReconcile(ReconcileKind::Sync, !r.ok());
  if (!r.ok()) queue_.addRateLimited(std::string(keys::kSync));
  return ReconcileResult::done();
}

Reconciler::SlicesByService Reconciler::slicesByService() const {
  // Slices grouped by their Service: the decisions ignore other Services' slices anyway.
  SlicesByService slices;
  for (const auto& s : caches_.endpoint_slices.list()) {
    auto it = s->metadata.labels.find("kubernetes.io/service-name");
    if (it == s->metadata.labels.end()) continue;
    slices[s->metadata.namespace_ + "/" + it->second].push_back(*s);
  }
  return slices;
}

std::vector<Reconciler::Decided> Reconciler::decideAll(const std::vector<api::Service>& services,
                                                       const SlicesByService& slices) {
  const auto node = caches_.nodes.get(options_.node);
  static const std::vector<api::EndpointSlice> kNone;
  std::vector<Decided> out;
  out.reserve(services.size());
  for (const auto& svc : services) {
    auto it = slices.find(serviceKey(svc));
    out.push_back({&svc, decideBgp(*config_, options_.node, node.get(), svc,
                                   it == slices.end() ? kNone : it->second, options_.announce)});
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
  return l2Membership(nodes, live, options_.announce.ignore_exclude_lb);
}

std::vector<L2Announcement> Reconciler::decideLayer2(const std::vector<api::Service>& services,
                                                     const SlicesByService& slices) {
  std::vector<L2Announcement> won;
  if (options_.live_nodes != nullptr && !options_.live_nodes->joined()) {
    if (!std::exchange(l2_deferred_, true)) {
      log_.info("memberlist", "l2_deferred", "Layer 2 election waits for the memberlist join");
    }
    return won;  // nothing decided, nothing answered: the join's members key decides all
  }
  l2_deferred_ = false;
  l2_elector_.setMembership(l2MembershipNow());  // every Service is decided below anyway
  applyHoldDown();
  static const std::vector<api::EndpointSlice> kNone;
  std::map<std::string, L2Decision> previous = std::move(l2_decisions_);
  l2_decisions_.clear();
  for (const auto& svc : services) {
    const std::string key = serviceKey(svc);
    auto it = slices.find(key);
    L2Decision d =
        decideL2Cached(*config_, options_.node, svc, it == slices.end() ? kNone : it->second,
                       options_.announce, l2_elector_);
    ++l2_decisions_made_;
    previous.erase(key);
    if (!d.l2_pool) continue;
    noteLayer2(key, d);
    if (d.announced()) won.push_back(l2Announcement(svc, d, options_.node));
  }
  for (const auto& [key, gone] : previous) {  // deleted Services
    l2_elector_.removeService(key);
  }
  std::erase_if(l2_logged_, [this](const auto& e) { return !l2_decisions_.contains(e.first); });
  l2_won_.clear();
  for (const auto& a : won) l2_won_.emplace(a.key(), a);
  return won;
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
  Desired desired{config_, {}, {}};
  desired.l2.reserve(l2_won_.size());
  for (const auto& [key, a] : l2_won_) desired.l2.push_back(a);
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
  std::vector<api::Service> services = values(caches_.services);
  std::sort(services.begin(), services.end(), [](const api::Service& a, const api::Service& b) {
    return std::tie(a.metadata.namespace_, a.metadata.name) <
           std::tie(b.metadata.namespace_, b.metadata.name);
  });
  const SlicesByService slices = slicesByService();
  const std::vector<Decided> decided = decideAll(services, slices);
  std::vector<L2Announcement> l2 = decideLayer2(services, slices);
  std::vector<BgpDecision> plain;
  plain.reserve(decided.size());
  for (const auto& d : decided) plain.push_back(d.decision);
  const Desired desired{config_, collectAnnouncements(plain), std::move(l2)};
  for (const auto& backend : backends_) {
    if (auto delay = backend->update(desired)) {
      queue_.addAfter(std::string(backend->key()), *delay);
    }
  }
  reportAnnouncements(decided);
  // The status writes run under their own key, after the backends' keys queued above.
  decided_services_ = std::move(services);  // a move keeps the elements decided points to
  decided_ = decided;
  queue_.add(std::string(keys::kStatus));
  ready_.store(true);
  return ReconcileResult::done();
}

void Reconciler::reportAnnouncements(const std::vector<Decided>& decided) {
  std::map<std::string, std::string> next;
  std::vector<AnnouncedIp> gauge;
  for (const auto& d : decided) {
    const std::string key = serviceKey(*d.service);
    auto prev = announced_.find(key);
    if (!d.decision.announced()) {
      if (prev != announced_.end()) {
        log_.info("announce", "serviceWithdrawn", "withdrawn",
                  {{"service", key},
                   {"protocol", "bgp"},
                   {"reason", std::string(bgpSkipReason(*d.decision.skip))}});
      }
      continue;
    }
    std::string sig = signature(d.decision);
    for (const auto& i : d.service->status.ingress) gauge.push_back({key, i.ip});
    if (prev == announced_.end() || prev->second != sig) {
      log_.info("announce", "serviceAnnounced", "service has IP, announcing",
                {{"service", key}, {"protocol", "bgp"}, {"ips", ingressIps(*d.service)}});
      events_.record(serviceRef(*d.service), k8s::EventType::Normal, "nodeAssigned",
                     "announcing from node \"" + options_.node + "\" with protocol \"bgp\"");
    }
    next.emplace(key, std::move(sig));
  }
  std::set<std::string> present;
  for (const auto& d : decided) present.insert(serviceKey(*d.service));
  for (const auto& [key, sig] : announced_) {
    if (!present.contains(key)) {
      log_.info("announce", "serviceWithdrawn", "withdrawn",
                {{"service", key}, {"protocol", "bgp"}, {"reason", "serviceDeleted"}});
    }
  }
  announced_ = std::move(next);
  metrics_.setAnnounced(std::move(gauge));
}

std::map<std::string, std::vector<std::pair<std::string, api::ServiceBGPStatusStatus>>>
Reconciler::currentBgpStatuses() {
  std::map<std::string, api::ServiceBGPStatusStatus> by_name;
  for (const auto& s : caches_.bgp_statuses.list()) {
    auto node = s->metadata.labels.find(kNodeLabel);
    if (node == s->metadata.labels.end() || node->second != options_.node) continue;
    api::ServiceBGPStatusStatus st = s->status;
    // The labels identify the service even before the status was written.
    auto label = [&s](const char* key) {
      auto it = s->metadata.labels.find(key);
      return it == s->metadata.labels.end() ? std::string() : it->second;
    };
    st.service_name = label(kServiceNameLabel);
    st.service_namespace = label(kServiceNamespaceLabel);
    by_name[s->metadata.name] = std::move(st);
  }
  const auto now = clock_.now();
  for (auto it = status_writes_.begin(); it != status_writes_.end();) {
    auto cached = caches_.bgp_statuses.entry(k8s::objectKey(options_.namespace_, it->first));
    const bool caught_up = it->second.status ? cached.object != nullptr && !it->second.rv.empty() &&
                                                   cached.resource_version == it->second.rv
                                             : cached.object == nullptr;
    if (caught_up || now >= it->second.expires) {
      it = status_writes_.erase(it);
      continue;
    }
    if (it->second.status) {
      by_name[it->first] = *it->second.status;
    } else {
      by_name.erase(it->first);
    }
    ++it;
  }
  std::map<std::string, std::vector<std::pair<std::string, api::ServiceBGPStatusStatus>>> out;
  for (auto& [name, st] : by_name) {
    out[st.service_namespace + "/" + st.service_name].emplace_back(name, std::move(st));
  }
  return out;
}

ReconcileResult Reconciler::syncBgpStatuses(const std::vector<Decided>& decided) {
  auto current = currentBgpStatuses();
  Error first_error;
  size_t failures = 0;
  size_t writes = 0;
  // budget: false once this pass has written its share, or after one write as soon as another
  // key is ready (an apply must not wait for rate-limited status writes); the next pass continues.
  auto budget = [&] {
    return writes < std::max<size_t>(options_.status_writes_per_pass, 1) &&
           (writes == 0 || queue_.len() == 0);
  };
  auto check = [&](Result<void> r) {
    ++writes;
    if (r) return;
    if (failures++ == 0) first_error = r.error();
    log_.warn("bgp_status", "write_failed", r.error().message);
  };
  for (const auto& d : decided) {
    if (!budget()) break;
    if (!d.decision.announced() || d.decision.peers.empty()) continue;
    const auto& meta = d.service->metadata;
    const auto want = bgpStatus(options_.node, meta.namespace_, meta.name, d.decision.peers);
    auto it = current.find(serviceKey(*d.service));
    if (it == current.end()) {
      check(createBgpStatus(want));
      continue;
    }
    auto& have = it->second;  // sorted by object name; keep the first, drop duplicates
    if (have.front().second != want) check(patchBgpStatus(have.front().first, want));
    for (size_t i = 1; i < have.size(); ++i) check(removeBgpStatus(have[i].first));
    current.erase(it);
  }
  // What is left in current belongs to Services no longer announced here — unless the budget ran
  // out above, and then this loop does not start.
  for (const auto& [key, objects] : current) {
    if (!budget()) break;
    for (const auto& [name, st] : objects) check(removeBgpStatus(name));
  }
  if (!budget()) queue_.add(std::string(keys::kStatus));  // the rest in the next pass
  if (failures > 0) return ReconcileResult::retry(first_error);
  return ReconcileResult::done();
}

Result<void> Reconciler::createBgpStatus(const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto created = api_.create(k8s::resources::kServiceBgpStatuses, options_.namespace_,
                             bgpStatusObject(options_.namespace_, status, options_.owner));
  if (!created) {
    metrics_.countUpdateError();
    return created.error();
  }
  auto name = json::stringAt(*created, {"metadata", "name"});
  if (!name) return Error{ErrorCode::Internal, "created ServiceBGPStatus has no name"};
  const auto expires = clock_.now() + options_.overlay_ttl;
  // Until the status write lands the object exists with an empty status.
  status_writes_[*name] =
      Pending{bgpStatus(options_.node, status.service_namespace, status.service_name, {}),
              k8s::resourceVersionOf(*created), expires};
  log_.info("bgp_status", "created", "ServiceBGPStatus created",
            {{"name", *name}, {"service", status.service_namespace + "/" + status.service_name}});
  return patchBgpStatus(*name, status);
}

Result<void> Reconciler::patchBgpStatus(const std::string& name,
                                        const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kServiceBgpStatuses, options_.namespace_, name,
                            k8s::PatchType::Merge, bgpStatusPatch(status));
  if (!r) {
    metrics_.countUpdateError();
    if (r.error().code == ErrorCode::NotFound) status_writes_.erase(name);
    return r.error();
  }
  status_writes_[name] =
      Pending{status, k8s::resourceVersionOf(*r), clock_.now() + options_.overlay_ttl};
  return {};
}

Result<void> Reconciler::removeBgpStatus(const std::string& name) {
  metrics_.countUpdate();
  auto r = api_.remove(k8s::resources::kServiceBgpStatuses, options_.namespace_, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    metrics_.countUpdateError();
    return r.error();
  }
  status_writes_[name] = Pending{std::nullopt, "", clock_.now() + options_.overlay_ttl};
  log_.info("bgp_status", "deleted", "ServiceBGPStatus deleted", {{"name", name}});
  return {};
}

std::string Reconciler::now() const {
  return k8s::formatTimestamp(std::chrono::system_clock::now());
}

}  // namespace ingot::agent
