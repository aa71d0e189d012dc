// SPDX-License-Identifier: Apache-2.0
// BGPPeer v1beta2: ASNs, addresses, timers, password, BFD profile, nodes.
#include "api/frr_limits.h"
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr char kBgpPeerKind[] = "BGPPeer";
constexpr char kBasicAuth[] = "kubernetes.io/basic-auth";
constexpr uint16_t kMaxPort = 16384;

/// durationText is the text a user wrote, or Go's rendering of a derived value.
std::string durationText(const std::optional<api::Duration>& given, nanoseconds value) {
  return given && !given->text.empty() ? given->text : goDuration(value);
}

bool isIbgp(const api::BGPPeerSpec& spec) {
  return (spec.peer_asn != 0 && spec.peer_asn == spec.my_asn) || spec.dynamic_asn == "internal";
}

void parseAsns(const api::BGPPeerSpec& spec, Peer& p, ObjectErrors& errs) {
  p.my_asn = spec.my_asn;
  p.peer_asn = spec.peer_asn;
  if (spec.my_asn == 0) {
    errs.fail("spec.myASN", "missing local ASN");
  }
  if (spec.peer_asn == 0 && spec.dynamic_asn.empty()) {
    errs.fail("spec.peerASN", "missing peer ASN and dynamicASN");
  } else if (spec.peer_asn != 0 && !spec.dynamic_asn.empty()) {
    errs.fail("spec.dynamicASN", "both peer ASN and dynamicASN specified");
  }
  if (spec.dynamic_asn == "internal") {
    p.dynamic_asn = DynamicAsn::Internal;
  } else if (spec.dynamic_asn == "external") {
    p.dynamic_asn = DynamicAsn::External;
  } else if (!spec.dynamic_asn.empty()) {
    errs.fail("spec.dynamicASN", "invalid dynamicASN " + spec.dynamic_asn);
  }
  p.ebgp_multi_hop = spec.ebgp_multi_hop;
  if (spec.ebgp_multi_hop && isIbgp(spec)) {
    errs.fail("spec.ebgpMultiHop", "invalid ebgp-multihop parameter set for an ibgp peer");
  }
  p.local_asn = spec.local_asn;
  if (spec.local_asn && *spec.local_asn == 0) {
    errs.fail("spec.localASN", "invalid localASN 0, must be in 1-4294967295 range");
  } else if (spec.local_asn && isIbgp(spec)) {
    errs.fail("spec.localASN", "invalid localASN parameter set for an ibgp peer");
  }
}

/// parseIp parses an optional IP field; empty text leaves out unset.
void parseIp(const std::string& text,
             const char* field,
             const char* what,
             std::optional<net::IpAddress>& out,
             ObjectErrors& errs) {
  if (text.empty()) {
    return;
  }
  auto ip = net::IpAddress::parse(text);
  if (!ip) {
    errs.fail(field, std::string(what) + " " + goQuote(text));
    return;
  }
  out = *ip;
}

void parsePeerAddresses(const api::BGPPeerSpec& spec, Peer& p, ObjectErrors& errs) {
  if (spec.peer_address.empty() && spec.interface.empty()) {
    errs.fail("spec.peerAddress", "peer must have either peerAddress or interface set");
  } else if (!spec.peer_address.empty() && !spec.interface.empty()) {
    errs.fail("spec.interface", "peer can't have both peerAddress and interface set");
  }
  parseIp(spec.peer_address, "spec.peerAddress", "invalid BGPPeer address", p.address, errs);
  p.interface = spec.interface;
  parseIp(spec.source_address, "spec.sourceAddress", "invalid source IP", p.source_address, errs);
  parseIp(spec.router_id, "spec.routerID", "invalid router ID", p.router_id, errs);
  p.port = spec.peer_port.value_or(179);
  if (p.port == 0 || p.port > kMaxPort) {
    errs.fail("spec.peerPort", "invalid peerPort " + std::to_string(p.port) + ", must be in 1-" +
                                   std::to_string(kMaxPort) + " range");
  }
}

/// frrTimerProblem returns why FRR refuses a timer of d (whole seconds, at most 65535), or "".
std::string frrTimerProblem(const std::optional<nanoseconds>& d, std::string_view what) {
  return d ? api::frr::timerProblem(std::chrono::duration_cast<seconds>(*d).count(), what) : "";
}

void parseTimers(const api::BGPPeerSpec& spec, Peer& p, ObjectErrors& errs) {
  auto timers = deriveTimers(spec.hold_time, spec.keepalive_time);
  const char* hold_field = spec.hold_time ? "spec.holdTime" : "spec.keepaliveTime";
  if (!timers) {
    errs.fail(hold_field, "invalid BGPPeer timers: " + timers.error().message);
  } else if (auto hold = frrTimerProblem(timers->hold, "hold time"); !hold.empty()) {
    errs.fail(hold_field, "invalid BGPPeer timers: " + hold);
  } else {  // the keepalive is at most the hold time: within FRR's range too
    p.hold_time = timers->hold;
    p.keepalive_time = timers->keepalive;
  }
  if (!spec.connect_time) {
    return;
  }
  const nanoseconds connect(spec.connect_time->nanoseconds);
  const std::string text = goQuote(durationText(spec.connect_time, connect));
  if (connect < seconds(1) || connect > seconds(65535)) {
    errs.fail("spec.connectTime", "invalid connectTime " + text +
                                      ": connect time should be between 1 seconds to 65535");
  } else if (connect % seconds(1) != nanoseconds(0)) {
    errs.fail("spec.connectTime", "invalid connectTime " + text +
                                      ": connect time should contain a whole number of seconds");
  } else {
    p.connect_time = connect;
  }
}

/// secretPassword reads key "password" of a basic-auth Secret (stringData wins over data, as the
/// API server merges them).
Result<std::string> secretPassword(const api::Secret& secret, const std::string& ref) {
  if (secret.type != kBasicAuth) {
    return invalidArgument("secret type mismatch on " + ref + ", type " + goQuote(kBasicAuth) +
                           " is expected");
  }
  if (const auto it = secret.string_data.find("password"); it != secret.string_data.end()) {
    return it->second;
  }
  const auto it = secret.data.find("password");
  if (it == secret.data.end()) {
    return invalidArgument("password not specified in the secret " + ref);
  }
  auto decoded = decodeBase64(it->second);
  if (!decoded) {
    return invalidArgument("invalid value of key password in the secret " + ref + ": " +
                           decoded.error().message);
  }
  return decoded;
}

/// checkKey reports a password (given or read from the Secret) FRR or the kernel would refuse.
void checkKey(const std::string& password,
              const char* field,
              const std::string& peer_ref,
              ObjectErrors& errs) {
  if (auto problem = api::frr::passwordProblem(password); !problem.empty()) {
    errs.fail(field, "password for peer " + peer_ref + " " + problem);
  }
}

void parsePassword(const api::BGPPeer& cr, const State& s, Peer& p, ObjectErrors& errs) {
  const auto& spec = cr.spec;
  p.password = spec.password;
  p.password_secret = spec.password_secret;
  const std::string peer_ref = goQuote(cr.metadata.namespace_) + "/" + goQuote(cr.metadata.name);
  checkKey(spec.password, "spec.password", peer_ref, errs);
  if (!spec.password_secret || spec.password_secret->name.empty()) {
    return;
  }
  if (!spec.password.empty()) {
    errs.fail("spec.password",
              "can not have both password and secret ref set in peer config " + peer_ref);
    return;
  }
  // MetalLB looks the Secret up by name among the Secrets of its own namespace.
  const auto& secrets = s.in.secrets;
  const auto it = std::find_if(secrets.begin(), secrets.end(), [&](const api::Secret& sec) {
    return sec.metadata.name == spec.password_secret->name;
  });
  if (it == secrets.end()) {
    errs.retry("spec.passwordSecret", "secret ref not found for peer config " + peer_ref);
    return;
  }
  const std::string& ns =
      it->metadata.namespace_.empty() ? s.options.metallb_namespace : it->metadata.namespace_;
  auto password = secretPassword(*it, goQuote(ns) + "/" + goQuote(it->metadata.name));
  if (!password) {
    errs.fail("spec.passwordSecret", password.error().message);
    return;
  }
  checkKey(*password, "spec.passwordSecret", peer_ref, errs);
  p.secret_password = std::move(*password);
}

void parseReferences(const api::BGPPeer& cr, const State& s, Peer& p, ObjectErrors& errs) {
  p.bfd_profile = cr.spec.bfd_profile;
  // Native mode rejects bfdProfile outright (checkBackend); no point asking for the profile too.
  if (p.bfd_profile.empty() || s.options.backend == Backend::Native) {
    return;
  }
  const auto& profiles = s.in.bfd_profiles;
  const bool exists = std::any_of(profiles.begin(), profiles.end(), [&](const api::BFDProfile& b) {
    return b.metadata.name == p.bfd_profile;
  });
  if (!exists) {
    errs.retry("spec.bfdProfile", "peer " + cr.metadata.name +
                                      " referencing non existing bfd profile " + p.bfd_profile);
  }
}

/// checkFrrValues refuses what FRR 8.4 or the kernel would refuse once the peer is rendered
/// (api/frr_limits.h); the password is checked with the Secret it may come from.
void checkFrrValues(const api::BGPPeerSpec& spec, ObjectErrors& errs) {
  if (!spec.vrf.empty()) {
    if (auto problem = api::frr::deviceNameProblem(spec.vrf, "VRF"); !problem.empty()) {
      errs.fail("spec.vrf", problem);
    }
  }
  if (!spec.interface.empty()) {
    if (auto problem = api::frr::deviceNameProblem(spec.interface, "interface"); !problem.empty()) {
      errs.fail("spec.interface", problem);
    }
  }
  if (net::IpAddress::parse(spec.router_id)) {
    if (auto problem = api::frr::routerIdProblem(spec.router_id); !problem.empty()) {
      errs.fail("spec.routerID", problem);
    }
  }
  if (spec.local_asn && *spec.local_asn != 0) {
    if (auto problem = api::frr::localAsnProblem(spec.my_asn, spec.peer_asn, *spec.local_asn);
        !problem.empty()) {
      errs.fail("spec.localASN", problem);
    }
  }
}

Peer peerFromCr(const api::BGPPeer& cr, const State& s, ObjectErrors& errs) {
  Peer p;
  p.name = cr.metadata.name;
  const auto& spec = cr.spec;
  parseAsns(spec, p, errs);
  parsePeerAddresses(spec, p, errs);
  parseTimers(spec, p, errs);
  checkFrrValues(spec, errs);
  if (checkSelectors(spec.node_selectors, "spec.nodeSelectors", errs)) {
    p.nodes = selectNodes(s.in.nodes, spec.node_selectors);
  }
  parsePassword(cr, s, p, errs);
  parseReferences(cr, s, p, errs);
  p.enable_graceful_restart = spec.enable_graceful_restart;
  p.vrf = spec.vrf;
  p.disable_mp = spec.disable_mp;
  p.dual_stack_address_family = spec.dual_stack_address_family;
  return p;
}

}  // namespace

Result<Timers> deriveTimers(const std::optional<api::Duration>& hold,
                            const std::optional<api::Duration>& keepalive) {
  if (!hold && !keepalive) {
    return Timers{};
  }
  nanoseconds h{};
  nanoseconds k{};
  if (hold && keepalive) {
    h = nanoseconds(hold->nanoseconds);
    k = nanoseconds(keepalive->nanoseconds);
  } else if (hold) {
    h = nanoseconds(hold->nanoseconds);
    k = h / 3;
  } else {
    k = nanoseconds(keepalive->nanoseconds);
    h = k * 3;
  }
  const auto rounded = std::chrono::duration_cast<seconds>(h);  // truncates, like Go
  if (rounded != seconds(0) && rounded < seconds(3)) {
    return invalidArgument("invalid hold time " + goQuote(durationText(hold, h)) +
                           ": must be 0 or >=3s");
  }
  if (k > h) {
    return invalidArgument("invalid keepaliveTime " + goQuote(durationText(keepalive, k)) +
                           ", must be lower than holdTime " + goQuote(durationText(hold, h)));
  }
  if (k < nanoseconds(0)) {
    return invalidArgument("invalid keepaliveTime " + goQuote(durationText(keepalive, k)) +
                           ", must not be negative");
  }
  return Timers{h, k};
}

std::string peerIdentity(const Peer& peer) {
  const std::string id = peer.address ? peer.address->toString() : peer.interface;
  return peer.vrf.empty() ? id : id + "-" + peer.vrf;
}

void parsePeers(State& s) {
  const NamedKind named{kBgpPeerKind, "missing peer name", [](const std::string& name) {
                          return "duplicate definition of peer " + goQuote(name);
                        }};
  forEachNamed(s, s.in.peers, named, [&](const api::BGPPeer& cr, ObjectErrors& errs) {
    Peer p = peerFromCr(cr, s, errs);
    if (errs.ok()) {
      s.cfg.peers.emplace(p.name, std::move(p));
    }
  });
}

}  // namespace ingot::config::detail
