// SPDX-License-Identifier: Apache-2.0
#include "frrgen/convert.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/net/ip.h"
#include "common/util/base64.h"
#include "frrgen/convert_internal.h"

namespace ingot::frrgen {

namespace convert_detail {

Error fail(const std::string& where, const std::string& message) {
  return invalidArgument(where + ": " + message);
}

bool isWord(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return static_cast<unsigned char>(ch) > 0x20 && static_cast<unsigned char>(ch) != 0x7f;
  });
}

Result<void> checkWord(const std::string& where, const std::string& field, const std::string& v) {
  if (!isWord(v)) {
    return fail(where,
                field + " \"" + v + "\" must be one word without spaces or control characters");
  }
  return {};
}

Result<net::Cidr> parsePrefix(const std::string& where, const std::string& text) {
  auto c = net::Cidr::parse(text);
  if (!c) {
    return fail(where, "invalid prefix \"" + text + "\": " + c.error().message);
  }
  return *c;
}

bool hasFamily(NeighborFamily nf, net::Family f) {
  return nf == NeighborFamily::Dual || (nf == NeighborFamily::V4) == (f == net::Family::V4);
}

}  // namespace convert_detail

namespace {

using namespace convert_detail;

constexpr uint64_t kSecond = 1'000'000'000;
constexpr size_t kMaxPasswordLength = 80;  // TCP_MD5SIG_MAXKEYLEN
constexpr std::string_view kBasicAuth = "kubernetes.io/basic-auth";

// secretPassword returns the `password` key of a basic-auth Secret.
Result<std::string> secretPassword(const std::string& where, const api::Secret& s) {
  const std::string id = "\"" + s.metadata.namespace_ + "\"/\"" + s.metadata.name + "\"";
  if (s.type != kBasicAuth) {
    return fail(where, "secret type mismatch on " + id + ", type \"" + std::string(kBasicAuth) +
                           "\" is expected");
  }
  if (auto it = s.string_data.find("password"); it != s.string_data.end()) {
    return it->second;
  }
  auto it = s.data.find("password");
  if (it == s.data.end()) {
    return fail(where, "password field not specified in the secret " + id);
  }
  auto plain = decodeBase64(it->second, Base64Mode::GoStd);
  if (!plain) {
    return fail(where, "password field of the secret " + id + " is not valid base64");
  }
  return std::move(*plain);
}

Result<std::string> passwordFor(const std::string& where,
                                const api::FrrNeighbor& n,
                                const std::vector<api::Secret>& secrets) {
  const bool has_ref = n.password_secret.has_value() && !n.password_secret->name.empty();
  if (!n.password.empty() && has_ref) {
    return fail(where, "specifies both cleartext password and secret ref");
  }
  if (!has_ref) {
    return n.password;
  }
  const std::string& name = n.password_secret->name;
  auto it = std::find_if(secrets.begin(), secrets.end(),
                         [&name](const api::Secret& s) { return s.metadata.name == name; });
  if (it == secrets.end()) {
    return Error{ErrorCode::Transient, where + ": secret " + name + " not found"};
  }
  return secretPassword(where, *it);
}

Result<void> checkPassword(const std::string& where, const std::string& password) {
  if (password.empty()) {
    return {};
  }
  if (!isWord(password)) {
    return fail(where, "password must be one word without spaces or control characters");
  }
  if (password.size() > kMaxPasswordLength) {
    return fail(where, "password is " + std::to_string(password.size()) +
                           " bytes long; TCP-MD5 keys are at most 80 bytes");
  }
  return {};
}

Result<uint32_t> wholeSeconds(const api::Duration& d) {
  if (d.nanoseconds < 0 || d.nanoseconds / kSecond > UINT32_MAX) {
    return invalidArgument("duration " + d.text + " is out of range");
  }
  return static_cast<uint32_t>(d.nanoseconds / kSecond);
}

// timers applies frr-k8s' rules: hold and keepalive together, hold 0 or ≥ 3 s, keepalive ≤ hold,
// connect whole seconds in 1-65535.
Result<void> timers(const std::string& where, const api::FrrNeighbor& n, Neighbor& out) {
  if (n.hold_time.has_value() != n.keepalive_time.has_value()) {
    return fail(where, "holdTime and keepaliveTime must be set together");
  }
  if (n.hold_time) {
    auto hold = wholeSeconds(*n.hold_time);
    auto keepalive = wholeSeconds(*n.keepalive_time);
    if (!hold || !keepalive) {
      return fail(where, (hold ? keepalive : hold).error().message);
    }
    if (*hold != 0 && *hold < 3) {
      return fail(where, "invalid hold time " + n.hold_time->text + ": must be 0 or >= 3s");
    }
    if (*keepalive > *hold) {
      return fail(where, "keepalive time " + n.keepalive_time->text + " is bigger than hold time " +
                             n.hold_time->text);
    }
    out.hold_time = *hold;
    out.keepalive_time = *keepalive;
  }
  if (n.connect_time) {
    const int64_t ns = n.connect_time->nanoseconds;
    if (ns % kSecond != 0 || ns < static_cast<int64_t>(kSecond) || ns > 65535 * int64_t{kSecond}) {
      return fail(where, "connectTime " + n.connect_time->text +
                             " must be a whole number of seconds in 1-65535");
    }
    out.connect_time = static_cast<uint32_t>(ns / kSecond);
  }
  return {};
}

// peer converts address or interface and derives the family.
Result<void> peer(const std::string& where, const api::FrrNeighbor& n, Neighbor& out) {
  if (n.address.empty() == n.interface.empty()) {
    return fail(where, "exactly one of address and interface must be set");
  }
  if (!n.address.empty()) {
    auto ip = net::IpAddress::parse(n.address);
    if (!ip) {
      return fail(where, "invalid address \"" + n.address + "\": " + ip.error().message);
    }
    out.address = ip->toString();
    out.family = n.dual_stack_address_family
                     ? NeighborFamily::Dual
                     : (ip->isV4() ? NeighborFamily::V4 : NeighborFamily::V6);
  } else {
    if (auto r = checkWord(where, "interface", n.interface); !r) return r;
    out.interface = n.interface;
    out.family = NeighborFamily::Dual;
  }
  return {};
}

// session converts the identity part: peer, AS, family, source, local AS, port.
Result<void> session(const std::string& where,
                     const api::FrrNeighbor& n,
                     uint32_t router_asn,
                     Neighbor& out) {
  if (auto r = peer(where, n, out); !r) return r;
  if (n.asn.has_value() == !n.dynamic_asn.empty()) {
    return fail(where, "exactly one of asn and dynamicASN must be set");
  }
  if (!n.dynamic_asn.empty() && n.dynamic_asn != "internal" && n.dynamic_asn != "external") {
    return fail(where, "dynamicASN must be internal or external, got \"" + n.dynamic_asn + "\"");
  }
  out.remote_as = n.asn ? std::to_string(*n.asn) : n.dynamic_asn;
  const bool ibgp = n.dynamic_asn == "internal" || (n.asn && *n.asn == router_asn);
  if (n.local_asn && (*n.local_asn == 0 || ibgp)) {
    return fail(where, *n.local_asn == 0 ? "localASN must be 1-4294967295"
                                         : "localASN cannot be used on an iBGP session");
  }
  out.local_asn = n.local_asn;
  if (n.port && *n.port > 16384) {
    return fail(where, "port " + std::to_string(*n.port) + " is out of range 0-16384");
  }
  out.port = n.port;
  if (!n.source_address.empty()) {
    if (auto r = checkWord(where, "sourceaddress", n.source_address); !r) return r;
    auto ip = net::IpAddress::parse(n.source_address);
    out.source_address = ip ? ip->toString() : n.source_address;  // an interface name is allowed
  }
  return {};
}

std::string routerWhere(const std::string& object, const api::FrrRouter& r) {
  return object + ": router " + std::to_string(r.asn) + (r.vrf.empty() ? "" : " vrf " + r.vrf);
}

struct RouterInputs {
  std::string where;
  uint32_t asn = 0;
  std::string vrf;
  const Prefixes* available = nullptr;
  const std::set<std::string>* profiles = nullptr;
  const std::vector<api::Secret>* secrets = nullptr;
  const std::vector<api::FrrNeighbor>* api_neighbors = nullptr;  ///< the router's, in input order
  const std::vector<Neighbor>* converted = nullptr;  ///< the first converted.size() of those
};

// sameAdvertising returns a neighbor already converted in this router from the same toAdvertise
// and with the same family: its outgoing lists are exactly what n's would be.
const Neighbor* sameAdvertising(const RouterInputs& in,
                                const api::FrrNeighbor& n,
                                NeighborFamily family) {
  for (size_t i = 0; i < in.converted->size(); ++i) {
    const Neighbor& done = (*in.converted)[i];
    if (done.family == family && (*in.api_neighbors)[i].to_advertise == n.to_advertise) {
      return &done;
    }
  }
  return nullptr;
}

Result<Neighbor> convertNeighbor(const RouterInputs& in, const api::FrrNeighbor& n) {
  const std::string where =
      in.where + ": neighbor " + (n.address.empty() ? n.interface : n.address);
  Neighbor out;
  out.vrf = in.vrf;
  if (auto r = session(where, n, in.asn, out); !r) return r.error();
  if (auto r = timers(where, n, out); !r) return r.error();
  auto password = passwordFor(where, n, *in.secrets);
  if (!password) return password.error();
  if (auto r = checkPassword(where, *password); !r) return r.error();
  out.password = *password;
  if (!n.bfd_profile.empty() && !in.profiles->contains(n.bfd_profile)) {
    return fail(where, "referencing non existing BFDProfile " + n.bfd_profile);
  }
  out.bfd_profile = n.bfd_profile;
  out.graceful_restart = n.enable_graceful_restart;
  out.ebgp_multi_hop = n.ebgp_multi_hop;
  const Neighbor* same = sameAdvertising(in, n, out.family);
  if (auto r = filters(where, n, *in.available, same, out); !r) return r.error();
  return out;
}

// routerPrefixes parses every router's prefixes, keyed by VRF ("" = default).
Result<std::map<std::string, Prefixes>> routerPrefixes(const std::string& object,
                                                       const api::FRRConfiguration& cfg) {
  std::map<std::string, Prefixes> out;
  for (const auto& r : cfg.spec.routers) {
    Prefixes& p = out[r.vrf];
    for (const auto& text : r.prefixes) {
      auto c = parsePrefix(routerWhere(object, r), text);
      if (!c) return c.error();
      p.of(c->family()).insert(c->toString());
    }
  }
  return out;
}

Result<Router> convertRouter(const RouterInputs& base,
                             const api::FrrRouter& r,
                             const std::map<std::string, Prefixes>& by_vrf) {
  RouterInputs in = base;
  in.where = routerWhere(base.where, r);
  in.asn = r.asn;
  in.vrf = r.vrf;
  if (r.asn == 0) return fail(in.where, "asn must be 1-4294967295");
  if (!r.vrf.empty()) {
    if (auto c = checkWord(in.where, "vrf", r.vrf); !c) return c.error();
  }
  Router out{r.asn, r.id, r.vrf, {}, {}, {}, {}};
  if (!r.id.empty()) {
    auto ip = net::IpAddress::parse(r.id);
    if (!ip || !ip->isV4()) {
      return fail(in.where, "router id \"" + r.id + "\" is not an IPv4 address");
    }
    out.router_id = ip->toString();
  }
  const Prefixes& own = by_vrf.at(r.vrf);
  Prefixes available = own;
  for (const auto& vrf : r.imports) {
    auto it = by_vrf.find(vrf == "default" ? "" : vrf);
    if (it == by_vrf.end()) {
      return fail(in.where, "imported vrf " + vrf + " is not a router of the same configuration");
    }
    available.v4.insert(it->second.v4.begin(), it->second.v4.end());
    available.v6.insert(it->second.v6.begin(), it->second.v6.end());
    out.import_vrfs.push_back(vrf);
  }
  in.available = &available;
  in.api_neighbors = &r.neighbors;
  in.converted = &out.neighbors;
  for (const auto& n : r.neighbors) {
    auto neighbor = convertNeighbor(in, n);
    if (!neighbor) return neighbor.error();
    out.neighbors.push_back(std::move(*neighbor));
  }
  out.prefixes_v4.assign(own.v4.begin(), own.v4.end());
  out.prefixes_v6.assign(own.v6.begin(), own.v6.end());
  return out;
}

Result<std::vector<BfdProfile>> profiles(const std::string& object,
                                         const api::FRRConfiguration& cfg) {
  std::vector<BfdProfile> out;
  std::set<std::string> names;
  for (const auto& b : cfg.spec.bfd_profiles) {
    if (auto r = checkWord(object + ": bfdProfiles", "name", b.name); !r) return r.error();
    if (!names.insert(b.name).second) {
      return fail(object,
                  "duplicate bfd profile name " + b.name + " in config " + cfg.metadata.name);
    }
    out.push_back({b.name, b.receive_interval, b.transmit_interval, b.detect_multiplier,
                   b.echo_interval, b.echo_mode.value_or(false), b.passive_mode.value_or(false),
                   b.minimum_ttl});
  }
  return out;
}

}  // namespace

std::string neighborFamilyName(NeighborFamily f) {
  switch (f) {
    case NeighborFamily::V4:
      return "ipv4";
    case NeighborFamily::V6:
      return "ipv6";
    case NeighborFamily::Dual:
      return "dual";
  }
  return "dual";
}

Result<Converted> convert(const api::FRRConfiguration& config,
                          const std::vector<api::Secret>& secrets) {
  const std::string object =
      "FRRConfiguration " + config.metadata.namespace_ + "/" + config.metadata.name;
  Converted out;
  auto bfd = profiles(object, config);
  if (!bfd) return bfd.error();
  out.bfd_profiles = std::move(*bfd);
  std::set<std::string> names;
  for (const auto& b : out.bfd_profiles) names.insert(b.name);
  auto by_vrf = routerPrefixes(object, config);
  if (!by_vrf) return by_vrf.error();
  RouterInputs base{object, 0, "", nullptr, &names, &secrets};
  for (const auto& r : config.spec.routers) {
    auto router = convertRouter(base, r, *by_vrf);
    if (!router) return router.error();
    out.routers.push_back(std::move(*router));
  }
  return out;
}

}  // namespace ingot::frrgen
