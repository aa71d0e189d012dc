// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/admission.h"

#include <algorithm>

#include "api/codec.h"
#include "api/validate.h"
#include "common/json/json.h"
#include "controller/webhook/json.h"

namespace ingot::controller::webhook {
namespace {

constexpr std::string_view kGroup = "metallb.io";
constexpr int kDenied = 403;
constexpr int kMalformed = 400;

Verdict denied(std::string message) {
  return Verdict{false, kDenied, "Forbidden", std::move(message), {}};
}

Verdict allowed(std::string message = {}) {
  return Verdict{true, 200, "", std::move(message), {}};
}

/// decodeObject decodes the request's object (or old object) as T; errors name kind and object.
template <typename T>
Result<T> decodeObject(const json::Value& value, const AdmissionRequest& request) {
  json::Decoder decoder;
  T out = api::decodeValue<T>(value, decoder);
  if (!decoder.ok()) {
    return invalidArgument("decoding " + request.kind + " " + request.namespace_ + "/" +
                           request.name + ": " + decoder.toError().message);
  }
  if (out.metadata.namespace_.empty()) {
    out.metadata.namespace_ = request.namespace_;
  }
  return out;
}

/// kLast prefixes a new candidate's name while it is parsed. The parser takes objects in name
/// order; MetalLB's webhooks validate a new object after the existing ones, so which of two
/// conflicting objects an error names depends on it. No Kubernetes name starts with '~', which
/// sorts after every character names may use.
constexpr char kLast = '~';

/// withCandidate replaces the object of the same name in list by candidate, or appends it under
/// a name that sorts last (see kLast) and returns true.
template <typename T>
bool withCandidate(std::vector<T>& list, const T& candidate) {
  auto same = [&](const T& o) { return o.metadata.name == candidate.metadata.name; };
  if (auto it = std::find_if(list.begin(), list.end(), same); it != list.end()) {
    *it = candidate;
    return false;
  }
  list.push_back(candidate);
  list.back().metadata.name.insert(0, 1, kLast);
  return true;
}

/// restoreName gives the candidate its own name back in a message.
std::string restoreName(std::string message, const std::string& name) {
  const std::string parsed = kLast + name;
  for (size_t at = message.find(parsed); at != std::string::npos; at = message.find(parsed, at)) {
    message.replace(at, parsed.size(), name);
  }
  return message;
}

/// withoutTransientReferences blanks what may legitimately point at an object created later
/// (a peer's BFD profile and password Secret, community aliases), as MetalLB's webhooks do
/// (resetTransientErrorsFields): a community without ':' is taken for an alias and dropped; one
/// with ':' stays and must parse as a literal.
config::Inputs withoutTransientReferences(config::Inputs in) {
  for (auto& peer : in.peers) {
    peer.spec.bfd_profile.clear();
    peer.spec.password_secret.reset();
  }
  for (auto& ad : in.bgp_advertisements) {
    auto& c = ad.spec.communities;
    c.erase(std::remove_if(c.begin(), c.end(),
                           [](const std::string& s) { return s.find(':') == std::string::npos; }),
            c.end());
  }
  return in;
}

/// firstProblem returns the first field error of the object, then the first parse error of the
/// configuration it would make once the references were blanked. That error may still be one the
/// agents retry: a community with ':' that is neither a literal nor, in the objects listed here,
/// an alias (MetalLB's webhook returns getCommunityValue's TransientError for it too).
std::optional<std::string> firstProblem(const api::AnyObject& object,
                                        const config::Inputs& inputs,
                                        const AdmitOptions& options) {
  if (auto errors = api::validateObject(object); !errors.empty()) {
    return errors.front().message;
  }
  auto parsed = config::parse(withoutTransientReferences(inputs),
                              {options.backend, options.metallb_namespace});
  if (!parsed.errors.empty()) {
    return parsed.errors.front().message;
  }
  return std::nullopt;
}

/// listFor returns the list of inputs the candidate of type T goes into.
template <typename T>
std::vector<T>& listFor(config::Inputs& in);
template <>
std::vector<api::IPAddressPool>& listFor(config::Inputs& in) {
  return in.pools;
}
template <>
std::vector<api::L2Advertisement>& listFor(config::Inputs& in) {
  return in.l2_advertisements;
}
template <>
std::vector<api::BGPAdvertisement>& listFor(config::Inputs& in) {
  return in.bgp_advertisements;
}
template <>
std::vector<api::BGPPeer>& listFor(config::Inputs& in) {
  return in.peers;
}
template <>
std::vector<api::Community>& listFor(config::Inputs& in) {
  return in.communities;
}

/// admitWrite checks a CREATE or UPDATE of a T.
template <typename T>
Verdict admitWrite(const AdmissionRequest& request,
                   const config::Inputs& existing,
                   const AdmitOptions& options) {
  auto candidate = decodeObject<T>(request.object, request);
  if (!candidate) {
    return badRequest(candidate.error().message);
  }
  const bool create = request.operation == "CREATE";
  if constexpr (std::is_same_v<T, api::BGPPeer>) {
    if (create && candidate->spec.disable_mp) {  // MetalLB admits it unchecked, with a warning
      // ... but not with a value FRR would refuse: that would stop every change on every node.
      if (auto errors = api::frrLimitErrors(*candidate); !errors.empty()) {
        return denied(errors.front().message);
      }
      Verdict v = allowed();
      v.warnings.emplace_back(api::kDisableMpWarning);
      return v;
    }
  }
  if (create && candidate->metadata.namespace_ != options.metallb_namespace) {
    return denied("resource must be created in " + options.metallb_namespace + " namespace");
  }
  std::optional<std::string> problem;
  if constexpr (std::is_same_v<T, api::BFDProfile>) {  // MetalLB parses no BFD profile here
    problem = firstProblem(api::AnyObject(*candidate), existing, options);
  } else {
    config::Inputs inputs(existing);
    withCandidate(listFor<T>(inputs), *candidate);
    problem = firstProblem(api::AnyObject(*candidate), inputs, options);
  }
  if (problem) {
    return denied(restoreName(*problem, candidate->metadata.name));
  }
  return allowed();
}

/// admitBfdDelete refuses deleting a BFD profile a peer uses.
Verdict admitBfdDelete(const AdmissionRequest& request, const config::Inputs& existing) {
  auto profile = decodeObject<api::BFDProfile>(request.old_object, request);
  if (!profile) {
    return badRequest(profile.error().message);
  }
  for (const auto& peer : existing.peers) {
    if (peer.spec.bfd_profile == profile->metadata.name) {
      return denied("failed to delete BFDProfile " + profile->metadata.name + ", used by BGPPeer " +
                    peer.metadata.name);
    }
  }
  return allowed();
}

/// owned reports whether route checks this request (its kind, not a subresource).
bool owned(const Route& route, const AdmissionRequest& r) {
  return r.group == kGroup && r.kind == route.kind && r.sub_resource.empty();
}

/// objectKind returns the kind an object (or old object) of a request declares, "" when none.
std::string objectKind(const json::Value& object) {
  return object.isObject() ? text(member(&object, "kind")) : std::string();
}

/// misrouted says why request is not one route checks, or nullopt. A review without
/// request.kind, for another group, kind or version, or carrying an object of another kind is
/// refused: allowing it would let an object past the webhook unchecked.
std::optional<std::string> misrouted(const Route& route, const AdmissionRequest& r) {
  const std::string serves = std::string(route.path) + " validates metallb.io/" +
                             std::string(route.version) + " " + std::string(route.kind);
  if (r.kind.empty()) {
    return serves + "; the review has no request.kind";
  }
  if (r.group != kGroup || r.kind != route.kind) {
    return serves + ", not " + (r.group.empty() ? "" : r.group + "/") + r.version + " " + r.kind;
  }
  if (r.version != route.version) {
    return serves + ", not " + r.version;
  }
  for (const auto* object : {&r.object, &r.old_object}) {
    const std::string kind = objectKind(*object);
    if (!kind.empty() && kind != route.kind) {
      return serves + "; request." + (object == &r.object ? "object" : "oldObject") + " has kind " +
             kind;
    }
  }
  return std::nullopt;
}

bool writes(const AdmissionRequest& r) {
  return r.operation == "CREATE" || r.operation == "UPDATE";
}

}  // namespace

const std::vector<Route>& routes() {
  static const std::vector<Route> kRoutes = {
      {"/validate-metallb-io-v1beta2-bgppeer", "BGPPeer", "v1beta2", "bgppeers"},
      {"/validate-metallb-io-v1beta1-ipaddresspool", "IPAddressPool", "v1beta1", "ipaddresspools"},
      {"/validate-metallb-io-v1beta1-bgpadvertisement", "BGPAdvertisement", "v1beta1",
       "bgpadvertisements"},
      {"/validate-metallb-io-v1beta1-l2advertisement", "L2Advertisement", "v1beta1",
       "l2advertisements"},
      {"/validate-metallb-io-v1beta1-community", "Community", "v1beta1", "communities"},
      {"/validate-metallb-io-v1beta1-bfdprofile", "BFDProfile", "v1beta1", "bfdprofiles"},
  };
  return kRoutes;
}

const Route* routeFor(std::string_view path) {
  for (const auto& r : routes()) {
    if (r.path == path) {
      return &r;
    }
  }
  return nullptr;
}

Result<AdmissionRequest> decodeReview(std::string_view body) {
  auto root = reviewRequest(body, "AdmissionReview", {"admission.k8s.io/v1"});
  if (!root) {
    return root.error();
  }
  const json::Value* req = member(&*root, "request");
  AdmissionRequest out;
  out.uid = text(member(req, "uid"));
  const json::Value* kind = member(req, "kind");
  out.group = text(member(kind, "group"));
  out.version = text(member(kind, "version"));
  out.kind = text(member(kind, "kind"));
  out.sub_resource = text(member(req, "subResource"));
  out.operation = text(member(req, "operation"));
  out.namespace_ = text(member(req, "namespace"));
  out.name = text(member(req, "name"));
  if (const json::Value* o = member(req, "object")) out.object = *o;
  if (const json::Value* o = member(req, "oldObject")) out.old_object = *o;
  return out;
}

Verdict badRequest(std::string message) {
  return Verdict{false, kMalformed, "BadRequest", std::move(message), {}};
}

std::string encodeReview(std::string_view uid, const Verdict& verdict) {
  json::Value response = json::Value::object();
  response.set("uid", json::Value::string(std::string(uid)));
  response.set("allowed", json::Value::boolean(verdict.allowed));
  json::Value status = json::Value::object();
  status.set("code", json::Value::number(static_cast<int64_t>(verdict.code)));
  if (!verdict.reason.empty()) status.set("reason", json::Value::string(verdict.reason));
  if (!verdict.message.empty()) status.set("message", json::Value::string(verdict.message));
  response.set("status", std::move(status));
  if (!verdict.warnings.empty()) {
    json::Value warnings = json::Value::array();
    for (const auto& w : verdict.warnings) warnings.push(json::Value::string(w));
    response.set("warnings", std::move(warnings));
  }
  json::Value review = json::Value::object();
  review.set("apiVersion", json::Value::string("admission.k8s.io/v1"));
  review.set("kind", json::Value::string("AdmissionReview"));
  review.set("response", std::move(response));
  return json::write(review);
}

Needs needsFor(const Route& route, const AdmissionRequest& request) {
  Needs n;
  if (!owned(route, request) || request.version != route.version) {
    return n;
  }
  const std::string_view kind = route.kind;
  if (kind == "BFDProfile") {
    n.peers = request.operation == "DELETE";
    return n;
  }
  if (!writes(request)) {
    return n;
  }
  n.pools = kind == "IPAddressPool" || kind == "L2Advertisement" || kind == "BGPAdvertisement";
  n.l2_advertisements = kind == "L2Advertisement";
  n.bgp_advertisements = kind == "BGPAdvertisement";
  n.peers = kind == "BGPPeer";
  n.communities = kind == "Community";
  n.nodes = kind == "BGPAdvertisement" || kind == "BGPPeer";
  return n;
}

Verdict admit(const Route& route,
              const AdmissionRequest& request,
              const config::Inputs& existing,
              const AdmitOptions& options) {
  if (auto wrong = misrouted(route, request)) {
    return badRequest(*wrong);
  }
  if (!request.sub_resource.empty()) {
    return allowed("not checked: the " + request.sub_resource + " subresource of " + request.kind +
                   " is not what " + std::string(route.path) + " validates");
  }
  const std::string_view kind = route.kind;
  if (kind == "BFDProfile" && request.operation == "DELETE") {
    return admitBfdDelete(request, existing);
  }
  if (!writes(request)) {
    return allowed();
  }
  if (kind == "IPAddressPool") return admitWrite<api::IPAddressPool>(request, existing, options);
  if (kind == "L2Advertisement") {
    return admitWrite<api::L2Advertisement>(request, existing, options);
  }
  if (kind == "BGPAdvertisement") {
    return admitWrite<api::BGPAdvertisement>(request, existing, options);
  }
  if (kind == "BGPPeer") return admitWrite<api::BGPPeer>(request, existing, options);
  if (kind == "Community") return admitWrite<api::Community>(request, existing, options);
  return admitWrite<api::BFDProfile>(request, existing, options);
}

}  // namespace ingot::controller::webhook
