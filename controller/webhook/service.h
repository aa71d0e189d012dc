// SPDX-License-Identifier: Apache-2.0
// The webhooks as a service: the HTTP handler behind WebhookServer (AdmissionReview on MetalLB's
// six validation paths, ConversionReview on /convert), the live API listing of the existing
// objects a check needs (as MetalLB's webhooks read them with an uncached reader), and the
// webhook metrics.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/util/log.h"
#include "controller/webhook/admission.h"
#include "controller/webhook/server.h"
#include "kube/api_client.h"

namespace ingot::controller::webhook {

/// kConvertPath is the BGPPeer CRD's conversion webhook path.
inline constexpr const char* kConvertPath = "/convert";

/// servedPaths returns every path the server answers.
std::vector<std::string> servedPaths();

/// WebhookMetrics counts requests and certificate rotations; thread-safe.
class WebhookMetrics {
 public:
  /// countRequest counts one answered request of path by outcome (allowed, denied, error,
  /// converted, failed).
  void countRequest(const std::string& path, const std::string& outcome);
  /// countRotation counts one rotation pass that changed certificates (ok) or failed (!ok).
  void countRotation(bool ok);
  /// setCertificateExpiry records the serving certificate's notAfter (Unix seconds).
  void setCertificateExpiry(int64_t unix_seconds) { expiry_.store(unix_seconds); }
  /// render returns the families in Prometheus text format.
  std::string render() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> requests_;
  std::atomic<uint64_t> rotations_{0};
  std::atomic<uint64_t> rotation_errors_{0};
  std::atomic<int64_t> expiry_{0};
};

/// Lister returns the existing objects a check needs.
using Lister = std::function<Result<config::Inputs>(const Needs&)>;

/// apiLister lists from the API: the metallb.io kinds in ns, Nodes cluster-wide.
Lister apiLister(k8s::ApiClient& api, std::string ns);

/// makeHandler answers the served paths: AdmissionReviews through admit (with the objects list
/// gives), ConversionReviews through convertReview. Bodies that are not reviews get a 400 with
/// an explaining review (admission) or Status (conversion); a failed listing denies the request
/// with the reason, as MetalLB does.
WebhookHandler makeHandler(Lister list,
                           AdmitOptions options,
                           WebhookMetrics& metrics,
                           log::Logger& logger);

}  // namespace ingot::controller::webhook
