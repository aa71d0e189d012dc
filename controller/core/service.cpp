// SPDX-License-Identifier: Apache-2.0
#include "controller/core/service.h"

#include <algorithm>
#include <utility>

#include "controller/core/go_format.h"
#include "controller/core/service_info.h"

namespace ingot::controller {
namespace {

using IpList = std::vector<net::IpAddress>;

bool isLoadBalancer(const api::Service& svc) {
  return svc.spec.type == "LoadBalancer";
}

bool hasClusterIp(const api::Service& svc) {
  return !svc.spec.cluster_ips.empty() || !svc.spec.cluster_ip.empty();
}

/// familyChanged: the addresses held no longer suit the clusterIPs (MetalLB's
/// serviceFamilyChanged). A PreferDualStack service with dual clusterIPs may hold one family.
bool familyChanged(const std::optional<ServiceFamily>& held,
                   ServiceFamily cluster,
                   FamilyPolicy policy) {
  if (!held) {
    return true;
  }
  if (*held == cluster) {
    return false;
  }
  return !(cluster == ServiceFamily::Dual && policy == FamilyPolicy::PreferDualStack);
}

bool sameAddresses(IpList a, IpList b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

IpList parseAll(const std::vector<std::string>& texts) {
  IpList ips;
  for (const auto& t : texts) {
    ips.push_back(*net::IpAddress::parse(t));  // callers checked familyOfAddresses first
  }
  return ips;
}

/// Converger runs MetalLB's convergeBalancer on a working copy of the status and annotations.
class Converger {
 public:
  Converger(Allocator& alloc, const config::Config& config, const api::Service& svc)
      : alloc_(alloc),
        config_(config),
        svc_(svc),
        req_(makeRequest(svc)),
        requested_(requestedIps(svc)),
        status_(svc.status),
        annotations_(svc.metadata.annotations) {}

  /// run converges; false when it stopped on an error (MetalLB's ErrConverge).
  bool run();

  std::vector<Event> takeEvents() { return std::move(events_); }
  const api::ServiceStatus& status() const { return status_; }
  const api::StringMap& annotations() const { return annotations_; }

 private:
  void event(EventType type, std::string reason, std::string message) {
    events_.push_back(Event{type, std::move(reason), std::move(message)});
  }
  void clear();
  bool preconditions();
  std::optional<IpList> heldAddresses(const Result<ServiceFamily>& cluster);
  bool wantsSecondFamily(const IpList& held, const Result<ServiceFamily>& cluster) const;
  bool keepHeld(IpList& held);
  void addSecondFamily(IpList& held);
  Result<IpList> allocateNew(const Result<ServiceFamily>& cluster);
  IpList statusOrder(IpList ips) const;
  bool finish(const IpList& ips);

  Allocator& alloc_;
  const config::Config& config_;
  const api::Service& svc_;
  ServiceRequest req_;
  const Result<RequestedIps> requested_;
  api::ServiceStatus status_;
  api::StringMap annotations_;
  std::vector<Event> events_;
};

void Converger::clear() {
  alloc_.unassign(req_.key);
  annotations_.erase(kAnnotationAllocatedFromPool);
  annotations_.erase(kLegacyAnnotationAllocatedFromPool);
  status_ = api::ServiceStatus{};
}

bool Converger::preconditions() {
  if (config_.pools.empty() || !hasClusterIp(svc_)) {
    clear();
    return false;
  }
  if (familyPolicy(svc_) == FamilyPolicy::RequireDualStack && svc_.spec.cluster_ips.size() < 2) {
    event(EventType::Warning, "not enough clusterips",
          "Service requires dual stack but not enough clusterips " + goList(svc_.spec.cluster_ips));
    clear();
    return false;
  }
  return true;
}

/// heldAddresses returns the status addresses worth re-assigning (empty once cleared), or
/// nullopt when convergence must stop.
std::optional<IpList> Converger::heldAddresses(const Result<ServiceFamily>& cluster) {
  const auto texts = statusIps(svc_);
  if (texts.empty()) {
    clear();
    return IpList{};
  }
  auto held = familyOfAddresses(texts);
  if (!held) {
    event(EventType::Warning, "nolbIPsIPFamily",
          "Failed to retrieve LBIPs IPFamily for " + goQuoteList(texts) + ": " +
              held.error().message);
  }
  if (!cluster) {
    event(EventType::Warning, "noclusterIPsIPFamily",
          "Failed to retrieve ClusterIPs IPFamily for " + goQuoteList(svc_.spec.cluster_ips) + " " +
              svc_.spec.cluster_ip + ": " + cluster.error().message);
    return std::nullopt;
  }
  std::optional<ServiceFamily> held_family;
  if (held) {
    held_family = *held;
  }
  if (familyChanged(held_family, *cluster, familyPolicy(svc_))) {
    clear();
    return IpList{};
  }
  return parseAll(texts);
}

bool Converger::keepHeld(IpList& held) {
  if (auto ok = alloc_.assign(req_, held); !ok) {
    event(EventType::Normal, "ClearAssignment",
          "current IP for " + goQuote(req_.key) +
              " not allowed by config, will attempt for new IP assignment: " + ok.error().message);
    clear();
    held.clear();
  }
  const std::string pool = annotationValue(svc_.metadata.annotations, kAnnotationAddressPool,
                                           kLegacyAnnotationAddressPool);
  if (!held.empty() && !pool.empty() && alloc_.poolOf(req_.key) != pool) {
    clear();
    held.clear();
  }
  if (!requested_) {
    event(EventType::Warning, "LoadBalancerFailed",
          "invalid requested loadbalancer IPs: " + requested_.error().message);
    return false;
  }
  if (!requested_->ips.empty() && !sameAddresses(held, requested_->ips)) {
    clear();
    held.clear();
  }
  return true;
}

void Converger::addSecondFamily(IpList& held) {
  auto added = alloc_.allocateAdditionalFamily(req_, held.front(), alloc_.poolOf(req_.key));
  if (!added) {
    event(EventType::Normal, "AdditionalAssignFailed",
          "cannot assign additional IP in PreferDualStack: " + added.error().message);
    return;
  }
  held.push_back(*added);
  event(EventType::Normal, "IPAllocated", "Assigned additional IP " + goQuote(added->toString()));
}

Result<IpList> Converger::allocateNew(const Result<ServiceFamily>& cluster) {
  if (!cluster) {
    return cluster.error();
  }
  if (!requested_) {
    return requested_.error();
  }
  const RequestedIps& requested = *requested_;
  const std::string pool = annotationValue(svc_.metadata.annotations, kAnnotationAddressPool,
                                           kLegacyAnnotationAddressPool);
  const FamilyRequest families = makeFamilyRequest(svc_, *cluster);
  if (requested.ips.empty()) {
    return pool.empty() ? alloc_.allocate(req_, families)
                        : alloc_.allocateFromPool(req_, families, pool);
  }
  const std::string quoted = goQuoteList(ipStrings(requested.ips));
  if (requested.family != *cluster) {
    return invalidArgument("requested loadBalancer IP(s) " + quoted +
                           " does not match the ipFamily of the service");
  }
  if (auto ok = alloc_.assign(req_, requested.ips); !ok) {
    return ok.error();
  }
  if (!pool.empty() && alloc_.poolOf(req_.key) != pool) {
    alloc_.unassign(req_.key);
    return invalidArgument("requested loadBalancer IP(s) " + quoted +
                           " is not compatible with requested address pool " + pool);
  }
  return requested.ips;
}

/// statusOrder is the order MetalLB's status settles on. It keeps the order the addresses came
/// in (a held status as found, an allocation IPv4 first, an added family after the held one),
/// except for a Service that requests its addresses: MetalLB compares held and requested
/// addresses by sorting both by their text, in place, so from its second pass on the status
/// lists them in ascending text order ("2001:db8::1" before "203.0.113.1", "10.0.0.1" before
/// "fd00::1"), whatever the annotation's order. Ingot writes that order at once.
IpList Converger::statusOrder(IpList ips) const {
  if (requested_ && !requested_->ips.empty()) {
    std::stable_sort(ips.begin(), ips.end(), [](const net::IpAddress& a, const net::IpAddress& b) {
      return a.toString() < b.toString();
    });
  }
  return ips;
}

bool Converger::finish(const IpList& ips) {
  const std::string pool = alloc_.poolOf(req_.key);
  if (pool.empty() || config_.pools.count(pool) == 0) {
    event(EventType::Warning, "InternalError", "allocated an IP that has no pool");
    clear();
    return false;
  }
  api::ServiceStatus status;
  for (const auto& ip : statusOrder(ips)) {
    api::LoadBalancerIngress ingress;
    ingress.ip = ip.toString();
    // Keep what the API server defaulted (ipMode) so an unchanged address is not rewritten.
    for (const auto& old : svc_.status.ingress) {
      if (old.ip == ingress.ip) {
        ingress.ip_mode = old.ip_mode;
      }
    }
    status.ingress.push_back(std::move(ingress));
  }
  status_ = std::move(status);
  annotations_[kAnnotationAllocatedFromPool] = pool;
  annotations_.erase(kLegacyAnnotationAllocatedFromPool);
  return true;
}

/// wantsSecondFamily: a PreferDualStack service holding one family tries to add the other. Ingot
/// does so only with dual-stack clusterIPs and no requested addresses; MetalLB also tries
/// otherwise, and then flaps (its next pass clears the extra family again).
bool Converger::wantsSecondFamily(const IpList& held, const Result<ServiceFamily>& cluster) const {
  if (held.size() != 1 || familyPolicy(svc_) != FamilyPolicy::PreferDualStack || !cluster ||
      *cluster != ServiceFamily::Dual) {
    return false;
  }
  return requested_ && requested_->ips.empty();
}

bool Converger::run() {
  if (!isLoadBalancer(svc_)) {
    clear();
    return true;
  }
  if (!preconditions()) {
    return false;
  }
  const auto cluster = clusterFamily(svc_);
  auto kept = heldAddresses(cluster);
  if (!kept || (!kept->empty() && !keepHeld(*kept))) {
    return false;
  }
  IpList held = std::move(*kept);
  if (wantsSecondFamily(held, cluster)) {
    addSecondFamily(held);
  }
  if (held.empty()) {
    auto fresh = allocateNew(cluster);
    if (!fresh) {
      event(EventType::Warning, "AllocationFailed",
            "Failed to allocate IP for " + goQuote(req_.key) + ": " + fresh.error().message);
      return false;
    }
    held = *fresh;
    event(EventType::Normal, "IPAllocated", "Assigned IP " + goQuoteList(ipStrings(held)));
  }
  return finish(held);
}

/// freedRoom reports whether a convergence released anything another service could use: an
/// address it no longer holds, or ports on an address it keeps. MetalLB only reprocesses when a
/// service ends up with no address at all, which leaves pending services waiting after a move.
/// Addresses that left every pool free nothing (the pool change already triggers a pass).
bool freedRoom(const Allocator& allocator,
               const std::optional<Allocation>& before,
               const std::optional<Allocation>& after) {
  if (!before) {
    return false;
  }
  for (const auto& ip : before->ips) {
    const bool kept =
        after && std::find(after->ips.begin(), after->ips.end(), ip) != after->ips.end();
    if (!kept && !allocator.poolFor({ip}).empty()) {
      return true;
    }
  }
  if (!after) {
    return false;
  }
  for (const auto& port : before->ports) {
    if (std::find(after->ports.begin(), after->ports.end(), port) == after->ports.end()) {
      return true;
    }
  }
  return false;
}

void diffAnnotations(const api::StringMap& before,
                     const api::StringMap& after,
                     ServiceOutcome& out) {
  for (const auto& [k, v] : after) {
    auto it = before.find(k);
    if (it == before.end() || it->second != v) {
      out.set_annotations.emplace(k, v);
    }
  }
  for (const auto& [k, v] : before) {
    if (after.count(k) == 0) {
      out.remove_annotations.push_back(k);
    }
  }
}

/// fillWrite completes an outcome from the desired status and annotations: what to write, the
/// deprecatedAnnotation warnings (MetalLB emits them only when it writes), ips and pool.
void fillWrite(const api::Service& svc, const api::StringMap& annotations, ServiceOutcome& out) {
  diffAnnotations(svc.metadata.annotations, annotations, out);
  out.write = out.status != svc.status || annotations != svc.metadata.annotations;
  if (out.write) {
    for (const auto& [k, v] : svc.metadata.annotations) {
      if (k.rfind(kLegacyPrefix, 0) == 0) {
        out.events.push_back({EventType::Warning, "deprecatedAnnotation",
                              "Service uses deprecated annotation " + k});
      }
    }
  }
  for (const auto& ingress : out.status.ingress) {
    out.ips.push_back(ingress.ip);
  }
  if (auto it = annotations.find(kAnnotationAllocatedFromPool); it != annotations.end()) {
    out.pool = it->second;
  }
}

}  // namespace

std::string_view eventTypeName(EventType t) {
  return t == EventType::Warning ? "Warning" : "Normal";
}

bool handlesClass(const api::Service& svc, const Options& options) {
  const auto& cls = svc.spec.load_balancer_class;
  return cls ? *cls == options.lb_class : options.lb_class.empty();
}

std::optional<std::vector<net::IpAddress>> currentAddresses(const api::Service& svc,
                                                            const config::Config& config,
                                                            const Options& options) {
  if (!handlesClass(svc, options) || !isLoadBalancer(svc) || config.pools.empty() ||
      !hasClusterIp(svc)) {
    return std::nullopt;
  }
  const FamilyPolicy policy = familyPolicy(svc);
  if (policy == FamilyPolicy::RequireDualStack && svc.spec.cluster_ips.size() < 2) {
    return std::nullopt;
  }
  const auto texts = statusIps(svc);
  const auto held =
      texts.empty() ? Result<ServiceFamily>(invalidArgument("none")) : familyOfAddresses(texts);
  const auto cluster = clusterFamily(svc);
  if (!held || !cluster || familyChanged(*held, *cluster, policy)) {
    return std::nullopt;
  }
  return parseAll(texts);
}

ServiceOutcome convergeService(Allocator& allocator,
                               const config::Config& config,
                               const api::Service& svc,
                               const Options& options) {
  ServiceOutcome out;
  out.namespace_ = svc.metadata.namespace_;
  out.name = svc.metadata.name;
  out.load_balancer = isLoadBalancer(svc);
  const std::string key = serviceKey(svc);
  if (!handlesClass(svc, options)) {
    // Not ours: leave the Service alone, but forget any address the allocator still holds for
    // it, as a restart would.
    out.ignored = true;
    out.reprocess_all = allocator.unassign(key);
    return out;
  }
  const std::optional<Allocation> before = allocator.find(key);
  const AllocationKey prev_key = allocator.allocationKey(key);

  Converger converger(allocator, config, svc);
  out.converged = converger.run();
  out.events = converger.takeEvents();
  out.status = converger.status();
  out.status.conditions = svc.status.conditions;  // not the allocator's: written elsewhere
  fillWrite(svc, converger.annotations(), out);
  out.reprocess_all =
      prev_key != allocator.allocationKey(key) || freedRoom(allocator, before, allocator.find(key));
  return out;
}

bool releaseService(Allocator& allocator, const std::string& service_key) {
  return allocator.unassign(service_key);
}

}  // namespace ingot::controller
