// SPDX-License-Identifier: Apache-2.0
// The validating webhooks' decisions: which path checks which metallb.io kind, how an
// AdmissionReview v1 is read and answered, and the verdict for one request given the objects that
// already exist. The checks are `ingotctl validate`'s: api::validateObject on the object, then
// config::parse over the existing objects with the candidate substituted by name, as MetalLB's
// webhooks do. Pure: the caller lists the existing objects and does the HTTP.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"
#include "common/util/result.h"
#include "config/config.h"

namespace ingot::controller::webhook {

/// Route is one validating webhook: its URL path and the kind/version/resource it checks.
struct Route {
  std::string_view path;      ///< e.g. "/validate-metallb-io-v1beta1-ipaddresspool"
  std::string_view kind;      ///< "IPAddressPool"
  std::string_view version;   ///< "v1beta1" (group is always metallb.io)
  std::string_view resource;  ///< "ipaddresspools"
};

/// routes returns MetalLB's six validating webhooks, in its chart's order.
const std::vector<Route>& routes();

/// routeFor returns the route serving path, or nullptr.
const Route* routeFor(std::string_view path);

/// Needs says which existing objects a request's check reads (MetalLB lists exactly these).
struct Needs {
  bool pools = false;
  bool l2_advertisements = false;
  bool bgp_advertisements = false;
  bool peers = false;
  bool communities = false;
  bool nodes = false;
  friend bool operator==(const Needs&, const Needs&) = default;
};

/// AdmissionRequest is the part of an AdmissionReview request the checks read.
struct AdmissionRequest {
  std::string uid;
  std::string group;  ///< request.kind.group
  std::string version;
  std::string kind;
  std::string sub_resource;
  std::string operation;  ///< CREATE, UPDATE, DELETE, CONNECT
  std::string namespace_;
  std::string name;
  json::Value object;      ///< null when absent (DELETE)
  json::Value old_object;  ///< null when absent (CREATE)
};

/// decodeReview reads an AdmissionReview v1 body. Errors (InvalidArgument) say what is wrong: not
/// JSON, not an admission.k8s.io/v1 AdmissionReview, no request or uid.
Result<AdmissionRequest> decodeReview(std::string_view body);

/// Verdict is the answer to one request.
struct Verdict {
  bool allowed = true;
  int code = 200;      ///< the HTTP-like code of a denial (403 denied, 400 malformed)
  std::string reason;  ///< "Forbidden", "BadRequest" ("" when allowed)
  std::string message;
  std::vector<std::string> warnings;
};

/// encodeReview renders the AdmissionReview v1 response for uid ("" when the request had none).
std::string encodeReview(std::string_view uid, const Verdict& verdict);

/// badRequest is the verdict for a request that cannot be checked as sent.
Verdict badRequest(std::string message);

/// needsFor returns what route's check of request reads; nothing when the request is not checked
/// (another kind, a subresource, an operation without checks).
Needs needsFor(const Route& route, const AdmissionRequest& request);

/// AdmitOptions are the controller's settings the checks depend on.
struct AdmitOptions {
  std::string metallb_namespace = "metallb-system";
  config::Backend backend = config::Backend::FrrK8s;
};

/// admit decides request at route. existing holds the objects of the MetalLB namespace listed per
/// needsFor (and the cluster's Nodes). A review the route cannot check as sent is refused as a bad
/// request (400): no request.kind, another group, kind or version, or an object of another kind
/// (allowing it would let that object past unchecked). A subresource of the route's kind (e.g.
/// status) is allowed unchecked: the webhook never blocks what it does not own.
Verdict admit(const Route& route,
              const AdmissionRequest& request,
              const config::Inputs& existing,
              const AdmitOptions& options);

}  // namespace ingot::controller::webhook
