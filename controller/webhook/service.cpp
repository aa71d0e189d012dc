// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/service.h"

#include "api/codec.h"
#include "common/daemon/prometheus.h"
#include "controller/webhook/convert.h"
#include "kube/resources.h"

namespace ingot::controller::webhook {
namespace {

constexpr int kBadRequest = 400;

/// listInto appends every decodable object of ref in ns to out. Objects the API already stores
/// but Ingot cannot decode are skipped: they cannot make a new object invalid.
template <typename T>
Result<void> listInto(k8s::ApiClient& api,
                      const k8s::ResourceRef& ref,
                      const std::string& ns,
                      const std::string& kind,
                      std::vector<T>& out) {
  auto page = api.list(ref, ns, {});
  if (!page) {
    return Error{page.error().code,
                 "failed to get existing " + kind + " objects: " + page.error().message};
  }
  for (const auto& item : page->items) {
    if (auto o = api::decodeJson<T>(item)) {
      out.push_back(std::move(*o));
    }
  }
  return {};
}

Result<config::Inputs> listNeeds(k8s::ApiClient& api, const std::string& ns, const Needs& n) {
  namespace r = k8s::resources;
  config::Inputs in;
  Result<void> ok;
  if (ok && n.pools) ok = listInto(api, r::kIpAddressPools, ns, "IPAddressPool", in.pools);
  if (ok && n.l2_advertisements) {
    ok = listInto(api, r::kL2Advertisements, ns, "L2Advertisement", in.l2_advertisements);
  }
  if (ok && n.bgp_advertisements) {
    ok = listInto(api, r::kBgpAdvertisements, ns, "BGPAdvertisement", in.bgp_advertisements);
  }
  if (ok && n.peers) ok = listInto(api, r::kBgpPeers, ns, "BGPPeer", in.peers);
  if (ok && n.communities) {
    ok = listInto(api, r::kCommunities, ns, "Community", in.communities);
  }
  if (ok && n.nodes) ok = listInto(api, r::kNodes, "", "Node", in.nodes);
  if (!ok) return ok.error();
  return in;
}

HttpAnswer admission(const std::string& path,
                     const std::string& body,
                     const Lister& list,
                     const AdmitOptions& options,
                     log::Logger& logger) {
  auto request = decodeReview(body);
  if (!request) {
    logger.warn("webhook", "bad_request", request.error().message, {{"path", path}});
    return {kBadRequest, encodeReview("", badRequest(request.error().message))};
  }
  const Route* route = routeFor(path);
  const Needs needs = needsFor(*route, *request);
  Result<config::Inputs> existing = config::Inputs{};
  if (needs != Needs{}) existing = list(needs);
  Verdict verdict = existing ? admit(*route, *request, *existing, options)
                             : Verdict{false, 403, "Forbidden", existing.error().message, {}};
  if (!verdict.allowed) {
    logger.info("webhook", "denied", verdict.message,
                {{"path", path},
                 {"object", request->namespace_ + "/" + request->name},
                 {"operation", request->operation}});
  }
  return {200, encodeReview(request->uid, verdict)};
}

std::string outcomeOf(const HttpAnswer& a, bool conversion) {
  if (a.status != 200) return "error";
  if (conversion) {
    return a.body.find("\"status\":\"Success\"") != std::string::npos ? "converted" : "failed";
  }
  return a.body.find("\"allowed\":true") != std::string::npos ? "allowed" : "denied";
}

}  // namespace

std::vector<std::string> servedPaths() {
  std::vector<std::string> out;
  for (const auto& r : routes()) out.emplace_back(r.path);
  out.emplace_back(kConvertPath);
  return out;
}

void WebhookMetrics::countRequest(const std::string& path, const std::string& outcome) {
  std::lock_guard lock(mu_);
  ++requests_[{path, outcome}];
}

void WebhookMetrics::countRotation(bool ok) {
  (ok ? rotations_ : rotation_errors_).fetch_add(1);
}

std::string WebhookMetrics::render() const {
  using daemon::MetricFamily;
  using daemon::MetricType;
  MetricFamily requests{"ingot_webhook_requests_total",
                        "Webhook requests answered, by path and outcome.",
                        MetricType::Counter,
                        {}};
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, n] : requests_) {
      requests.samples.push_back(
          {{{"path", key.first}, {"outcome", key.second}}, static_cast<double>(n)});
    }
  }
  return daemon::renderPrometheus(
      {requests,
       {"ingot_webhook_cert_rotations_total",
        "Certificate rotations that wrote new webhook certificates.",
        MetricType::Counter,
        {{{}, static_cast<double>(rotations_.load())}}},
       {"ingot_webhook_cert_rotation_errors_total",
        "Certificate rotation passes that failed (the previous certificate stays in use).",
        MetricType::Counter,
        {{{}, static_cast<double>(rotation_errors_.load())}}},
       {"ingot_webhook_cert_expiry_timestamp_seconds",
        "notAfter of the serving certificate in use (Unix seconds; 0 = none yet).",
        MetricType::Gauge,
        {{{}, static_cast<double>(expiry_.load())}}}});
}

Lister apiLister(k8s::ApiClient& api, std::string ns) {
  return [&api, ns = std::move(ns)](const Needs& needs) { return listNeeds(api, ns, needs); };
}

WebhookHandler makeHandler(Lister list,
                           AdmitOptions options,
                           WebhookMetrics& metrics,
                           log::Logger& logger) {
  return [list = std::move(list), options = std::move(options), &metrics, &logger](
             const std::string& path, const std::string& body) {
    const bool conversion = path == kConvertPath;
    HttpAnswer answer;
    if (conversion) {
      auto converted = convertReview(body);
      if (!converted) {
        logger.warn("webhook", "bad_request", converted.error().message, {{"path", path}});
      }
      answer = converted ? HttpAnswer{200, *converted}
                         : HttpAnswer{kBadRequest, failureStatus(converted.error().message)};
    } else {
      answer = admission(path, body, list, options, logger);
    }
    metrics.countRequest(path, outcomeOf(answer, conversion));
    return answer;
  };
}

}  // namespace ingot::controller::webhook
