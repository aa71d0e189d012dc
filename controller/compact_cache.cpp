// SPDX-License-Identifier: Apache-2.0
#include "controller/compact_cache.h"

#include <tuple>

#include "controller/core/projections.h"
#include "controller/core/unannounced.h"
#include "kube/compact_cache.h"

namespace ingot::controller {
namespace {

template <typename T>
PackedReport pack(const T& status) {
  PackedReport out;
  out.name = status.metadata.name;
  out.namespace_ = k8s::intern(status.metadata.namespace_);
  out.node = k8s::intern(status.status.node);
  out.service_name = status.status.service_name;
  out.service_namespace = k8s::intern(status.status.service_namespace);
  return out;
}

template <typename T>
T unpack(const PackedReport& packed) {
  T out;
  out.metadata.name = packed.name;
  out.metadata.namespace_ = *packed.namespace_;
  out.status.node = *packed.node;
  out.status.service_name = packed.service_name;
  out.status.service_namespace = *packed.service_namespace;
  return out;
}

std::optional<std::string> textOf(const std::string* interned) {
  return interned != nullptr ? std::optional<std::string>(*interned) : std::nullopt;
}

PackedService::Pairs packPairs(const api::StringMap& map) {
  PackedService::Pairs out;
  out.reserve(map.size());
  for (const auto& [k, v] : map) out.emplace_back(k8s::intern(k), v);
  return out;
}

api::StringMap unpackPairs(const PackedService::Pairs& pairs) {
  api::StringMap out;
  for (const auto& [k, v] : pairs) out.emplace(*k, v);
  return out;
}

}  // namespace

PackedService packService(const api::Service& svc) {
  api::Service p = svc;
  projectService(p);
  PackedService out;
  out.name = std::move(p.metadata.name);
  out.namespace_ = k8s::intern(p.metadata.namespace_);
  out.uid = std::move(p.metadata.uid);
  out.resource_version = std::move(p.metadata.resource_version);
  out.generation = p.metadata.generation;
  out.labels = packPairs(p.metadata.labels);
  out.annotations = packPairs(p.metadata.annotations);
  const api::ServiceSpec& spec = p.spec;
  out.type = k8s::intern(spec.type);
  out.cluster_ip = spec.cluster_ip;
  out.cluster_ips = spec.cluster_ips;
  for (const auto& f : spec.ip_families) out.ip_families.push_back(k8s::intern(f));
  out.ip_family_policy = k8s::internOrNull(spec.ip_family_policy);
  out.load_balancer_ip = spec.load_balancer_ip;
  out.load_balancer_class = k8s::internOrNull(spec.load_balancer_class);
  out.external_traffic_policy = k8s::intern(spec.external_traffic_policy);
  out.selector = packPairs(spec.selector);
  out.ports.reserve(spec.ports.size());
  for (const auto& port : spec.ports) out.ports.push_back({k8s::intern(port.protocol), port.port});
  out.ingress = std::move(p.status.ingress);
  out.conditions = std::move(p.status.conditions);
  return out;
}

api::Service unpackService(const PackedService& packed) {
  api::Service out;
  out.metadata.name = packed.name;
  out.metadata.namespace_ = *packed.namespace_;
  out.metadata.uid = packed.uid;
  out.metadata.resource_version = packed.resource_version;
  out.metadata.generation = packed.generation;
  out.metadata.labels = unpackPairs(packed.labels);
  out.metadata.annotations = unpackPairs(packed.annotations);
  api::ServiceSpec& spec = out.spec;
  spec.type = *packed.type;
  spec.cluster_ip = packed.cluster_ip;
  spec.cluster_ips = packed.cluster_ips;
  for (const std::string* f : packed.ip_families) spec.ip_families.push_back(*f);
  spec.ip_family_policy = textOf(packed.ip_family_policy);
  spec.load_balancer_ip = packed.load_balancer_ip;
  spec.load_balancer_class = textOf(packed.load_balancer_class);
  spec.external_traffic_policy = *packed.external_traffic_policy;
  spec.selector = unpackPairs(packed.selector);
  spec.ports.reserve(packed.ports.size());
  for (const auto& port : packed.ports) {
    api::ServicePort sp;
    sp.protocol = *port.protocol;
    sp.port = port.port;
    spec.ports.push_back(std::move(sp));
  }
  out.status.ingress = packed.ingress;
  out.status.conditions = packed.conditions;
  return out;
}

bool samePackedService(const PackedService& a, const PackedService& b) {
  // Every field but the resourceVersion, as sameProjectedService compares the projections:
  // interned names are equal exactly when their pointers are, and the pairs keep the maps' order.
  auto fields = [](const PackedService& s) {
    return std::tie(s.name, s.namespace_, s.uid, s.generation, s.labels, s.annotations, s.type,
                    s.cluster_ip, s.cluster_ips, s.ip_families, s.ip_family_policy,
                    s.load_balancer_ip, s.load_balancer_class, s.external_traffic_policy,
                    s.selector, s.ports, s.ingress, s.conditions);
  };
  return fields(a) == fields(b);
}

PackedReport packBgpReport(const api::ServiceBGPStatus& status) {
  return pack(status);
}

api::ServiceBGPStatus unpackBgpReport(const PackedReport& packed) {
  return unpack<api::ServiceBGPStatus>(packed);
}

PackedReport packL2Report(const api::ServiceL2Status& status) {
  return pack(status);
}

api::ServiceL2Status unpackL2Report(const PackedReport& packed) {
  return unpack<api::ServiceL2Status>(packed);
}

std::string reportServiceKey(const PackedReport& packed) {
  api::ServiceBGPStatus status;
  status.status.service_name = packed.service_name;
  status.status.service_namespace = *packed.service_namespace;
  return bgpStatusServiceKey(status);
}

}  // namespace ingot::controller
