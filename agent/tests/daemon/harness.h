// SPDX-License-Identifier: Apache-2.0
// A Reconciler over hand-filled stores, kube's FakeApiClient and a FakeClock: keys are processed
// by hand (drain), so the debounce is observed by advancing the clock, never by sleeping.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "agent/reconcile/reconciler.h"
#include "api/object.h"
#include "frr/port.h"
#include "kube/tests/fake_api_client.h"
#include "kube/tests/fake_clock.h"

namespace ingot::agent::testing {

/// contains says whether part occurs in text.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// World holds one store per kind the reconciler reads.
struct World {
  k8s::Store<api::Service> services;
  k8s::Store<api::EndpointSlice> endpoint_slices{sliceService};
  k8s::Store<api::Node> nodes;
  k8s::Store<api::Namespace> namespaces;
  k8s::Store<api::IPAddressPool> pools;
  k8s::Store<api::BGPPeer> peers;
  k8s::Store<api::BGPAdvertisement> bgp_advertisements;
  k8s::Store<api::L2Advertisement> l2_advertisements;
  k8s::Store<api::BFDProfile> bfd_profiles;
  k8s::Store<api::Community> communities;
  k8s::Store<api::Secret> secrets;
  k8s::Store<api::FRRConfiguration> frr_configurations;
  k8s::Store<api::ServiceBGPStatus> bgp_statuses{statusService};
  k8s::Store<api::ConfigurationState> states;
  k8s::Store<api::ServiceL2Status> l2_statuses;

  Caches caches() {
    return Caches{services,
                  endpoint_slices,
                  nodes,
                  namespaces,
                  pools,
                  peers,
                  bgp_advertisements,
                  l2_advertisements,
                  bfd_profiles,
                  communities,
                  secrets,
                  frr_configurations,
                  bgp_statuses,
                  states,
                  l2_statuses};
  }

  template <typename T>
  static void upsert(k8s::Store<T>& store, const T& obj, const std::string& rv = "1") {
    store.upsert(k8s::objectKey(obj.metadata.namespace_, obj.metadata.name),
                 {std::make_shared<const T>(obj), rv});
  }

  /// put stores any object of a kind the reconciler reads (others are ignored); false if ignored.
  bool put(const api::AnyObject& any) {
    return std::visit(
        [this](const auto& o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, api::Service>) {
            return upsert(services, o), true;
          } else if constexpr (std::is_same_v<T, api::EndpointSlice>) {
            return upsert(endpoint_slices, o), true;
          } else if constexpr (std::is_same_v<T, api::Node>) {
            return upsert(nodes, o), true;
          } else if constexpr (std::is_same_v<T, api::Namespace>) {
            return upsert(namespaces, o), true;
          } else if constexpr (std::is_same_v<T, api::IPAddressPool>) {
            return upsert(pools, o), true;
          } else if constexpr (std::is_same_v<T, api::BGPPeer>) {
            return upsert(peers, o), true;
          } else if constexpr (std::is_same_v<T, api::BGPAdvertisement>) {
            return upsert(bgp_advertisements, o), true;
          } else if constexpr (std::is_same_v<T, api::L2Advertisement>) {
            return upsert(l2_advertisements, o), true;
          } else if constexpr (std::is_same_v<T, api::BFDProfile>) {
            return upsert(bfd_profiles, o), true;
          } else if constexpr (std::is_same_v<T, api::Community>) {
            return upsert(communities, o), true;
          } else if constexpr (std::is_same_v<T, api::Secret>) {
            return upsert(secrets, o), true;
          } else {
            return false;
          }
        },
        any);
  }
};

/// RecordedEvent is one Event the reconciler emitted.
struct RecordedEvent {
  k8s::ObjectReference object;
  k8s::EventType type;
  std::string reason;
  std::string message;
};

class RecordingSink final : public EventSink {
 public:
  void record(const k8s::ObjectReference& object,
              k8s::EventType type,
              std::string_view reason,
              std::string_view message) override {
    events.push_back({object, type, std::string(reason), std::string(message)});
  }
  std::vector<RecordedEvent> events;
};

/// HookClock is a FakeClock that runs on_now once, the next time it is read: a test lands a cache
/// change exactly between two reads of one reconcile (the reconciler reads the clock in between).
class HookClock final : public k8s::Clock {
 public:
  k8s::TimePoint now() const override {
    if (auto hook = std::exchange(on_now, nullptr)) {
      hook();
    }
    return inner_.now();
  }
  void advance(k8s::Duration d) { inner_.advance(d); }
  mutable std::function<void()> on_now;  ///< single-threaded use only

 private:
  k8s::testing::FakeClock inner_;
};

/// NamingClient forwards to the fake and, like the API server, gives created status objects
/// (ServiceBGPStatus, ServiceL2Status) a resourceVersion ("c1", "c2", ...) and answers their
/// status patches with a new one.
class NamingClient final : public k8s::ApiClient {
 public:
  explicit NamingClient(k8s::testing::FakeApiClient& inner) : inner_(inner) {}
  Result<std::string> get(const k8s::ResourceRef& r,
                          std::string_view ns,
                          std::string_view n) override {
    return inner_.get(r, ns, n);
  }
  Result<k8s::ListPage> list(const k8s::ResourceRef& r,
                             std::string_view ns,
                             const k8s::ListOptions& o) override {
    return inner_.list(r, ns, o);
  }
  k8s::WatchOutcome watch(const k8s::ResourceRef& r,
                          std::string_view ns,
                          const k8s::WatchOptions& o,
                          const k8s::WatchHandler& h,
                          std::stop_token s) override {
    return inner_.watch(r, ns, o, h, s);
  }
  Result<std::string> create(const k8s::ResourceRef& r,
                             std::string_view ns,
                             std::string_view body) override {
    auto out = inner_.create(r, ns, body);
    if (!out) return out;
    if (out->find(R"("kind":"ServiceBGPStatus")") != std::string::npos ||
        out->find(R"("kind":"ServiceL2Status")") != std::string::npos) {
      if (!status_create_errors.empty()) {
        Error e = std::move(status_create_errors.front());  // the write is recorded all the same
        status_create_errors.pop_front();
        return e;
      }
      if (auto at = out->find(R"("metadata":{)"); at != std::string::npos) {
        const std::string n = std::to_string(++named_);
        out->insert(at + 12, R"("resourceVersion":"c)" + n + "\",");
      }
    }
    return out;
  }
  Result<std::string> update(const k8s::ResourceRef& r,
                             std::string_view ns,
                             std::string_view n,
                             std::string_view b) override {
    return inner_.update(r, ns, n, b);
  }
  Result<std::string> patch(const k8s::ResourceRef& r,
                            std::string_view ns,
                            std::string_view n,
                            k8s::PatchType t,
                            std::string_view b) override {
    return inner_.patch(r, ns, n, t, b);
  }
  Result<std::string> updateStatus(const k8s::ResourceRef& r,
                                   std::string_view ns,
                                   std::string_view n,
                                   std::string_view b) override {
    return inner_.updateStatus(r, ns, n, b);
  }
  Result<std::string> patchStatus(const k8s::ResourceRef& r,
                                  std::string_view ns,
                                  std::string_view n,
                                  k8s::PatchType t,
                                  std::string_view b) override {
    auto out = inner_.patchStatus(r, ns, n, t, b);
    if (out && out->starts_with("{") && n.starts_with("bgp-")) {
      // Like the API server, answer with the object's new resourceVersion.
      const std::string rv = "p" + std::to_string(++patched_);
      rvs[std::string(n)] = rv;
      out->insert(
          1, R"("metadata":{"name":")" + std::string(n) + R"(","resourceVersion":")" + rv + "\"},");
    }
    return out;
  }
  Result<void> remove(const k8s::ResourceRef& r, std::string_view ns, std::string_view n) override {
    return inner_.remove(r, ns, n);
  }

  /// status_create_errors answer the next creates of status objects, one each, after the fake
  /// recorded them (e.g. a 504 on a create that committed, then AlreadyExists).
  std::deque<Error> status_create_errors;
  /// rvs holds the resourceVersion the last status patch of each ServiceBGPStatus answered.
  std::map<std::string, std::string> rvs;

 private:
  k8s::testing::FakeApiClient& inner_;
  int named_ = 0;
  int patched_ = 0;
};

/// Harness is one reconciler with its fakes: an FrrK8sBackend, or a LocalFrrBackend applying
/// through frr when frr is given, or the BGP backend `bgp` builds when given.
struct Harness {
  /// ExtraBackend builds a backend registered after the BGP one (e.g. to observe Desired).
  using ExtraBackend = std::function<std::unique_ptr<Backend>(const BackendContext&)>;

  explicit Harness(ReconcilerOptions options,
                   frr::FrrPort* frr = nullptr,
                   const ExtraBackend& extra = nullptr,
                   const ExtraBackend& bgp = nullptr)
      : client(api),
        queue(k8s::WorkQueueOptions{}, clock),
        metrics(options.node),
        logger(log::Level::Debug, [this](std::string_view line) { logs.emplace_back(line); }),
        reconciler(world.caches(),
                   k8s::ReconcileIo{client, events, queue, logger, clock},
                   metrics,
                   options,
                   backends(options, frr, extra, bgp)) {}

  Backends backends(const ReconcilerOptions& options,
                    frr::FrrPort* frr,
                    const ExtraBackend& extra,
                    const ExtraBackend& bgp) {
    const BackendContext context{world.caches(),          client, events, queue, metrics, logger,
                                 backendOptions(options), clock};
    Backends out;
    if (bgp) {
      out.push_back(bgp(context));
    } else if (frr != nullptr) {
      out.push_back(std::make_unique<LocalFrrBackend>(context, *frr));
    } else {
      out.push_back(std::make_unique<FrrK8sBackend>(context));
    }
    if (extra) {
      out.push_back(extra(context));
    }
    return out;
  }

  /// desired returns the FRRConfiguration the BGP backend built last.
  const std::optional<api::FRRConfiguration>& desired() const {
    return dynamic_cast<const BgpBackend&>(*reconciler.backends().front()).desired();
  }

  /// drain reconciles every key ready now (delayed ones wait for the clock); returns the keys.
  std::vector<std::string> drain() {
    std::vector<std::string> seen;
    while (auto key = queue.tryGet()) {
      seen.push_back(*key);
      last = reconciler.reconcile(*key);
      results[*key] = last;
      queue.done(*key);
    }
    return seen;
  }

  /// writes returns the fake client's writes with the given verb.
  std::vector<k8s::testing::Write> writes(const std::string& verb) const {
    std::vector<k8s::testing::Write> out;
    for (auto& w : api.writes()) {
      if (w.verb == verb) out.push_back(w);
    }
    return out;
  }

  World world;
  k8s::testing::FakeApiClient api;
  NamingClient client;
  HookClock clock;
  k8s::WorkQueue queue;
  Metrics metrics;
  std::vector<std::string> logs;
  log::Logger logger;
  RecordingSink events;
  Reconciler reconciler;
  ReconcileResult last;
  std::map<std::string, ReconcileResult> results;  ///< the last result per key
};

}  // namespace ingot::agent::testing
