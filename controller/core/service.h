// SPDX-License-Identifier: Apache-2.0
// Service convergence: one Service + the Config + the allocator -> the desired
// status.loadBalancer.ingress, the metallb.io/ip-allocated-from-pool annotation and the Events,
// with MetalLB's order of checks, reasons and messages (its controller/service.go).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/net/ip.h"
#include "config/config.h"
#include "controller/core/allocator.h"

namespace ingot::controller {

/// Options are the controller flags that change which services are handled.
struct Options {
  /// lb_class is --lb-class: "" handles only services without spec.loadBalancerClass; "X"
  /// handles only services whose class is exactly X.
  std::string lb_class;
};

enum class EventType { Normal, Warning };

/// eventTypeName returns "Normal" or "Warning" (the Kubernetes Event type).
std::string_view eventTypeName(EventType t);

/// Event is one Kubernetes Event the controller emits on the Service (source
/// "metallb-controller"), with MetalLB's reason and message.
struct Event {
  EventType type = EventType::Normal;
  std::string reason;
  std::string message;
  friend bool operator==(const Event&, const Event&) = default;
};

/// ServiceOutcome is the result of converging one Service. The caller writes `status` and the
/// annotation changes through the services/status subresource when `write` is set, emits
/// `events`, and reprocesses every service when `reprocess_all` is set (MetalLB's reprocess-all).
struct ServiceOutcome {
  std::string namespace_;
  std::string name;
  bool ignored = false;          ///< spec.loadBalancerClass is not ours: never touched
  bool load_balancer = false;    ///< spec.type is LoadBalancer
  bool converged = true;         ///< false when convergence stopped on an error (no retry)
  std::vector<std::string> ips;  ///< desired ingress addresses, MetalLB's status order
  std::string pool;              ///< desired ip-allocated-from-pool ("" = none)
  api::ServiceStatus status;     ///< desired status
  std::map<std::string, std::string> set_annotations;  ///< annotations to add or change
  std::vector<std::string> remove_annotations;         ///< annotations to delete
  bool write = false;  ///< status or annotations differ from the Service as given
  /// write_conditions: the write also replaces status.conditions (with status.conditions)
  bool write_conditions = false;
  std::vector<Event> events;
  bool reprocess_all = false;  ///< freed room or changed sharing: other services may now fit
};

/// handlesClass applies the --lb-class filter to svc.
bool handlesClass(const api::Service& svc, const Options& options);

/// currentAddresses returns the addresses of svc's status that convergence will try to keep
/// (re-assign), or nullopt when it would clear them first (not a handled LoadBalancer, no pools,
/// no clusterIP, unparsable or wrong-family status). Used to claim addresses before a full pass.
std::optional<std::vector<net::IpAddress>> currentAddresses(const api::Service& svc,
                                                            const config::Config& config,
                                                            const Options& options);

/// convergeService converges svc: re-assigns the addresses it holds if still allowed, else
/// clears them; honours requested pool and addresses; upgrades PreferDualStack services to two
/// families; allocates when it holds none. Mutates only `allocator`. The status lists the
/// addresses in MetalLB's order, on whose first address the agents elect the Layer 2 owner: a
/// held status keeps its order, a new allocation is IPv4 first, an added family comes after the
/// held one, and requested addresses are in ascending text order.
ServiceOutcome convergeService(Allocator& allocator,
                               const config::Config& config,
                               const api::Service& svc,
                               const Options& options);

/// releaseService handles a deleted Service: frees its addresses. Returns true when it held any
/// (MetalLB then reprocesses every service: pending ones may now fit).
bool releaseService(Allocator& allocator, const std::string& service_key);

}  // namespace ingot::controller
