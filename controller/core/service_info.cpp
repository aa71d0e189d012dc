// SPDX-License-Identifier: Apache-2.0
#include "controller/core/service_info.h"

#include <string_view>

#include "controller/core/go_format.h"

namespace ingot::controller {
namespace {

std::string_view trimSpace(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> splitComma(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) {
      return out;
    }
    start = comma + 1;
  }
}

}  // namespace

std::string serviceKey(const api::Service& svc) {
  return svc.metadata.namespace_ + "/" + svc.metadata.name;
}

std::string annotationValue(const api::StringMap& annotations,
                            const char* key,
                            const char* legacy_key) {
  if (auto it = annotations.find(key); it != annotations.end()) {
    return it->second;
  }
  if (auto it = annotations.find(legacy_key); it != annotations.end()) {
    return it->second;
  }
  return "";
}

std::string selectorString(const api::StringMap& selector) {
  std::string out;
  for (const auto& [k, v] : selector) {  // std::map: sorted by key, as labels.Set.String()
    if (!out.empty()) {
      out += ',';
    }
    out += k + "=" + v;
  }
  return out;
}

std::string backendKey(const api::Service& svc) {
  return svc.spec.external_traffic_policy == "Local" ? selectorString(svc.spec.selector) : "";
}

std::vector<Port> servicePorts(const api::Service& svc) {
  std::vector<Port> ports;
  ports.reserve(svc.spec.ports.size());
  for (const auto& p : svc.spec.ports) {
    ports.push_back(Port{p.protocol, p.port});
  }
  return ports;
}

ServiceRequest makeRequest(const api::Service& svc) {
  ServiceRequest req;
  req.key = serviceKey(svc);
  req.namespace_ = svc.metadata.namespace_;
  req.labels = svc.metadata.labels;
  req.ports = servicePorts(svc);
  req.sharing.sharing = annotationValue(svc.metadata.annotations, kAnnotationAllowSharedIp,
                                        kLegacyAnnotationAllowSharedIp);
  req.sharing.backend = backendKey(svc);
  return req;
}

FamilyPolicy familyPolicy(const api::Service& svc) {
  const auto& p = svc.spec.ip_family_policy;
  if (p && *p == "PreferDualStack") {
    return FamilyPolicy::PreferDualStack;
  }
  if (p && *p == "RequireDualStack") {
    return FamilyPolicy::RequireDualStack;
  }
  return FamilyPolicy::SingleStack;
}

Result<ServiceFamily> familyOfAddresses(const std::vector<std::string>& addresses) {
  if (addresses.empty() || addresses.size() > 2) {
    return invalidArgument("IPFamilyForAddresses: invalid ips length " +
                           std::to_string(addresses.size()) + " " + goQuoteList(addresses));
  }
  net::Family families[2] = {};
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    auto ip = net::IpAddress::parse(addresses[i]);
    if (!ip) {
      return invalidArgument("IPFamilyForAddresses: Invalid address " + goQuoteList(addresses));
    }
    families[i] = ip->family();
  }
  if (addresses.size() == 1) {
    return families[0] == net::Family::V4 ? ServiceFamily::V4 : ServiceFamily::V6;
  }
  if (families[0] == families[1]) {
    return invalidArgument("IPFamilyForAddresses: same address family " + goQuoteList(addresses));
  }
  return ServiceFamily::Dual;
}

Result<ServiceFamily> clusterFamily(const api::Service& svc) {
  if (!svc.spec.cluster_ips.empty()) {
    return familyOfAddresses(svc.spec.cluster_ips);
  }
  return familyOfAddresses({svc.spec.cluster_ip});
}

FamilyRequest makeFamilyRequest(const api::Service& svc, ServiceFamily family) {
  FamilyRequest req;
  req.family = family;
  req.policy = familyPolicy(svc);
  if (!svc.spec.ip_families.empty() && svc.spec.ip_families.front() == "IPv6") {
    req.primary = net::Family::V6;
  }
  return req;
}

Result<RequestedIps> requestedIps(const api::Service& svc) {
  const std::string annotation = annotationValue(
      svc.metadata.annotations, kAnnotationLoadBalancerIps, kLegacyAnnotationLoadBalancerIps);
  const std::string& spec_ip = svc.spec.load_balancer_ip;
  RequestedIps out;
  if (annotation.empty() && spec_ip.empty()) {
    return out;
  }
  if (!annotation.empty() && !spec_ip.empty()) {
    return invalidArgument(std::string("service can not have both ") + kAnnotationLoadBalancerIps +
                           " and svc.Spec.LoadBalancerIP");
  }
  if (annotation.empty()) {
    auto ip = net::IpAddress::parse(spec_ip);
    if (!ip) {
      return invalidArgument("invalid spec.loadBalancerIP " + goQuote(spec_ip));
    }
    out.ips.push_back(*ip);
    out.family = ip->isV4() ? ServiceFamily::V4 : ServiceFamily::V6;
    return out;
  }
  for (const auto& part : splitComma(annotation)) {
    auto ip = net::IpAddress::parse(trimSpace(part));
    if (!ip) {
      return invalidArgument(std::string("invalid ") + kAnnotationLoadBalancerIps + ": " +
                             goQuote(annotation));
    }
    out.ips.push_back(*ip);
  }
  if (out.ips.size() > 2) {
    return invalidArgument("IPFamilyForAddresses: invalid ips length " +
                           std::to_string(out.ips.size()) + " " + goQuoteList(ipStrings(out.ips)));
  }
  if (out.ips.size() == 2) {
    if (out.ips[0].family() == out.ips[1].family()) {
      return invalidArgument("IPFamilyForAddresses: same address family " +
                             goQuoteList(ipStrings(out.ips)));
    }
    out.family = ServiceFamily::Dual;
  } else {
    out.family = out.ips[0].isV4() ? ServiceFamily::V4 : ServiceFamily::V6;
  }
  return out;
}

std::vector<std::string> statusIps(const api::Service& svc) {
  std::vector<std::string> ips;
  for (const auto& ingress : svc.status.ingress) {
    if (!ingress.ip.empty()) {
      ips.push_back(ingress.ip);
    }
  }
  return ips;
}

}  // namespace ingot::controller
