// SPDX-License-Identifier: Apache-2.0
#include "kube/compact_cache.h"

#include <mutex>
#include <unordered_set>

#include "common/net/ip.h"

namespace ingot::k8s {
namespace {

constexpr const char* kServiceNameLabelOfSlice = "kubernetes.io/service-name";

std::optional<std::string> textOf(const std::string* interned) {
  return interned != nullptr ? std::optional<std::string>(*interned) : std::nullopt;
}

/// packCondition packs an optional bool into 2 bits: 0 unset, 1 false, 2 true.
uint8_t packCondition(const std::optional<bool>& c, int shift) {
  return static_cast<uint8_t>((c ? (*c ? 2 : 1) : 0) << shift);
}

std::optional<bool> unpackCondition(uint8_t packed, int shift) {
  switch ((packed >> shift) & 3) {
    case 1:
      return false;
    case 2:
      return true;
    default:
      return std::nullopt;
  }
}

PackedEndpoint packEndpoint(const api::Endpoint& e, std::vector<std::string>& texts) {
  PackedEndpoint out;
  out.node = internOrNull(e.node_name);
  out.conditions = static_cast<uint8_t>(packCondition(e.conditions.ready, 0) |
                                        packCondition(e.conditions.serving, 2) |
                                        packCondition(e.conditions.terminating, 4));
  if (e.addresses.empty()) {
    return out;
  }
  const std::string& text = e.addresses.front();
  // Only text that formats back to itself is packed, so that unpacking gives the same string.
  if (auto ip = net::IpAddress::parse(text); ip && ip->toString() == text) {
    out.address = ip->isV4() ? PackedEndpoint::Address::V4 : PackedEndpoint::Address::V6;
    out.hi = static_cast<uint64_t>(ip->value() >> 64);
    out.lo = static_cast<uint64_t>(ip->value());
    return out;
  }
  out.address = PackedEndpoint::Address::Text;
  out.lo = texts.size();
  texts.push_back(text);
  return out;
}

api::Endpoint unpackEndpoint(const PackedEndpoint& p, const std::vector<std::string>& texts) {
  api::Endpoint out;
  out.node_name = textOf(p.node);
  out.conditions.ready = unpackCondition(p.conditions, 0);
  out.conditions.serving = unpackCondition(p.conditions, 2);
  out.conditions.terminating = unpackCondition(p.conditions, 4);
  const net::U128 value = (static_cast<net::U128>(p.hi) << 64) | p.lo;
  switch (p.address) {
    case PackedEndpoint::Address::None:
      break;
    case PackedEndpoint::Address::V4:
      out.addresses.push_back(net::IpAddress::of(net::Family::V4, value).toString());
      break;
    case PackedEndpoint::Address::V6:
      out.addresses.push_back(net::IpAddress::of(net::Family::V6, value).toString());
      break;
    case PackedEndpoint::Address::Text:
      out.addresses.push_back(texts.at(p.lo));
      break;
  }
  return out;
}

}  // namespace

const std::string* internOrNull(const std::optional<std::string>& text) {
  return text ? intern(*text) : nullptr;
}

std::optional<std::string> labelOf(const api::StringMap& labels, std::string_view key) {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::nullopt : std::optional<std::string>(it->second);
}

const std::string* intern(std::string_view text) {
  static std::mutex mu;
  static std::unordered_set<std::string> pool;  // node-based: pointers stay valid
  std::lock_guard lock(mu);
  return &*pool.emplace(text).first;
}

PackedSlice packSlice(const api::EndpointSlice& slice) {
  PackedSlice out;
  out.name = slice.metadata.name;
  out.namespace_ = intern(slice.metadata.namespace_);
  out.service = labelOf(slice.metadata.labels, kServiceNameLabelOfSlice);
  out.address_type = intern(slice.address_type);
  out.endpoints.reserve(slice.endpoints.size());
  for (const auto& e : slice.endpoints) {
    out.endpoints.push_back(packEndpoint(e, out.texts));
  }
  out.texts.shrink_to_fit();
  return out;
}

api::EndpointSlice unpackSlice(const PackedSlice& packed) {
  api::EndpointSlice out;
  out.metadata.name = packed.name;
  out.metadata.namespace_ = *packed.namespace_;
  if (packed.service) {
    out.metadata.labels.emplace(kServiceNameLabelOfSlice, *packed.service);
  }
  out.address_type = *packed.address_type;
  out.endpoints.reserve(packed.endpoints.size());
  for (const auto& e : packed.endpoints) {
    out.endpoints.push_back(unpackEndpoint(e, packed.texts));
  }
  return out;
}

std::string packedSliceService(const PackedSlice& packed) {
  return packed.service && !packed.service->empty() ? *packed.namespace_ + "/" + *packed.service
                                                    : std::string();
}

}  // namespace ingot::k8s
