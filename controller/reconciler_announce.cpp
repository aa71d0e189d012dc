// SPDX-License-Identifier: Apache-2.0
// The unannounced check (docs/diagnostics.md): for each Service with an address, compare what
// the agents report (ServiceL2Status, ServiceBGPStatus) with what their own decisions say
// (agent::serviceVerdicts on the controller's caches), and once nobody has announced the address
// for the grace period, say why per node: a Warning Event, the condition ingot.dev/Announced
// False on the Service, and the gauge ingot_services_unannounced. The condition goes through the
// Service status write path (services/status merge patch, write overlay).
#include "config/scope.h"
#include "controller/reconciler.h"
#include "controller/status_writes.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

using k8s::values;
using TruthIndex = std::map<std::string, AnnounceTruth>;

k8s::ObjectReference refOf(const api::Service& svc) {
  return k8s::referenceTo("Service", svc);
}

std::string joinedIps(const api::Service& svc) {
  std::string out;
  for (const auto& i : svc.status.ingress) out += (out.empty() ? "" : ",") + i.ip;
  return out;
}

/// truthIndex collects, per Service key, the nodes whose agents report announcing it: one scan
/// of both status caches, for a pass over every Service.
TruthIndex truthIndex(const AnnounceCaches& c) {
  TruthIndex index;
  for (const auto& s : c.l2_statuses.list()) {
    index[l2StatusServiceKey(*s)].l2.insert(s->status.node);
  }
  for (const auto& s : c.bgp_statuses.list()) {
    index[bgpStatusServiceKey(*s)].bgp.insert(s->status.node);
  }
  index.erase("");
  return index;
}

/// truthOf is the nodes whose agents report announcing the Service of key, from the caches'
/// indexes: a lookup, no scan.
AnnounceTruth truthOf(const AnnounceCaches& c, const std::string& key) {
  AnnounceTruth truth;
  for (const auto& s : c.l2_statuses.byIndex(key)) {
    truth.l2.insert(s->status.node);
  }
  for (const auto& s : c.bgp_statuses.byIndex(key)) {
    truth.bgp.insert(s->status.node);
  }
  return truth;
}

/// slicesOf is the Service's own EndpointSlices (the decisions take them by value), found
/// through the cache's index.
std::vector<api::EndpointSlice> slicesOf(const AnnounceCaches& c, const std::string& key) {
  std::vector<api::EndpointSlice> out;
  for (const auto& s : c.slices.byIndex(key)) {
    out.push_back(*s);
  }
  return out;
}

}  // namespace

void Reconciler::parseAnnounceConfig() {
  const AnnounceCaches& c = *caches_.announce;
  config::Inputs in;
  in.pools = values(caches_.pools);
  in.communities = values(caches_.communities);
  in.namespaces = values(caches_.namespaces);
  in.l2_advertisements = values(c.l2_ads);
  in.bgp_advertisements = values(c.bgp_ads);
  in.nodes = values(c.nodes);
  // Which node announces what reads neither BGP passwords nor BFD settings: the controller
  // reads no Secrets and no BFDProfiles, so it drops both references before parsing.
  in.peers = values(c.peers);
  for (auto& p : in.peers) {
    p.spec.password_secret.reset();
    p.spec.bfd_profile.clear();
  }
  // Each agent parses only the peers and advertisements that select its node (MetalLB's speaker
  // filter), so the check parses per group of nodes alike and counts an object announced only
  // from the nodes that accepted it.
  const config::ParseOptions options{options_.backend, options_.namespace_};
  if (in.nodes.empty()) {
    auto parsed = config::parse(in, options);
    if (!parsed.errors.empty()) {
      log_.warn("announce", "config_invalid",
                "configuration rejected; the unannounced check keeps the last good one",
                {{"first", config::formatConfigError(parsed.errors.front())}});
      return;
    }
    announce_config_ = parsed.config;
    return;
  }
  const auto groups = config::parsePerNode(in, options);
  for (const auto& g : groups) {
    if (!g.outcome.errors.empty()) {
      log_.warn("announce", "config_invalid_on_nodes",
                "some agents reject the configuration; they count as announcing nothing",
                {{"first", config::formatConfigError(g.outcome.errors.front())},
                 log::num("nodes", static_cast<long long>(g.nodes.size())),
                 {"node", g.nodes.front()}});
    }
  }
  auto combined = config::combine(groups);
  if (!combined) {
    log_.warn(
        "announce", "config_invalid",
        "configuration rejected on every node; the unannounced check keeps the last good one");
    return;
  }
  announce_config_ = std::move(combined);
}

std::set<std::string> Reconciler::deadAgents(const std::vector<api::Node>& nodes) const {
  const auto pods = caches_.announce->agent_pods.list();
  std::set<std::string> dead;
  if (pods.empty()) return dead;  // no agent Pods found: liveness unknown, every node counts
  std::set<std::string> ready;
  for (const auto& p : pods) {
    if (p->ready && !p->metadata.deletion_timestamp) ready.insert(p->node_name);
  }
  for (const auto& n : nodes) {
    if (!ready.contains(n.metadata.name)) dead.insert(n.metadata.name);
  }
  return dead;
}

Reconciler::AnnounceInputs Reconciler::announceInputs(bool with_truths) const {
  AnnounceInputs in;
  in.nodes = values(caches_.announce->nodes);
  in.dead = deadAgents(in.nodes);
  if (with_truths) {
    in.truths = truthIndex(*caches_.announce);
  }
  return in;
}

AnnounceFinding Reconciler::announceFinding(const api::Service& svc, const AnnounceInputs* pass) {
  AnnounceFinding f;
  if (svc.status.ingress.empty() || !handlesClass(svc, options_.service)) return f;
  const AnnounceCaches& c = *caches_.announce;
  const std::string key = k8s::objectKey(svc.metadata.namespace_, svc.metadata.name);
  AnnounceTruth truth;
  if (pass == nullptr) {
    truth = truthOf(c, key);
  } else if (const auto it = pass->truths.find(key); it != pass->truths.end()) {
    truth = it->second;
  }
  if (!truth.empty()) {
    f.state = AnnounceState::Announced;
    return f;
  }
  const AnnounceInputs own = pass == nullptr ? announceInputs(false) : AnnounceInputs{};
  const AnnounceInputs& in = pass == nullptr ? own : *pass;
  const std::vector<api::EndpointSlice> slices = slicesOf(c, key);
  agent::AnnounceOptions options;
  options.lb_class = options_.service.lb_class;
  const auto verdicts =
      agent::serviceVerdicts({announce_config_.get(), &in.nodes, &slices, &svc, options, in.dead});
  return findUnannounced(svc, verdicts, truth);
}

ReconcileResult Reconciler::reconcileAnnounce(const std::string& key) {
  if (caches_.announce == nullptr || !initial_done_.load()) return ReconcileResult::done();
  if (key != keys::kAnnounceAll) {
    if (!announce_config_) parseAnnounceConfig();
    return checkAnnounce(key, nullptr);
  }
  parseAnnounceConfig();
  // Every Service is checked in turn; one that needs another look is requeued on its own key.
  const AnnounceInputs in = announceInputs(true);
  for (const auto& k : caches_.services.keys()) {
    const ReconcileResult r = checkAnnounce(k, &in);
    if (r.kind == ReconcileResult::Kind::RequeueAfter) {
      queue_.addAfter(keys::announce(k), r.delay);
    } else if (!r.ok()) {
      queue_.addRateLimited(keys::announce(k));
    }
  }
  return ReconcileResult::done();
}

ReconcileResult Reconciler::checkAnnounce(const std::string& key, const AnnounceInputs* pass) {
  const std::optional<api::Service> svc = view(key);
  if (!svc || !announce_config_) {
    unannounced_.forget(key);
    metrics_.setUnannounced(unannounced_.reported());
    return ReconcileResult::done();
  }
  const AnnounceFinding finding = announceFinding(*svc, pass);
  const api::Condition* current = announcedCondition(*svc);
  // A condition written before a restart still stands: no second grace period for it.
  const bool standing = current != nullptr && current->status == "False";
  // A report is cleared by an agent's report, not by the decision alone: while the decision
  // expects a node to announce but none reports it yet, a standing report stays.
  if (standing && finding.state == AnnounceState::Expected) return ReconcileResult::done();
  const auto step = unannounced_.observe(key, finding, joinedIps(*svc), clock_.now(), standing);
  metrics_.setUnannounced(unannounced_.reported());
  std::optional<api::Condition> desired;
  if (step.report) {
    desired = api::Condition{kAnnouncedCondition, "False", kNotAnnouncedReason,
                             finding.message,     now(),   svc->metadata.generation};
  }
  const bool same =
      desired ? (standing && current->message == desired->message) : current == nullptr;
  ReconcileResult r = same ? ReconcileResult::done() : writeAnnounced(*svc, desired, finding);
  if (r.ok() && step.recheck_after) {
    return ReconcileResult::requeueAfter(*step.recheck_after);
  }
  return r;
}

ReconcileResult Reconciler::writeAnnounced(const api::Service& svc,
                                           const std::optional<api::Condition>& desired,
                                           const AnnounceFinding& finding) {
  const std::string key = k8s::objectKey(svc.metadata.namespace_, svc.metadata.name);
  api::ServiceStatus status = svc.status;
  status.conditions = conditionsWith(svc.status.conditions, desired);
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kServices, svc.metadata.namespace_, svc.metadata.name,
                            k8s::PatchType::Merge, conditionsPatch(status.conditions));
  if (!r) {
    if (r.error().code == ErrorCode::NotFound) return ReconcileResult::done();
    metrics_.countUpdateError();
    log_.warn("announce", "write_failed", r.error().message, {{"key", key}});
    return ReconcileResult::retry(r.error());
  }
  // Keep what a pending address write set in the overlay; only the conditions are new.
  ServiceWritten written{status, {}, {}};
  if (const auto cached = caches_.services.get(key)) {
    if (const auto* prev =
            service_writes_.written(key, cached->metadata.resource_version, clock_.now())) {
      written.set_annotations = prev->set_annotations;
      written.remove_annotations = prev->remove_annotations;
    }
  }
  service_writes_.record(key, std::move(written), k8s::resourceVersionOf(*r), clock_.now());
  if (desired) {
    log_.warn("announce", "unannounced", desired->message, {{"key", key}});
    events_.record(refOf(svc), k8s::EventType::Warning, "NotAnnounced", desired->message);
  } else if (finding.state == AnnounceState::Announced) {
    log_.info("announce", "announced", "address announced again", {{"key", key}});
    events_.record(refOf(svc), k8s::EventType::Normal, "Announced",
                   joinedIps(svc) + " is announced again");
  }
  return ReconcileResult::done();
}

void Reconciler::dropStaleCondition(const api::Service& svc, ServiceOutcome& out) {
  if (announcedCondition(svc) == nullptr || out.status.ingress == svc.status.ingress) return;
  out.status.conditions = conditionsWith(svc.status.conditions, std::nullopt);
  out.write_conditions = true;
}

}  // namespace ingot::controller
