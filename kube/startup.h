// SPDX-License-Identifier: Apache-2.0
// Startup checks shared by the daemons (ingot-controller, ingot-agent): reach the API server once
// before anything else, so a wrong CA, a rejected token or an unreachable server ends the process
// at once with an error that says what to fix, instead of informers retrying quietly forever;
// and read the daemon's own pod to own the objects it creates.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/instrumented_client.h"
#include "kube/rest_client.h"

namespace ingot::k8s {

/// Clients are a daemon's REST clients: one for informers and writes, one for Events (its own
/// rate limit, so Events never delay the writes), both counted by the daemon's metrics.
struct Clients {
  ApiClientPtr main_rest;
  ApiClientPtr events_rest;
  std::unique_ptr<InstrumentedClient> main;
  std::unique_ptr<InstrumentedClient> events;
  std::string server;
};

/// connect loads the client configuration (--kubeconfig / --context, KUBECONFIG, in-cluster),
/// logs its warnings and source, and builds both clients with `options` (QPS, burst, user agent);
/// their retries are counted in counter.countRetry unless options.on_retry is set.
/// Errors say which step failed ("load API client configuration: ...").
Result<Clients> connect(const std::string& kubeconfig,
                        const std::string& context,
                        const RestOptions& options,
                        RequestCounter& counter,
                        log::Logger& logger);

/// PreflightOptions bound the connection check.
struct PreflightOptions {
  /// component names the daemon in advice ("check the <component>'s RBAC").
  std::string component = "daemon";
  int attempts = 5;  ///< tries for a server that is unreachable (connection refused, timeout)
  Duration retry_delay = std::chrono::seconds(1);
  std::function<void(Duration)> sleep;  ///< empty = real sleep
};

/// preflight lists the MetalLB namespace (fieldSelector metadata.name=ns). Credentials (401,
/// 403) and TLS failures fail at once, other connection failures after `attempts` tries; the
/// error names the server and what to check. A missing namespace is not an error: it is logged
/// as a warning (the informers then see no pools until it exists).
Result<void> preflight(ApiClient& api,
                       const std::string& server,
                       const std::string& ns,
                       log::Logger& logger,
                       const PreflightOptions& options = {});

/// OwnerTarget names the object an ownerReference points at.
struct OwnerTarget {
  const ResourceRef& resource;  ///< where to read it
  std::string api_version;      ///< ownerReference apiVersion ("v1", "apps/v1")
  std::string kind;             ///< ownerReference kind ("Pod", "Deployment")
  std::string label;            ///< how errors name it ("pod", "Deployment")
};

/// objectOwner reads ns/name of target.resource and returns an ownerReference to it (its uid).
/// Errors read "read <label> ns/name: …" or "<label> ns/name has no metadata.uid".
Result<api::OwnerReference> objectOwner(ApiClient& api,
                                        const OwnerTarget& target,
                                        const std::string& ns,
                                        const std::string& name);

/// podOwner reads the pod `pod_name` in ns and returns an ownerReference to it (controller
/// true), for the ConfigurationState. An empty pod_name yields an empty reference (no owner).
Result<api::OwnerReference> podOwner(ApiClient& api,
                                     const std::string& ns,
                                     const std::string& pod_name);

}  // namespace ingot::k8s
