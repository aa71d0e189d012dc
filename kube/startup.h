// SPDX-License-Identifier: Apache-2.0
// Startup checks shared by the daemons (ingot-controller, ingot-agent): reach the API server once
// before anything else, so a wrong CA, a rejected token or an unreachable server ends the process
// at once with an error that says what to fix, instead of informers retrying quietly forever;
// and read the daemon's own pod to own the objects it creates.
#pragma once

#include <functional>
#include <string>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/clock.h"

namespace ingot::k8s {

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

/// podOwner reads the pod `pod_name` in ns and returns an ownerReference to it (controller
/// true), for the ConfigurationState. An empty pod_name yields an empty reference (no owner).
Result<api::OwnerReference> podOwner(ApiClient& api,
                                     const std::string& ns,
                                     const std::string& pod_name);

}  // namespace ingot::k8s
