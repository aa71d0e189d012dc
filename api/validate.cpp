// SPDX-License-Identifier: Apache-2.0
#include "api/validate.h"

#include <charconv>
#include <set>

#include "api/duration.h"
#include "api/frr_limits.h"
#include "api/secret.h"
#include "api/selector.h"
#include "api/validate_internal.h"
#include "common/net/ip.h"

namespace ingot::api {

namespace validation {
namespace {

/// validateAllocation checks IPAddressPool spec.serviceAllocation.
void validateAllocation(const ServiceAllocation& a, Errors& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < a.namespaces.size(); ++i) {
    if (!seen.insert(a.namespaces[i]).second) {
      add(errors, "spec.serviceAllocation.namespaces[" + std::to_string(i) + "]",
          "duplicate definition in namespaces field");
      break;
    }
  }
  checkSelectors(a.namespace_selectors, "spec.serviceAllocation.namespaceSelectors",
                 "namespaceSelectors", errors);
  checkSelectors(a.service_selectors, "spec.serviceAllocation.serviceSelectors", "serviceSelectors",
                 errors);
}

void validatePool(const IPAddressPool& pool, Errors& errors) {
  checkName(pool.metadata, errors);
  if (pool.spec.addresses.empty()) {
    add(errors, "spec.addresses", "pool has no prefixes defined");
  }
  for (size_t i = 0; i < pool.spec.addresses.size(); ++i) {
    const std::string& entry = pool.spec.addresses[i];
    auto cidrs = net::parseCidrOrRange(entry);
    if (!cidrs) {
      add(errors, "spec.addresses[" + std::to_string(i) + "]",
          "invalid CIDR " + goQuote(entry) + " in pool " + goQuote(pool.metadata.name) + ": " +
              cidrs.error().message);
    }
  }
  if (pool.spec.service_allocation) {
    validateAllocation(*pool.spec.service_allocation, errors);
  }
}

void validateL2(const L2Advertisement& ad, Errors& errors) {
  checkName(ad.metadata, errors);
  const auto& s = ad.spec;
  checkDuplicates(s.ip_address_pools, "spec.ipAddressPools", "ipAddressPools", errors);
  checkSelectors(s.ip_address_pool_selectors, "spec.ipAddressPoolSelectors",
                 "ipAddressPoolSelectors", errors);
  checkSelectors(s.node_selectors, "spec.nodeSelectors", "nodeSelectors", errors);
  checkSelectors(s.service_selectors, "spec.serviceSelectors", "serviceSelectors", errors);
  for (size_t i = 0; i < s.preferred_node_selectors.size(); ++i) {
    const std::string field = "spec.preferredNodeSelectors[" + std::to_string(i) + "]";
    checkRange(s.preferred_node_selectors[i].weight, 1, 100, field + ".weight", errors);
    checkSelector(s.preferred_node_selectors[i].preference, field + ".preference", errors);
  }
}

void checkAggregation(const BGPAdvertisementSpec& s, Errors& errors) {
  if (s.aggregation_length) {
    if (*s.aggregation_length > 32) {
      add(errors, "spec.aggregationLength",
          "invalid aggregation length " + std::to_string(*s.aggregation_length) + " for IPv4");
    } else {
      checkRange(*s.aggregation_length, 1, 32, "spec.aggregationLength", errors);
    }
  }
  // The CRD has no bounds for aggregationLengthV6 and MetalLB's parser only an upper one; a length
  // below a pool's IPv6 prefixes is rejected against the pools (config/), as MetalLB does.
  if (s.aggregation_length_v6 && *s.aggregation_length_v6 > 128) {
    add(errors, "spec.aggregationLengthV6",
        "invalid aggregation length " + std::to_string(*s.aggregation_length_v6) + " for IPv6");
  }
}

void validateBgpAdvertisement(const BGPAdvertisement& ad, Errors& errors) {
  checkName(ad.metadata, errors);
  const auto& s = ad.spec;
  checkAggregation(s, errors);
  checkDuplicates(s.ip_address_pools, "spec.ipAddressPools", "ipAddressPools", errors);
  checkDuplicates(s.communities, "spec.communities", "community", errors);
  for (size_t i = 0; i < s.communities.size(); ++i) {
    // Values without the A:B / large:A:B:C shape may name a Community alias: config/ resolves them.
    const std::string problem = communityError(s.communities[i]);
    if (isCommunityFormat(s.communities[i]) && !problem.empty()) {
      add(errors, "spec.communities[" + std::to_string(i) + "]",
          "invalid community " + goQuote(s.communities[i]) + " in BGP advertisement: " + problem);
    }
  }
  checkDuplicates(s.peers, "spec.peers", "peers", errors);
  checkSelectors(s.ip_address_pool_selectors, "spec.ipAddressPoolSelectors",
                 "ipAddressPoolSelectors", errors);
  checkSelectors(s.node_selectors, "spec.nodeSelectors", "nodeSelectors", errors);
  checkSelectors(s.service_selectors, "spec.serviceSelectors", "serviceSelectors", errors);
  const bool default_lengths =
      s.aggregation_length.value_or(32) == 32 && s.aggregation_length_v6.value_or(128) == 128;
  if (!s.service_selectors.empty() && !default_lengths) {
    add(errors, "spec",
        "serviceSelectors and aggregationLength are mutually exclusive, can only be used together "
        "with default aggregationLength (32) and aggregationLengthV6 (128)");
  }
}

void checkBfdValue(const std::optional<uint32_t>& value,
                   uint32_t min,
                   uint32_t max,
                   const std::string& field,
                   const std::string& what,
                   Errors& errors) {
  if (value && (*value < min || *value > max)) {
    add(errors, field,
        "invalid " + what + " value: invalid value " + std::to_string(*value) + ", must be in " +
            std::to_string(min) + "-" + std::to_string(max) + " range");
  }
}

void validateBfd(const BFDProfile& p, Errors& errors) {
  checkName(p.metadata, errors);
  if (auto problem = frr::bfdProfileNameProblem(p.metadata.name); !problem.empty()) {
    add(errors, "metadata.name", problem);
  }
  const auto& s = p.spec;
  checkBfdValue(s.detect_multiplier, 2, 255, "spec.detectMultiplier", "detect multiplier", errors);
  checkBfdValue(s.receive_interval, 10, 60000, "spec.receiveInterval", "receive interval", errors);
  checkBfdValue(s.transmit_interval, 10, 60000, "spec.transmitInterval", "transmit interval",
                errors);
  checkBfdValue(s.minimum_ttl, 1, 254, "spec.minimumTtl", "minimum ttl", errors);
  checkBfdValue(s.echo_interval, 10, 60000, "spec.echoInterval", "echo interval", errors);
}

void validateCommunity(const Community& c, Errors& errors) {
  checkName(c.metadata, errors);
  std::set<std::string> names;
  for (size_t i = 0; i < c.communities.size(); ++i) {
    const auto& alias = c.communities[i];
    const std::string field = "spec.communities[" + std::to_string(i) + "]";
    const std::string problem = communityError(alias.value);
    if (!problem.empty()) {
      add(errors, field + ".value", "parsing community " + goQuote(alias.name) + ": " + problem);
    }
    if (!names.insert(alias.name).second) {
      add(errors, field + ".name", "duplicate definition of community " + goQuote(alias.name));
    }
  }
}

void validateConfigurationState(const ConfigurationState& state, Errors& errors) {
  checkName(state.metadata, errors);
  const std::string& result = state.status.result;
  if (!result.empty() && result != "Valid" && result != "Invalid" && result != "Unknown") {
    add(errors, "status.result",
        "Unsupported value: " + goQuote(result) +
            ": supported values: \"Valid\", \"Invalid\", \"Unknown\"");
  }
  for (size_t i = 0; i < state.status.conditions.size(); ++i) {
    const auto& c = state.status.conditions[i];
    const std::string field = "status.conditions[" + std::to_string(i) + "]";
    if (c.type.empty()) {
      add(errors, field + ".type", "Required value");
    }
    if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
      add(errors, field + ".status",
          "Unsupported value: " + goQuote(c.status) +
              ": supported values: \"True\", \"False\", \"Unknown\"");
    }
  }
}

void validateService(const Service& svc, Errors& errors) {
  checkName(svc.metadata, errors);
  for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
    const auto& p = svc.spec.ports[i];
    const std::string field = "spec.ports[" + std::to_string(i) + "]";
    if (p.protocol != "TCP" && p.protocol != "UDP" && p.protocol != "SCTP") {
      add(errors, field + ".protocol",
          "Unsupported value: " + goQuote(p.protocol) +
              ": supported values: \"SCTP\", \"TCP\", \"UDP\"");
    }
    checkRange(p.port, 1, 65535, field + ".port", errors);
  }
  for (size_t i = 0; i < svc.status.ingress.size(); ++i) {
    checkIp(svc.status.ingress[i].ip, "status.loadBalancer.ingress[" + std::to_string(i) + "].ip",
            "invalid IP", errors);
  }
}

void validateEndpointSlice(const EndpointSlice& slice, Errors& errors) {
  checkName(slice.metadata, errors, true);
  const std::string& t = slice.address_type;
  if (t != "IPv4" && t != "IPv6" && t != "FQDN") {
    add(errors, "addressType",
        "Unsupported value: " + goQuote(t) + ": supported values: \"FQDN\", \"IPv4\", \"IPv6\"");
  }
}

void validateSecret(const Secret& secret, Errors& errors) {
  checkName(secret.metadata, errors);
  for (const auto& [key, value] : secret.data) {
    auto decoded = decodeBase64(value);
    if (!decoded) {
      add(errors, "data[" + key + "]", decoded.error().message);
    }
  }
}

}  // namespace
}  // namespace validation

std::vector<FieldError> objectWarnings(const AnyObject& object) {
  std::vector<FieldError> out;
  if (const auto* peer = std::get_if<BGPPeer>(&object); peer != nullptr && peer->spec.disable_mp) {
    out.push_back({"spec.disableMP", kDisableMpWarning});
  }
  return out;
}

std::vector<FieldError> validateObject(const AnyObject& object) {
  using namespace validation;  // NOLINT(google-build-using-namespace): dispatch table only
  Errors errors;
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, IPAddressPool>) {
          validatePool(o, errors);
        } else if constexpr (std::is_same_v<T, L2Advertisement>) {
          validateL2(o, errors);
        } else if constexpr (std::is_same_v<T, BGPAdvertisement>) {
          validateBgpAdvertisement(o, errors);
        } else if constexpr (std::is_same_v<T, BGPPeer>) {
          validateBgpPeer(o, errors);
        } else if constexpr (std::is_same_v<T, BGPPeerV1beta1>) {
          validateBgpPeerV1beta1(o, errors);
        } else if constexpr (std::is_same_v<T, BFDProfile>) {
          validateBfd(o, errors);
        } else if constexpr (std::is_same_v<T, Community>) {
          validateCommunity(o, errors);
        } else if constexpr (std::is_same_v<T, ServiceL2Status> ||
                             std::is_same_v<T, ServiceBGPStatus>) {
          checkName(o.metadata, errors, true);
        } else if constexpr (std::is_same_v<T, ConfigurationState>) {
          validateConfigurationState(o, errors);
        } else if constexpr (std::is_same_v<T, FRRConfiguration>) {
          validateFrrConfiguration(o, errors);
        } else if constexpr (std::is_same_v<T, Service>) {
          validateService(o, errors);
        } else if constexpr (std::is_same_v<T, EndpointSlice>) {
          validateEndpointSlice(o, errors);
        } else if constexpr (std::is_same_v<T, Secret>) {
          validateSecret(o, errors);
        } else {
          checkName(o.metadata, errors);  // Node, Namespace
        }
      },
      object);
  return errors;
}

}  // namespace ingot::api
