// SPDX-License-Identifier: Apache-2.0
// Per-object FRRConfiguration rules (frr-k8s' CRD and webhook): CRD schema/CEL ranges and the
// conversion checks that involve one object only. Merge conflicts between several
// FRRConfigurations are frrgen's.
#include <map>
#include <set>

#include "api/frr_limits.h"
#include "api/validate_internal.h"
#include "common/net/ip.h"

namespace ingot::api::validation {
namespace {

constexpr size_t kMaxRouters = 50;

struct Families {
  bool v4 = false;
  bool v6 = false;
  bool allows(net::Family f) const { return f == net::Family::V4 ? v4 : v6; }
};

std::string familyText(net::Family f) {
  return f == net::Family::V4 ? "ipv4" : "ipv6";
}

/// neighborFamilies: interface peers and dualStackAddressFamily enable both families.
Families neighborFamilies(const FrrNeighbor& n) {
  if (!n.interface.empty() || n.dual_stack_address_family) {
    return {true, true};
  }
  auto ip = net::IpAddress::parse(n.address);
  if (!ip) {
    return {true, true};  // the address error is reported separately
  }
  return {ip->isV4(), ip->isV6()};
}

/// Context is what a neighbor's checks need from its router and configuration.
struct Context {
  const FRRConfiguration& config;
  const FrrRouter& router;
  std::set<std::string> router_prefixes;  ///< own prefixes plus those of imported VRFs
  std::set<std::string> bfd_profiles;
};

void checkEnum(const std::string& value,
               const std::vector<std::string>& allowed,
               const std::string& field,
               Errors& errors) {
  for (const auto& a : allowed) {
    if (value == a) {
      return;
    }
  }
  std::string list;
  for (const auto& a : allowed) {
    list += (list.empty() ? "" : ", ") + goQuote(a);
  }
  add(errors, field, "Unsupported value: " + goQuote(value) + ": supported values: " + list);
}

void checkIdentity(const FrrNeighbor& n,
                   const Context& ctx,
                   const std::string& at,
                   Errors& errors) {
  if (n.asn && !n.dynamic_asn.empty()) {
    add(errors, at + ".asn", "asn and dynamicASN are mutually exclusive");
  } else if (!n.asn && n.dynamic_asn.empty()) {
    add(errors, at + ".asn", "one of asn or dynamicASN must be set");
  }
  if (!n.dynamic_asn.empty()) {
    checkEnum(n.dynamic_asn, {"internal", "external"}, at + ".dynamicASN", errors);
  }
  if (n.address.empty() == n.interface.empty()) {
    add(errors, at + ".address", "exactly one of address or interface must be set");
  }
  checkIp(n.address, at + ".address", "invalid neighbor address", errors);
  if (n.port) {
    checkRange(*n.port, 0, 16384, at + ".port", errors);
  }
  if (n.local_asn) {
    checkRange(*n.local_asn, 1, 4294967295, at + ".localASN", errors);
    if (n.asn && *n.asn == ctx.router.asn) {
      add(errors, at + ".localASN", "localASN can not be set on an iBGP neighbor");
    }
  }
  if (!n.password.empty() && n.password_secret && !n.password_secret->name.empty()) {
    add(errors, at + ".passwordSecret", "password and passwordSecret are mutually exclusive");
  }
  if (auto p = frr::passwordProblem(n.password); !n.password.empty() && !p.empty()) {
    add(errors, at + ".password", "password " + p);
  }
}

void checkSessionTimers(const FrrNeighbor& n, const std::string& at, Errors& errors) {
  if (n.hold_time.has_value() != n.keepalive_time.has_value()) {
    add(errors, at + (n.hold_time ? ".keepaliveTime" : ".holdTime"),
        "holdTime and keepaliveTime must be set together");
  } else {
    checkTimers(n.hold_time, n.keepalive_time, at + ".", "", errors);
    checkFrrHoldTime(n.hold_time, n.keepalive_time, at + ".", "", errors);
  }
  checkConnectTime(n.connect_time, at + ".connectTime", errors);
}

/// advertised returns the prefixes this neighbor advertises (of its families).
std::set<std::string> advertised(const FrrNeighbor& n, const Context& ctx) {
  const Families fam = neighborFamilies(n);
  std::set<std::string> out;
  if (n.to_advertise.allowed_mode == "all") {
    for (const auto& p : ctx.router_prefixes) {
      auto cidr = net::Cidr::parse(p);
      if (cidr && fam.allows(cidr->family())) {
        out.insert(p);
      }
    }
    return out;
  }
  return {n.to_advertise.allowed_prefixes.begin(), n.to_advertise.allowed_prefixes.end()};
}

void checkAllowed(const FrrNeighbor& n, const Context& ctx, const std::string& at, Errors& errors) {
  const auto& adv = n.to_advertise;
  if (!adv.allowed_mode.empty()) {
    checkEnum(adv.allowed_mode, {"filtered", "all"}, at + ".toAdvertise.allowed.mode", errors);
  }
  const Families fam = neighborFamilies(n);
  for (size_t i = 0; i < adv.allowed_prefixes.size(); ++i) {
    const std::string& p = adv.allowed_prefixes[i];
    const std::string field = at + ".toAdvertise.allowed.prefixes[" + std::to_string(i) + "]";
    auto cidr = net::Cidr::parse(p);
    if (!cidr) {
      add(errors, field, cidr.error().message);
    } else if (ctx.router_prefixes.count(p) == 0) {
      add(errors, field, "prefix " + goQuote(p) + " is not in the router's prefixes");
    } else if (!fam.allows(cidr->family())) {
      add(errors, field,
          "prefix " + goQuote(p) + " is " + familyText(cidr->family()) +
              " but the neighbor does not carry that family");
    }
  }
}

/// familyKey returns "<value>/<family>" so repeats are detected per family.
std::string familyKey(const std::string& value, const std::string& prefix) {
  auto cidr = net::Cidr::parse(prefix);
  return value + "/" + (cidr ? familyText(cidr->family()) : "?");
}

void checkLocalPrefs(const FrrNeighbor& n,
                     const Context& ctx,
                     const std::string& at,
                     Errors& errors) {
  const auto out = advertised(n, ctx);
  std::map<std::string, uint32_t> pref_of_prefix;
  std::set<std::string> seen;
  const auto& list = n.to_advertise.with_local_pref;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = at + ".toAdvertise.withLocalPref[" + std::to_string(i) + "]";
    if (list[i].prefixes.empty()) {
      add(errors, field + ".prefixes", "Required value: at least one prefix");
    }
    std::set<std::string> families;
    for (const auto& p : list[i].prefixes) {
      if (out.count(p) == 0) {
        add(errors, field + ".prefixes",
            "prefix " + goQuote(p) + " is not advertised to this neighbor");
      }
      const auto [it, inserted] = pref_of_prefix.emplace(p, list[i].local_pref);
      if (!inserted && it->second != list[i].local_pref) {
        add(errors, field + ".prefixes",
            "prefix " + goQuote(p) + " has two different local preferences");
      }
      families.insert(familyKey(std::to_string(list[i].local_pref), p));
    }
    for (const auto& key : families) {
      if (!seen.insert(key).second) {
        add(errors, field + ".localPref",
            "local preference " + std::to_string(list[i].local_pref) + " is listed twice");
      }
    }
  }
}

void checkCommunities(const FrrNeighbor& n,
                      const Context& ctx,
                      const std::string& at,
                      Errors& errors) {
  const auto out = advertised(n, ctx);
  std::set<std::string> seen;
  const auto& list = n.to_advertise.with_community;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = at + ".toAdvertise.withCommunity[" + std::to_string(i) + "]";
    const std::string problem = communityError(list[i].community);
    if (!problem.empty()) {
      add(errors, field + ".community", problem);
    }
    std::set<std::string> families;
    for (const auto& p : list[i].prefixes) {
      if (out.count(p) == 0) {
        add(errors, field + ".prefixes",
            "prefix " + goQuote(p) + " is not advertised to this neighbor");
      }
      families.insert(familyKey(list[i].community, p));
    }
    for (const auto& key : families) {
      if (!seen.insert(key).second) {
        add(errors, field + ".community",
            "community " + goQuote(list[i].community) + " is listed twice");
      }
    }
  }
}

void checkPrefixSelector(const FrrPrefixSelector& s, const std::string& field, Errors& errors) {
  auto cidr = net::Cidr::parse(s.prefix);
  if (!cidr) {
    add(errors, field + ".prefix", cidr.error().message);
    return;
  }
  const int64_t bits = cidr->base().bits();
  const int64_t mask = cidr->prefixLength();
  if (s.le) {
    checkRange(*s.le, std::max<int64_t>(1, mask), bits, field + ".le", errors);
  }
  if (s.ge) {
    checkRange(*s.ge, std::max<int64_t>(1, mask), bits, field + ".ge", errors);
  }
  if (s.le && s.ge && *s.ge > *s.le) {
    add(errors, field,
        "ge " + std::to_string(*s.ge) + " must be lower or equal to le " + std::to_string(*s.le));
  }
}

void checkReceive(const FrrNeighbor& n, const std::string& at, Errors& errors) {
  const auto& rec = n.to_receive;
  if (!rec.allowed_mode.empty()) {
    checkEnum(rec.allowed_mode, {"filtered", "all"}, at + ".toReceive.allowed.mode", errors);
  }
  for (size_t i = 0; i < rec.allowed_prefixes.size(); ++i) {
    checkPrefixSelector(rec.allowed_prefixes[i],
                        at + ".toReceive.allowed.prefixes[" + std::to_string(i) + "]", errors);
  }
}

void checkNeighbor(const FrrNeighbor& n,
                   const Context& ctx,
                   const std::string& at,
                   Errors& errors) {
  checkIdentity(n, ctx, at, errors);
  checkSessionTimers(n, at, errors);
  if (!n.bfd_profile.empty() && ctx.bfd_profiles.count(n.bfd_profile) == 0) {
    add(errors, at + ".bfdProfile",
        "bfd profile " + goQuote(n.bfd_profile) + " is not defined in this configuration");
  }
  checkAllowed(n, ctx, at, errors);
  checkLocalPrefs(n, ctx, at, errors);
  checkCommunities(n, ctx, at, errors);
  checkReceive(n, at, errors);
}

const FrrRouter* routerForVrf(const FRRConfiguration& config, const std::string& vrf) {
  const std::string wanted = vrf == "default" ? "" : vrf;
  for (const auto& r : config.spec.routers) {
    if (r.vrf == wanted) {
      return &r;
    }
  }
  return nullptr;
}

void checkRouter(const FRRConfiguration& config, size_t index, Context& ctx, Errors& errors) {
  const FrrRouter& router = config.spec.routers[index];
  const std::string at = "spec.bgp.routers[" + std::to_string(index) + "]";
  for (size_t i = 0; i < router.prefixes.size(); ++i) {
    if (auto cidr = net::Cidr::parse(router.prefixes[i]); !cidr) {
      add(errors, at + ".prefixes[" + std::to_string(i) + "]", cidr.error().message);
    }
    ctx.router_prefixes.insert(router.prefixes[i]);
  }
  for (size_t i = 0; i < router.imports.size(); ++i) {
    const FrrRouter* imported = routerForVrf(config, router.imports[i]);
    if (imported == nullptr) {
      add(errors, at + ".imports[" + std::to_string(i) + "].vrf",
          "imported vrf " + goQuote(router.imports[i]) + " is not a router of this configuration");
    } else {
      ctx.router_prefixes.insert(imported->prefixes.begin(), imported->prefixes.end());
    }
  }
  for (size_t j = 0; j < router.neighbors.size(); ++j) {
    checkNeighbor(router.neighbors[j], ctx, at + ".neighbors[" + std::to_string(j) + "]", errors);
  }
}

void checkBfdProfiles(const FRRConfiguration& config,
                      std::set<std::string>& names,
                      Errors& errors) {
  const auto& list = config.spec.bfd_profiles;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& p = list[i];
    const std::string at = "spec.bgp.bfdProfiles[" + std::to_string(i) + "]";
    if (p.name.empty()) {
      add(errors, at + ".name", "Required value: name is required");
    } else if (!names.insert(p.name).second) {
      add(errors, at + ".name", "duplicate bfd profile name " + goQuote(p.name));
    }
    auto range = [&](const std::optional<uint32_t>& v, int64_t min, int64_t max, const char* key) {
      if (v) {
        checkRange(*v, min, max, at + "." + key, errors);
      }
    };
    range(p.receive_interval, 10, 60000, "receiveInterval");
    range(p.transmit_interval, 10, 60000, "transmitInterval");
    range(p.echo_interval, 10, 60000, "echoInterval");
    range(p.detect_multiplier, 2, 255, "detectMultiplier");
    range(p.minimum_ttl, 1, 254, "minimumTtl");
  }
}

}  // namespace

void validateFrrConfiguration(const FRRConfiguration& config, Errors& errors) {
  checkName(config.metadata, errors);
  if (config.spec.routers.size() > kMaxRouters) {
    add(errors, "spec.bgp.routers",
        "Too many: " + std::to_string(config.spec.routers.size()) + ": must have at most " +
            std::to_string(kMaxRouters) + " items");
  }
  std::set<std::string> profiles;
  checkBfdProfiles(config, profiles, errors);
  for (size_t i = 0; i < config.spec.routers.size(); ++i) {
    Context ctx{config, config.spec.routers[i], {}, profiles};
    checkRouter(config, i, ctx, errors);
  }
  checkSelector(config.spec.node_selector, "spec.nodeSelector", errors);
}

}  // namespace ingot::api::validation
